"""The round clock: deadlines stored on the rounds, driven by an idempotent tick."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from scoring import services as scoring_services
from tournaments.models import (
    AuditEntry,
    Round,
    Table,
)
from tournaments.services.audit import audit_record
from tournaments.services.origin import ORIGIN


def tick(*, now: datetime | None = None) -> int:
    """Move rounds through their deadlines (the tick's job ``call_time``: Celery beat every
    ``TICK_SECONDS``; ``manage.py tick --loop`` in the embedded mode): a published round whose
    deadline passed is "time called" once —
    each table may still enter the hand in progress (its game takes one more hand at most; a
    Rook table its round, with nobody out if need be). Driven by the deadlines stored in the
    database; running it twice changes nothing more. Kept in the tournament's audit
    (``call_time``, by the system). A round's games change together, in two statements
    whatever its tables (``scoring.services.games_last_hand``).

    Returns:
        How many rounds had their time called now.
    """
    now = now or timezone.now()
    called = 0
    due = Round.objects.filter(
        deadline__lte=now,
        time_called_at__isnull=True,
        state__in=(Round.State.PUBLISHED, Round.State.PLAYING),
    ).values_list("pk", flat=True)
    for round_id in due:
        with transaction.atomic():
            rnd = Round.objects.select_for_update().get(pk=round_id)
            if rnd.time_called_at is not None or rnd.state not in (
                Round.State.PUBLISHED,
                Round.State.PLAYING,
            ):
                continue
            rnd.time_called_at = now
            rnd.save(update_fields=("time_called_at",))
            audit_record(rnd.tournament_id, AuditEntry.Action.CALL_TIME, round_number=rnd.number)
            scoring_services.games_last_hand(
                game_ids=rnd.tables.exclude(
                    state__in=(Table.State.REPORTED, Table.State.NOT_PLAYED)
                ).values_list("game_id", flat=True),
                origin=ORIGIN,
            )
            called += 1
    return called


def call_time(*, now: datetime, resend_before: datetime) -> int:
    """The tick's job (``ops.background.tick``): :func:`tick` at ``now``."""
    return tick(now=now)
