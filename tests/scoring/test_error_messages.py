"""The sentence of a domain error is made at the edge, in the active language: with a fake
translation, the table page and the API show a rule error's whole sentence translated (no
English sentence of the engine left), and a conflict's too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from scoring import messages
from tests.factories import sit
from tests.hands import numbered
from tests.scoring.conftest import new_key
from tests.scoring.sheets import TONK_KNOCK_HAND as HAND
from tests.scoring.test_pages_table import CAUGHT_KNOCK, errors_beside, parse, post_hand, tonk_game

pytestmark = pytest.mark.django_db

TWO = [{"name": "Ana"}, {"name": "Ben"}]

#: A test catalogue: the English templates concerned and their (French) translations.
CATALOGUE = {
    "%(token)r is not a card of the 52-card deck": "%(token)r n'est pas une carte du jeu de 52",
    "%(title)s is not played for stakes: there is nothing to settle up": (
        "%(title)s ne se joue pas avec mise : rien à régler"
    ),
    "Bluke": "Bluke (le jeu)",
}


@pytest.fixture
def translated(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """gettext of the edge answers from :data:`CATALOGUE`; yields the ids it was asked."""
    asked: list[str] = []

    def gettext(message: str) -> str:
        asked.append(message)
        return CATALOGUE.get(message, message)

    def ngettext(singular: str, plural: str, n: int) -> str:
        return gettext(singular if n == 1 else plural)

    monkeypatch.setattr(messages, "gettext", gettext)
    monkeypatch.setattr(messages, "ngettext", ngettext)
    yield asked


def test_the_table_page_shows_the_engine_error_translated(
    client: Client, translated: list[str]
) -> None:
    game = sit(client, tonk_game())

    response = post_hand(client, game, dict(CAUGHT_KNOCK, held_1="AS 1D"))

    assert response.status_code == 422
    (error,) = errors_beside(parse(response), "held_1")
    assert error.endswith("'1D' n'est pas une carte du jeu de 52")
    assert "is not a card" not in response.content.decode()
    assert "%(token)r is not a card of the 52-card deck" in translated


def test_the_api_error_body_carries_the_translated_sentence(
    api: APIClient, translated: list[str]
) -> None:
    game = api.post("/api/v1/games/", {"game": "tonk", "players": TWO}, format="json").json()

    response = api.post(
        f"/api/v1/games/{game['id']}/hands/",
        numbered({**HAND, "held": {"Ana": "1S", "Ben": "KH"}}, 1),
        format="json",
        HTTP_IDEMPOTENCY_KEY=new_key(),
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert list(error) == ["hand", "number", "code", "player", "cards", "detail", "message"]
    assert (error["code"], error["detail"], error["cards"]) == ("bad_card", "not_in_deck", ["1S"])
    assert error["message"] == "'1S' n'est pas une carte du jeu de 52"


def test_the_api_conflict_body_carries_the_translated_sentence(
    api: APIClient, translated: list[str]
) -> None:
    game = api.post("/api/v1/games/", {"game": "bluke", "players": TWO}, format="json").json()

    response = api.get(f"/api/v1/games/{game['id']}/settle-up/")

    assert response.status_code == 409
    assert response.json()["conflict"] == {
        "code": "not_tonk",
        "message": "Bluke (le jeu) ne se joue pas avec mise : rien à régler",
        "game": "bluke",
    }


def test_without_a_translation_the_sentence_is_the_english_one(api: APIClient) -> None:
    game = api.post("/api/v1/games/", {"game": "tonk", "players": TWO}, format="json").json()

    response = api.post(
        f"/api/v1/games/{game['id']}/hands/",
        numbered({**HAND, "held": {"Ana": "1S", "Ben": "KH"}}, 1),
        format="json",
        HTTP_IDEMPOTENCY_KEY=new_key(),
    )

    assert response.json()["error"]["message"] == "'1S' is not a card of the 52-card deck"


def test_a_translation_that_does_not_fit_falls_back_to_english(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tonkrules.errors import CardError

    monkeypatch.setattr(messages, "gettext", lambda message: "%(nothing)s")
    err: Any = CardError("not_in_deck.standard", cards=["1S"], params={"token": "1S"})
    assert messages.error_message(err) == "'1S' is not a card of the 52-card deck"


def test_the_command_line_says_the_same_template_in_english(translated: list[str]) -> None:
    from scoring.scoresheet_cli import ERROR_EXIT, answer
    from tests.scoring.sheets import TONK_BAD_CARD_SHEET

    status, printed = answer("score", json.dumps(TONK_BAD_CARD_SHEET).encode())

    assert status == ERROR_EXIT
    assert printed["error"] == {
        "hand": 1,
        "code": "bad_card",
        "player": "Ana",
        "cards": ["1S"],
        "detail": "not_in_deck",
        "message": "'1S' is not a card of the 52-card deck",
    }
    assert translated == []
