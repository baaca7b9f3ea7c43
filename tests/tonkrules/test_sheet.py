"""The score-sheet format: canonical export, results, money and rankings."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from tests.tonkrules.golden import case_id, case_paths, load_case
from tonkrules import STANDARD_DECK, rank_players
from tonkrules.sheet import SheetError, parse_json, read_sheet, score, score_sheet

VALID = [p for p in case_paths() if "error" not in load_case(p)["expect"]]


@pytest.mark.parametrize("path", VALID, ids=case_id)
def test_exported_sheet_scores_the_same_and_exports_the_same_text(path: Path) -> None:
    sheet = read_sheet(load_case(path)["sheet"])
    exported = sheet.to_json()
    again = read_sheet(exported)
    assert score(again).to_json() == score(sheet).to_json()
    assert json.dumps(again.to_json(), ensure_ascii=False) == json.dumps(
        exported, ensure_ascii=False
    )


def test_money_keeps_the_stakes_decimal_places() -> None:
    sheet = {
        "format": "tabletally.scoresheet/1",
        "game": "tonk",
        "players": ["Ana", "Ben", "Cy"],
        "stake": "0.25",
        "currency": "usd",
        "hands": [
            {
                "dealer": "Cy",
                "end": "knock",
                "by": "Ana",
                "held": {"Ana": "KC QC", "Ben": "AS 4D", "Cy": "8H"},
            }
        ],
    }
    result = score_sheet(sheet)
    assert result.money == {"Ana": Decimal("-1.25"), "Ben": Decimal("1.00"), "Cy": Decimal("0.25")}
    assert result.to_json()["money"] == {"Ana": "-1.25", "Ben": "1.00", "Cy": "0.25"}
    assert result.sheet.currency == "USD"


def test_ranking_groups_ties_in_seat_order() -> None:
    totals = {"Ana": 55, "Ben": 60, "Cy": 55}
    assert rank_players(totals, ["Ana", "Ben", "Cy"], lower_wins=True) == [["Ana", "Cy"], ["Ben"]]
    assert rank_players(totals, ["Ana", "Ben", "Cy"], lower_wins=False) == [["Ben"], ["Ana", "Cy"]]


def test_warnings_appear_in_the_result() -> None:
    sheet = {
        "format": "tabletally.scoresheet/1",
        "game": "tonk",
        "players": ["Ana", "Ben"],
        "options": {"must_lay_down_spreads": True},
        "hands": [
            {"dealer": "Ben", "end": "knock", "by": "Ana", "held": {"Ana": "2C", "Ben": "KH KD KS"}}
        ],
    }
    hand = score_sheet(sheet).to_json()["hands"][0]  # type: ignore[index]
    assert hand["warnings"] == [
        {
            "code": "concealed_spread",
            "player": "Ben",
            "cards": ["KH", "KD", "KS"],
            "message": "Ben still holds a spread: KH KD KS",
        }
    ]


def test_zero_stake_never_prints_negative_zero() -> None:
    sheet = {
        "format": "tabletally.scoresheet/1",
        "game": "tonk",
        "players": ["Ana", "Ben"],
        "stake": "0.00",
        "hands": [{"dealer": "Ben", "end": "tonk_out", "by": "Ana"}],
    }
    assert score_sheet(sheet).to_json()["money"] == {"Ana": "0.00", "Ben": "0.00"}


def sheet_error(sheet: dict[str, object]) -> tuple[str, int | None]:
    with pytest.raises(SheetError) as info:
        read_sheet(sheet)
    return str(info.value.error.code), info.value.hand


TONK_SHEET = {"format": "tabletally.scoresheet/1", "game": "tonk", "players": ["Ana", "Ben"]}


@pytest.mark.parametrize(
    "sheet",
    [
        {
            **TONK_SHEET,
            "hands": [{"dealer": "Ana", "end": "tonk_out", "by": "Ben", "new_spread": None}],
        },
        {**TONK_SHEET, "stake": "1\n", "hands": []},
        {**TONK_SHEET, "currency": "USD\n", "hands": []},
        {**TONK_SHEET, "options": None, "hands": []},
        {
            "format": "tabletally.scoresheet/1",
            "game": "rook",
            "players": ["A", "B", "C"],
            "options": {"decks": None},
            "hands": [],
        },
    ],
    ids=[
        "new_spread null",
        "stake with newline",
        "currency with newline",
        "options null",
        "decks null",
    ],
)
def test_values_of_the_wrong_type_are_bad_format(sheet: dict[str, object]) -> None:
    assert sheet_error(sheet)[0] == "bad_format"


def test_money_is_exact_for_long_stakes() -> None:
    sheet = {
        **TONK_SHEET,
        "stake": "12345678901234567890.123456789",
        "hands": [{"dealer": "Ana", "end": "tonk_out", "by": "Ben"}],
    }
    assert score_sheet(sheet).to_json()["money"] == {
        "Ana": "-24691357802469135780.246913578",
        "Ben": "24691357802469135780.246913578",
    }


@pytest.mark.parametrize("token", ["A\ufe0fS", "1\ufe0f0H", "Aſ", "10\u210c"])
def test_only_the_selector_after_a_suit_symbol_is_ignored(token: str) -> None:
    assert not STANDARD_DECK.is_card(token)


def test_unpaired_surrogate_is_bad_format_not_a_crash() -> None:
    with pytest.raises(SheetError) as info:
        parse_json('{"format": "tabletally.scoresheet/1", "players": ["\\ud800", "B"]}')
    assert info.value.error.code == "bad_format"
