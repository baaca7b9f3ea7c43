"""What a Celery worker does besides its tasks.

- When it starts, it runs the tick with every waiting piece of work sent again (a message may
  have been lost with a worker killed before it; the tasks are safe to run twice).
- While it runs, it beats: ``ops.background.beat("worker:<hostname>")`` when it starts and
  then every ``HEALTH_WORKER_SECONDS / 4`` seconds, from a worker bootstep on the worker's own
  timer (the main process's event loop, or the timer thread of pools without one), so it beats
  while the worker idles; the health check (``ops.health``) fails "no worker heartbeat" when
  none beat within ``HEALTH_WORKER_SECONDS``. With the prefork pool (the default) the tasks
  run in child processes and the beat goes on during a long task; with ``--pool=solo`` a task
  holds the beat until it ends.

The step is added to every ``celery worker`` through the ``celeryd_init`` signal, connected
when ``config/celery.py`` imports this module.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import bootsteps
from celery.signals import celeryd_init, worker_ready
from django.conf import settings
from django.db import DatabaseError, close_old_connections
from django.utils import timezone

logger = logging.getLogger(__name__)

#: A worker's heartbeat is named this, then its Celery hostname (``celery@host``).
WORKER_PREFIX = "worker:"


@worker_ready.connect
def resend_waiting_work(**_kwargs: Any) -> None:
    """On a worker's start: the tick, with everything that waits sent again now."""
    from ops.background import tick

    now = timezone.now()
    try:
        done = tick(now=now, resend_before=now)
    except Exception:  # a worker that cannot reach the database still starts; the tick retries
        logger.exception("the tick at the worker's start failed")
    else:
        logger.info("tick at the worker's start: %s", done)


def heartbeat_name(hostname: str) -> str:
    """The heartbeat name of the worker called ``hostname``: ``worker:<hostname>``."""
    return WORKER_PREFIX + hostname


def beat_seconds() -> float:
    """Seconds between two heartbeats of a worker: a quarter of ``HEALTH_WORKER_SECONDS``,
    so that a late or failed beat or two do not fail the health check."""
    return float(settings.HEALTH_WORKER_SECONDS) / 4


def worker_beat(hostname: str) -> None:
    """Record that the worker ``hostname`` is alive now. A database error is logged (warning),
    not raised: the worker goes on, and the health check sees the missing heartbeat. Stale or
    broken database connections are dropped before and after, as Celery does around tasks."""
    from ops.background import beat

    close_old_connections()
    try:
        beat(heartbeat_name(hostname))
    except DatabaseError as error:
        logger.warning("worker heartbeat not recorded (%s: %s)", type(error).__name__, error)
    finally:
        close_old_connections()


class WorkerHeartbeat(bootsteps.StartStopStep):
    """A worker bootstep: beat when the worker starts, then every :func:`beat_seconds` on the
    worker's timer; stop beating when the worker stops."""

    requires = ("celery.worker.components:Timer",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.timer_entry: Any = None

    def start(self, parent: Any) -> None:
        """Beat now, and every :func:`beat_seconds` from now on."""
        worker_beat(parent.hostname)
        self.timer_entry = parent.timer.call_repeatedly(
            beat_seconds(), worker_beat, (parent.hostname,), priority=10
        )

    def stop(self, parent: Any) -> None:
        """Stop beating (the heartbeat then ages out of the health check)."""
        if self.timer_entry is not None:
            self.timer_entry.cancel()
            self.timer_entry = None


@celeryd_init.connect
def add_heartbeat_step(*, instance: Any, **_kwargs: Any) -> None:
    """Add :class:`WorkerHeartbeat` to the steps of a ``celery worker`` as it starts."""
    instance.app.steps["worker"].add(WorkerHeartbeat)
