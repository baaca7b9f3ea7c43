"""Who may reach a game: its club's members and its creator; a table device with the game's
key, for that game only. Everyone else gets 401, 403 or 404 on every endpoint, and nothing
changes."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import get_resolver
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from scoring import services
from scoring.models import Game, Hand
from tests.factories import MembershipFactory, UserFactory
from tests.hands import numbered
from tests.scoring.conftest import db_counts, new_key
from tests.scoring.sheets import TONK_KNOCK_HAND as HAND
from tests.scoring.sheets import TONK_KNOCK_SHEET as SHEET

pytestmark = pytest.mark.django_db


# (url name, method, path, body): every endpoint of scoring.urls, on the game under test.
ENDPOINTS: list[tuple[str, str, str, Any]] = [
    (
        "games",
        "post",
        "/api/v1/games/",
        {"game": "tonk", "players": [{"name": "A"}, {"name": "B"}], "club": "{club}"},
    ),
    ("game", "get", "/api/v1/games/{game}/", None),
    ("game-finish", "post", "/api/v1/games/{game}/finish/", None),
    ("game-settle-up", "get", "/api/v1/games/{game}/settle-up/", None),
    ("hands", "get", "/api/v1/games/{game}/hands/", None),
    ("hands", "post", "/api/v1/games/{game}/hands/", numbered(HAND, 2)),
    ("hand", "get", "/api/v1/games/{game}/hands/1/", None),
    ("hand", "put", "/api/v1/games/{game}/hands/1/", {"revision": 1, "hand": HAND}),
    ("hand", "delete", "/api/v1/games/{game}/hands/1/", None),
    ("hand-confirm", "post", "/api/v1/games/{game}/hands/1/confirm/", None),
    ("hand-dispute", "post", "/api/v1/games/{game}/hands/1/dispute/", {"reason": "why"}),
    (
        "hand-resolve",
        "post",
        "/api/v1/games/{game}/hands/1/resolve/",
        {"action": "void", "reason": "why"},
    ),
    ("hand-restore", "post", "/api/v1/games/{game}/hands/1/restore/", None),
    ("game-audit", "get", "/api/v1/games/{game}/audit/", None),
    ("scoresheet", "get", "/api/v1/games/{game}/scoresheet/", None),
    ("scoresheet-csv", "get", "/api/v1/games/{game}/scoresheet.csv", None),
    ("scoresheet-import", "post", "/api/v1/scoresheets/?club={club}", SHEET),
]


@pytest.fixture
def table() -> dict[str, Any]:
    """A club game with one hand, and a second game (of another club) with its own key."""
    member = MembershipFactory()
    game, _ = services.game_start(
        kind="tonk", players=["Ana", "Ben"], club=member.club, created_by=member.user
    )
    services.hand_record(game=game, entry=HAND)
    other, _ = services.game_start(
        kind="tonk", players=["Cy", "Dee"], club=MembershipFactory().club
    )
    return {"member": member, "game": game, "other_game": other}


def outsider() -> APIClient:
    client = APIClient()
    stranger = MembershipFactory().user  # a member of another club, signed in by token
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=stranger).key}")
    return client


def anonymous() -> APIClient:
    return APIClient()


def other_tables_key(other_game: Game) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Table {other_game.table_key}")
    return client


CALLERS = {
    "user of another club": outsider,
    "anonymous": anonymous,
    "another game's key": other_tables_key,
}


def snapshot(game: Game) -> tuple[Any, ...]:
    game.refresh_from_db()
    hands = tuple(Hand.objects.filter(game=game).values_list("number", "revision", "state"))
    return (db_counts(), game.state, game.totals, hands)


def test_every_endpoint_is_in_the_table() -> None:
    names = {p.name for p in get_resolver("scoring.urls").url_patterns}
    assert names == {e[0] for e in ENDPOINTS}


@pytest.mark.parametrize("caller", CALLERS, ids=list(CALLERS))
@pytest.mark.parametrize(
    ("name", "method", "path", "body"), ENDPOINTS, ids=[f"{e[1]} {e[0]}" for e in ENDPOINTS]
)
def test_strangers_are_refused_and_nothing_changes(
    table: dict[str, Any], caller: str, name: str, method: str, path: str, body: Any
) -> None:
    game = table["game"]
    client = (
        other_tables_key(table["other_game"])
        if caller == "another game's key"
        else CALLERS[caller]()
    )
    url = path.format(game=game.pk, club=game.club_id)
    if isinstance(body, dict) and body.get("club") == "{club}":
        body = {**body, "club": game.club_id}
    before = snapshot(game)
    response = getattr(client, method)(url, body, format="json", HTTP_IDEMPOTENCY_KEY=new_key())
    assert response.status_code in (401, 403, 404), (response.status_code, response.content[:200])
    assert snapshot(game) == before
    assert str(game.table_key) not in response.content.decode()


def test_list_shows_only_the_callers_games(table: dict[str, Any]) -> None:
    game = table["game"]
    assert outsider().get("/api/v1/games/").json()["results"] == []
    member = APIClient()
    member.force_authenticate(table["member"].user)
    listed = member.get("/api/v1/games/").json()
    assert (listed["count"], [g["id"] for g in listed["results"]]) == (1, [game.pk])
    assert listed["results"][0]["totals"] == {"Ana": 1, "Ben": -1}
    device = other_tables_key(table["other_game"]).get("/api/v1/games/").json()["results"]
    assert [g["id"] for g in device] == [table["other_game"].pk]
    assert anonymous().get("/api/v1/games/").status_code in (401, 403)


def test_the_table_key_opens_its_own_game(table: dict[str, Any]) -> None:
    game = table["game"]
    device = APIClient()
    device.credentials(HTTP_AUTHORIZATION=f"Table {game.table_key}")
    phone = APIClient()
    phone.credentials(HTTP_AUTHORIZATION=f"Seat {game.seats.get(position=1).seat_key}")
    response = phone.post(
        f"/api/v1/games/{game.pk}/hands/",
        numbered(HAND, 2),
        format="json",
        HTTP_IDEMPOTENCY_KEY=new_key(),
    )
    assert response.status_code == 201
    assert (
        response.json()["number"],
        response.json()["entered_via"],
        response.json()["entered_by"],
    ) == (2, "seat", None)
    assert device.get(f"/api/v1/games/{game.pk}/").json()["results"]["totals"] == {
        "Ana": 2,
        "Ben": -2,
    }
    assert device.post("/api/v1/scoresheets/", SHEET, format="json").status_code in (401, 403)
    assert device.get(f"/api/v1/games/{game.pk}/scoresheet/").status_code == 200
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Table not-a-key")
    assert wrong.get(f"/api/v1/games/{game.pk}/").status_code == 401


@pytest.mark.parametrize(
    ("method", "tail", "body"),
    [
        ("post", "hands/", numbered(HAND, 2)),
        ("put", "hands/1/", {"revision": 1, "hand": HAND}),
        ("delete", "hands/1/", None),
        ("post", "hands/1/confirm/", None),
        ("post", "hands/1/dispute/", {"reason": "no"}),
        ("post", "finish/", None),
    ],
    ids=["record", "correct", "void", "confirm", "dispute", "finish"],
)
def test_the_table_key_alone_writes_nothing_and_is_told_to_send_a_seat_key(
    table: dict[str, Any], method: str, tail: str, body: Any
) -> None:
    game = table["game"]
    device = APIClient()
    device.credentials(HTTP_AUTHORIZATION=f"Table {game.table_key}")
    before = db_counts(), Game.objects.get(pk=game.pk).version

    response = getattr(device, method)(
        f"/api/v1/games/{game.pk}/{tail}", body, format="json", HTTP_IDEMPOTENCY_KEY=new_key()
    )

    assert response.status_code == 403
    assert response.json() == {
        "detail": "a table key only reads this game: to change it, send your seat's key "
        "(Authorization: Seat <seat key>), or sign in as its creator or a club director"
    }
    assert (db_counts(), Game.objects.get(pk=game.pk).version) == before


def test_the_creator_without_a_club_sees_their_game() -> None:
    user = UserFactory()
    client = APIClient()
    client.force_authenticate(user)
    created = client.post(
        "/api/v1/games/",
        {"game": "bluke", "players": [{"name": "A"}, {"name": "B"}]},
        format="json",
    )
    assert created.status_code == 201
    assert client.get(f"/api/v1/games/{created.json()['id']}/").status_code == 200
    assert outsider().get(f"/api/v1/games/{created.json()['id']}/").status_code == 404
