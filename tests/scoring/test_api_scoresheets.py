"""Score sheets through the API: the real games imported, entered hand by hand and exported;
every invalid case refused with its code and nothing stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring.models import Game
from scoring.services import game_totals_rebuild
from tests.hands import numbered
from tests.scoring.conftest import db_counts, new_key
from tests.tonkrules.golden import GOLDEN, case_id, case_paths, load_case
from tonkrules.sheet import score_sheet_json

REAL_GAMES = sorted((GOLDEN / "real-games").glob("*.json"))
INVALID = [p for p in case_paths() if "error" in load_case(p)["expect"]]

pytestmark = pytest.mark.django_db


def assert_results(results: dict[str, Any], expect: dict[str, Any]) -> None:
    assert [h["scores"] for h in results["hands"]] == [h["scores"] for h in expect["hands"]]
    assert results["totals"] == expect["totals"]
    assert results["ranking"] == expect["ranking"]
    if "money" in expect:
        assert results["money"] == expect["money"]


@pytest.mark.parametrize("path", REAL_GAMES, ids=case_id)
def test_real_game_imported_through_the_api(api: APIClient, path: Path) -> None:
    case = load_case(path)
    response = api.post("/api/v1/scoresheets/", case["sheet"], format="json")
    assert response.status_code == 201, response.json()
    assert_results(response.json()["results"], case["expect"])
    game = Game.objects.get(pk=response.json()["id"])
    assert game.totals == case["expect"]["totals"] == game_totals_rebuild(game=game)


@pytest.mark.parametrize("path", REAL_GAMES, ids=case_id)
def test_real_game_entered_hand_by_hand(api: APIClient, path: Path) -> None:
    case = load_case(path)
    sheet = case["sheet"]
    start = {"game": sheet["game"], "players": [{"name": p} for p in sheet["players"]]}
    for key in ("options", "stake", "currency"):
        if key in sheet:
            start[key] = sheet[key]
    created = api.post("/api/v1/games/", start, format="json", HTTP_IDEMPOTENCY_KEY=new_key())
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    for n, hand in enumerate(sheet["hands"], 1):
        response = api.post(
            f"/api/v1/games/{game_id}/hands/",
            numbered(hand, n),
            format="json",
            HTTP_IDEMPOTENCY_KEY=new_key(),
        )
        assert response.status_code == 201, response.json()
        assert (response.json()["number"], response.json()["revision"]) == (n, 1)
        assert response.json()["scores"] == case["expect"]["hands"][n - 1]["scores"]
    results = api.get(f"/api/v1/games/{game_id}/").json()["results"]
    assert_results(results, case["expect"])


@pytest.mark.parametrize("path", REAL_GAMES, ids=case_id)
def test_real_game_exported_scored_and_reexported(api: APIClient, path: Path) -> None:
    case = load_case(path)
    game_id = api.post("/api/v1/scoresheets/", case["sheet"], format="json").json()["id"]
    exported = api.get(f"/api/v1/games/{game_id}/scoresheet/").json()
    status, result = score_sheet_json(exported)
    assert status == 0
    assert_results(result, case["expect"])
    again = api.post("/api/v1/scoresheets/", exported, format="json").json()["id"]
    assert api.get(f"/api/v1/games/{again}/scoresheet/").json() == exported


@pytest.mark.parametrize("path", INVALID, ids=case_id)
def test_invalid_sheet_is_refused_with_its_code_and_nothing_stored(
    api: APIClient, path: Path
) -> None:
    case = load_case(path)
    before = db_counts()
    response = api.post("/api/v1/scoresheets/", case["sheet"], format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == case["expect"]["error"]["code"]
    assert error.get("hand") == case["expect"]["error"].get("hand")
    assert "message" in error
    assert db_counts() == before


def test_csv_export_has_a_row_per_hand_and_player(api: APIClient) -> None:
    case = load_case(GOLDEN / "rook-rounds-4-to-6.json")
    game_id = api.post("/api/v1/scoresheets/", case["sheet"], format="json").json()["id"]
    response = api.get(f"/api/v1/games/{game_id}/scoresheet.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = [r.split(",") for r in response.content.decode().splitlines()]
    assert rows[0][:8] == [
        "hand",
        "number",
        "revision",
        "round_or_hand",
        "seat",
        "player",
        "score",
        "running",
    ]
    assert len(rows) == 1 + 3 * 3
    # round 4: P1 10, P2 0 (went out), P3 35
    assert rows[1:4] == [
        ["1", "1", "1", "4", "1", "P1", "10", "10", "0", "", "0"],
        ["1", "1", "1", "4", "2", "P2", "0", "0", "1", "", "1"],
        ["1", "1", "1", "4", "3", "P3", "35", "35", "0", "", "0"],
    ]
    assert rows[-1][5:8] == ["P3", "10", "45"]
