"""Clumsy and hostile requests get the format's error object (400) or a clear conflict (409),
never a 500, and store nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring.models import Game
from tests.factories import PlayerFactory
from tests.hands import numbered
from tests.scoring.conftest import db_counts, new_key
from tests.scoring.sheets import TONK_KNOCK_HAND as HAND
from tests.scoring.sheets import TONK_KNOCK_SHEET as SHEET

pytestmark = pytest.mark.django_db

TWO = [{"name": "Ana"}, {"name": "Ben"}]


def start(api: APIClient, **body: Any) -> Any:
    return api.post("/api/v1/games/", {"game": "tonk", "players": TWO, **body}, format="json")


def error_of(response: Any) -> tuple[int, str, str | None]:
    error = response.json()["error"]
    return response.status_code, error["code"], error.get("detail")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"game": "tonk", "players": []}, "bad_player"),
        ({"game": "tonk", "players": [{"name": ""}, {"name": "Ben"}]}, "bad_player"),
        ({"game": "tonk", "players": [{"name": "A" * 81}, {"name": "Ben"}]}, "bad_player"),
        ({"game": "tonk", "players": [{"name": "A\nna"}, {"name": "Ben"}]}, "bad_player"),
        ({"game": "tonk", "players": TWO, "stake": 0.25}, "bad_format"),
        ({"game": "tonk", "players": TWO, "stake": "1" * 40}, "bad_format"),
        ({"game": "rook", "players": [*TWO, {"name": "Cy"}], "stake": ""}, "bad_format"),
        ({"game": "tonk", "players": TWO, "colour": "red"}, "bad_format"),
        ({"game": "tonk", "players": [{"name": "Ana", "age": 9}, {"name": "Ben"}]}, "bad_format"),
        ({"game": "tonk", "players": "Ana, Ben"}, "bad_format"),
        ({"game": "poker", "players": TWO}, "bad_format"),
    ],
)
def test_bad_game_start_is_400_with_the_format_error(
    api: APIClient, body: dict[str, Any], code: str
) -> None:
    before = db_counts()
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert db_counts() == before


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        "[" * 100_000 + "]" * 100_000,
        json.dumps({**SHEET, "players": ["A\u0000na", "Ben"]}),
        json.dumps({**SHEET, "players": ["A\ud800", "Ben"]}),
    ],
    ids=["not JSON", "nested too deep", "NUL", "unpaired surrogate"],
)
def test_unreadable_bodies_are_bad_format(api: APIClient, raw: str) -> None:
    before = db_counts()
    response = api.post(
        "/api/v1/scoresheets/",
        raw.encode("utf-8", "surrogatepass"),
        content_type="application/json",
    )
    assert error_of(response)[:2] == (400, "bad_format")
    assert db_counts() == before


def test_club_parameter_must_be_a_number(api: APIClient) -> None:
    response = api.post("/api/v1/scoresheets/?club=abc", SHEET, format="json")
    assert error_of(response)[:2] == (400, "bad_format")
    assert "club" in response.json()["error"]["fields"]


def test_form_encoded_writes_are_refused(api: APIClient) -> None:
    game_id = start(api).json()["id"]
    response = api.post(
        f"/api/v1/games/{game_id}/hands/",
        "dealer=Ben&end=tonk_out&by=Ana",
        content_type="application/x-www-form-urlencoded",
        HTTP_IDEMPOTENCY_KEY=new_key(),
    )
    assert response.status_code == 415


def test_stake_is_kept_as_written(api: APIClient) -> None:
    game = start(api, stake="0.0000001").json()
    assert game["stake"] == "0.0000001"
    exported = api.get(f"/api/v1/games/{game['id']}/scoresheet/").json()
    assert exported["stake"] == "0.0000001"
    assert api.post("/api/v1/scoresheets/", exported, format="json").status_code == 201


def test_one_club_player_cannot_take_two_seats(api: APIClient, member: Any) -> None:
    ana = PlayerFactory(club=member.club, name="Ana")
    body = {
        "players": [{"name": "Ana", "player": ana.pk}, {"name": "Anna", "player": ana.pk}],
        "club": member.club.pk,
    }
    response = start(api, **body)
    assert error_of(response) == (400, "bad_player", "duplicate_player")


def test_idempotency_key_on_games_and_imports_is_tied_to_the_request(api: APIClient) -> None:
    first = start(api, stake="0.25")
    again = api.post(
        "/api/v1/games/", {"game": "tonk", "players": TWO, "stake": "0.25"}, format="json"
    )
    assert (first.status_code, again.status_code) == (201, 201)  # no key: two games
    key = new_key()
    one = api.post(
        "/api/v1/games/", {"game": "tonk", "players": TWO}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )
    same = api.post(
        "/api/v1/games/", {"game": "tonk", "players": TWO}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )
    other = api.post(
        "/api/v1/games/", {"game": "bluke", "players": TWO}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )
    imported = api.post("/api/v1/scoresheets/", SHEET, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert (one.status_code, same.status_code, same.json()["id"]) == (201, 200, one.json()["id"])
    assert other.status_code == imported.status_code == 409
    assert other.json()["conflict"]["code"] == "idempotency_key_reused"


def test_a_hand_key_cannot_replay_as_a_correction(api: APIClient) -> None:
    game_id = start(api).json()["id"]
    key = new_key()
    assert (
        api.post(
            f"/api/v1/games/{game_id}/hands/",
            numbered(HAND, 1),
            format="json",
            HTTP_IDEMPOTENCY_KEY=key,
        ).status_code
        == 201
    )
    response = api.put(
        f"/api/v1/games/{game_id}/hands/1/",
        {"revision": 1, "hand": HAND},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )
    assert response.status_code == 409
    assert response.json()["conflict"]["code"] == "idempotency_key_reused"


def test_writes_answer_with_location_and_errors_name_the_hand_number(api: APIClient) -> None:
    created = start(api)
    game_id = created.json()["id"]
    assert created["Location"] == f"/api/v1/games/{game_id}/"
    for number in (1, 2):
        hand = api.post(
            f"/api/v1/games/{game_id}/hands/",
            numbered(HAND, number),
            format="json",
            HTTP_IDEMPOTENCY_KEY=new_key(),
        )
    assert hand["Location"] == f"/api/v1/games/{game_id}/hands/2/"
    api.delete(f"/api/v1/games/{game_id}/hands/1/")
    bad = api.put(
        f"/api/v1/games/{game_id}/hands/2/",
        {"revision": 1, "hand": {**HAND, "held": {"Ana": "1S", "Ben": "KH"}}},
        format="json",
    )
    error = bad.json()["error"]
    assert (bad.status_code, error["code"], error["hand"], error["number"]) == (
        400,
        "bad_card",
        1,
        2,
    )


def test_settle_up_is_for_tonk(api: APIClient) -> None:
    game = api.post("/api/v1/games/", {"game": "bluke", "players": TWO}, format="json").json()
    response = api.get(f"/api/v1/games/{game['id']}/settle-up/")
    assert (response.status_code, response.json()["conflict"]["code"]) == (409, "not_tonk")


def test_csv_cells_never_start_a_formula(api: APIClient) -> None:
    sheet = {**SHEET, "players": ["=HYPERLINK(1)", "Ben"], "hands": []}
    game_id = api.post("/api/v1/scoresheets/", sheet, format="json").json()["id"]
    game = Game.objects.get(pk=game_id)
    from scoring import services

    services.hand_record(
        game=game, entry={"dealer": "Ben", "end": "tonk_out", "by": "=HYPERLINK(1)"}
    )
    text = api.get(f"/api/v1/games/{game_id}/scoresheet.csv").content.decode()
    assert "'=HYPERLINK(1)" in text
    assert ",=HYPERLINK" not in text
