"""Writes of the scoring app. Every function here is keyword-only and runs in a transaction."""

from django.db import transaction
from django.utils import timezone

from scoring.models import ScoresheetJob
from scoring.tasks import scoresheet_job_run
from tonkrules.sheet import score_sheet_json


@transaction.atomic
def scoresheet_job_submit(*, sheet: object) -> ScoresheetJob:
    """Store ``sheet`` as a queued job and score it in the background once this commits.

    In the embedded mode the task runs eagerly, right after the commit, in this process.
    """
    job = ScoresheetJob.objects.create(sheet=sheet)
    scoresheet_job_run.delay_on_commit(job.pk)
    return job


@transaction.atomic
def scoresheet_job_complete(*, job_id: int) -> ScoresheetJob:
    """Score job ``job_id``'s sheet with the rules engine and record the result.

    A sheet that breaks a rule is done too: its result is the engine's ``{"error": ...}``.
    Idempotent: a job already done is returned unchanged.
    """
    job = ScoresheetJob.objects.select_for_update().get(pk=job_id)
    if job.status == ScoresheetJob.Status.DONE:
        return job
    _exit_code, job.result = score_sheet_json(job.sheet)
    job.status = ScoresheetJob.Status.DONE
    job.finished_at = timezone.now()
    job.save(update_fields=("result", "status", "finished_at"))
    return job
