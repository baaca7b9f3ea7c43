"""Background work: a database row first, a message second.

Whatever a request asks of the background (seat a round, refresh standings, score a sheet) is
recorded in the request's own transaction as a row of the app that owns the work (a planned
round, standings behind their results, a queued job). :func:`enqueue` then sends the task once
that transaction commits. A broker that cannot take the message (Redis down) is logged and the
request goes on: its write is committed, and the row still says the work waits. The tick
(:func:`tick`: Celery beat, or ``manage.py tick --loop`` in the embedded mode) runs the jobs
the apps register with :func:`tick_register`; theirs is to send again what has waited longer
than ``BACKGROUND_RESEND_SECONDS``. So a lost message, a broker outage or a killed worker
delays the work but never drops it; every task is safe to run twice.

The apps also register, with :func:`waiting_register`, how to find their oldest waiting work,
which the health check reports (``ops.health``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol

from celery import Task
from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from kombu.exceptions import KombuError
from redis import RedisError

from ops.models import Heartbeat

logger = logging.getLogger(__name__)

#: What sending a message can raise when the broker is down or unreachable; Celery wraps most
#: of them in kombu's ``OperationalError``.
BROKER_ERRORS: tuple[type[BaseException], ...] = (KombuError, OSError, RedisError)

#: The heartbeat name of the tick.
TICK = "tick"


class TickJob(Protocol):
    """A job of the tick: ``job(now=..., resend_before=...)`` returns how many things it did
    (rounds whose time it called, tasks it sent again). ``resend_before``: work sent before
    that moment has waited too long and is sent again."""

    def __call__(self, *, now: datetime, resend_before: datetime) -> int: ...


_tick_jobs: dict[str, TickJob] = {}
_waiting: dict[str, Callable[[], datetime | None]] = {}


def enqueue(task: Task[Any, Any], *args: object) -> None:
    """Send ``task(*args)`` to the workers once the current transaction commits (at once
    outside a transaction; never if it rolls back).

    The caller has recorded the work in that transaction, so a failed send loses nothing: it
    is logged (``ops.background``, warning) and the tick sends the work again. Never raises
    for the broker; in the embedded mode (tasks run eagerly) the task runs after the commit,
    in this process, and its errors propagate as before.
    """
    transaction.on_commit(partial(send, task, *args))


#: Broker URL → until when (``time.monotonic()``) this process sends nothing to it: after a
#: send it refused or let time out, the next ``BROKER_BACKOFF_SECONDS`` skip it, so that while
#: Redis hangs only one request in that time waits for its timeouts (the work is in the
#: database: the tick sends it again).
_broker_down: dict[str, float] = {}
#: The clock of the back-off (tests move it).
_clock = time.monotonic


def broker_backoff_forget() -> None:
    """Forget every broker this process skips after a failed send (:func:`send`'s back-off):
    the next send tries each broker again. For tests, which start each from a clean slate."""
    _broker_down.clear()


def send(task: Task[Any, Any], *args: object) -> bool:
    """Send ``task(*args)`` now. Returns whether the broker took it (a broker error is logged,
    not raised: see :func:`enqueue`; after one, this process skips that broker for
    ``BROKER_BACKOFF_SECONDS``, logging each send it skips)."""
    conf = task.app.conf
    url = str(conf.broker_url)
    now = _clock()
    if not conf.task_always_eager and _broker_down.get(url, 0.0) > now:
        logger.warning(
            "%s%r not sent (the broker failed less than %s s ago); the tick will send it again",
            task.name,
            args,
            settings.BROKER_BACKOFF_SECONDS,
        )
        return False
    try:
        task.apply_async(args)
    except BROKER_ERRORS as error:
        _broker_down[url] = _clock() + settings.BROKER_BACKOFF_SECONDS
        logger.warning(
            "%s%r not sent (%s: %s); the tick will send it again",
            task.name,
            args,
            type(error).__name__,
            error,
        )
        return False
    return True


def resend_waiting(
    waiting: QuerySet[Any],
    *,
    sent_at: str,
    task: Task[Any, Any],
    now: datetime,
    resend_before: datetime,
) -> int:
    """A tick job's work: send ``task(pk)`` again for every row of ``waiting`` (the rows whose
    work waits: planned rounds, queued jobs) last sent before ``resend_before`` (or never),
    noting ``now`` in their ``sent_at`` field. Rows locked by a task running now are skipped
    (their work is under way). One transaction; the sends go after its commit. Returns how many
    were sent again."""
    with transaction.atomic():
        due = Q(**{f"{sent_at}__lt": resend_before}) | Q(**{f"{sent_at}__isnull": True})
        ids = list(
            waiting.select_for_update(skip_locked=True).filter(due).values_list("pk", flat=True)
        )
        waiting.model._default_manager.filter(pk__in=ids).update(**{sent_at: now})
        for pk in ids:
            enqueue(task, pk)
    return len(ids)


def tick_register(name: str, job: TickJob) -> None:
    """Run ``job`` at every tick, under ``name`` (registering a name again replaces it). Apps
    register their jobs in ``AppConfig.ready``."""
    _tick_jobs[name] = job


def waiting_register(name: str, oldest: Callable[[], datetime | None]) -> None:
    """Report ``oldest()`` (since when the oldest work of this kind waits; None: none waits)
    in the health check, under ``name``."""
    _waiting[name] = oldest


def resend_after() -> timedelta:
    """How long work may wait for its task before the tick sends it again
    (``BACKGROUND_RESEND_SECONDS``)."""
    return timedelta(seconds=settings.BACKGROUND_RESEND_SECONDS)


def tick(*, now: datetime | None = None, resend_before: datetime | None = None) -> dict[str, int]:
    """Run every registered tick job once, then record the tick's heartbeat if none failed.

    Args:
        now: the time the jobs take as now (tests pass a later one: a deadline passed, work
            waited long enough); default the current time.
        resend_before: work sent before this is sent again; default ``now`` minus
            ``BACKGROUND_RESEND_SECONDS``. A worker that starts passes ``now`` (everything that
            waits is sent again: a message may have gone with a killed worker).

    Returns:
        What each job did, by name. A job that raises is logged and counted -1; the others
        still run (the clock must keep going all night), but the heartbeat is not recorded:
        a tick whose jobs keep failing shows on ``/healthz`` as a tick too old.
    """
    now = now or timezone.now()
    if resend_before is None:
        resend_before = now - resend_after()
    done: dict[str, int] = {}
    for name, job in list(_tick_jobs.items()):
        try:
            done[name] = job(now=now, resend_before=resend_before)
        except Exception:
            logger.exception("tick job %s failed", name)
            done[name] = -1
    if all(count >= 0 for count in done.values()):
        beat(TICK)
    return done


def oldest_waiting() -> tuple[str, datetime] | None:
    """The kind of background work that has waited longest, and since when; None when nothing
    waits. One query per registered kind."""
    found = [(since, name) for name, oldest in _waiting.items() if (since := oldest()) is not None]
    if not found:
        return None
    since, name = min(found)
    return name, since


def beat(name: str) -> None:
    """Record that ``name`` is alive now (one upsert)."""
    Heartbeat.objects.bulk_create(
        [Heartbeat(name=name, at=timezone.now())],
        update_conflicts=True,
        unique_fields=("name",),
        update_fields=("at",),
    )
