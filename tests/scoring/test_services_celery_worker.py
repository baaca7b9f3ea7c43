"""A score sheet job goes through Redis to a real ``celery worker`` and back to PostgreSQL."""

import re
import time

import pytest
from django.db import transaction

from scoring.models import ScoresheetJob
from scoring.services import scoresheet_job_submit
from scoring.tasks import scoresheet_job_run
from tests.scoring.sheets import TONK_KNOCK_SHEET, TONK_KNOCK_TOTALS
from tests.services import WorkerProcess

pytestmark = pytest.mark.services

WAIT_SECONDS = 30


def wait_until_done(job_id: int, worker: WorkerProcess) -> ScoresheetJob:
    """Poll the database until the worker has finished job ``job_id``."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        job = ScoresheetJob.objects.get(pk=job_id)
        if job.status == ScoresheetJob.Status.DONE:
            return job
        if time.monotonic() > deadline:
            pytest.fail(f"job {job_id} still {job.status} after {WAIT_SECONDS} s:\n{worker.log()}")
        time.sleep(0.1)


@pytest.mark.django_db(transaction=True)
def test_worker_scores_submitted_sheet_and_second_run_changes_nothing(
    celery_with_worker: WorkerProcess,
) -> None:
    with transaction.atomic():
        submitted = scoresheet_job_submit(sheet=TONK_KNOCK_SHEET)

    job = wait_until_done(submitted.pk, celery_with_worker)

    assert job.result is not None
    assert job.result["totals"] == TONK_KNOCK_TOTALS
    assert job.result["hands"][0]["scores"] == TONK_KNOCK_TOTALS
    assert job.finished_at is not None
    assert re.search(
        r"Task scoring\.tasks\.scoresheet_job_run\[[0-9a-f-]+\] succeeded", celery_with_worker.log()
    )

    scoresheet_job_run.apply(args=(job.pk,)).get()

    again = ScoresheetJob.objects.get(pk=job.pk)
    assert (again.status, again.result, again.finished_at) == (
        job.status,
        job.result,
        job.finished_at,
    )
