"""Celery tasks of the scoring app: each takes ids, calls one service, and is idempotent."""

from celery import shared_task


@shared_task
def scoresheet_job_run(job_id: int) -> None:
    """Score the queued score sheet job ``job_id``; a job already done is left as it is."""
    # Imported here: the service module enqueues this task, so it imports this module.
    from scoring.services import scoresheet_job_complete

    scoresheet_job_complete(job_id=job_id)
