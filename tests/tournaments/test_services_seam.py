"""The scoring seam seen from tournaments (issue 11): one hand, one announcement, one results
version, one standings refresh, even for the hand that completes a round of N tables (whose
games tournaments then finishes itself, without those changes coming back to it); what
tournaments does to its own games (seat, publish, call time, substitute, close) is never
announced back to it.

These tests commit for real (``transaction=True``), so that the announcements and the refresh
task run after commit, as in production (Celery eager, as in the embedded mode).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

import tournaments.services
from scoring import services as scoring
from scoring.events import Change, GameChanged
from scoring.models import Game
from scoring.services import seam as scoring_seam
from tests.tournaments.test_services_tournaments import (
    create,
    entry_for,
    register,
    seat,
    seat_names,
    tables,
)
from tournaments import services
from tournaments.models import Club, Player, Round, Tournament
from tournaments.services import seam

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Counts:
    """What tournaments heard and did: the events delivered to its listener, and the runs of
    the standings refresh task."""

    heard: list[GameChanged] = field(default_factory=list)
    refreshes: int = 0

    def reset(self) -> None:
        self.heard.clear()
        self.refreshes = 0


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counts]:
    """Count the calls of tournaments' registered listener (wrapped where scoring keeps it) and
    of the service the standings refresh task runs."""
    found = Counts()
    registry = scoring_seam._game_changed
    index = next(i for i, (cb, _name) in enumerate(registry) if cb is seam.game_changed)
    listener, name = registry[index]
    assert name == services.ORIGIN

    def counting(event: GameChanged) -> None:
        found.heard.append(event)
        listener(event)

    registry[index] = (counting, name)
    update = tournaments.services.standings_update

    def counting_update(*, tournament_id: int) -> bool:
        found.refreshes += 1
        return update(tournament_id=tournament_id)

    monkeypatch.setattr(tournaments.services, "standings_update", counting_update)
    try:
        yield found
    finally:
        registry[index] = (listener, name)


def version(tournament: Tournament) -> tuple[int, int]:
    """The tournament's results version and the version its cached standings are for."""
    fresh = Tournament.objects.get(pk=tournament.pk)
    return fresh.results_version, fresh.standings_version


def record(table: Any, index: int, rng: random.Random) -> None:
    tournament = table.round.tournament
    entry = entry_for(
        tournament.kind,
        rng,
        seat_names(table),
        table.round.number,
        index,
        tournament.hands_per_round,
    )
    scoring.hand_record(game=table.game, entry=entry)


@pytest.mark.parametrize(("n_tables", "size"), [(3, 3), (5, 2)])
def test_the_last_hand_of_an_n_table_round_announces_once_and_refreshes_once(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    counts: Counts,
    n_tables: int,
    size: int,
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=2, sizes=[size])
    register(tournament, make_players(n_tables * size))
    rnd = seat(tournament)
    services.round_publish(round=rnd)
    played = tables(rnd)
    assert len(played) == n_tables
    rng = random.Random(11)
    hands = [(table, index) for table in played for index in range(2)]
    for table, index in hands[:-1]:
        before = version(tournament)
        counts.reset()
        record(table, index, rng)
        assert [(e.game_id, e.change) for e in counts.heard] == [
            (table.game_id, Change.HAND_RECORDED)
        ]
        assert counts.refreshes == 1
        assert version(tournament) == (before[0] + 1, before[0] + 1)
    last_table, last_index = hands[-1]
    before = version(tournament)
    counts.reset()
    record(last_table, last_index, rng)
    # One announcement (the hand), one results version, one refresh: the N games finished by
    # the round's completion are not announced back to tournaments.
    assert [(e.game_id, e.change, e.origin) for e in counts.heard] == [
        (last_table.game_id, Change.HAND_RECORDED, None)
    ]
    assert counts.refreshes == 1
    assert version(tournament) == (before[0] + 1, before[0] + 1)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    games = Game.objects.filter(pk__in=[t.game_id for t in played])
    assert set(games.values_list("state", flat=True)) == {Game.State.FINISHED}
    assert Tournament.objects.get(pk=tournament.pk).rounds_complete == 1


def test_the_round_completion_still_announces_finished_to_other_listeners(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], counts: Counts
) -> None:
    others: list[GameChanged] = []
    scoring.game_changed_register(others.append)
    try:
        tournament = create(club, director, "tonk", rounds=2, hands_per_round=1, sizes=[3])
        register(tournament, make_players(9))
        rnd = seat(tournament)
        services.round_publish(round=rnd)
        played = tables(rnd)
        rng = random.Random(5)
        for table in played[:-1]:
            record(table, 0, rng)
        others.clear()
        counts.reset()
        record(played[-1], 0, rng)
    finally:
        scoring.game_changed_unregister(others.append)
    assert len(counts.heard) == 1
    # Each once; tournaments, registered first, finishes the round before the others hear of
    # the hand.
    assert sorted((e.game_id, e.change, e.origin or "") for e in others) == sorted(
        [
            (played[-1].game_id, Change.HAND_RECORDED, ""),
            *((t.game_id, Change.FINISHED, services.ORIGIN) for t in played),
        ]
    )


def test_what_tournaments_does_to_its_games_is_not_announced_back_to_it(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], counts: Counts
) -> None:
    tournament = create(
        club, director, "tonk", rounds=2, hands_per_round=3, sizes=[3], minutes_per_round=30
    )
    registrations = register(tournament, make_players(6))
    start = version(tournament)
    counts.reset()
    rnd = seat(tournament)  # two games started
    services.substitute_set(round=rnd, registration=registrations[0], substitute="Sub Stitute")
    assert counts.refreshes == 0
    assert version(tournament) == start
    # Publishing makes it the round in play (its players show as not reported yet in the
    # live standings, issue 12): one version, one refresh, nothing announced back.
    services.round_publish(round=rnd)  # two games opened
    assert counts.refreshes == 1
    assert version(tournament) == (start[0] + 1, start[0] + 1)
    rnd.refresh_from_db()
    assert rnd.deadline is not None
    assert services.tick(now=rnd.deadline + timedelta(seconds=1)) == 1  # two limits set
    assert counts.heard == []
    assert counts.refreshes == 1
    assert version(tournament) == (start[0] + 1, start[0] + 1)
    # Closing the round finishes its games (not announced back) and counts it: one version,
    # one refresh.
    services.round_close(round=rnd)
    assert counts.heard == []
    assert counts.refreshes == 2
    assert version(tournament) == (start[0] + 2, start[0] + 2)
    assert timezone.now() < rnd.deadline + timedelta(days=1)


def test_a_correction_after_the_round_completed_announces_once_and_refreshes_once(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], counts: Counts
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=1, sizes=[3])
    register(tournament, make_players(6))
    rnd = seat(tournament)
    services.round_publish(round=rnd)
    rng = random.Random(3)
    for table in tables(rnd):
        record(table, 0, rng)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    table = tables(rnd)[0]
    before = version(tournament)
    counts.reset()
    scoring.hand_void(game=table.game, number=1)
    assert [(e.game_id, e.change) for e in counts.heard] == [(table.game_id, Change.HAND_VOIDED)]
    assert counts.refreshes == 1
    assert version(tournament) == (before[0] + 1, before[0] + 1)


def test_a_change_that_leaves_the_results_as_they_were_changes_no_standing(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], counts: Counts
) -> None:
    """A tournament table's game finished through scoring by someone else (a member through
    the API): tournaments hears of it, but no score line changed, so no results version, no
    seat results rewritten, no refresh."""
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=3, sizes=[3])
    register(tournament, make_players(6))
    rnd = seat(tournament)
    services.round_publish(round=rnd)
    table = tables(rnd)[0]
    record(table, 0, random.Random(3))
    before = version(tournament)
    counts.reset()

    scoring.game_finish(game=table.game)

    assert [e.change for e in counts.heard] == [Change.FINISHED]
    assert counts.refreshes == 0
    assert version(tournament) == before
