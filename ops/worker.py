"""What a Celery worker does besides its tasks: when it starts, it runs the tick with every
waiting piece of work sent again (a message may have been lost with a worker killed before it;
the tasks are safe to run twice)."""

from __future__ import annotations

import logging
from typing import Any

from celery.signals import worker_ready
from django.utils import timezone

logger = logging.getLogger(__name__)


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
