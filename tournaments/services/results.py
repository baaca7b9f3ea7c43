"""Results: the results version, the materialised seat results and the cached standings.

A change to a result bumps ``Tournament.results_version`` and asks for one standings refresh
after commit; the refresh task recomputes the standings once for the latest version, however
many results arrived meanwhile."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count, F, Max, Min, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from ops.background import enqueue, resend_waiting
from scoring import selectors as scoring_selectors
from scoring.models import ScoreLine
from tournaments import tasks
from tournaments.models import (
    SeatResult,
    Tournament,
)


def results_mark_changed(tournament_id: int) -> None:
    """A result changed: bump the results version (the standings now wait for a refresh,
    since the first change after the last one: ``standings_waiting_since``) and refresh the
    standings after commit (coalesced: the task does nothing when the standings are already
    for this version; one statement)."""
    now = timezone.now()
    Tournament.objects.filter(pk=tournament_id).update(
        results_version=F("results_version") + 1,
        standings_waiting_since=Coalesce(F("standings_waiting_since"), Value(now)),
        standings_sent_at=now,
    )
    enqueue(tasks.standings_refresh, tournament_id)


def standings_resend(*, now: datetime, resend_before: datetime) -> int:
    """The tick's job: send again the refresh of every tournament whose standings wait and
    whose refresh was last sent before ``resend_before``. Returns how many."""
    return resend_waiting(
        Tournament.objects.filter(standings_waiting_since__isnull=False),
        sent_at="standings_sent_at",
        task=tasks.standings_refresh,
        now=now,
        resend_before=resend_before,
    )


def standings_oldest() -> datetime | None:
    """Since when the standings that waited longest wait for their refresh (None: none)."""
    return (
        Tournament.objects.filter(standings_waiting_since__isnull=False)
        .order_by("standings_waiting_since")
        .values_list("standings_waiting_since", flat=True)
        .first()
    )


#: ``SeatResult``'s columns filled from the aggregate of a game's current score lines, each
#: with the aggregate's column it takes.
_SEAT_RESULT_COLUMNS = {
    "game_id": "game_id",
    "seat_id": "seat_id",
    "player_id": "seat__player_id",
    "points": "points_sum",
    "max_points": "points_max",
    "min_points": "points_min",
    "hands": "lines",
    "went_out": "went_out_count",
    "bids_made": "bid_made_count",
    "won": "won_count",
}
_SEAT_RESULT_AGGREGATES = {
    "points_sum": Sum("points"),
    "points_max": Max("points"),
    "points_min": Min("points"),
    "lines": Count("id"),
    "went_out_count": Count("id", filter=Q(went_out=True)),
    "bid_made_count": Count("id", filter=Q(bid_made=True)),
    "won_count": Count("id", filter=Q(won=True)),
}


def _seat_lines(
    game_id: int, *, confirmed_only: bool | None
) -> QuerySet[ScoreLine, dict[str, Any]]:
    """The score lines of game ``game_id``'s hands that count
    (``scoring.selectors.counting_filter``: where the game requires confirmation, the
    confirmed hands only; a provisional or disputed hand counts for nobody until it is
    confirmed), aggregated per seat (with the seat's player): the columns named in
    :data:`_SEAT_RESULT_COLUMNS`. ``confirmed_only``: the game's
    ``selectors.requires_confirmation`` when the caller holds the game; None reads it."""
    lines = ScoreLine.objects.filter(
        scoring_selectors.counting_filter("hand__", confirmed=confirmed_only), game_id=game_id
    )
    return (
        lines.order_by()
        .values("game_id", "seat_id", "seat__player_id")
        .annotate(**_SEAT_RESULT_AGGREGATES)
    )


@transaction.atomic(savepoint=False)
def seat_results_write(
    *,
    game_id: int,
    tournament_id: int,
    round_number: int,
    confirmed_only: bool | None = None,
) -> None:
    """Rewrite the materialised results (``SeatResult``) of game ``game_id``, round
    ``round_number`` of tournament ``tournament_id``, from its current score lines: its rows
    deleted, the aggregate read (one row per seat with current hands), its rows inserted.
    Three statements, through the ORM; idempotent.

    The hands counted are those that count (``scoring.selectors.counting_filter``: a
    tournament that requires confirmation counts confirmed hands only in its standings and
    seating, issue 12). ``confirmed_only``: the game's ``selectors.requires_confirmation``,
    when the caller holds the game; None: read with the lines (no statement more).

    Called by ``seam.game_changed`` with the round's row locked (so that two changes to one
    game are written one after the other, never interleaved), in the transaction that bumps the
    results version; the benchmark and tests call it to build the rows of data they write
    directly.
    """
    SeatResult.objects.filter(game_id=game_id).delete()
    SeatResult.objects.bulk_create(
        SeatResult(
            tournament_id=tournament_id,
            round_number=round_number,
            **{name: row[column] for name, column in _SEAT_RESULT_COLUMNS.items()},
        )
        for row in _seat_lines(game_id, confirmed_only=confirmed_only)
    )


def standings_update(*, tournament_id: int) -> bool:
    """Recompute and cache the standings for the latest results, once: a refresh that finds
    them already computed for the current results version does nothing (many results, one
    recomputation). Returns whether it computed."""
    from tournaments import selectors

    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.standings_version == tournament.results_version:
            if tournament.standings_waiting_since is not None:
                tournament.standings_waiting_since = None
                tournament.save(update_fields=("standings_waiting_since",))
            return False
        selectors.standings_recompute(tournament.pk)
        tournament.standings_version = tournament.results_version
        # The row is locked: no result changed meanwhile, so nothing waits any more.
        tournament.standings_waiting_since = None
        tournament.save(update_fields=("standings_version", "standings_waiting_since"))
    return True
