"""Every entry point hands the engine the same record (issue 24): the same hands of each game
typed into the table page, sent through the API and imported in a score sheet are stored
alike (``Hand.entry`` and the score lines); whatever a form was given is in the hand it builds,
or refused beside its field, as the API and the import refuse it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from scoring import services
from scoring.models import Game, Hand, ScoreLine
from tests.factories import UserFactory, sit
from tests.hands import numbered
from tests.scoring.conftest import new_key
from tests.scoring.test_pages_table import (
    BLUKE_HAND_1,
    CAUGHT_KNOCK,
    CY_TONKS_OUT,
    ROOK_ROUND_1,
    errors_beside,
    form,
    parse,
    url,
)

pytestmark = pytest.mark.django_db

PLAYERS = ["Ana", "Ben", "Cy"]

# Round 2, time called before anyone went out: Ana had laid down a run (it stays on the record,
# checked like every meld); everybody scores the cards they hold.
ROOK_TIME_CALLED = dict(
    round=2,
    dealer=1,
    out="none",
    melds_0="R5 R6 R7 R8",
    held_0="Y12",
    held_1="R2 R2 Y13",
    held_2="G4 G5 G6 B8",
)

#: Each game's hands: (what the page's form is given, the hand object an API client sends).
HANDS: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {
    "tonk": [
        (
            CAUGHT_KNOCK,
            {
                "dealer": "Cy",
                "end": "knock",
                "by": "Ana",
                "held": {"Ana": ["KC", "QC"], "Ben": ["AS", "4D"], "Cy": ["8H"]},
            },
        ),
        (
            CY_TONKS_OUT,
            {
                "dealer": "Ana",
                "end": "tonk_out",
                "by": "Cy",
                "held": {"Ana": ["3C"], "Ben": ["9S", "9D"]},
            },
        ),
    ],
    "rook": [
        (
            ROOK_ROUND_1,
            {
                "round": 1,
                "dealer": "Ana",
                "out": "Ana",
                "melds": {"Ana": [["R7", "Y7", "G7"], ["B11", "B11", "R11"]]},
                "held": {"Ben": ["R3"], "Cy": ["G12"]},
            },
        ),
        (
            ROOK_TIME_CALLED,
            {
                "round": 2,
                "dealer": "Ben",
                "out": None,
                "melds": {"Ana": [["R5", "R6", "R7", "R8"]]},
                "held": {
                    "Ana": ["Y12"],
                    "Ben": ["R2", "R2", "Y13"],
                    "Cy": ["G4", "G5", "G6", "B8"],
                },
            },
        ),
    ],
    "bluke": [
        (
            BLUKE_HAND_1,
            {
                "hand": 1,
                "dealer": "Ana",
                "trump": "H",
                "bids": {"Ana": 4, "Ben": 5, "Cy": 3},
                "tricks": {"Ana": 5, "Ben": 3, "Cy": 5},
            },
        ),
    ],
}


def stored(game_id: int) -> list[tuple[object, list[tuple[str, int, bool, bool | None, bool]]]]:
    """Each current hand's entry with its score lines (seat, points, went out, bid made, won)."""
    out = []
    for hand in Hand.objects.filter(game_id=game_id, state=Hand.State.CURRENT).order_by("number"):
        lines = (
            ScoreLine.objects.filter(hand=hand).select_related("seat").order_by("seat__position")
        )
        out.append(
            (
                hand.entry,
                [(ln.seat.name, ln.points, ln.went_out, ln.bid_made, ln.won) for ln in lines],
            )
        )
    return out


def by_page(client: Client, kind: str, hands: list[dict[str, Any]]) -> int:
    game, _ = services.game_start(kind=kind, players=PLAYERS)
    sit(client, game)
    for after, data in enumerate(hands):
        response = client.post(url("hand-new", game), form(**data, after=after))
        assert response.status_code == 302, parse(response).text()
    return game.pk


def by_api(kind: str, hands: list[dict[str, Any]]) -> int:
    game, _ = services.game_start(kind=kind, players=PLAYERS)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Seat {game.seats.get(position=0).seat_key}")
    for number, hand in enumerate(hands, 1):
        response = api.post(
            f"/api/v1/games/{game.pk}/hands/",
            numbered(hand, number),
            format="json",
            HTTP_IDEMPOTENCY_KEY=new_key(),
        )
        assert response.status_code == 201, response.content
    return game.pk


def by_import(kind: str, hands: list[dict[str, Any]]) -> int:
    api = APIClient()
    api.force_authenticate(UserFactory())
    sheet = {
        "format": "tabletally.scoresheet/1",
        "game": kind,
        "players": PLAYERS,
        "hands": [numbered(hand, number) for number, hand in enumerate(hands, 1)],
    }
    response = api.post("/api/v1/scoresheets/", sheet, format="json")
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


@pytest.mark.parametrize("kind", sorted(HANDS))
def test_the_page_the_api_and_the_import_store_the_same_hands(client: Client, kind: str) -> None:
    typed = [data for data, _hand in HANDS[kind]]
    sent = [hand for _data, hand in HANDS[kind]]

    page = stored(by_page(client, kind, typed))
    api = stored(by_api(kind, sent))
    imported = stored(by_import(kind, sent))

    assert [entry for entry, _lines in page] == sent
    assert page == api == imported
    assert Game.objects.filter(kind=kind).count() == 3


def test_melds_typed_for_a_time_called_round_are_kept_on_the_record(client: Client) -> None:
    (page_game,) = [by_page(client, "rook", [ROOK_TIME_CALLED])]
    (entry, lines) = stored(page_game)[0]
    assert entry["melds"] == {"Ana": [["R5", "R6", "R7", "R8"]]}  # type: ignore[index]
    # Time called: every player scores the cards held (Ana Y12 10; Ben 5+5+10; Cy 4 × 5).
    assert [(name, points) for name, points, *_ in lines] == [
        ("Ana", 10),
        ("Ben", 20),
        ("Cy", 20),
    ]


def test_an_illegal_meld_of_a_time_called_round_is_refused_by_every_entry_point(
    client: Client,
) -> None:
    illegal = dict(ROOK_TIME_CALLED, round=1, melds_1="B3 Y3")
    game, _ = services.game_start(kind="rook", players=PLAYERS)
    sit(client, game)

    page = client.post(url("hand-new", game), form(**illegal, after=0))

    assert page.status_code == 422
    (error,) = errors_beside(parse(page), "melds_1")
    assert error.startswith("Not a legal meld — Ben — B3 Y3: ")
    assert Hand.objects.filter(game=game).count() == 0

    hand = {
        **HANDS["rook"][1][1],
        "round": 1,
        "melds": {"Ana": [["R5", "R6", "R7", "R8"]], "Ben": [["B3", "Y3"]]},
    }
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Seat {game.seats.get(position=0).seat_key}")
    answer = api.post(
        f"/api/v1/games/{game.pk}/hands/",
        numbered(hand, 1),
        format="json",
        HTTP_IDEMPOTENCY_KEY=new_key(),
    )
    assert answer.status_code == 400
    assert (answer.json()["error"]["code"], answer.json()["error"]["player"]) == ("bad_meld", "Ben")
    assert Hand.objects.filter(game=game).count() == 0

    user = UserFactory()
    importer = APIClient()
    importer.force_authenticate(user)
    sheet = {"format": "tabletally.scoresheet/1", "game": "rook", "players": PLAYERS}
    imported = importer.post("/api/v1/scoresheets/", {**sheet, "hands": [hand]}, format="json")
    assert imported.status_code == 400
    assert (imported.json()["error"]["code"], imported.json()["error"]["hand"]) == ("bad_meld", 1)
    assert not Game.objects.filter(created_by=user).exists()
