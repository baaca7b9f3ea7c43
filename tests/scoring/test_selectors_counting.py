"""One rule for what counts (issue 24), the scoring side: ``selectors.counting_hands`` and
everything read through it (the results, totals, settle-up, the JSON and CSV score sheets,
the games list, the table page's sheet, "Leading" and settle-up) count the confirmed hands
only where the game requires confirmation, every current hand otherwise; a provisional or
disputed hand on the sheet is marked as not counted."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from scoring import selectors, services
from scoring.models import Game
from tests.scoring.test_services_hands import ANA_WINS, BEN_WINS, CY_CAUGHT
from tests.scoring.test_services_trust import Table, table

pytestmark = pytest.mark.django_db


def three_hands(confirmation: str) -> Table:
    """Hand 1 Ana wins, confirmed by another seat; hand 2 Ben wins, disputed; hand 3 Cy is
    caught (Ana +4), provisional (where the game requires confirmation)."""
    t = table(confirmation, stake="0.25", currency="USD")
    for entry in (ANA_WINS, BEN_WINS, CY_CAUGHT):
        services.hand_record(game=t.game, entry=entry, by=t.a)
    if confirmation != Game.Confirmation.NONE:
        services.hand_confirm(game=t.game, number=1, by=t.b)
    services.hand_dispute(game=t.game, number=2, by=t.b, reason="Ben held the 2C")
    t.refresh()
    return t


def test_where_confirmation_is_required_only_the_confirmed_hand_counts_everywhere() -> None:
    t = three_hands(Game.Confirmation.ONE_OTHER)
    game = t.game
    hand_one = {"Ana": 2, "Ben": -1, "Cy": -1}

    assert [h.number for h in selectors.counting_hands(game)] == [1]
    assert [h.number for h in selectors.current_hands(game)] == [1, 2, 3]
    assert selectors.counted_totals(game) == hand_one
    assert selectors.counted_totals_by_game([game]) == {game.pk: hand_one}
    assert selectors.hand_tally_by_game([game.pk]) == {
        game.pk: selectors.HandTally(counted=1, provisional=1, disputed=1)
    }
    results = selectors.game_results(game)
    assert results["totals"] == hand_one
    assert [h["number"] for h in results["hands"]] == [1]  # type: ignore[index]
    assert results["money"] == {"Ana": "0.50", "Ben": "-0.25", "Cy": "-0.25"}
    settle = selectors.settle_up(game)
    assert settle["net"] == hand_one
    assert [(p["payer"], p["payee"], p["units"]) for p in settle["payments"]] == [
        ("Ben", "Ana", 1),
        ("Cy", "Ana", 1),
    ]
    assert len(selectors.scoresheet_export(game)["hands"]) == 1  # type: ignore[arg-type]
    rows = list(csv.DictReader(io.StringIO(selectors.scoresheet_csv(game))))
    assert [(r["number"], r["player"], r["running"]) for r in rows] == [
        ("1", "Ana", "2"),
        ("1", "Ben", "-1"),
        ("1", "Cy", "-1"),
    ]
    # The ledger's own sum still holds every current hand; no page reads it.
    assert selectors.game_totals(game) == {"Ana": 5, "Ben": 0, "Cy": -5}


def test_where_a_hand_counts_once_entered_a_disputed_hand_still_counts() -> None:
    t = three_hands(Game.Confirmation.NONE)
    game = t.game

    assert [h.number for h in selectors.counting_hands(game)] == [1, 2, 3]
    assert selectors.counted_totals(game) == {"Ana": 5, "Ben": 0, "Cy": -5}
    assert selectors.hand_tally_by_game([game.pk]) == {
        game.pk: selectors.HandTally(counted=3, provisional=0, disputed=0)
    }
    assert selectors.game_results(game)["totals"] == selectors.game_totals(game)


def test_the_games_list_and_the_games_results_in_the_api_count_the_same_hands() -> None:
    t = three_hands(Game.Confirmation.ONE_OTHER)
    client = APIClient()
    client.force_authenticate(t.game.created_by)

    listed = client.get("/api/v1/games/").json()["results"]
    detail = client.get(f"/api/v1/games/{t.game.pk}/").json()
    settle = client.get(f"/api/v1/games/{t.game.pk}/settle-up/")

    assert listed[0]["totals"] == detail["results"]["totals"] == {"Ana": 2, "Ben": -1, "Cy": -1}
    assert [h["status"] for h in detail["hands"]] == ["confirmed", "disputed", "provisional"]
    assert settle.status_code == 200
    assert settle.json()["net"] == {"Ana": 2, "Ben": -1, "Cy": -1}


def _cells(html: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</tr>', html, re.S)
    assert found is not None, element_id
    return found.group(1)


def test_the_table_page_marks_hands_that_do_not_count_and_totals_only_those_that_do() -> None:
    t = three_hands(Game.Confirmation.ONE_OTHER)

    html = Client().get(f"/t/{t.game.table_key}/").content.decode()

    # Every current hand is on the sheet; the two that do not count say so, with no running
    # total; the totals row, "Leading" and the settle-up count hand 1 only.
    assert "not counted yet" not in _cells(html, "hand-1")
    for number, status in ((2, "Disputed"), (3, "Provisional")):
        row = _cells(html, f"hand-{number}")
        assert "not counted yet" in row and status in row
        assert "running total" not in row
    totals = dict(re.findall(r'data-player="(\w+)">(-?\d+)', html))
    assert totals == {"Ana": "2", "Ben": "-1", "Cy": "-1"}
    assert "Leading: Ana" in html
    settle = html[html.index('id="settle"') :]
    assert re.search(r"Ben</th><td[^>]*>-1</td>", settle)
    assert "Ben pays Ana $0.25" in settle  # CLDR's English currency format


def test_the_table_page_shows_no_total_while_no_hand_counts() -> None:
    t = table(Game.Confirmation.ONE_OTHER)
    services.hand_record(game=t.game, entry=ANA_WINS, by=t.a)

    html = Client().get(f"/t/{t.game.table_key}/").content.decode()

    assert re.findall(r'data-player="\w+">([^<]*)<', html) == ["—", "—", "—"]
    assert "Leading" not in html
