"""Tonk payouts and checks, with every house rule (rules/tonk.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tonkrules import RuleError, find_game
from tonkrules.tonk import TonkOptions

TONK = find_game("tonk")
P3 = ["Ana", "Ben", "Cy"]


def units(raw: dict[str, Any], players: list[str] = P3, **options: Any) -> dict[str, int]:
    opts = TONK.options(options)
    hand = TONK.read_hand(raw, players=players, options=opts)
    return dict(TONK.score_hand(hand, players=players, options=opts).scores)


def knock(by: str, dealer: str = "Ana", **held: str) -> dict[str, Any]:
    return {"dealer": dealer, "end": "knock", "by": by, "held": held}


def test_rules_worked_example_caught_knock() -> None:
    # rules/tonk.md: A knocks holding 20, B holds 5, C holds 8: A -5, B +4, C +1.
    assert units(knock("Ana", Ana="KC QC", Ben="AS 4D", Cy="8H")) == {"Ana": -5, "Ben": 4, "Cy": 1}


@pytest.mark.parametrize(
    ("bonus", "expected"),
    [
        ("all_others", {"Ana": -5, "Ben": 4, "Cy": 1}),
        ("non_knockers", {"Ana": -4, "Ben": 3, "Cy": 1}),
        ("none", {"Ana": -4, "Ben": 2, "Cy": 2}),
    ],
)
def test_caught_low_bonus_options(bonus: str, expected: dict[str, int]) -> None:
    assert (
        units(knock("Ana", Ana="KC QC", Ben="AS 4D", Cy="8H"), caught_low_bonus=bonus) == expected
    )


@pytest.mark.parametrize(("bonus", "paid"), [("all_others", 3), ("non_knockers", 2), ("none", 2)])
def test_caught_knocker_heads_up_pays_3_or_2(bonus: str, paid: int) -> None:
    assert units(
        knock("Ana", Ana="9C", Ben="5D"), players=["Ana", "Ben"], caught_low_bonus=bonus
    ) == {"Ana": -paid, "Ben": paid}


def test_knock_strictly_lowest_collects_1_from_each() -> None:
    assert units(knock("Ben", Ana="4D 5S", Ben="AH 2C", Cy="KH")) == {"Ana": -1, "Ben": 2, "Cy": -1}


def test_stock_out_tied_lowest_each_collect_unless_no_payment() -> None:
    raw = {"dealer": "Cy", "end": "stock_out", "held": {"Ana": "4S", "Ben": "3D AH", "Cy": "JC AC"}}
    assert units(raw) == {"Ana": 1, "Ben": 1, "Cy": -2}
    assert units(raw, stock_tie="no_payment") == {"Ana": 0, "Ben": 0, "Cy": 0}


def test_stock_out_all_tied_nobody_pays() -> None:
    raw = {"dealer": "Cy", "end": "stock_out", "held": {"Ana": "7C", "Ben": "4D 3D", "Cy": "7H"}}
    assert units(raw) == {"Ana": 0, "Ben": 0, "Cy": 0}


def test_tonk_out_and_out_on_discard() -> None:
    assert units({"dealer": "Ana", "end": "tonk_out", "by": "Ben"}) == {
        "Ana": -2,
        "Ben": 4,
        "Cy": -2,
    }
    assert units({"dealer": "Ana", "end": "out_on_discard", "by": "Ben"}) == {
        "Ana": -1,
        "Ben": 2,
        "Cy": -1,
    }


def test_double_requires_new_spread() -> None:
    hits_only = {"dealer": "Ana", "end": "tonk_out", "by": "Ben", "new_spread": False}
    assert units(hits_only, double_requires_new_spread=True) == {"Ana": -1, "Ben": 2, "Cy": -1}
    assert units(hits_only) == {
        "Ana": -2,
        "Ben": 4,
        "Cy": -2,
    }  # without the house rule it is double
    with pytest.raises(RuleError) as info:
        units({"dealer": "Ana", "end": "tonk_out", "by": "Ben"}, double_requires_new_spread=True)
    assert info.value.code == "bad_format"


def test_deal_tonk_totals_option_and_tie() -> None:
    raw = {"dealer": "Cy", "end": "deal_tonk", "by": "Ana", "held": {"Ana": "KS QH JD 10C 9S"}}
    assert units(raw) == {"Ana": 4, "Ben": -2, "Cy": -2}
    with pytest.raises(RuleError) as info:
        units(raw, initial_tonk_totals=[50])
    assert (info.value.code, info.value.player) == ("bad_total", "Ana")
    tie = {
        "dealer": "Cy",
        "end": "deal_tonk_tie",
        "held": {"Ana": "KS QH JD 10C 9S", "Ben": "KH QS JC 10D 10S"},
    }
    assert units(tie) == {"Ana": 0, "Ben": 0, "Cy": 0}


def test_must_lay_down_spreads_warns_but_scores_as_it_lies() -> None:
    raw = knock("Ana", Ana="AS AH AD", Ben="7C 8C 9C", Cy="KD")
    opts = TONK.options({"must_lay_down_spreads": True})
    hand = TONK.read_hand(raw, players=P3, options=opts)
    score = TONK.score_hand(hand, players=P3, options=opts)
    assert dict(score.scores) == {"Ana": 2, "Ben": -1, "Cy": -1}
    assert [(w.code, w.player, w.cards) for w in score.warnings] == [
        ("concealed_spread", "Ben", ("7C", "8C", "9C"))
    ]
    plain = TONK.score_hand(hand, players=P3, options=TONK.options())
    assert plain.warnings == ()


def test_upcard_is_recorded_only() -> None:
    raw = knock("Ana", Ana="KC QC", Ben="AS 4D", Cy="8H")
    assert units(raw, upcard=False) == units(raw, upcard=True)
    assert TONK.options({"upcard": False}) == TonkOptions(upcard=False)


def test_options_describe_every_key_with_its_default() -> None:
    keys = {d["key"]: d["default"] for d in TonkOptions.describe()}
    assert keys == {
        "initial_tonk_totals": [49, 50],
        "caught_low_bonus": "all_others",
        "stock_tie": "all_tied_collect",
        "double_requires_new_spread": False,
        "must_lay_down_spreads": False,
        "upcard": True,
    }


def test_hand_round_trips_to_canonical_json() -> None:
    raw = {
        "dealer": "Cy",
        "end": "knock",
        "by": "Ana",
        "held": {"Ana": "7d, a♠️", "Ben": "9c", "Cy": "2d"},
        "spreads": ["8♥ 9♥ j♥ t♥"],
    }
    hand = TONK.read_hand(raw, players=P3, options=TONK.options())
    canonical = TONK.hand_to_json(hand)
    assert canonical == {
        "dealer": "Cy",
        "end": "knock",
        "by": "Ana",
        "held": {"Ana": ["7D", "AS"], "Ben": ["9C"], "Cy": ["2D"]},
        "spreads": [["8H", "9H", "JH", "10H"]],
    }
    assert (
        TONK.hand_to_json(TONK.read_hand(canonical, players=P3, options=TONK.options()))
        == canonical
    )
