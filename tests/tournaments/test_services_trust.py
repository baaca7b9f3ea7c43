"""The tournaments side of trust at the table (issue 12): the confirmation option, standings
and seating that count confirmed hands only, a table reported once its hands are confirmed,
confirmations, disputes and restores reaching the seam once each, the live standings' marks,
and the tournament's audit (who, when, why).

These tests commit for real (``transaction=True``), so that the announcements and the refresh
task run after commit, as in production (Celery eager, as in the embedded mode).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from scoring import services as scoring
from scoring.errors import NotAllowed, ReasonRequired
from scoring.models import Game, Seat
from scoring.permissions import Actor
from tests.tournaments.test_services_seam import Counts, counts, version  # noqa: F401
from tests.tournaments.test_services_tournaments import (
    create,
    entry_for,
    register,
    seat,
    seat_names,
    standings_rows,
    tables,
)
from tournaments import selectors, services
from tournaments.errors import TournamentConflict, TournamentError
from tournaments.models import AuditEntry, Club, Player, Round, SeatResult, Table, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


# --- helpers --------------------------------------------------------------------------------------


def seat_ids(table: Table) -> list[int]:
    return list(
        Seat.objects.filter(game_id=table.game_id).order_by("position").values_list("pk", flat=True)
    )


def enter_as(table: Table, position: int, rng: random.Random, index: int = 0) -> int:
    """Record hand ``index`` of a table as the seat at ``position``; its number."""
    tournament = table.round.tournament
    entry = entry_for(
        tournament.kind,
        rng,
        seat_names(table),
        table.round.number,
        index,
        tournament.hands_per_round,
    )
    hand, created = scoring.hand_record(
        game=table.game, entry=entry, by=Actor(seat_id=seat_ids(table)[position])
    )
    assert created
    return hand.number


def confirm_as(table: Table, position: int, number: int) -> None:
    scoring.hand_confirm(
        game=table.game, number=number, by=Actor(seat_id=seat_ids(table)[position])
    )


def two_tables(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    **settings: Any,
) -> tuple[Tournament, Round, list[Table]]:
    """A Tonk tournament of two tables of two, one hand a round, round 1 published."""
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=1, sizes=[2], **settings)
    register(tournament, make_players(4))
    rnd = seat(tournament)
    services.round_publish(round=rnd, by=director)
    return tournament, rnd, tables(rnd)


def audit_actions(tournament: Tournament) -> list[tuple[str, int | None, str | None, str]]:
    return [
        (e.action, e.round_number, e.user.get_username() if e.user else None, e.reason)
        for e in AuditEntry.objects.filter(tournament=tournament).select_related("user")
    ]


# --- the option -----------------------------------------------------------------------------------


def test_every_table_game_is_started_directed_with_the_tournaments_confirmation(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=2, sizes=[2], confirmation="all")
    register(tournament, make_players(4))
    rnd = seat(tournament)

    games = Game.objects.filter(tournament_table__round=rnd)
    assert sorted(games.values_list("confirmation", "directed")) == [("all", True)] * 2

    # Seated again (after the players changed): the new games too.
    Round.objects.filter(pk=rnd.pk).update(superseded=True)
    services.round_regenerate(round=rnd, by=director, reason="Late arrival")
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    games = Game.objects.filter(tournament_table__round=rnd)
    assert sorted(games.values_list("confirmation", "directed")) == [("all", True)] * 2


def test_the_default_is_one_other_and_an_unknown_choice_is_refused(
    club: Club, director: Any
) -> None:
    assert create(club, director, "tonk", rounds=2).confirmation == "one_other"
    with pytest.raises(TournamentError) as excinfo:
        create(club, director, "tonk", rounds=2, confirmation="everyone")
    assert excinfo.value.code == "bad_confirmation"
    assert excinfo.value.field == "confirmation"


# --- confirmed hands only -------------------------------------------------------------------------


def test_a_provisional_hand_counts_for_nobody_until_another_seat_confirms_it(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    counts: Counts,  # noqa: F811
) -> None:
    tournament, rnd, (first, second) = two_tables(club, director, make_players)
    rng = random.Random(3)
    counts.reset()
    before = version(tournament)

    number = enter_as(first, 0, rng)

    # Entered: the hand limit is reached, but the table has not reported it.
    first.refresh_from_db()
    assert first.state == Table.State.PLAYING
    assert not SeatResult.objects.filter(game_id=first.game_id).exists()
    assert counts.refreshes == 1
    assert version(tournament) == (before[0] + 1, before[0] + 1)

    # The same seat cannot confirm its own hand; the other one can: it counts now.
    with pytest.raises(NotAllowed):
        confirm_as(first, 0, number)
    confirm_as(first, 1, number)

    first.refresh_from_db()
    assert first.state == Table.State.REPORTED
    assert SeatResult.objects.filter(game_id=first.game_id).count() == 2
    assert counts.refreshes == 2  # one refresh per change
    assert version(tournament) == (before[0] + 2, before[0] + 2)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.PLAYING  # the other table has not reported

    # The second table: entered and confirmed: the round completes.
    confirm_as(second, 0, enter_as(second, 1, rng))
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    assert {t.state for t in rnd.tables.all()} == {Table.State.REPORTED}


def test_a_dispute_takes_the_hand_out_of_the_standings_until_a_director_resolves_it(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    counts: Counts,  # noqa: F811
) -> None:
    _tournament, _rnd, (first, _second) = two_tables(club, director, make_players)
    rng = random.Random(4)
    number = enter_as(first, 0, rng)
    confirm_as(first, 1, number)
    assert SeatResult.objects.filter(game_id=first.game_id).count() == 2
    counts.reset()

    scoring.hand_dispute(
        game=first.game,
        number=number,
        by=Actor(seat_id=seat_ids(first)[1]),
        reason="Ben held the ace",
    )

    first.refresh_from_db()
    assert first.state == Table.State.PLAYING  # no longer reported
    assert not SeatResult.objects.filter(game_id=first.game_id).exists()
    assert counts.refreshes == 1

    scoring.hand_resolve(
        game=first.game,
        number=number,
        by=Actor(user=director),
        action="confirm",
        reason="Checked the cards",
    )
    first.refresh_from_db()
    assert first.state == Table.State.REPORTED
    assert SeatResult.objects.filter(game_id=first.game_id).count() == 2
    assert counts.refreshes == 2


def test_a_restore_reaches_the_seat_results_once(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    counts: Counts,  # noqa: F811
) -> None:
    tournament = create(club, director, "tonk", rounds=1, hands_per_round=3, sizes=[2])
    register(tournament, make_players(2))
    rnd = seat(tournament)
    services.round_publish(round=rnd, by=director)
    (table,) = tables(rnd)
    rng = random.Random(5)
    number = enter_as(table, 0, rng)
    confirm_as(table, 1, number)
    # A confirmed hand: a director voids it, and restores it as it was (confirmed).
    scoring.hand_void(game=table.game, number=number, by=Actor(user=director), reason="misdeal")
    assert not SeatResult.objects.filter(game_id=table.game_id).exists()
    counts.reset()

    scoring.hand_restore(game=table.game, number=number, by=Actor(user=director), reason="no")

    assert SeatResult.objects.filter(game_id=table.game_id).count() == 2
    assert counts.refreshes == 1
    assert [e.change for e in counts.heard] == ["hand_restored"]


def test_with_confirmation_none_a_hand_counts_once_entered(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    _tournament, _rnd, (first, _second) = two_tables(
        club, director, make_players, confirmation="none"
    )
    enter_as(first, 0, random.Random(6))

    first.refresh_from_db()
    assert first.state == Table.State.REPORTED
    assert SeatResult.objects.filter(game_id=first.game_id).count() == 2


def test_the_next_round_is_seated_on_confirmed_hands_only(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament, rnd, (first, second) = two_tables(club, director, make_players)
    rng = random.Random(7)
    confirm_as(first, 1, enter_as(first, 0, rng))
    number = enter_as(second, 0, rng)  # never confirmed
    assert not SeatResult.objects.filter(game_id=second.game_id).exists()
    # A close is refused while it waits; the director voids it (nobody vouched for it).
    with pytest.raises(TournamentConflict):
        services.round_close(round=rnd, by=director, reason="Time is up")
    scoring.hand_void(
        game=second.game, number=number, by=Actor(user=director), reason="Never confirmed"
    )
    services.round_close(round=rnd, by=director, reason="Time is up")

    # Only the first table's confirmed hand counts: the second table's players missed the
    # round (the average of those who played it).
    counted = {row["registration"]: row for row in standings_rows(tournament) if row["rounds"]}
    second_players = set(
        second.seats.values_list("registration_id", flat=True)  # type: ignore[attr-defined]
    )
    assert {r for r, row in counted.items() if row["rounds"]["1"]["missed"]} == second_players
    assert not SeatResult.objects.filter(game_id=second.game_id).exists()


# --- closing a round with hands not confirmed -----------------------------------------------------


def three_tables(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], **settings: Any
) -> tuple[Tournament, Round, list[Table]]:
    """A Tonk tournament of three tables of two, one hand a round, round 1 published."""
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=1, sizes=[2], **settings)
    register(tournament, make_players(6))
    rnd = seat(tournament)
    services.round_publish(round=rnd, by=director)
    return tournament, rnd, tables(rnd)


def round_state(tournament: Tournament, rnd: Round) -> tuple[object, ...]:
    """Everything a close changes: the round, its tables and games, the seat results, the
    tournament's counters and audit."""
    fresh = Tournament.objects.get(pk=tournament.pk)
    return (
        Round.objects.filter(pk=rnd.pk).values_list("state", "completed_at").get(),
        sorted(rnd.tables.values_list("number", "state", "game__state", "game__version")),
        sorted(SeatResult.objects.filter(round_number=rnd.number).values_list("pk", flat=True)),
        (fresh.rounds_complete, fresh.results_version),
        audit_actions(tournament),
    )


def test_a_close_with_provisional_or_disputed_hands_is_refused_naming_the_tables(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament, rnd, (first, second, third) = three_tables(club, director, make_players)
    rng = random.Random(12)
    enter_as(first, 0, rng)  # provisional
    number = enter_as(second, 0, rng)
    scoring.hand_dispute(
        game=second.game, number=number, by=Actor(seat_id=seat_ids(second)[1]), reason="Miscount"
    )
    assert third.game.current_hands == 0  # no hand: it would be "not played", not waiting
    before = round_state(tournament, rnd)

    with pytest.raises(TournamentConflict) as excinfo:
        services.round_close(round=rnd, by=director, reason="Time is up")

    error = excinfo.value
    assert error.status == 409
    assert error.code == "unconfirmed"
    assert error.to_dict() == {
        "code": "unconfirmed",
        "message": "round 1 cannot close: tables 1, 2 have hands that are not confirmed; "
        "confirm or resolve them first (a director may confirm a hand, with a reason, on the "
        "table's hand page)",
        "round": 1,
        "tables": [1, 2],
    }
    assert round_state(tournament, rnd) == before  # nothing changed, no audit entry


def test_a_close_waiting_for_one_table_names_it_in_the_singular(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    _tournament, rnd, (first, second, _third) = three_tables(club, director, make_players)
    rng = random.Random(13)
    confirm_as(first, 1, enter_as(first, 0, rng))
    enter_as(second, 0, rng)

    with pytest.raises(TournamentConflict) as excinfo:
        services.round_close(round=rnd, by=director)

    assert excinfo.value.details == {"round": 1, "tables": [2]}
    assert excinfo.value.message.startswith(
        "round 1 cannot close: table 2 has hands that are not confirmed; "
    )


def test_once_its_hands_are_confirmed_or_resolved_the_round_closes_and_is_audited(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament, rnd, (first, second, third) = three_tables(club, director, make_players)
    rng = random.Random(14)
    first_hand = enter_as(first, 0, rng)
    second_hand = enter_as(second, 0, rng)
    scoring.hand_dispute(
        game=second.game,
        number=second_hand,
        by=Actor(seat_id=seat_ids(second)[1]),
        reason="Miscount",
    )
    with pytest.raises(TournamentConflict):
        services.round_close(round=rnd, by=director)
    # A director confirms the first table's hand (before the close: no reason needed), and
    # resolves the second's dispute as entered.
    scoring.hand_confirm(game=first.game, number=first_hand, by=Actor(user=director))
    with pytest.raises(TournamentConflict) as excinfo:
        services.round_close(round=rnd, by=director)
    assert excinfo.value.details["tables"] == [2]
    scoring.hand_resolve(
        game=second.game,
        number=second_hand,
        by=Actor(user=director),
        action="confirm",
        reason="Recounted: right",
    )

    closed = services.round_close(round=rnd, by=director, reason="Time is up")

    assert closed.state == Round.State.COMPLETE
    states = dict(rnd.tables.values_list("number", "state"))
    assert states == {
        first.number: Table.State.REPORTED,
        second.number: Table.State.REPORTED,
        third.number: Table.State.NOT_PLAYED,
    }
    assert SeatResult.objects.filter(game_id__in=[first.game_id, second.game_id]).count() == 4
    name = director.get_username()
    assert audit_actions(tournament)[-2:] == [
        ("close", 1, name, "Time is up"),
        ("complete", 1, name, ""),
    ]


def test_a_tournament_without_confirmation_closes_with_the_hands_as_entered(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    _tournament, rnd, (first, _second, _third) = three_tables(
        club, director, make_players, confirmation="none"
    )
    enter_as(first, 0, random.Random(15))

    services.round_close(round=rnd, by=director)

    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    assert SeatResult.objects.filter(game_id=first.game_id).count() == 2


# --- a correction after the round is complete -----------------------------------------------------


def test_a_director_corrects_a_complete_rounds_table_with_a_reason_announced_once_and_audited(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    counts: Counts,  # noqa: F811
) -> None:
    tournament, rnd, (first, second) = two_tables(club, director, make_players)
    rng = random.Random(8)
    number = enter_as(first, 0, rng)
    confirm_as(first, 1, number)
    confirm_as(second, 1, enter_as(second, 0, rng))
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    entry = entry_for("tonk", rng, seat_names(first), 1, 1, 1)

    # A seat may no longer change it; a director must say why.
    with pytest.raises(NotAllowed):
        scoring.hand_correct(
            game=first.game,
            number=number,
            revision=1,
            entry=entry,
            by=Actor(seat_id=seat_ids(first)[0]),
            reason="Oops",
        )
    with pytest.raises(ReasonRequired):
        scoring.hand_correct(
            game=first.game, number=number, revision=1, entry=entry, by=Actor(user=director)
        )
    counts.reset()
    before = version(tournament)

    scoring.hand_correct(
        game=first.game,
        number=number,
        revision=1,
        entry=entry,
        by=Actor(user=director),
        reason="Scorer misread a card",
    )

    assert len(counts.heard) == 1
    assert counts.refreshes == 1
    assert version(tournament) == (before[0] + 1, before[0] + 1)
    assert SeatResult.objects.filter(game_id=first.game_id).count() == 2  # confirmed at once
    steps = [
        (line.action, line.table_number, line.user, line.reason)
        for line in selectors.tournament_audit(tournament, round_number=1, table_number=1)
        if line.source == "hand"
    ]
    assert steps[-1] == ("correct", 1, director.get_username(), "Scorer misread a card")


# --- live standings -------------------------------------------------------------------------------


def test_during_round_1_unreported_players_are_listed_unranked_and_provisional_ones_marked(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=1, sizes=[2])
    register(tournament, make_players(6))
    rnd = seat(tournament)
    services.round_publish(round=rnd, by=director)
    first, second, third = tables(rnd)
    rng = random.Random(9)
    confirm_as(first, 1, enter_as(first, 0, rng))  # confirmed
    enter_as(second, 0, rng)  # provisional

    rows = standings_rows(tournament)

    names = {t: set(seat_names(t)) for t in (first, second, third)}
    assert [row["ranked"] for row in rows] == [True, True, False, False, False, False]
    assert {row["name"] for row in rows[:2]} == names[first]
    assert all(row["place"] for row in rows[:2])
    assert all(row["place"] == "" for row in rows[2:])
    marks = {row["name"]: row["in_play"] for row in rows}
    assert {marks[n] for n in names[first]} == {"reported"}
    assert {marks[n] for n in names[second]} == {"provisional"}
    assert {marks[n] for n in names[third]} == {"not_reported"}


def test_a_disputed_table_is_marked_disputed_not_provisional_in_the_standings_and_on_the_pages(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], client: Any
) -> None:
    """One hand disputed at a table of the round in play: the standings API, the standings
    page and the player page say "disputed", as the round page does; another table's hand
    waiting for confirmation stays "provisional"."""
    tournament, _rnd, (first, second) = two_tables(club, director, make_players)
    rng = random.Random(12)
    number = enter_as(first, 0, rng)
    scoring.hand_dispute(
        game=first.game, number=number, by=Actor(seat_id=seat_ids(first)[1]), reason="Miscount"
    )
    enter_as(second, 0, rng)  # provisional

    rows = {row["name"]: row for row in standings_rows(tournament)}
    assert {rows[n]["in_play"] for n in seat_names(first)} == {"disputed"}
    assert {rows[n]["in_play"] for n in seat_names(second)} == {"provisional"}

    page = client.get(f"/tournaments/{tournament.pk}/?lang=en").content.decode()
    assert page.count('<span class="mark disputed">disputed</span>') == 2
    assert page.count('<span class="mark provisional">provisional</span>') == 2
    registration = first.seats.order_by("position").first().registration_id
    player = client.get(f"/tournaments/{tournament.pk}/players/{registration}/?lang=en")
    text = player.content.decode()
    assert "· disputed" in text
    assert '<span class="mark disputed">disputed</span>' in text
    assert "provisional" not in text.split("<main", 1)[1].split("</main>", 1)[0]


def test_marks_vanish_once_the_round_is_complete(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament, rnd, (first, _second) = two_tables(club, director, make_players)
    rng = random.Random(10)
    confirm_as(first, 1, enter_as(first, 0, rng))
    assert {row["in_play"] for row in standings_rows(tournament)} == {"reported", "not_reported"}

    services.round_close(round=rnd, by=director)

    rows = standings_rows(tournament)
    assert {row["in_play"] for row in rows} == {""}
    assert all(row["ranked"] and row["place"] for row in rows)


# --- the tournament's audit -----------------------------------------------------------------------


def test_every_round_and_registration_change_is_audited_with_who_and_why(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    name = director.get_username()
    tournament = create(
        club, director, "tonk", rounds=2, hands_per_round=1, sizes=[2], minutes_per_round=20
    )
    players = make_players(5)
    registrations = [
        services.registration_add(tournament=tournament, player=p, by=director) for p in players[:4]
    ]
    rnd, _created = services.round_seat(tournament=tournament, by=director, reason="On time")
    rnd.refresh_from_db()
    services.substitute_set(
        round=rnd,
        registration=registrations[0],
        substitute="Sub Stitute",
        by=director,
        reason="Ana is ill",
    )
    services.round_publish(round=rnd, by=director)
    rnd.refresh_from_db()
    assert rnd.deadline is not None
    services.tick(now=rnd.deadline + timedelta(seconds=1))
    services.registration_withdraw(registration=registrations[1], by=director, reason="Left")
    services.round_close(round=rnd, by=director, reason="Everyone is done")
    late = services.registration_add(tournament=tournament, player=players[4], by=director)
    services.table_links_rotate(table=tables(rnd)[0], by=director, reason="Link shared")

    assert audit_actions(tournament) == [
        ("create", None, name, ""),
        *[("register", 1, name, "")] * 4,
        ("seat", 1, name, "On time"),
        ("substitute", 1, name, "Ana is ill"),
        ("publish", 1, name, ""),
        ("call_time", 1, None, ""),  # the clock: the system
        ("withdraw", 1, name, "Left"),
        ("close", 1, name, "Everyone is done"),
        ("complete", 1, name, ""),
        ("register", 2, name, ""),
        ("rotate", 1, name, "Link shared"),
    ]
    entries = list(AuditEntry.objects.filter(tournament=tournament))
    assert entries[6].details["substitute"] == "Sub Stitute"
    assert entries[6].table_number is not None
    assert entries[-2].details["late"] is True
    assert entries[-2].details["registration"] == late.pk
    assert entries[-1].table_number == 1


def test_a_round_completed_by_its_last_result_is_the_systems(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament, _rnd, (first, second) = two_tables(club, director, make_players)
    rng = random.Random(11)
    confirm_as(first, 1, enter_as(first, 0, rng))
    confirm_as(second, 1, enter_as(second, 0, rng))

    assert audit_actions(tournament)[-1] == ("complete", 1, None, "")


def test_a_refused_action_keeps_no_audit_entry_and_a_reason_too_long_changes_nothing(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=1, sizes=[2])
    register(tournament, make_players(4))
    rnd = seat(tournament)
    before = audit_actions(tournament)

    with pytest.raises(TournamentError) as excinfo:
        services.round_publish(round=rnd, by=director, reason="x" * 501)
    assert excinfo.value.code == "bad_reason"
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    with pytest.raises(TournamentError):
        services.round_close(round=rnd, by=director)  # not published
    assert audit_actions(tournament) == before


def test_new_links_for_a_table_replace_its_keys_and_are_a_directors(
    club: Club,
    director: Any,
    member: Any,
    make_players: Callable[[int], list[Player]],
) -> None:
    _tournament, _rnd, (first, _second) = two_tables(club, director, make_players)
    old_table_key = first.game.table_key
    old_seat_keys = set(
        Seat.objects.filter(game_id=first.game_id).values_list("seat_key", flat=True)
    )

    with pytest.raises(NotAllowed):
        services.table_links_rotate(table=first, by=member)
    assert Game.objects.get(pk=first.game_id).table_key == old_table_key

    services.table_links_rotate(table=first, by=director)

    assert Game.objects.get(pk=first.game_id).table_key != old_table_key
    new_seat_keys = set(
        Seat.objects.filter(game_id=first.game_id).values_list("seat_key", flat=True)
    )
    assert not new_seat_keys & old_seat_keys
