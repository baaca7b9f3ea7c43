"""Score sheets: importing a whole sheet as a new game, and the background scoring jobs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from ops import idempotency
from ops.background import enqueue, resend_waiting
from scoring import ledger
from scoring.errors import HandNotNext
from scoring.models import Game, Hand, ScoresheetJob
from scoring.services.common import User, write_revision
from scoring.services.games import game_start
from scoring.tasks import scoresheet_job_run
from tonkrules import HandScore
from tonkrules.errors import FormatError
from tonkrules.sheet import (
    SheetError,
    read_sheet,
    score,
    score_sheet_json,
)


@transaction.atomic
def scoresheet_import(
    *,
    sheet: object,
    club: Any = None,
    created_by: User = None,
    idempotency_key: str | None = None,
) -> tuple[Game, bool]:
    """Import a whole score sheet as a new game, its hands stored verbatim, scored and lined.

    Each hand may say which hand it is (``number``, kept beside the hand, not in it): the
    first is 1, each next one more (one hand, once, as at a table).

    Returns:
        (the game, whether it was created now; a retry with the same key returns the first).

    Raises:
        SheetError: the sheet breaks a rule or the format (a ``number`` that is not a whole
            number from 1 is ``bad_format``); nothing is stored.
        HandNotNext: a hand's ``number`` is not its place in the sheet (409); nothing stored.
    """
    sheet = _numbered(sheet)
    checked = read_sheet(sheet)
    assert isinstance(sheet, dict)
    result = score(checked)
    game, created = game_start(
        kind=checked.game.name,
        players=list(checked.players),
        options=sheet.get("options"),
        stake=sheet.get("stake"),
        currency=sheet.get("currency"),
        club=club,
        created_by=created_by,
        idempotency_key=idempotency_key,
        _fingerprint=idempotency.fingerprint(
            "POST", "games/import", {"sheet": sheet, "club": getattr(club, "pk", None)}
        ),
    )
    if not created:
        return game, False
    engine = checked.game
    seats = {name: seat_id for name, seat_id in game.seating}
    scored: list[tuple[Hand, HandScore]] = []
    for number, (entry, record, score_) in enumerate(
        zip(sheet["hands"], checked.hands, result.hands, strict=True), 1
    ):
        hand = write_revision(
            game=game,
            number=number,
            revision=1,
            entry=entry,
            engine=engine,
            record=record,
            score_=score_,
            seats=seats,
            entered_by=created_by,
            via=Hand.Via.IMPORT,
            idempotency_key="",
        )
        if hand is None:  # only a write with an idempotency key can find its place taken
            raise RuntimeError(f"hand {number} of an import was not written")
        scored.append((hand, score_))
    ledger.import_hands(game, scored)
    return game, True


#: The key of a sheet's hand that says which hand it is.
NUMBER_KEY = "number"


def _numbered(sheet: object) -> object:
    """``sheet`` with each hand's ``number`` checked against its place and taken out (the
    hand is stored as the engine reads it); a sheet that is not an object with a list of
    hands is returned as it is, for :func:`tonkrules.sheet.read_sheet` to refuse.

    Raises:
        SheetError: a ``number`` that is not a whole number from 1 (``bad_format``).
        HandNotNext: a ``number`` that is not the hand's place in the sheet.
    """
    if not isinstance(sheet, dict) or not isinstance(sheet.get("hands"), list):
        return sheet
    hands: list[object] = []
    for place, raw in enumerate(sheet["hands"], 1):
        if isinstance(raw, dict) and NUMBER_KEY in raw:
            number = raw[NUMBER_KEY]
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                error = FormatError(
                    "value_type.whole_from", params={"key": NUMBER_KEY, "minimum": 1}
                )
                raise SheetError(error, place)
            if number != place:
                raise HandNotNext(number=number, last_number=place - 1, meanwhile=False)
            raw = {k: v for k, v in raw.items() if k != NUMBER_KEY}
        hands.append(raw)
    return {**sheet, "hands": hands}


@transaction.atomic
def scoresheet_job_submit(*, sheet: object) -> ScoresheetJob:
    """Store ``sheet`` as a queued job and score it in the background once this commits.

    In the embedded mode the task runs eagerly, right after the commit, in this process.
    """
    job = ScoresheetJob.objects.create(sheet=sheet, sent_at=timezone.now())
    enqueue(scoresheet_job_run, job.pk)
    return job


def jobs_resend(*, now: datetime, resend_before: datetime) -> int:
    """The tick's job: send again the task of every queued job last sent before
    ``resend_before``. Returns how many."""
    return resend_waiting(
        ScoresheetJob.objects.filter(status=ScoresheetJob.Status.QUEUED),
        sent_at="sent_at",
        task=scoresheet_job_run,
        now=now,
        resend_before=resend_before,
    )


def jobs_oldest() -> datetime | None:
    """Since when the oldest queued job waits (None: none waits)."""
    return (
        ScoresheetJob.objects.filter(status=ScoresheetJob.Status.QUEUED)
        .order_by("created_at")
        .values_list("created_at", flat=True)
        .first()
    )


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
