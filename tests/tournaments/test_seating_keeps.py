"""Issue 24, through the services: what seating a round again keeps (its substitutes, where the
absent player is seated again; the ones it drops asked for first, and audited as dropped), and
one person, one table at a time (registering, seating and substituting someone who sits at
another of the club's tables in an overlapping round is refused unless a director confirms it
with a reason, audited); and the one rule of what "overlap" means."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from scoring.models import Seat
from tests.factories import PlayerFactory
from tournaments import services
from tournaments.errors import TournamentConflict, TournamentError
from tournaments.models import AuditEntry, Club, Player, Registration, Round, TableSeat, Tournament
from tournaments.services.overlap import round_window, seated_elsewhere, windows_overlap

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_eager")]

Capture = Callable[..., AbstractContextManager[list[Callable[[], None]]]]

T0 = datetime(2026, 3, 5, 18, 0, tzinfo=timezone.get_fixed_timezone(0))


# --- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def run(django_capture_on_commit_callbacks: Capture) -> Callable[..., Any]:
    """``run(fn, **kwargs)``: call a service, then what it enqueued after commit (the eager
    seating task)."""

    def call(fn: Callable[..., Any], **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return fn(**kwargs)

    return call


@pytest.fixture
def people(club: Club) -> Iterator[Callable[[int], list[Player]]]:
    made = iter(range(1000))

    def make(n: int) -> list[Player]:
        return [PlayerFactory(club=club, name=f"Person {next(made):03d}") for _ in range(n)]

    yield make


def tonk(club: Club, director: Any, name: str, **kwargs: Any) -> Tournament:
    tournament, _created = services.tournament_create(
        club=club,
        created_by=director,
        name=name,
        kind="tonk",
        rounds=3,
        sizes=[3],
        **kwargs,
    )
    return tournament


def enter(tournament: Tournament, players: list[Player]) -> list[Registration]:
    return [services.registration_add(tournament=tournament, player=p) for p in players]


def seated(run: Callable[..., Any], tournament: Tournament, **kwargs: Any) -> Round:
    rnd, _created = run(services.round_seat, tournament=tournament, **kwargs)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    return rnd


def seat_of(rnd: Round, registration: Registration) -> TableSeat | None:
    return (
        TableSeat.objects.filter(round=rnd, registration=registration)
        .select_related("table")
        .first()
    )


def game_seat(seat: TableSeat) -> Seat:
    return Seat.objects.get(game_id=seat.table.game_id, position=seat.position)


def audit(tournament: Tournament, action: str) -> list[AuditEntry]:
    return list(tournament.audit.filter(action=action).order_by("id"))


# --- what seating keeps -----------------------------------------------------------------------


def test_seating_again_keeps_a_substitute_in_the_absent_players_new_seat(
    club: Club, director: Any, people: Callable[[int], list[Player]], run: Callable[..., Any]
) -> None:
    tournament = tonk(club, director, "Thursday Tonk")
    regs = enter(tournament, people(6))
    rnd = seated(run, tournament)
    absent = regs[2]
    services.substitute_set(round=rnd, registration=absent, substitute="Sam Stand-in", by=director)
    old_key = game_seat(seat_of(rnd, absent)).seat_key

    run(services.round_regenerate, round=rnd, by=director, reason="standings changed")

    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED and rnd.kept_substitutes == []
    seat = seat_of(rnd, absent)
    assert seat is not None and seat.substitute == "Sam Stand-in"
    played = game_seat(seat)
    assert (played.name, played.player_id) == ("Sam Stand-in", None)
    assert played.seat_key != old_key
    assert TableSeat.objects.filter(round=rnd).exclude(substitute="").count() == 1
    (again,) = audit(tournament, AuditEntry.Action.REGENERATE)
    assert again.details["kept"] == [
        {
            "registration": absent.pk,
            "player": absent.player.name,
            "substitute": "Sam Stand-in",
            "table": again.details["kept"][0]["table"],
        }
    ]
    assert again.details["dropped"] == []
    put_in = audit(tournament, AuditEntry.Action.SUBSTITUTE)
    assert [(e.details.get("kept", False), e.table_number) for e in put_in] == [
        (False, put_in[0].table_number),
        (True, seat.table.number),
    ]
    assert audit(tournament, AuditEntry.Action.DROP_SUBSTITUTE) == []


def test_seating_again_refuses_to_drop_a_substitute_until_the_director_confirms(
    club: Club, director: Any, people: Callable[[int], list[Player]], run: Callable[..., Any]
) -> None:
    tournament = tonk(club, director, "Thursday Tonk")
    regs = enter(tournament, people(7))
    rnd = seated(run, tournament)
    absent = next(r for r in regs if seat_of(rnd, r) is not None)
    services.substitute_set(round=rnd, registration=absent, substitute="Sam Stand-in")
    table = seat_of(rnd, absent).table.number
    services.registration_withdraw(registration=absent, by=director)
    games = set(rnd.tables.values_list("game_id", flat=True))

    with pytest.raises(TournamentConflict) as refused:
        run(services.round_regenerate, round=rnd, by=director)

    assert refused.value.code == "substitutes_dropped"
    assert refused.value.to_dict()["substitutes"] == [
        {
            "registration": absent.pk,
            "player": absent.player.name,
            "substitute": "Sam Stand-in",
            "table": table,
        }
    ]
    assert refused.value.message == (
        f"seating round 1 again drops the substitute of {absent.player.name}, who is no longer "
        "seated in it; confirm to drop it"
    )
    assert set(rnd.tables.values_list("game_id", flat=True)) == games  # nothing changed
    assert audit(tournament, AuditEntry.Action.REGENERATE) == []

    run(
        services.round_regenerate,
        round=rnd,
        by=director,
        reason="Ana went home",
        drop_substitutes=True,
    )

    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    assert seat_of(rnd, absent) is None
    assert not TableSeat.objects.filter(round=rnd).exclude(substitute="").exists()
    (dropped,) = audit(tournament, AuditEntry.Action.DROP_SUBSTITUTE)
    assert (dropped.user, dropped.reason, dropped.table_number, dropped.round_number) == (
        director,
        "Ana went home",
        table,
        1,
    )
    assert (dropped.details["player"], dropped.details["substitute"]) == (
        absent.player.name,
        "Sam Stand-in",
    )
    (again,) = audit(tournament, AuditEntry.Action.REGENERATE)
    assert [d["substitute"] for d in again.details["dropped"]] == ["Sam Stand-in"]
    assert again.details["kept"] == []


def test_what_seating_again_keeps_is_what_the_new_seating_seats(
    club: Club, director: Any, people: Callable[[int], list[Player]], run: Callable[..., Any]
) -> None:
    tournament = tonk(club, director, "Thursday Tonk")
    enter(tournament, people(7))  # two tables of three, one sits out
    rnd = seated(run, tournament)
    subbed = {}
    for i, seat in enumerate(TableSeat.objects.filter(round=rnd).order_by("id")):
        subbed[seat.registration_id] = f"Stand-in {i}"
        services.substitute_set(
            round=rnd, registration=seat.registration, substitute=f"Stand-in {i}"
        )
    enter(tournament, people(1))  # a late entry: eight players, two sit out

    run(services.round_regenerate, round=rnd, drop_substitutes=True)

    rnd.refresh_from_db()
    now_seated = dict(
        TableSeat.objects.filter(round=rnd).values_list("registration_id", "substitute")
    )
    kept = {r: s for r, s in subbed.items() if r in now_seated}
    assert {r: now_seated[r] for r in kept} == kept  # each in their player's new seat
    dropped = audit(tournament, AuditEntry.Action.DROP_SUBSTITUTE)
    assert sorted(e.details["registration"] for e in dropped) == sorted(
        r for r in subbed if r not in now_seated
    )
    (again,) = audit(tournament, AuditEntry.Action.REGENERATE)
    assert sorted(k["registration"] for k in again.details["kept"]) == sorted(kept)


def test_a_substitute_whose_player_the_seating_leaves_out_after_all_is_dropped_and_audited(
    club: Club,
    director: Any,
    people: Callable[[int], list[Player]],
    run: Callable[..., Any],
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament = tonk(club, director, "Thursday Tonk")
    regs = enter(tournament, people(7))
    rnd = seated(run, tournament)
    absent = next(r for r in regs if seat_of(rnd, r) is not None)
    services.substitute_set(round=rnd, registration=absent, substitute="Sam Stand-in")
    with django_capture_on_commit_callbacks(execute=False) as waiting:
        services.round_regenerate(round=rnd, by=director)
    # kept when asked; the player withdraws before the seating task runs
    services.registration_withdraw(registration=absent)
    with django_capture_on_commit_callbacks(execute=True):
        for task in waiting:
            task()

    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED and rnd.kept_substitutes == []
    assert not TableSeat.objects.filter(round=rnd).exclude(substitute="").exists()
    (dropped,) = audit(tournament, AuditEntry.Action.DROP_SUBSTITUTE)
    assert (dropped.user, dropped.details["at_seating"], dropped.details["substitute"]) == (
        None,
        True,
        "Sam Stand-in",
    )


# --- what "overlap" means ---------------------------------------------------------------------


def test_windows_are_half_open_and_one_without_an_end_overlaps_every_later_one() -> None:
    hour = timedelta(hours=1)
    assert windows_overlap((T0, T0 + hour), (T0 + hour / 2, T0 + 2 * hour))
    assert not windows_overlap((T0, T0 + hour), (T0 + hour, T0 + 2 * hour))
    assert not windows_overlap((T0 + hour, None), (T0, T0 + hour))
    assert windows_overlap((T0, None), (T0 + 100 * hour, T0 + 101 * hour))
    assert windows_overlap((T0 + 100 * hour, None), (T0, None))


def test_a_rounds_window_runs_from_its_start_to_its_deadline_or_completion(
    club: Club, director: Any
) -> None:
    later = tonk(
        club, director, "Next week", starts_at=T0 + timedelta(days=7), minutes_per_round=90
    )
    unscheduled = tonk(club, director, "Whenever")
    published = Round(tournament=later, number=1, published_at=T0, deadline=T0 + timedelta(hours=2))
    complete = Round(
        tournament=later,
        number=1,
        state=Round.State.COMPLETE,
        published_at=T0,
        completed_at=T0 + timedelta(hours=3),
    )

    def window(t: Tournament, number: int, rnd: Round | None, now: datetime) -> Any:
        return round_window(tournament=t, number=number, rnd=rnd, now=now)

    assert window(later, 1, None, T0) == (T0 + timedelta(days=7), T0 + timedelta(days=7, hours=1.5))
    assert window(later, 2, None, T0) == (T0, T0 + timedelta(hours=1.5))  # round 2: any moment
    assert window(unscheduled, 1, None, T0) == (T0, None)
    assert window(later, 1, published, T0) == (T0, T0 + timedelta(hours=2))
    # time called, its last hand still being played: no end until it completes
    assert window(later, 1, published, T0 + timedelta(hours=2)) == (T0, None)
    assert window(later, 1, complete, T0 + timedelta(days=1)) == (T0, T0 + timedelta(hours=3))


# --- one person, one table at a time ----------------------------------------------------------


@pytest.fixture
def elsewhere(
    club: Club, director: Any, people: Callable[[int], list[Player]], run: Callable[..., Any]
) -> tuple[Round, list[Registration]]:
    """Round 1 of "Open Pairs" in play (published, no deadline), six people seated."""
    tournament = tonk(club, director, "Open Pairs")
    regs = enter(tournament, people(6))
    rnd = seated(run, tournament)
    services.round_publish(round=rnd)
    return rnd, regs


def test_registering_someone_seated_in_an_overlapping_round_is_refused_unless_confirmed(
    club: Club, director: Any, elsewhere: tuple[Round, list[Registration]]
) -> None:
    rnd, regs = elsewhere
    busy = regs[0].player
    table = seat_of(rnd, regs[0]).table.number
    tournament = tonk(club, director, "Ladder")

    with pytest.raises(TournamentConflict) as refused:
        services.registration_add(tournament=tournament, player=busy, by=director)

    body = refused.value.to_dict()
    assert (body["code"], body["name"], body["tournament"], body["table"], body["round"]) == (
        "seated_elsewhere",
        busy.name,
        "Open Pairs",
        table,
        1,
    )
    assert refused.value.status == 409
    assert refused.value.message == (
        f"{busy.name} already sits at table {table} of Open Pairs (round 1) at that time; a "
        "director may confirm it, with a reason"
    )
    assert not tournament.registrations.exists()
    with pytest.raises(TournamentError) as no_reason:
        services.registration_add(
            tournament=tournament, player=busy, by=director, confirm_elsewhere=True, reason=" "
        )
    assert (no_reason.value.code, no_reason.value.field) == ("reason_needed", "reason")
    assert not tournament.registrations.exists()

    services.registration_add(
        tournament=tournament,
        player=busy,
        by=director,
        confirm_elsewhere=True,
        reason="plays the ladder after the pairs",
    )

    (entry,) = audit(tournament, AuditEntry.Action.REGISTER)
    assert entry.reason == "plays the ladder after the pairs"
    assert entry.details["elsewhere"] == [
        {
            "name": busy.name,
            "tournament": "Open Pairs",
            "tournament_id": rnd.tournament_id,
            "round": 1,
            "table": table,
        }
    ]


def test_registering_for_a_tournament_that_starts_after_the_others_deadline_is_allowed(
    club: Club, director: Any, elsewhere: tuple[Round, list[Registration]]
) -> None:
    rnd, regs = elsewhere
    now = timezone.now()
    Round.objects.filter(pk=rnd.pk).update(deadline=now + timedelta(hours=1))
    evening = tonk(club, director, "Late show", starts_at=now + timedelta(hours=1))
    clash = tonk(club, director, "Early show", starts_at=now + timedelta(minutes=30))

    services.registration_add(tournament=evening, player=regs[0].player)

    assert evening.registrations.count() == 1
    with pytest.raises(TournamentConflict):
        services.registration_add(tournament=clash, player=regs[0].player)
    Round.objects.filter(pk=rnd.pk).update(
        state=Round.State.COMPLETE, completed_at=now - timedelta(minutes=1)
    )
    services.registration_add(tournament=clash, player=regs[0].player)  # over: no overlap


def test_seating_a_round_with_someone_seated_elsewhere_is_refused_unless_confirmed(
    club: Club,
    director: Any,
    people: Callable[[int], list[Player]],
    elsewhere: tuple[Round, list[Registration]],
    run: Callable[..., Any],
    django_capture_on_commit_callbacks: Capture,
) -> None:
    _rnd, regs = elsewhere
    tournament = tonk(club, director, "Ladder")
    # registered before the pairs were seated: no refusal then
    Registration.objects.create(tournament=tournament, player=regs[1].player)
    enter(tournament, people(5))

    with pytest.raises(TournamentConflict) as refused:
        run(services.round_seat, tournament=tournament, by=director)

    assert refused.value.to_dict()["name"] == regs[1].player.name
    assert refused.value.to_dict()["tournament"] == "Open Pairs"
    assert not tournament.round_set.exists()

    mine = seated(run, tournament, by=director, confirm_elsewhere=True, reason="one hand only")

    assert seat_of(mine, Registration.objects.get(tournament=tournament, player=regs[1].player))
    (entry,) = audit(tournament, AuditEntry.Action.SEAT)
    assert entry.reason == "one hand only"
    assert [e["name"] for e in entry.details["elsewhere"]] == [regs[1].player.name]


def test_the_seating_task_refuses_someone_seated_meanwhile_and_the_retry_asks_to_confirm(
    club: Club,
    director: Any,
    people: Callable[[int], list[Player]],
    run: Callable[..., Any],
    django_capture_on_commit_callbacks: Capture,
) -> None:
    both = people(1)
    first, second = tonk(club, director, "Pairs"), tonk(club, director, "Ladder")
    enter(first, both + people(5))
    enter(second, both + people(5))
    with django_capture_on_commit_callbacks(execute=False) as pairs:
        services.round_seat(tournament=first)
    with django_capture_on_commit_callbacks(execute=False) as ladder:
        services.round_seat(tournament=second)  # the pairs are not seated yet: no refusal
    with django_capture_on_commit_callbacks(execute=True):
        for task in pairs + ladder:
            task()

    failed = second.round_set.get()
    assert failed.state == Round.State.FAILED
    assert failed.failure["code"] == "seated_elsewhere"
    assert failed.failure["params"]["tournament"] == "Pairs"
    with pytest.raises(TournamentConflict):
        run(services.round_seat, tournament=second)

    retried = seated(run, second, confirm_elsewhere=True, reason="the pairs end early")

    assert retried.pk == failed.pk and retried.elsewhere_confirmed


def test_a_substitute_seated_at_another_tournament_is_refused_unless_confirmed(
    club: Club,
    director: Any,
    people: Callable[[int], list[Player]],
    elsewhere: tuple[Round, list[Registration]],
    run: Callable[..., Any],
) -> None:
    rnd, regs = elsewhere
    tournament = tonk(club, director, "Ladder")
    mine = enter(tournament, people(6))
    my_round = seated(run, tournament)
    busy = regs[3].player.name.upper()  # the same person by the name rule

    with pytest.raises(TournamentConflict) as refused:
        services.substitute_set(round=my_round, registration=mine[0], substitute=busy)
    assert refused.value.to_dict()["table"] == seat_of(rnd, regs[3]).table.number
    assert not TableSeat.objects.filter(round=my_round).exclude(substitute="").exists()

    services.substitute_set(
        round=my_round,
        registration=mine[0],
        substitute=busy,
        by=director,
        confirm_elsewhere=True,
        reason="between hands",
    )
    entry = audit(tournament, AuditEntry.Action.SUBSTITUTE)[-1]
    assert (entry.reason, entry.details["elsewhere"][0]["name"]) == (
        "between hands",
        regs[3].player.name,
    )


def test_someone_substituting_in_one_tournament_is_seated_elsewhere_for_another(
    club: Club,
    director: Any,
    people: Callable[[int], list[Player]],
    elsewhere: tuple[Round, list[Registration]],
    run: Callable[..., Any],
) -> None:
    rnd, regs = elsewhere
    zed = PlayerFactory(club=club, name="Zed Nash")
    services.substitute_set(round=rnd, registration=regs[0], substitute="zed nash")
    table = seat_of(rnd, regs[0]).table.number
    tournament = tonk(club, director, "Ladder")

    with pytest.raises(TournamentConflict) as refused:
        services.registration_add(tournament=tournament, player=zed)

    assert (refused.value.to_dict()["name"], refused.value.to_dict()["table"]) == (
        "zed nash",
        table,
    )
    # the player whose seat the substitute plays is not at the table
    services.registration_add(tournament=tournament, player=regs[0].player)
    assert (
        seated_elsewhere(tournament=tournament, number=1, rnd=None, names=[regs[0].player.name])
        == []
    )
