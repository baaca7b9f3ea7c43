"""The tournaments services (issue 6), with Celery eager as in the embedded mode: events and
their defaults, registration, late entry, withdrawal, substitutes, seating one round at a time,
what a table of round r plays, the round clock, corrections after the next round was seated,
and every impossible request refused with a clear code, changing nothing.

Tests that seat or play rounds commit for real (``commits``: ``transaction=True``), so that the
tasks and the scoring seam run after commit, as they do in production. The concurrency tests
need PostgreSQL (``services``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from fractions import Fraction
from itertools import count
from typing import Any

import pytest
from django.db.models import F
from django.utils import timezone
from rest_framework.test import APIClient

from ops import tasks as ops_tasks
from scoring import services as scoring
from scoring.errors import GameFinished, GameNotOpen, HandLimitReached
from scoring.models import Game, Seat
from tests.factories import PlayerFactory
from tests.hands import numbered
from tests.services import at_once
from tests.tournaments.play import (
    Entered,
    HandResult,
    PlayedTable,
    Record,
    bluke_hand,
    bluke_hand_of,
    comparable,
    expected_standings,
    rook_round,
    tonk_hand,
)
from tonkrules.sheet import SheetError
from tournaments import selectors, services, tasks
from tournaments.api import standings_body
from tournaments.errors import TournamentConflict, TournamentError
from tournaments.models import (
    Club,
    Player,
    Registration,
    Round,
    SitOut,
    Table,
    TableSeat,
    Tournament,
)

pytestmark = pytest.mark.django_db
commits = pytest.mark.django_db(transaction=True)

_keys = count(1)


# --- helpers --------------------------------------------------------------------------------------


def create(club: Club, director: Any, kind: str, **settings: Any) -> Tournament:
    tournament, created = services.tournament_create(
        club=club, created_by=director, name=f"{kind} evening", kind=kind, **settings
    )
    assert created
    return tournament


def register(tournament: Tournament, players: list[Player]) -> list[Registration]:
    return [services.registration_add(tournament=tournament, player=p) for p in players]


def seat(tournament: Tournament) -> Round:
    """Seat the next round (the task runs eagerly after commit): it is seated at once."""
    rnd, created = services.round_seat(tournament=tournament)
    assert created
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    return rnd


def tables(rnd: Round) -> list[Table]:
    return list(rnd.tables.select_related("game").order_by("number"))


def seat_names(table: Table) -> list[str]:
    """The names seated at a table's game, in seat order."""
    return list(Seat.objects.filter(game_id=table.game_id).values_list("name", flat=True))


def entry_for(
    kind: str, rng: random.Random, names: list[str], round_number: int, index: int, hpr: int
) -> dict[str, Any]:
    """A valid hand ``index`` (0-based) of a table of round ``round_number``."""
    dealer = names[index % len(names)]
    if kind == "rook":
        return rook_round(rng, names, round_number, dealer)
    if kind == "bluke":
        return bluke_hand(rng, names, bluke_hand_of(round_number, index, hpr), dealer)
    return tonk_hand(rng, names, dealer)


def enter(table: Table, entry: dict[str, Any]) -> dict[str, int]:
    """Record a hand at a table through the scoring service; its scores by seat name."""
    hand, created = scoring.hand_record(
        game=table.game, entry=entry, idempotency_key=f"k{next(_keys)}"
    )
    assert created
    return dict(hand.scores_cache)


def play_table(
    table: Table, rng: random.Random, record: Record | None, hands: int | None = None
) -> None:
    """Enter ``hands`` (default: all the table takes) valid hands at a table, noting them."""
    tournament = table.round.tournament
    names = seat_names(table)
    seats = dict(
        TableSeat.objects.filter(table=table)
        .order_by("position")
        .values_list("position", "registration_id")
    )
    subs = dict(TableSeat.objects.filter(table=table).values_list("position", "substitute"))
    played = PlayedTable(
        table.round.number,
        {name: None if subs[i] else seats[i] for i, name in enumerate(names)},
    )
    for index in range(tournament.hands_per_round if hands is None else hands):
        entry = entry_for(
            tournament.kind, rng, names, table.round.number, index, tournament.hands_per_round
        )
        played.hands.append(HandResult.of(tournament.kind, entry, enter(table, entry)))
    if record is not None:
        record.tables.append(played)


def play_round(rnd: Round, rng: random.Random, record: Record | None = None) -> Round:
    """Publish a round and enter every table's hands: it completes by itself."""
    services.round_publish(round=rnd)
    for table in tables(rnd):
        play_table(table, rng, record)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    assert {t.state for t in rnd.tables.all()} == {Table.State.REPORTED}
    if record is not None:
        record.rounds_complete = rnd.number
    return rnd


def record_of(tournament: Tournament) -> Record:
    return Record(
        tournament.kind,
        {
            r.pk: Entered(r.pk, r.player.name, r.from_round, r.withdrawn_after)
            for r in tournament.registrations.select_related("player")
        },
    )


def standings_rows(tournament: Tournament) -> list[dict[str, Any]]:
    """The standings as the API shows them, for the tournament's current results."""
    return standings_body(Tournament.objects.get(pk=tournament.pk))["rows"]


def row_of(tournament: Tournament, name: str) -> dict[str, Any]:
    return next(r for r in standings_rows(tournament) if r["name"] == name)


def seated_ids(rnd: Round) -> set[int]:
    return set(TableSeat.objects.filter(round=rnd).values_list("registration_id", flat=True))


def code_of(excinfo: pytest.ExceptionInfo[Any]) -> str:
    return excinfo.value.code


# --- tournament_create ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "sizes"),
    [
        ("tonk", [2, 5]),
        ("tonk", [1, 2]),
        ("rook", [2, 3]),
        ("rook", [6]),
        ("bluke", [3, 5]),
        ("bluke", []),
    ],
)
def test_create_refuses_table_sizes_the_game_does_not_allow(
    club: Club, director: Any, kind: str, sizes: list[int]
) -> None:
    with pytest.raises(TournamentError) as excinfo:
        services.tournament_create(
            club=club, created_by=director, name="Bad", kind=kind, rounds=3, sizes=sizes
        )
    assert code_of(excinfo) == "bad_sizes"
    assert excinfo.value.status == 400
    assert not Tournament.objects.exists()


def test_create_refuses_zero_for_a_missed_rook_round_but_not_for_tonk(
    club: Club, director: Any
) -> None:
    with pytest.raises(TournamentError) as excinfo:
        create(club, director, "rook", missed_round_score="zero")
    assert code_of(excinfo) == "zero_for_rook"
    assert not Tournament.objects.exists()
    assert create(club, director, "tonk", rounds=2, missed_round_score="zero").pk


def test_rook_plays_at_most_11_rounds_and_11_by_default(club: Club, director: Any) -> None:
    with pytest.raises(TournamentError) as excinfo:
        create(club, director, "rook", rounds=12)
    assert code_of(excinfo) == "bad_rounds"
    assert not Tournament.objects.exists()
    assert create(club, director, "rook").round_count == 11
    assert create(club, director, "rook", rounds=5).round_count == 5


@pytest.mark.parametrize(
    ("kind", "sizes", "prefer", "hands"),
    [("tonk", [2, 3], 3, 10), ("rook", [3, 4, 5], 4, 1), ("bluke", [3, 4], 4, 25)],
)
def test_defaults_per_game(
    club: Club, director: Any, kind: str, sizes: list[int], prefer: int, hands: int
) -> None:
    tournament = create(club, director, kind, rounds=3)
    assert (tournament.sizes, tournament.prefer, tournament.hands_per_round) == (
        sizes,
        prefer,
        hands,
    )
    assert tournament.missed_round_score == "average"
    assert tournament.basis == "total"


def test_only_the_clubs_directors_create_tournaments(
    club: Club, member: Any, other_director: Any
) -> None:
    for user in (member, other_director, None):
        with pytest.raises(TournamentError) as excinfo:
            services.tournament_create(
                club=club, created_by=user, name="Open", kind="tonk", rounds=3
            )
        assert code_of(excinfo) == "not_director"
    assert not Tournament.objects.exists()


# --- registrations --------------------------------------------------------------------------------


def test_registering_twice_or_a_player_of_another_club_is_refused(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=3)
    (ana,) = make_players(1)
    register(tournament, [ana])
    stranger = PlayerFactory(name="Stranger")

    with pytest.raises(TournamentError) as twice:
        services.registration_add(tournament=tournament, player=ana)
    with pytest.raises(TournamentError) as other:
        services.registration_add(tournament=tournament, player=stranger)

    assert (code_of(twice), code_of(other)) == ("already_registered", "other_club")
    assert list(tournament.registrations.values_list("player__name", flat=True)) == [ana.name]


def test_fewer_active_players_than_the_smallest_table_cannot_be_seated(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "rook", rounds=3)
    registrations = register(tournament, make_players(2))
    with pytest.raises(TournamentError) as excinfo:
        services.round_seat(tournament=tournament)
    assert code_of(excinfo) == "too_few_players"
    assert excinfo.value.status == 409  # the registrations refuse it: a state refusal

    # Three registered, one withdrawn: still two active.
    registrations += register(tournament, make_players(1))
    services.registration_withdraw(registration=registrations[0])
    with pytest.raises(TournamentError) as again:
        services.round_seat(tournament=tournament)
    assert code_of(again) == "too_few_players"
    assert not Round.objects.exists()
    assert not Game.objects.exists()


# --- seating rounds -------------------------------------------------------------------------------


@commits
def test_seating_round_2_while_round_1_is_not_complete_is_a_conflict(
    club: Club,
    director: Any,
    director_api: APIClient,
    make_players: Callable[[int], list[Player]],
) -> None:
    tournament = create(club, director, "tonk", rounds=3, hands_per_round=2)
    register(tournament, make_players(4))
    rnd = seat(tournament)
    services.round_publish(round=rnd)
    play_table(tables(rnd)[0], random.Random(1), None, hands=1)

    with pytest.raises(TournamentConflict) as excinfo:
        services.round_seat(tournament=tournament)
    assert code_of(excinfo) == "round_not_complete"
    assert excinfo.value.status == 409

    response = director_api.post(f"/api/v1/tournaments/{tournament.pk}/rounds/")
    assert response.status_code == 409
    assert response.json()["conflict"]["code"] == "round_not_complete"
    assert list(tournament.round_set.values_list("number", flat=True)) == [1]


@commits
def test_asking_twice_before_publishing_returns_the_same_round(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "bluke", rounds=3, hands_per_round=1)
    register(tournament, make_players(7))
    first = seat(tournament)
    games = set(Game.objects.values_list("pk", flat=True))

    again, created = services.round_seat(tournament=tournament)

    assert (again.pk, created) == (first.pk, False)
    assert Round.objects.count() == 1
    assert set(Game.objects.values_list("pk", flat=True)) == games
    assert sorted(len(seat_names(t)) for t in tables(first)) == [3, 4]
    # Every active player sits once.
    assert len(seated_ids(first)) == 7 == TableSeat.objects.count()


@commits
def test_the_seating_task_run_twice_changes_nothing(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "rook", rounds=3)
    register(tournament, make_players(8))
    rnd = seat(tournament)
    before = list(TableSeat.objects.values_list("table_id", "position", "registration_id"))

    tasks.round_seat.delay(rnd.pk)

    assert list(TableSeat.objects.values_list("table_id", "position", "registration_id")) == before
    assert Table.objects.count() == 2


@commits
def test_asking_again_for_a_round_whose_seating_task_was_lost_seats_it(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=3)
    register(tournament, make_players(5))
    lost = Round.objects.create(tournament=tournament, number=1)  # its task never ran

    rnd, created = services.round_seat(tournament=tournament)

    assert (rnd.pk, created) == (lost.pk, False)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    assert sorted(len(seat_names(t)) for t in tables(rnd)) == [2, 3]


# --- results for tables ---------------------------------------------------------------------------


@commits
def test_results_for_an_unpublished_or_complete_round_are_refused(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=3, hands_per_round=1)
    register(tournament, make_players(4))
    rnd = seat(tournament)
    table = tables(rnd)[0]
    names = seat_names(table)
    hand = tonk_hand(random.Random(2), names, names[0])
    table_api = APIClient()  # the phone of the table's first seat
    first_seat = table.game.seats.get(position=0)
    table_api.credentials(HTTP_AUTHORIZATION=f"Seat {first_seat.seat_key}")

    with pytest.raises(GameNotOpen):
        enter(table, hand)
    response = table_api.post(
        f"/api/v1/games/{table.game_id}/hands/",
        numbered(hand, 1),
        format="json",
        HTTP_IDEMPOTENCY_KEY="a1",
    )
    assert response.status_code == 409
    assert response.json()["conflict"]["code"] == "game_not_open"
    assert Game.objects.get(pk=table.game_id).current_hands == 0

    play_round(rnd, random.Random(3))
    with pytest.raises(GameFinished):
        enter(table, hand)
    response = table_api.post(
        f"/api/v1/games/{table.game_id}/hands/",
        numbered(hand, 2),
        format="json",
        HTTP_IDEMPOTENCY_KEY="a2",
    )
    # The round is complete: the table's hands are a director's now (403, before the state).
    assert response.status_code == 403
    assert "only a club director" in response.json()["detail"]
    assert Game.objects.get(pk=table.game_id).current_hands == 1


@commits
def test_a_hand_naming_a_player_not_seated_at_the_table_is_refused(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=3, hands_per_round=1)
    register(tournament, make_players(4))
    rnd = seat(tournament)
    services.round_publish(round=rnd)
    first, second = tables(rnd)
    here, there = seat_names(first), seat_names(second)
    hand = {
        "dealer": here[0],
        "end": "knock",
        "by": there[0],
        "held": {here[0]: ["KS"], here[1]: ["QD"], there[0]: ["2C"]},
    }

    with pytest.raises(SheetError) as excinfo:
        enter(first, hand)

    assert excinfo.value.error.code == "bad_player"
    assert Game.objects.get(pk=first.game_id).current_hands == 0
    assert Table.objects.get(pk=first.pk).state == Table.State.SEATED


# --- substitutes, withdrawal, late entry ----------------------------------------------------------


@commits
def test_substitutes_play_under_their_own_name_and_the_absent_player_misses_the_round(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "bluke", rounds=2, hands_per_round=2, sizes=[3])
    register(tournament, make_players(6))
    rnd = seat(tournament)
    first, second = tables(rnd)
    absent = TableSeat.objects.select_related("registration__player").get(table=first, position=1)
    elsewhere = seat_names(second)[0]

    for taken in (elsewhere, seat_names(first)[0]):
        with pytest.raises(TournamentError) as excinfo:
            services.substitute_set(round=rnd, registration=absent.registration, substitute=taken)
        assert code_of(excinfo) == "already_seated"
    services.substitute_set(round=rnd, registration=absent.registration, substitute="Zed Sub")
    other = TableSeat.objects.get(table=second, position=0)
    with pytest.raises(TournamentError) as twice:
        services.substitute_set(round=rnd, registration=other.registration, substitute="zed sub")
    assert code_of(twice) == "already_seated"

    names = seat_names(first)
    assert names[1] == "Zed Sub"
    assert absent.registration.player.name not in names
    record = record_of(tournament)
    play_round(rnd, random.Random(4), record)

    lines = Seat.objects.get(game_id=first.game_id, position=1)
    assert (lines.name, lines.player_id) == ("Zed Sub", None)
    assert lines.lines.count() == 2  # both hands, under the substitute
    row = row_of(tournament, absent.registration.player.name)
    assert row["rounds"]["1"]["missed"] is True
    assert "Zed Sub" not in {r["name"] for r in standings_rows(tournament)}
    assert comparable(standings_rows(tournament)) == expected_standings(record)

    # Once the table has hands its seats are fixed.
    rnd2 = seat(tournament)
    services.round_publish(round=rnd2)
    table = tables(rnd2)[0]
    play_table(table, random.Random(5), None, hands=1)
    sitting = TableSeat.objects.filter(table=table).first()
    with pytest.raises(TournamentConflict) as fixed:
        services.substitute_set(round=rnd2, registration=sitting.registration, substitute="Amy")
    assert code_of(fixed) == "results_exist"


@commits
def test_a_withdrawn_player_is_never_seated_again_keeps_results_and_is_shown_withdrawn(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "rook", rounds=3)
    registrations = register(tournament, make_players(7))
    record = record_of(tournament)
    rng = random.Random(6)
    play_round(seat(tournament), rng, record)
    leaver = registrations[2]

    services.registration_withdraw(registration=leaver)
    services.registration_withdraw(registration=leaver)  # idempotent
    leaver.refresh_from_db()
    assert leaver.withdrawn_after == 1
    record.players[leaver.pk].withdrawn_after = 1

    for _ in range(2):
        rnd = seat(tournament)
        assert leaver.pk not in seated_ids(rnd)
        assert not SitOut.objects.filter(round=rnd, registration=leaver).exists()
        play_round(rnd, rng, record)

    rows = standings_rows(tournament)
    assert comparable(rows) == expected_standings(record)
    row = next(r for r in rows if r["registration"] == leaver.pk)
    assert row["withdrawn"] is True
    assert row["rounds"]["1"]["missed"] is False  # the result is kept
    assert [row["rounds"][r]["missed"] for r in ("2", "3")] == [True, True]


@commits
def test_a_late_entry_is_seated_from_the_next_round_and_misses_the_earlier_ones(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "rook", rounds=3)
    register(tournament, make_players(4))
    record = record_of(tournament)
    rng = random.Random(7)
    round1 = play_round(seat(tournament), rng, record)

    (late,) = register(tournament, make_players(1))
    assert late.from_round == 2
    record.players[late.pk] = Entered(late.pk, late.player.name, 2)

    assert late.pk not in seated_ids(round1)
    round2 = seat(tournament)
    assert late.pk in seated_ids(round2)
    assert [len(seat_names(t)) for t in tables(round2)] == [5]
    play_round(round2, rng, record)

    rows = standings_rows(tournament)
    assert comparable(rows) == expected_standings(record)
    row = next(r for r in rows if r["registration"] == late.pk)
    assert row["rounds"]["1"]["missed"] is True
    assert row["rounds"]["2"]["missed"] is False
    # The missed round scores the round's exact average.
    played = [r["rounds"]["1"]["score"] for r in rows if r["registration"] != late.pk]
    assert row["rounds"]["1"]["score"] == str(sum(map(Fraction, played)) / 4)


# --- what a round plays ---------------------------------------------------------------------------


@commits
def test_rook_round_r_plays_contract_r(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "rook", rounds=3, sizes=[3], prefer=3)
    register(tournament, make_players(3))
    rng = random.Random(8)
    play_round(seat(tournament), rng)
    rnd = seat(tournament)
    services.round_publish(round=rnd)
    (table,) = tables(rnd)
    names = seat_names(table)

    with pytest.raises(SheetError) as wrong_round:
        enter(table, rook_round(rng, names, 1, names[0]))
    assert wrong_round.value.error.code == "bad_sequence"
    two_sets = {
        "round": 2,
        "dealer": names[0],
        "out": names[0],
        "melds": {names[0]: [["R5", "Y5", "G5"], ["B9", "R9", "Y9"]]},
        "held": {names[1]: ["R1"], names[2]: ["G12"]},
    }
    with pytest.raises(SheetError) as wrong_contract:
        enter(table, two_sets)  # round 1's contract
    assert wrong_contract.value.error.code == "contract_not_met"

    enter(table, rook_round(rng, names, 2, names[0]))
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    with pytest.raises(GameFinished):
        enter(table, rook_round(rng, names, 3, names[0]))


@commits
def test_bluke_rounds_continue_the_hand_sequence_and_wrap_after_25(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "bluke", rounds=6, hands_per_round=5, sizes=[3], prefer=3)
    register(tournament, make_players(3))
    rng = random.Random(9)
    play_round(seat(tournament), rng)

    rnd = seat(tournament)
    services.round_publish(round=rnd)
    (table,) = tables(rnd)
    names = seat_names(table)
    with pytest.raises(SheetError) as from_one:
        enter(table, bluke_hand(rng, names, 1, names[0]))
    assert from_one.value.error.code == "bad_sequence"
    for number in range(6, 11):
        enter(table, bluke_hand(rng, names, number, names[0]))
    assert [h.sequence for h in table.game.hands.order_by("number")] == [6, 7, 8, 9, 10]
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE

    for _ in range(3, 6):
        play_round(seat(tournament), rng)
    last = seat(tournament)
    services.round_publish(round=last)
    (table,) = tables(last)
    names = seat_names(table)
    with pytest.raises(SheetError) as after_25:
        enter(table, bluke_hand(rng, names, 26, names[0]))
    assert after_25.value.error.code == "bad_sequence"
    for number in range(1, 6):
        enter(table, bluke_hand(rng, names, number, names[0]))
    assert [h.sequence for h in table.game.hands.order_by("number")] == [1, 2, 3, 4, 5]
    last.refresh_from_db()
    assert last.state == Round.State.COMPLETE

    with pytest.raises(TournamentConflict) as done:
        services.round_seat(tournament=tournament)
    assert code_of(done) == "all_seated"


# --- the round clock ------------------------------------------------------------------------------


@commits
def test_the_tick_run_twice_after_the_deadline_calls_time_once(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=5, minutes_per_round=30)
    register(tournament, make_players(4))
    rnd = seat(tournament)
    services.round_publish(round=rnd)
    rnd.refresh_from_db()
    assert rnd.deadline is not None
    first, second = tables(rnd)
    rng = random.Random(10)
    play_table(first, rng, None, hands=2)

    assert services.tick(now=rnd.deadline - timedelta(seconds=1)) == 0
    called_at = rnd.deadline + timedelta(seconds=1)
    assert services.tick(now=called_at) == 1
    limits = dict(Game.objects.values_list("pk", "hand_limit"))
    assert limits == {first.game_id: 3, second.game_id: 1}

    assert services.tick(now=called_at + timedelta(minutes=5)) == 0
    assert ops_tasks.tick.delay().get()["call_time"] == 0  # the beat task, now
    rnd.refresh_from_db()
    assert rnd.time_called_at == called_at
    assert dict(Game.objects.values_list("pk", "hand_limit")) == limits

    # Each table enters the hand in progress; the round then completes by itself.
    play_table(first, rng, None, hands=1)
    assert Table.objects.get(pk=first.pk).state == Table.State.REPORTED
    with pytest.raises(HandLimitReached):
        enter(first, tonk_hand(rng, seat_names(first), seat_names(first)[0]))
    play_table(second, rng, None, hands=1)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    assert services.tick(now=timezone.now() + timedelta(days=1)) == 0


@commits
def test_a_regenerated_round_gets_a_fresh_clock(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=5, minutes_per_round=30)
    register(tournament, make_players(4))
    rnd = services.round_publish(round=seat(tournament))
    assert services.tick(now=rnd.deadline + timedelta(seconds=1)) == 1

    services.round_regenerate(round=rnd)  # no results yet
    rnd.refresh_from_db()
    assert (rnd.state, rnd.deadline, rnd.time_called_at) == (Round.State.SEATED, None, None)
    rnd = services.round_publish(round=rnd)
    assert services.tick(now=rnd.deadline - timedelta(seconds=1)) == 0
    assert Game.objects.filter(tournament_table__round=rnd, hand_limit=5).count() == 2
    assert services.tick(now=rnd.deadline + timedelta(seconds=1)) == 1


# --- corrections after the next round was seated --------------------------------------------------


@commits
def test_a_round_1_correction_after_round_2_was_seated(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    """Standings change at once, round 2 is flagged, regenerating it works before any round-2
    result and is refused after one."""
    tournament = create(club, director, "rook", rounds=3, method="swiss")
    register(tournament, make_players(8))
    record = record_of(tournament)
    rng = random.Random(11)
    round1 = play_round(seat(tournament), rng, record)
    round2 = seat(tournament)
    assert round2.superseded is False
    before = standings_rows(tournament)
    assert comparable(before) == expected_standings(record)

    # Correct table 1's round: nobody went out after all (time was called).
    table = tables(round1)[0]
    names = seat_names(table)
    fixed = rook_round(rng, names, 1, names[0], nobody_out=True)
    hand, _ = scoring.hand_correct(game=table.game, number=1, revision=1, entry=fixed)
    record.tables[0].hands = [HandResult.of("rook", fixed, dict(hand.scores_cache))]

    after = standings_rows(tournament)
    assert after != before
    assert comparable(after) == expected_standings(record)
    round2.refresh_from_db()
    assert round2.superseded is True
    old_games = set(round2.tables.values_list("game_id", flat=True))

    regenerated = services.round_regenerate(round=round2)
    regenerated.refresh_from_db()
    assert (regenerated.state, regenerated.superseded) == (Round.State.SEATED, False)
    assert Round.objects.filter(tournament=tournament).count() == 2
    new_games = set(regenerated.tables.values_list("game_id", flat=True))
    assert new_games and not new_games & old_games
    assert not Game.objects.filter(pk__in=old_games).exists()
    assert len(seated_ids(regenerated)) == 8

    # Flagged again, then a round-2 result: the seating can no longer change.
    hand, _ = scoring.hand_correct(
        game=table.game, number=1, revision=2, entry=rook_round(rng, names, 1, names[1])
    )
    regenerated.refresh_from_db()
    assert regenerated.superseded is True
    services.round_publish(round=regenerated)
    play_table(tables(regenerated)[0], rng, None)
    seats_before = list(TableSeat.objects.filter(round=regenerated).values_list("pk", flat=True))
    with pytest.raises(TournamentConflict) as excinfo:
        services.round_regenerate(round=regenerated)
    assert code_of(excinfo) == "results_exist"
    assert (
        list(TableSeat.objects.filter(round=regenerated).values_list("pk", flat=True))
        == seats_before
    )


@commits
def test_standings_are_cached_by_results_version(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=1)
    register(tournament, make_players(4))
    version = Tournament.objects.get(pk=tournament.pk).results_version
    play_round(seat(tournament), random.Random(12))
    fresh = Tournament.objects.get(pk=tournament.pk)
    assert fresh.results_version > version
    assert fresh.standings_version == fresh.results_version  # the refresh task ran
    assert selectors.standings(fresh).rounds_complete == 1
    # Coalesced: one recomputation however many refreshes were asked for the same results.
    assert services.standings_update(tournament_id=tournament.pk) is False
    Tournament.objects.filter(pk=tournament.pk).update(results_version=F("results_version") + 3)
    assert services.standings_update(tournament_id=tournament.pk) is True
    assert services.standings_update(tournament_id=tournament.pk) is False
    tasks.standings_refresh.delay(tournament.pk)
    fresh = Tournament.objects.get(pk=tournament.pk)
    assert fresh.standings_version == fresh.results_version


# --- concurrency (PostgreSQL) ---------------------------------------------------------------------


@commits
@pytest.mark.services
@pytest.mark.parametrize("how", ["service", "api"])
def test_seating_the_same_round_twice_concurrently_yields_one_seating(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], how: str
) -> None:
    tournament = create(club, director, "rook", rounds=3)
    register(tournament, make_players(12))

    def ask(_: int) -> Any:
        if how == "service":
            rnd, created = services.round_seat(tournament=Tournament.objects.get(pk=tournament.pk))
            return rnd.pk, created
        client = APIClient()
        client.force_authenticate(director)
        response = client.post(f"/api/v1/tournaments/{tournament.pk}/rounds/")
        return response.status_code, response.json()["number"]

    results = at_once(2, ask)

    assert not [r for r in results if isinstance(r, Exception)], results
    if how == "service":
        assert len({pk for pk, _ in results}) == 1
        assert sorted(created for _, created in results) == [False, True]
    else:
        assert results == [(202, 1), (202, 1)]
    rnd = Round.objects.get(tournament=tournament)
    assert rnd.state == Round.State.SEATED
    assert Table.objects.filter(round=rnd).count() == 3
    assert Game.objects.count() == 3
    assert TableSeat.objects.filter(round=rnd).count() == 12
    assert len(seated_ids(rnd)) == 12


@commits
@pytest.mark.services
def test_the_seating_task_run_twice_concurrently_seats_once(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "bluke", rounds=3)
    register(tournament, make_players(10))
    rnd = Round.objects.create(tournament=tournament, number=1)  # asked for; task not yet run

    results = at_once(2, lambda _: services.round_seating_compute(round_id=rnd.pk).pk)

    assert results == [rnd.pk, rnd.pk]
    assert Table.objects.filter(round=rnd).count() == 3
    assert Game.objects.count() == 3
    assert TableSeat.objects.filter(round=rnd).count() == 10


@commits
def test_a_registered_player_cannot_substitute_even_when_not_seated(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "rook", rounds=3, sizes=[3])
    players = make_players(7)  # tables of exactly 3: one sits out
    register(tournament, players)
    rnd = seat(tournament)
    sitting_out = rnd.sit_outs.select_related("registration__player").get().registration
    seated = TableSeat.objects.filter(round=rnd).first()

    with pytest.raises(TournamentError) as excinfo:
        services.substitute_set(
            round=rnd, registration=seated.registration, substitute=sitting_out.player.name
        )

    assert code_of(excinfo) == "registered"
    assert not TableSeat.objects.filter(round=rnd).exclude(substitute="").exists()


@commits
def test_a_latecomer_before_the_round_is_published_can_play_it_once_it_is_seated_again(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "rook", rounds=3, sizes=[3])
    *first_six, late = make_players(7)
    register(tournament, first_six)
    rnd = seat(tournament)

    registration = services.registration_add(tournament=tournament, player=late)
    assert registration.from_round == 1
    assert registration.pk not in seated_ids(rnd)
    services.round_regenerate(round=rnd)  # the seating task runs again after commit
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    assert registration.pk in seated_ids(rnd) | set(
        rnd.sit_outs.values_list("registration_id", flat=True)
    )
