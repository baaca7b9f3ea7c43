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
from tests.services import at_once, wait_until
from tournaments import services
from tournaments.models import AuditEntry, Club, Membership, Player, Round, Table

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

    def send() -> Answer:
        api = APIClient()
        api.force_authenticate(director)
        response = api.post(
            f"/api/v1/games/{game_id}/hands/", entry, format="json", HTTP_IDEMPOTENCY_KEY=key
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
    players = make_players(6)
    winners: Counter[int] = Counter()
    for _race in range(RACES):
        rnd = published_round(club, director, players)
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
    holder = connections.create_connection("default")
    answers: list[Answer | BaseException | None] = [None, None]

    def run(i: int, call: Callable[[], Answer]) -> None:
        try:
            answers[i] = call()
        except BaseException as exc:  # returned to the test
            answers[i] = exc
        finally:
            connection.close()

    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            cursor.execute("SELECT id FROM scoring_game WHERE id = %s FOR UPDATE", [game_id])
        threads = []
        for i, call in enumerate((first, then)):
            thread = threading.Thread(target=run, args=(i, call))
            thread.start()
            threads.append(thread)
            wait_until(
                f"request {i + 1} waits for the lock",
                lambda n=i + 1: waiting_for_a_lock(n),
                seconds=30,
            )
        holder.rollback()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        holder.close()
    return answers  # type: ignore[return-value]


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
    players = make_players(6)
    for _race in range(RACES // 5):
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
    players = make_players(6)
    for _race in range(RACES // 5):
        rnd = published_round(club, director, players)
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
