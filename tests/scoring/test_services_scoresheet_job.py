"""The score sheet job services in the embedded mode: the task runs eagerly after commit."""

import pytest

from scoring.models import ScoresheetJob
from scoring.services import scoresheet_job_complete, scoresheet_job_submit
from tests.scoring.sheets import TONK_BAD_CARD_SHEET, TONK_KNOCK_SHEET, TONK_KNOCK_TOTALS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_eager")]


def test_submit_scores_sheet_synchronously_on_commit(django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        submitted = scoresheet_job_submit(sheet=TONK_KNOCK_SHEET)

    assert len(callbacks) == 1
    job = ScoresheetJob.objects.get(pk=submitted.pk)
    assert job.status == ScoresheetJob.Status.DONE
    assert job.result is not None
    assert job.result["totals"] == TONK_KNOCK_TOTALS
    assert job.finished_at is not None


def test_submit_leaves_job_queued_until_commit(django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=False):
        submitted = scoresheet_job_submit(sheet=TONK_KNOCK_SHEET)

    job = ScoresheetJob.objects.get(pk=submitted.pk)
    assert (job.status, job.result, job.finished_at) == (ScoresheetJob.Status.QUEUED, None, None)


def test_complete_twice_changes_nothing_the_second_time() -> None:
    job = ScoresheetJob.objects.create(sheet=TONK_KNOCK_SHEET)

    first = scoresheet_job_complete(job_id=job.pk)
    second = scoresheet_job_complete(job_id=job.pk)

    assert second.finished_at == first.finished_at
    assert second.result == first.result


def test_complete_records_rule_error_of_bad_sheet() -> None:
    job = ScoresheetJob.objects.create(sheet=TONK_BAD_CARD_SHEET)

    done = scoresheet_job_complete(job_id=job.pk)

    assert done.status == ScoresheetJob.Status.DONE
    assert done.result is not None
    assert done.result["error"]["code"] == "bad_card"
    assert done.result["error"]["hand"] == 1
