"""The permission sweep (issue 12, acceptance): every mutating API endpoint and table-page post
× who calls × {round open, round complete} at a tournament table, and the same at a casual
game. Allowed exactly where the issue's rules say; elsewhere 401/403/404 (409 where the game's
state refuses everyone) and NOTHING changed: the rows of Hand, HandEvent and ScoreLine, the
game row's version and every hand's state and status are counted before and after.

The expectation comes from the small rule table below (:func:`expected`), written from the
issue, not from ``scoring.permissions``, so that this test can fail.

The tournament table is built through the tournaments services (create, register, seat,
publish; complete by closing the round), which start its game directed, with the tournament's
confirmation.

To sweep a new endpoint or page post, add a row to :data:`API` or :data:`PAGES` and, if its
rule differs, a line to :func:`expected`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import get_resolver, reverse
from rest_framework.test import APIClient

from scoring import services
from scoring.models import Game, Hand, HandEvent, ScoreLine
from scoring.permissions import Actor
from tests.factories import MembershipFactory, PlayerFactory
from tests.hands import next_number, numbered
from tournaments import services as tournaments
from tournaments.models import Membership, Round
from tournaments.services.rounds import round_complete_locked

pytestmark = pytest.mark.django_db


# --- the game under test ----------------------------------------------------------------------


@dataclass
class World:
    """The game under test (hand 1 entered by its first seat, provisional; hand 2 voided),
    another table's game, and the people around them."""

    game: Game
    other: Game
    director: Any
    creator: Any
    member: Any
    other_director: Any


def knock(game: Game, by: int) -> dict[str, Any]:
    """A Tonk knock at ``game``: seat ``by`` holds AS, the others KH and QH."""
    names = [name for name, _seat in game.seating]
    held = dict(zip(names, [c for c in ("KH", "QH", "JH")], strict=False))
    held[names[by]] = "AS"
    return {"dealer": names[-1], "end": "knock", "by": names[by], "held": held}


def hands_for(game: Game) -> None:
    first = Actor(seat_id=game.seats.get(position=0).pk)
    services.hand_record(game=game, entry=knock(game, 0), by=first)
    services.hand_record(game=game, entry=knock(game, 1), by=first)
    services.hand_void(game=game, number=2, by=first, reason="entered twice")


def tournament_world(*, complete: bool) -> World:
    director = MembershipFactory(role=Membership.Role.DIRECTOR)
    club = director.club
    tournament, _ = tournaments.tournament_create(
        club=club, created_by=director.user, name="Night", kind="tonk", rounds=2
    )
    for name in ("Ana", "Ben", "Cy", "Dee", "Eve", "Fay"):
        tournaments.registration_add(
            tournament=tournament, player=PlayerFactory(club=club, name=name)
        )
    rnd, _ = tournaments.round_seat(tournament=tournament)
    rnd = tournaments.round_seating_compute(round_id=rnd.pk)
    tournaments.round_publish(round=rnd)
    game, other = (t.game for t in rnd.tables.order_by("number").select_related("game"))
    game.refresh_from_db()
    hands_for(game)
    if complete:
        # Hand 1 stays provisional, as in a round closed before a close waited for its
        # confirmations (``round_close`` now refuses it): complete the round as that close did.
        with transaction.atomic():
            round_complete_locked(Round.objects.select_for_update().get(pk=rnd.pk))
    game.refresh_from_db()
    assert game.directed and game.state == (Game.State.FINISHED if complete else "in_play")
    return World(
        game=game,
        other=other,
        director=director.user,
        creator=None,
        member=MembershipFactory(club=club).user,
        other_director=MembershipFactory(role=Membership.Role.DIRECTOR).user,
    )


def casual_world() -> World:
    director = MembershipFactory(role=Membership.Role.DIRECTOR)
    club = director.club
    creator = MembershipFactory(club=club).user
    game, _ = services.game_start(
        kind="tonk",
        players=["Ana", "Ben", "Cy"],
        club=club,
        created_by=creator,
        confirmation=Game.Confirmation.ONE_OTHER,
    )
    other, _ = services.game_start(kind="tonk", players=["Dee", "Eve"], club=club)
    hands_for(game)
    return World(
        game=game,
        other=other,
        director=director.user,
        creator=creator,
        member=MembershipFactory(club=club).user,
        other_director=MembershipFactory(role=Membership.Role.DIRECTOR).user,
    )


def snapshot(game: Game) -> tuple[Any, ...]:
    """What a refused request must leave as it was."""
    row = Game.objects.get(pk=game.pk)
    hands = tuple(
        Hand.objects.filter(game=game)
        .order_by("number", "revision")
        .values_list("number", "revision", "state", "status")
    )
    counts = tuple(m.objects.count() for m in (Hand, HandEvent, ScoreLine))
    return (counts, row.version, row.state, hands)


# --- who calls --------------------------------------------------------------------------------

#: A seat of this table: its second seat (the first entered hand 1, which the second may
#: confirm).
SEAT = "a seat of this table"
OTHER_SEAT = "a seat of another table"
MEMBER = "a club member not seated"
OTHER_DIRECTOR = "another club's director"
ANONYMOUS = "anonymous"
DIRECTOR = "the club's director"
CREATOR = "the game's creator"
#: The API with the game's table key (``Authorization: Table``); on the pages the table link
#: alone is ANONYMOUS (every page client holds the link).
TABLE_KEY = "the table key alone"

TOURNAMENT_CALLERS = [SEAT, OTHER_SEAT, MEMBER, OTHER_DIRECTOR, ANONYMOUS, DIRECTOR]
CASUAL_CALLERS = [SEAT, CREATOR, DIRECTOR, MEMBER, OTHER_DIRECTOR, ANONYMOUS]


def seat_of(game: Game, position: int = 1) -> Any:
    return game.seats.get(position=position)


def api_client(world: World, caller: str) -> APIClient:
    """An API client: a seat by its seat key, a table device by the table key, a user by their
    session, anonymous with no credentials."""
    client = APIClient()
    if caller == TABLE_KEY:
        client.credentials(HTTP_AUTHORIZATION=f"Table {world.game.table_key}")
    elif caller == SEAT:
        client.credentials(HTTP_AUTHORIZATION=f"Seat {seat_of(world.game).seat_key}")
    elif caller == OTHER_SEAT:
        client.credentials(HTTP_AUTHORIZATION=f"Seat {seat_of(world.other, 0).seat_key}")
    elif caller != ANONYMOUS:
        client.force_authenticate(user_of(world, caller))
    return client


def page_client(world: World, caller: str) -> Client:
    """A browser with the game's table link: a seat chosen on this device (the session's
    ``seats``), a signed-in user, or the link alone."""
    client = Client()
    if caller in (SEAT, OTHER_SEAT):
        game, seat = (
            (world.game, seat_of(world.game))
            if caller == SEAT
            else (world.other, seat_of(world.other, 0))
        )
        session = client.session
        session["seats"] = {str(game.pk): seat.pk}
        session.save()
    elif caller != ANONYMOUS:
        client.force_login(user_of(world, caller))
    return client


def user_of(world: World, caller: str) -> Any:
    return {
        MEMBER: world.member,
        OTHER_DIRECTOR: world.other_director,
        DIRECTOR: world.director,
        CREATOR: world.creator,
    }[caller]


# --- what they try ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """One mutating endpoint or page post: its name, and how to send it."""

    name: str
    send: Callable[[Any, Game], Any]


REASON = "checked at the table"


def _api(method: str, tail: str, body: Callable[[Game], Any] | None = None) -> Callable[..., Any]:
    def send(client: APIClient, game: Game) -> Any:
        return getattr(client, method)(
            f"/api/v1/games/{game.pk}/{tail}",
            body(game) if body else None,
            format="json",
            HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
        )

    return send


#: Every mutating endpoint of a game in the API (each with a reason where it takes one).
API = [
    Write("record", _api("post", "hands/", lambda g: numbered(knock(g, 2), next_number(g)))),
    Write(
        "correct",
        _api("put", "hands/1/", lambda g: {"revision": 1, "hand": knock(g, 1), "reason": REASON}),
    ),
    Write("void", _api("delete", f"hands/1/?reason={REASON}")),
    Write("restore", _api("post", "hands/2/restore/", lambda g: {"reason": REASON})),
    Write("confirm", _api("post", "hands/1/confirm/", lambda g: {"reason": REASON})),
    Write("dispute", _api("post", "hands/1/dispute/", lambda g: {"reason": REASON})),
    Write(
        "resolve",
        _api("post", "hands/1/resolve/", lambda g: {"action": "confirm", "reason": REASON}),
    ),
    Write("finish", _api("post", "finish/")),
]


def _tonk_form(by: int, **extra: object) -> dict[str, str]:
    data = {
        "idempotency_key": uuid.uuid4().hex,
        "dealer": "2",
        "end": "knock",
        "by": str(by),
        "held_0": "KH",
        "held_1": "QH",
        "held_2": "JH",
    }
    data[f"held_{by}"] = "AS"
    data.update({k: str(v) for k, v in extra.items()})
    return data


def _key() -> str:
    return uuid.uuid4().hex


def _page(
    name: str, data: Callable[[], dict[str, str]] | None = None, **kw: int
) -> Callable[..., Any]:
    def send(client: Client, game: Game) -> Any:
        url = reverse(f"scoring:{name}", kwargs={"key": game.table_key, **kw})
        payload = data() if data else {}
        if name == "hand-new":  # the entry form says which hand it follows
            payload.setdefault("after", str(next_number(game) - 1))
        return client.post(url, payload)

    return send


#: The table pages' posts that change a game (scoring/page_urls.py).
PAGES = [
    Write("hand_new", _page("hand-new", lambda: _tonk_form(2))),
    Write("hand_edit", _page("hand-edit", lambda: _tonk_form(1, revision=1), number=1)),
    Write("hand_void", _page("hand-void", number=1)),
    Write("finish_page", _page("finish")),
    Write(
        "confirm_page",
        _page("hand-confirm", lambda: {"reason": REASON, "idempotency_key": _key()}, number=1),
    ),
    Write(
        "dispute_page",
        _page("hand-dispute", lambda: {"reason": REASON, "idempotency_key": _key()}, number=1),
    ),
    Write(
        "resolve_page",
        _page(
            "hand-resolve",
            lambda: {"action": "confirm", "reason": REASON, "idempotency_key": _key()},
            number=1,
        ),
    ),
    Write("restore_page", _page("hand-restore", lambda: {"reason": REASON}, number=2)),
    Write("rotate_page", _page("links-rotate")),
]


# --- the rules (issue 12: Permissions), written out ---------------------------------------------

OK = "allowed"  # 2xx (a page: its redirect) and the game changed
NO = "refused"  # 401/403/404, nothing changed
CLOSED = "refused by the game's state"  # a new hand in a finished game: 409 for everyone
WHY = "needs a reason"  # a director, a complete round, no way to give a reason: 409

#: Acts a tournament table's seats may do while the round is open.
SEAT_ACTS = {"record", "correct", "void", "restore", "confirm", "dispute"} | {
    "hand_new",
    "hand_edit",
    "hand_void",
    "confirm_page",
    "dispute_page",
    "restore_page",
}
#: Acts that need a seat of the table (or a director), whoever else holds the table link.
SEATED_ACTS = {"confirm", "dispute", "confirm_page", "dispute_page"}
RESOLVE = {"resolve", "resolve_page"}
NEW_HAND = {"record", "hand_new"}
#: Writes that carry no reason: a director cannot change a complete round's hands by them.
NO_REASON = {"hand_edit", "hand_void"}
#: Writes that change a casual game's hands or state: its seats', its creator's, a director's.
FINISH = {"finish", "finish_page"}


def expected(page: bool, write: str, caller: str, *, directed: bool, complete: bool) -> str:
    if directed:
        if write in FINISH:
            return NO  # a tournament table ends with its round: nobody finishes it, not here
        if complete and write in NEW_HAND:
            return CLOSED
        if caller == DIRECTOR:
            return WHY if complete and write in NO_REASON else OK
        return OK if caller == SEAT and write in SEAT_ACTS and not complete else NO
    # A casual game: its seats, its creator and the club's directors, on the pages as in the
    # API; the table link (or key) alone only reads, since every change records who made it.
    # Confirming and disputing need a seat; resolving is a director's; new links its
    # creator's or a director's.
    if caller == DIRECTOR:
        return OK
    if write == "rotate_page":
        return OK if caller == CREATOR else NO
    if write in RESOLVE:
        return NO
    if write in SEATED_ACTS:
        return OK if caller == SEAT else NO
    return OK if caller in (SEAT, CREATOR) else NO


def verify(outcome: str, response: Any, before: tuple[Any, ...], game: Game, page: bool) -> None:
    after = snapshot(game)
    code = response.status_code
    detail = (outcome, code, response.content[:300])
    if outcome == OK:
        assert code in ((302, 303) if page else (200, 201)), detail
        assert after[1] > before[1], detail  # the game's version moved
    else:
        allowed = {NO: {401, 403, 404}, CLOSED: {401, 403, 404, 409}, WHY: {409}}[outcome]
        assert code in allowed, detail
        assert after == before, detail


# --- the sweep -------------------------------------------------------------------------------


@pytest.mark.parametrize("complete", [False, True], ids=["round open", "round complete"])
@pytest.mark.parametrize("caller", [*TOURNAMENT_CALLERS, TABLE_KEY])
@pytest.mark.parametrize("write", API, ids=[w.name for w in API])
def test_tournament_table_api(write: Write, caller: str, complete: bool) -> None:
    world = tournament_world(complete=complete)
    before = snapshot(world.game)
    response = write.send(api_client(world, caller), world.game)
    outcome = expected(False, write.name, caller, directed=True, complete=complete)
    verify(outcome, response, before, world.game, page=False)


@pytest.mark.parametrize("complete", [False, True], ids=["round open", "round complete"])
@pytest.mark.parametrize("caller", TOURNAMENT_CALLERS)
@pytest.mark.parametrize("write", PAGES, ids=[w.name for w in PAGES])
def test_tournament_table_pages(write: Write, caller: str, complete: bool) -> None:
    world = tournament_world(complete=complete)
    before = snapshot(world.game)
    response = write.send(page_client(world, caller), world.game)
    outcome = expected(True, write.name, caller, directed=True, complete=complete)
    verify(outcome, response, before, world.game, page=True)


@pytest.mark.parametrize("caller", [*CASUAL_CALLERS, TABLE_KEY])
@pytest.mark.parametrize("write", API, ids=[w.name for w in API])
def test_casual_game_api(write: Write, caller: str) -> None:
    world = casual_world()
    before = snapshot(world.game)
    response = write.send(api_client(world, caller), world.game)
    outcome = expected(False, write.name, caller, directed=False, complete=False)
    verify(outcome, response, before, world.game, page=False)


@pytest.mark.parametrize("caller", CASUAL_CALLERS)
@pytest.mark.parametrize("write", PAGES, ids=[w.name for w in PAGES])
def test_casual_game_pages(write: Write, caller: str) -> None:
    world = casual_world()
    before = snapshot(world.game)
    response = write.send(page_client(world, caller), world.game)
    outcome = expected(True, write.name, caller, directed=False, complete=False)
    verify(outcome, response, before, world.game, page=True)


#: Which sweep rows reach each route of the API and the pages, and the routes that change no
#: existing game (reads; starting a game or importing a sheet makes a new one).
API_ROUTES = {
    "hands": {"record"},
    "hand": {"correct", "void"},
    "hand-restore": {"restore"},
    "hand-confirm": {"confirm"},
    "hand-dispute": {"dispute"},
    "hand-resolve": {"resolve"},
    "game-finish": {"finish"},
}
API_READS = {
    "games",
    "game",
    "game-settle-up",
    "game-audit",
    "scoresheet",
    "scoresheet-csv",
    "scoresheet-import",
}
PAGE_ROUTES = {
    "hand-new": {"hand_new"},
    "hand-edit": {"hand_edit"},
    "hand-void": {"hand_void"},
    "finish": {"finish_page"},
    "hand-confirm": {"confirm_page"},
    "hand-dispute": {"dispute_page"},
    "hand-resolve": {"resolve_page"},
    "hand-restore": {"restore_page"},
    "links-rotate": {"rotate_page"},
}
PAGE_READS = {
    "games",
    "game-new",
    "table",
    "sheet",
    "settle-up",
    "print",
    "scoresheet-json",
    "scoresheet-csv",
    "qr",
    # A seat's link and the seat chooser change the device's session, not the game.
    "seat",
    "seat-choose",
    "audit",
    "live",
}


@pytest.mark.parametrize(
    ("urls", "routes", "reads", "writes"),
    [
        ("scoring.urls", API_ROUTES, API_READS, API),
        ("scoring.page_urls", PAGE_ROUTES, PAGE_READS, PAGES),
    ],
    ids=["api", "pages"],
)
def test_the_sweep_covers_every_route_that_changes_a_game(
    urls: str, routes: dict[str, set[str]], reads: set[str], writes: list[Write]
) -> None:
    """A new route must join the sweep (a row in API or PAGES, and its name here) or be
    declared a read."""
    names = {p.name for p in get_resolver(urls).url_patterns}
    assert names == set(routes) | reads, "classify the new route in test_permission_sweep"
    assert set().union(*routes.values()) == {w.name for w in writes}
