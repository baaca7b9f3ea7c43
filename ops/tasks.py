"""Celery tasks of ops: the tick."""

from celery import shared_task


@shared_task
def tick() -> dict[str, int]:
    """Run the tick's jobs (Celery beat, every ``TICK_SECONDS``): call time on rounds whose
    deadline passed, send again the work that waited too long (``ops.background.tick``)."""
    from ops.background import tick as run

    return run()
