"""Races between directors and tables (issue 13): every answer is 200, 201, 404 or 409, never a
500, and no hand answered 201 is lost (services tests: PostgreSQL's real row locks).

- A regenerate racing the first hands of its round's tables, 50 times, through the real views
  (the API as a director; the table page as a seat's phone): either a hand gets in first and
  the regenerate is refused (409 ``results_exist``), or the regenerate does and the hands find
  their game gone (404). A hand answered 201 (200 from the page) is stored exactly once, so
  the regenerate must have answered 409. Each interleaving is also forced once (the test holds
  the game's row lock and lets the two requests queue behind it in a known order).
- A close and a first hand, in each order: the close counts the hand it waited for (the
  table reported, not "not played"), or the hand finds the game finished (409).
- Publish against close, and two directors publishing, closing, regenerating at once.
- A round's players changing while it is published, seated again or seated (one lock order:
  the latest round, then the tournament): a withdrawal queued behind a publish or a regenerate
  answers 200 (or 400 by its rules) and the other 200, no deadlock; a late entry made while the
  seating task computes waits for it and flags the seated round (``superseded``); a retry of a
  failed seating queued behind a withdrawal or a publish, no deadlock.

Celery runs eagerly here (the seating task runs in the request's thread after its commit).
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection, connections
from django.test import Client
from rest_framework.test import APIClient

from scoring.models import Game, Hand, Seat
from tests.factories import MembershipFactory
from tests.hands import next_number, numbered
from tests.services import at_once, wait_until
from tournaments import services
from tournaments.errors import TournamentError
from tournaments.models import (
    AuditEntry,
    Club,
    Membership,
    Player,
    Registration,
    Round,
    Table,
    Tournament,
)
from tournaments.services import seatings

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

RACES = 50
ANSWERS = {200, 201, 404, 409}


@pytest.fixture(autouse=True)
def _eager(celery_eager: None) -> Iterator[None]:
    yield


@dataclass(frozen=True)
class Answer:
    """One request's answer: what it was, its status, and the hand's idempotency key."""

    what: str
    status: int
    key: str = ""

    @property
    def stored(self) -> bool:
        """Whether a hand request says it recorded the hand (API 201; the page, by htmx, 200)."""
        return (self.what, self.status) in (("api hand", 201), ("page hand", 200))


def published_round(club: Club, director: Any, players: list[Player]) -> Round:
    """Round 1 of a new Tonk tournament of ``players`` (tables of 3), seated and published."""
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name=f"race {uuid.uuid4().hex[:6]}", kind="tonk", rounds=2
    )
    for player in players:
        services.registration_add(tournament=tournament, player=player)
    rnd, _ = services.round_seat(tournament=tournament)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    return services.round_publish(round=rnd)


def names_of(game_id: int) -> list[str]:
    return list(
        Seat.objects.filter(game_id=game_id).order_by("position").values_list("name", flat=True)
    )


def api_hand(director: Any, game_id: int) -> Callable[[], Answer]:
    """A director's first hand at a table, through the API."""
    names = names_of(game_id)
    entry = {
        "dealer": names[2],
        "end": "knock",
        "by": names[0],
        "held": {names[0]: "AS", names[1]: "KH", names[2]: "QH"},
    }
    key = uuid.uuid4().hex
    body = numbered(entry, next_number(game_id))

    def send() -> Answer:
        api = APIClient()
        api.force_authenticate(director)
        response = api.post(
            f"/api/v1/games/{game_id}/hands/", body, format="json", HTTP_IDEMPOTENCY_KEY=key
        )
        return Answer("api hand", response.status_code, key)

    return send


def page_hand(game: Game) -> Callable[[], Answer]:
    """A seat's first hand at a table, from its phone (the table page's form, by htmx); the
    phone took its seat by the seat link beforehand."""
    phone = Client()
    seat_key = (
        Seat.objects.filter(game=game).order_by("position").values_list("seat_key", flat=True)[1]
    )
    assert phone.get(f"/s/{seat_key}/").status_code == 302
    key = uuid.uuid4().hex
    form = {
        "idempotency_key": key,
        "after": "0",  # its first hand
        "dealer": "2",
        "end": "knock",
        "by": "1",
        "held_0": "KH",
        "held_1": "AS",
        "held_2": "QH",
    }

    def send() -> Answer:
        response = phone.post(f"/t/{game.table_key}/hands/", form, HTTP_HX_REQUEST="true")
        return Answer("page hand", response.status_code, key)

    return send


def round_action(director: Any, rnd: Round, action: str) -> Callable[[], Answer]:
    """A director's ``action`` (publish, close, regenerate) on ``rnd``, through the API."""
    url = f"/api/v1/tournaments/{rnd.tournament_id}/rounds/{rnd.number}/{action}/"

    def send() -> Answer:
        api = APIClient()
        api.force_authenticate(director)
        return Answer(action, api.post(url).status_code)

    return send


def check_regenerate_race(rnd: Round, old_games: list[int], answers: list[Answer]) -> None:
    """The rules of a regenerate raced by hands: statuses, hands stored once, and the winner."""
    assert all(isinstance(a, Answer) for a in answers), answers
    assert {a.status for a in answers} <= ANSWERS, answers
    regenerate = next(a for a in answers if a.what == "regenerate")
    hands = [a for a in answers if a.what.endswith("hand")]
    for hand in hands:
        count = Hand.objects.filter(idempotency_key=hand.key).count()
        assert count == (1 if hand.stored else 0), (hand, answers)
    if any(h.stored for h in hands):
        assert regenerate.status == 409, answers
        assert Game.objects.filter(pk__in=old_games).count() == len(old_games)
    else:
        assert regenerate.status == 200, answers
        assert {h.status for h in hands} <= {404, 409}, answers
        assert not Game.objects.filter(pk__in=old_games).exists()
        assert not Hand.objects.filter(game_id__in=old_games).exists()
        rnd.refresh_from_db()
        assert rnd.state == Round.State.SEATED
        assert rnd.tables.count() == len(old_games)


def race_calls(director: Any, rnd: Round) -> tuple[list[int], list[Callable[[], Answer]]]:
    tables = list(Table.objects.filter(round=rnd).select_related("game").order_by("number"))
    calls = [round_action(director, rnd, "regenerate")]
    for table in tables:
        calls += [api_hand(director, table.game_id), page_hand(table.game)]
    return [t.game_id for t in tables], calls


def test_regenerate_racing_first_hands_answers_no_500_and_loses_no_hand(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    winners: Counter[int] = Counter()
    for _race in range(RACES):
        # players of its own each race: one person, one table at a time (issue 24)
        rnd = published_round(club, director, make_players(6))
        old_games, calls = race_calls(director, rnd)
        answers = at_once(len(calls), lambda i, calls=calls: calls[i]())
        check_regenerate_race(rnd, old_games, answers)
        winners[answers[0].status] += 1
    print(f"regenerate answered {dict(winners)} in {RACES} races")  # which side won, for -s


def waiting_for_a_lock(count: int) -> bool:
    """Whether ``count`` other sessions of the test database wait for a lock."""
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] >= count


def in_order_behind_the_game_lock(
    game_id: int, first: Callable[[], Answer], then: Callable[[], Answer]
) -> list[Answer]:
    """Hold ``game_id``'s row lock on another connection, let ``first`` then ``then`` queue
    behind it (each seen waiting before the next starts), release it; their answers."""
    return in_order_behind_a_row_lock("scoring_game", game_id, first, then)


#: The tables whose rows a test holds locked (a table's name cannot be a query parameter).
LOCKABLE = ("scoring_game", "tournaments_round")


def in_order_behind_a_row_lock(
    table: str, row_id: int, first: Callable[[], Answer], then: Callable[[], Answer]
) -> list[Answer]:
    """Hold the row ``row_id`` of ``table`` (one of :data:`LOCKABLE`) locked on another
    connection, let ``first`` then ``then`` queue behind it (each seen waiting for a lock before
    the next starts), release it; their answers (an exception in an answer's place)."""
    assert table in LOCKABLE, table
    holder = connections.create_connection("default")
    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {table} WHERE id = %s FOR UPDATE", [row_id])
        running = []
        for n, call in enumerate((first, then), 1):
            running.append(in_a_thread(call))
            wait_until(
                f"request {n} waits for a lock", lambda n=n: waiting_for_a_lock(n), seconds=30
            )
        holder.rollback()
        return [answer() for answer in running]
    finally:
        holder.close()


def in_a_thread(call: Callable[[], Answer]) -> Callable[[], Answer]:
    """Start ``call`` in a thread of its own (its own database connection, closed at the end);
    returns a function that waits for its answer (an exception is returned in its place)."""
    answer: list[Answer | BaseException | None] = [None]

    def run() -> None:
        try:
            answer[0] = call()
        except BaseException as exc:  # returned to the test
            answer[0] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()

    def join() -> Answer:
        thread.join(timeout=60)
        assert not thread.is_alive(), f"{call} still runs after 60 s"
        return answer[0]  # type: ignore[return-value]

    return join


@pytest.mark.parametrize("first", ["hand", "regenerate"])
def test_each_interleaving_of_a_regenerate_and_a_first_hand(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], first: str
) -> None:
    rnd = published_round(club, director, make_players(6))
    table = Table.objects.filter(round=rnd).order_by("number").first()
    assert table is not None
    old_games = list(Table.objects.filter(round=rnd).values_list("game_id", flat=True))
    hand = api_hand(director, table.game_id)
    regenerate = round_action(director, rnd, "regenerate")
    calls = (hand, regenerate) if first == "hand" else (regenerate, hand)

    answers = in_order_behind_the_game_lock(table.game_id, *calls)

    check_regenerate_race(rnd, old_games, answers)
    statuses = {a.what: a.status for a in answers}
    if first == "hand":  # the hand commits first: the regenerate sees it
        assert statuses == {"api hand": 201, "regenerate": 409}
    else:  # the regenerate deletes the game the hand waited for
        assert statuses == {"api hand": 404, "regenerate": 200}


def test_publish_and_close_by_two_directors_at_once(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    other = MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user
    for _race in range(RACES // 5):
        players = make_players(6)  # its own: one person, one table at a time (issue 24)
        tournament, _ = services.tournament_create(
            club=club, created_by=director, name=f"pc {uuid.uuid4().hex[:6]}", kind="tonk", rounds=2
        )
        for player in players:
            services.registration_add(tournament=tournament, player=player)
        rnd, _ = services.round_seat(tournament=tournament)
        calls = [
            round_action(director, rnd, "publish"),
            round_action(other, rnd, "publish"),
            round_action(director, rnd, "close"),
            round_action(other, rnd, "close"),
        ]
        answers = at_once(len(calls), lambda i, calls=calls: calls[i]())

        assert all(isinstance(a, Answer) for a in answers), answers
        assert {a.status for a in answers} <= {200, 409}, answers
        assert [a.status for a in answers[:2]] == [200, 200], answers  # publishing is idempotent
        rnd.refresh_from_db()
        audit = Counter(
            AuditEntry.objects.filter(tournament=tournament, round_number=1).values_list(
                "action", flat=True
            )
        )
        assert audit[AuditEntry.Action.PUBLISH] == 1
        closed = [a for a in answers[2:] if a.status == 200]
        if closed:  # a close after the publish: the round is complete, once
            assert rnd.state == Round.State.COMPLETE
            assert (audit[AuditEntry.Action.CLOSE], audit[AuditEntry.Action.COMPLETE]) == (1, 1)
            assert set(Table.objects.filter(round=rnd).values_list("state", flat=True)) == {
                Table.State.NOT_PLAYED
            }
        else:  # both closes came before the publish: 409 not_published
            assert rnd.state == Round.State.PUBLISHED
            assert audit[AuditEntry.Action.CLOSE] == 0


def test_two_directors_regenerating_at_once_seat_the_round_once(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    other = MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user
    for _race in range(RACES // 5):
        # players of its own each race: one person, one table at a time (issue 24)
        rnd = published_round(club, director, make_players(6))
        old_games = set(Table.objects.filter(round=rnd).values_list("game_id", flat=True))
        calls = [round_action(director, rnd, "regenerate"), round_action(other, rnd, "regenerate")]

        answers = at_once(2, lambda i, calls=calls: calls[i]())

        assert [a.status for a in answers] == [200, 200], answers
        rnd.refresh_from_db()
        assert rnd.state == Round.State.SEATED
        games = set(Table.objects.filter(round=rnd).values_list("game_id", flat=True))
        assert len(games) == 2 and not games & old_games
        assert Game.objects.filter(tournament_table__round=rnd).count() == 2
        assert rnd.seats.count() == 6
        regenerations = AuditEntry.objects.filter(
            tournament_id=rnd.tournament_id, action=AuditEntry.Action.REGENERATE
        ).count()
        assert regenerations in (1, 2)  # the second may find it seated again already
        assert Round.objects.filter(tournament_id=rnd.tournament_id).count() == 1


@pytest.mark.parametrize("first", ["hand", "close"])
def test_each_interleaving_of_a_close_and_a_first_hand(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], first: str
) -> None:
    rnd = published_round(club, director, make_players(6))
    table = Table.objects.filter(round=rnd).order_by("number").first()
    assert table is not None
    hand = api_hand(director, table.game_id)
    close = round_action(director, rnd, "close")
    calls = (hand, close) if first == "hand" else (close, hand)

    answers = in_order_behind_the_game_lock(table.game_id, *calls)

    statuses = {a.what: a.status for a in answers}
    table.refresh_from_db()
    game = Game.objects.get(pk=table.game_id)
    if first == "hand":  # the close counts the hand it waited for
        assert statuses == {"api hand": 201, "close": 200}
        assert (table.state, game.current_hands) == (Table.State.REPORTED, 1)
    else:  # the hand finds its game finished
        assert statuses == {"api hand": 409, "close": 200}
        assert (table.state, game.current_hands) == (Table.State.NOT_PLAYED, 0)
    assert game.state == Game.State.FINISHED
    assert Round.objects.get(pk=rnd.pk).state == Round.State.COMPLETE


# --- a round's players changing while its round is published, seated again or seated ----------
# Every path takes the latest round's row lock, then the tournament's (publish, regenerate, the
# seating, the seam; and, since they lock the latest round first, late entries, withdrawals and
# seat requests): the forced orders below deadlocked, or lost a late entry, when a change to the
# players locked the tournament first.


def api_post(director: Any, what: str, url: str, data: dict[str, Any] | None = None) -> Any:
    """A director's ``POST url`` (``data`` as JSON), through the API, answered as ``what``."""

    def send() -> Answer:
        api = APIClient()
        api.force_authenticate(director)
        return Answer(what, api.post(url, data, format="json").status_code)

    return send


def withdraw(director: Any, registration: Registration) -> Callable[[], Answer]:
    """A director withdraws ``registration``, through the API."""
    url = (
        f"/api/v1/tournaments/{registration.tournament_id}/registrations/"
        f"{registration.pk}/withdraw/"
    )
    return api_post(director, "withdraw", url)


def register(director: Any, tournament: Tournament, player: Player) -> Callable[[], Answer]:
    """A director registers ``player`` (a late entry once a round exists), through the API."""
    url = f"/api/v1/tournaments/{tournament.pk}/registrations/"
    return api_post(director, "register", url, {"player": player.pk})


def seat(director: Any, tournament: Tournament) -> Callable[[], Answer]:
    """A director asks for the next round's seating (again: the latest round), through the API."""
    return api_post(director, "seat", f"/api/v1/tournaments/{tournament.pk}/rounds/")


def seated_players(rnd: Round) -> set[int]:
    """The registrations ``rnd`` seats or sits out."""
    return set(rnd.seats.values_list("registration_id", flat=True)) | set(
        rnd.sit_outs.values_list("registration_id", flat=True)
    )


def seated_round_of(
    club: Club, director: Any, players: list[Player], **options: Any
) -> tuple[Round, list[Registration]]:
    """Round 1 of a new tournament (3 rounds, ``options``) of ``players``, seated."""
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name=f"r {uuid.uuid4().hex[:6]}", rounds=3, **options
    )
    registrations = [services.registration_add(tournament=tournament, player=p) for p in players]
    rnd, _ = services.round_seat(tournament=tournament)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    return rnd, registrations


@pytest.mark.parametrize("action", ["publish", "regenerate"])
@pytest.mark.parametrize("field", ["nine at tonk", "five at rook tables of 5"])
def test_a_withdrawal_queued_behind_a_publish_or_a_regenerate_does_not_deadlock(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    action: str,
    field: str,
) -> None:
    """The withdrawal asked while the round's publish (or regenerate) waits for the round's row.
    It used to lock the tournament, then wait for the round: the publish, holding the round,
    then waited for the tournament (PostgreSQL: "deadlock detected", a 500)."""
    fits = field == "nine at tonk"  # else withdrawing one leaves 4 for tables of 5
    options = {"kind": "tonk"} if fits else {"kind": "rook", "sizes": [5]}
    rnd, registrations = seated_round_of(club, director, make_players(9 if fits else 5), **options)
    leaving = registrations[0]

    answers = in_order_behind_a_row_lock(
        "tournaments_round",
        rnd.pk,
        round_action(director, rnd, action),
        withdraw(director, leaving),
    )

    assert all(isinstance(a, Answer) for a in answers), answers
    statuses = {a.what: a.status for a in answers}
    leaving.refresh_from_db()
    rnd.refresh_from_db()
    if fits:
        assert statuses == {action: 200, "withdraw": 200}
        # Published: they sit at a table of round 1; regenerated: round 1 is seated without them.
        assert leaving.withdrawn_after == (1 if action == "publish" else 0)
    else:  # refused (409), as registration_withdraw says (the round published, or planned again)
        assert statuses == {action: 200, "withdraw": 409}
        assert leaving.withdrawn_after is None
    if action == "publish":
        assert (rnd.state, rnd.superseded) == (Round.State.PUBLISHED, False)
    else:  # the withdrawal came before the seating task (it waited behind it): seated without
        assert (rnd.state, rnd.superseded) == (Round.State.SEATED, False)
        expected = {r.pk for r in registrations[1 if fits else 0 :]}
        assert seated_players(rnd) == expected


def during_a_seating(
    monkeypatch: pytest.MonkeyPatch, seat: Callable[[], Answer], change: Callable[[], Answer]
) -> list[Answer]:
    """Ask for a seating (``seat``: the eager task runs in its thread, after its commit), hold
    the task once it has read the players (its round's and tournament's rows locked), make
    ``change`` in another thread, see it wait for a lock, let the seating go on; their answers.
    """
    players_read, go_on = threading.Event(), threading.Event()
    seating_for = seatings._seating_for

    def seating_held(*args: Any, **kwargs: Any) -> Any:
        players_read.set()
        assert go_on.wait(60), "the test never let the seating go on"
        return seating_for(*args, **kwargs)

    monkeypatch.setattr(seatings, "_seating_for", seating_held)
    seating = in_a_thread(seat)
    try:
        wait_until("the seating has read the players", players_read.is_set, seconds=30)
        changing = in_a_thread(change)
        wait_until("the change waits for a lock", lambda: waiting_for_a_lock(1), seconds=30)
    finally:
        go_on.set()
    return [seating(), changing()]


def test_a_late_entry_during_the_seating_waits_for_it_and_flags_the_round(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A player registered while the seating task computes (it has read the players, not yet
    committed): the registration waits for the seating's row lock, then finds the round seated
    without the player and flags it (superseded: the director seats it again). It used to get
    round 1 while the round was still planned, the round then seated without them and nothing
    flagged: the player scored as missing round 1."""
    *players, late = make_players(7)
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="late", kind="tonk", rounds=2
    )
    for player in players:
        services.registration_add(tournament=tournament, player=player)
    answers = during_a_seating(
        monkeypatch, seat(director, tournament), register(director, tournament, late)
    )

    assert answers == [Answer("seat", 202), Answer("register", 201)], answers
    rnd = Round.objects.get(tournament=tournament, number=1)
    entry = Registration.objects.get(tournament=tournament, player=late)
    assert (rnd.state, entry.from_round, rnd.superseded) == (Round.State.SEATED, 1, True)
    assert entry.pk not in seated_players(rnd)
    services.round_regenerate(round=rnd, by=director)  # what the flag asks the director to do
    rnd.refresh_from_db()
    assert (rnd.state, rnd.superseded) == (Round.State.SEATED, False)
    assert seated_players(rnd) == set(tournament.registrations.values_list("pk", flat=True))


@pytest.mark.parametrize("other", ["withdraw", "publish"])
def test_a_retry_of_a_failed_seating_queued_behind_a_withdrawal_or_a_publish(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    monkeypatch: pytest.MonkeyPatch,
    other: str,
) -> None:
    """Asking again for a failed round's seating (the retry) while a withdrawal, or a publish,
    waits for the round's row. The retry used to lock the tournament, then the round: against a
    withdrawal locking the round first (as it now does), or a publish (which locks the round,
    then the tournament), a deadlock."""
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="retry", kind="tonk", rounds=3
    )
    registrations = [
        services.registration_add(tournament=tournament, player=p) for p in make_players(9)
    ]

    def seating_failing(*_args: Any, **_kwargs: Any) -> Any:
        raise TournamentError("seating_unfinished", attempts=1)

    with monkeypatch.context() as patch:
        patch.setattr(seatings, "_seating_for", seating_failing)
        rnd, _ = services.round_seat(tournament=tournament)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.FAILED
    leaving = registrations[0]
    first = (
        withdraw(director, leaving) if other == "withdraw" else round_action(director, rnd, other)
    )

    answers = in_order_behind_a_row_lock(
        "tournaments_round", rnd.pk, first, seat(director, tournament)
    )

    assert all(isinstance(a, Answer) for a in answers), answers
    rnd.refresh_from_db()
    leaving.refresh_from_db()
    assert rnd.state == Round.State.SEATED  # the retry's task ran after both
    if other == "withdraw":  # allowed while the seating failed; the retry seats the others
        assert answers == [Answer("withdraw", 200), Answer("seat", 202)]
        assert leaving.withdrawn_after == 0  # round 1 is seated without them
        assert seated_players(rnd) == {r.pk for r in registrations[1:]}
    else:  # nothing to publish yet
        assert answers == [Answer("publish", 409), Answer("seat", 202)]
        assert seated_players(rnd) == {r.pk for r in registrations}


def test_a_withdrawal_during_the_seating_waits_for_it_and_flags_the_round(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A player withdrawn while the seating task computes (it has read the players, them among
    them): the withdrawal waits for the seating, then finds the round seated with the player
    and flags it (superseded). The withdrawal locks the latest round and the tournament before
    the registration: holding the registration's row (FOR UPDATE) while it waited, the
    seating's seats (a key referring to that row) would wait for it: a deadlock."""
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="leaving", kind="tonk", rounds=2
    )
    registrations = [
        services.registration_add(tournament=tournament, player=p) for p in make_players(7)
    ]
    leaving = registrations[0]

    answers = during_a_seating(monkeypatch, seat(director, tournament), withdraw(director, leaving))

    assert answers == [Answer("seat", 202), Answer("withdraw", 200)], answers
    rnd = Round.objects.get(tournament=tournament, number=1)
    leaving.refresh_from_db()
    assert (rnd.state, rnd.superseded, leaving.withdrawn_after) == (Round.State.SEATED, True, 1)
    assert seated_players(rnd) == {r.pk for r in registrations}
    services.round_regenerate(round=rnd, by=director)
    rnd.refresh_from_db()
    leaving.refresh_from_db()
    assert (rnd.state, rnd.superseded) == (Round.State.SEATED, False)
    assert seated_players(rnd) == {r.pk for r in registrations[1:]}
    assert leaving.withdrawn_after == 0  # seated again without them: round 1 was not theirs
