"""Toonerville Rook contracts, melds with the wild Rook, round points and house rules
(rules/rook.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tonkrules import RookCard, RuleError, find_game
from tonkrules.melds import MeldKind, is_meld, read_meld
from tonkrules.rook import CONTRACTS, round_points

ROOK_GAME = find_game("rook")
P4 = ["Ana", "Ben", "Cy", "Dee"]


def cards(text: str) -> list[RookCard]:
    return [RookCard.parse(t) for t in text.split()]


def score(raw: dict[str, Any], players: list[str] = P4, **options: Any) -> dict[str, int]:
    opts = ROOK_GAME.options(options)
    hand = ROOK_GAME.read_hand(raw, players=players, options=opts)
    return dict(ROOK_GAME.score_hand(hand, players=players, options=opts).scores)


def test_rules_worked_example() -> None:
    # A goes out; B holds R3 Y9 G10 B14 ROOK, C holds R1 R1 G12, D holds Y14: 0, 55, 20, 10.
    raw = {
        "round": 1,
        "dealer": "Dee",
        "out": "Ana",
        "melds": {"Ana": [["R5", "Y5", "G5"], ["B6", "R6", "Y6"]]},
        "held": {"Ben": "R3 Y9 G10 B14 ROOK", "Cy": "R1 R1 G12", "Dee": "Y14"},
    }
    assert score(raw) == {"Ana": 0, "Ben": 55, "Cy": 20, "Dee": 10}


def test_contract_table() -> None:
    assert [(c.cards_dealt, c.runs, c.sets) for c in CONTRACTS.values()] == [
        (12, 0, 2), (12, 1, 1), (12, 2, 0), (12, 0, 3), (12, 1, 2), (12, 2, 1),
        (12, 0, 4), (12, 3, 0), (15, 0, 5), (16, 4, 0), (14, 2, 2),
    ]  # fmt: skip
    assert [c.discard_allowed for c in CONTRACTS.values()].count(False) == 1
    assert not CONTRACTS[11].discard_allowed


@pytest.mark.parametrize(
    ("meld", "kinds", "rooks_as"),
    [
        ("R12 R13 R14 ROOK", {MeldKind.RUN}, ["R11"]),
        ("G9 G10 ROOK G12 G13", {MeldKind.RUN}, ["G11"]),
        ("ROOK ROOK ROOK G14", {MeldKind.SET, MeldKind.RUN}, ["G14", "G14", "G14"]),
        ("B11 B11 R11", {MeldKind.SET}, []),
        ("ROOK R1 R2 R3", {MeldKind.RUN}, ["R4"]),
    ],
)
def test_meld_readings_place_the_rook(meld: str, kinds: set[MeldKind], rooks_as: list[str]) -> None:
    reading = read_meld(cards(meld))
    assert set(reading.kinds) == kinds
    assert [str(c) for c in reading.rooks_as] == rooks_as


@pytest.mark.parametrize(
    ("meld", "detail"),
    [
        ("R13 R14 ROOK R2", "run_gap"),
        ("Y13 Y14 Y1 Y2", "run_wraps"),
        ("G5 G5 G6 G7", "run_repeats"),
        ("B1 B2 B3", "run_too_short"),
        ("R4 Y4", "set_too_short"),
        ("ROOK ROOK ROOK", "too_few_naturals"),
        ("R4 Y4 G5", "mixed"),
    ],
)
def test_rejects_meld_with_reason(meld: str, detail: str) -> None:
    with pytest.raises(RuleError) as info:
        read_meld(cards(meld), player="Ana")
    assert (info.value.code, info.value.detail, info.value.player) == ("bad_meld", detail, "Ana")
    assert not is_meld(cards(meld))


def test_meld_house_rules_min_natural_and_max_rooks() -> None:
    meld = cards("ROOK ROOK Y12")
    assert is_meld(meld)
    assert not is_meld(meld, min_natural=2)
    assert not is_meld(meld, max_rooks=1)
    assert not is_meld(cards("R7 Y7 ROOK"), max_rooks=0)


def test_round_points() -> None:
    assert round_points(cards("R1 R9 R10 R14 ROOK")) == 5 + 5 + 10 + 10 + 25


def test_decks_option_counts_copies() -> None:
    raw = {
        "round": 1,
        "dealer": "Cy",
        "out": "Ana",
        "melds": {"Ana": [["R7", "Y7", "G7"], ["B11", "B11", "R11"]]},
        "held": {"Ben": "R7", "Cy": "G12"},
    }
    players = ["Ana", "Ben", "Cy"]
    assert score(raw, players=players) == {"Ana": 0, "Ben": 5, "Cy": 10}
    with pytest.raises(RuleError) as info:
        score(raw, players=players, decks=1)
    assert (info.value.code, info.value.cards) == ("too_many_copies", ("B11",))


def test_contract_mode_exact_and_at_least() -> None:
    raw = {
        "round": 1,
        "dealer": "Cy",
        "out": "Ana",
        "melds": {"Ana": [["R7", "Y7", "G7"], ["B11", "B11", "R11"], ["Y2", "G2", "B2"]]},
        "held": {"Ben": "R3", "Cy": "G12", "Dee": "Y1"},
    }
    with pytest.raises(RuleError) as info:
        score(raw)
    assert info.value.code == "contract_not_met"
    assert score(raw, contract_mode="at_least") == {"Ana": 0, "Ben": 5, "Cy": 10, "Dee": 5}


def test_ambiguous_meld_counts_as_what_the_contract_needs() -> None:
    for rnd, other in ((1, ["R7", "Y7", "G7"]), (3, ["R1", "R2", "R3", "R4"])):
        raw = {
            "round": rnd,
            "dealer": "Cy",
            "out": "Ana",
            "melds": {"Ana": [["ROOK", "ROOK", "ROOK", "G14"], other]},
            "held": {"Ben": "B13", "Cy": "Y4 G8", "Dee": ""},
        }
        assert score(raw)["Ana"] == 0


def test_time_called_everyone_scores_cards_in_hand() -> None:
    raw = {
        "round": 11,
        "dealer": "Cy",
        "out": None,
        "held": {"Ana": "R14 R14 Y3", "Ben": "ROOK", "Cy": "G1", "Dee": ""},
    }
    assert score(raw) == {"Ana": 25, "Ben": 25, "Cy": 5, "Dee": 0}


def test_round_11_forbids_a_discard() -> None:
    raw = {
        "round": 11,
        "dealer": "Cy",
        "out": "Ana",
        "melds": {
            "Ana": [
                ["R1", "R2", "R3", "R4"],
                ["Y5", "Y6", "Y7", "Y8"],
                ["G10", "B10", "R10"],
                ["B2", "G2", "Y2"],
            ]
        },
        "held": {"Ben": "B13", "Cy": "Y4 G8", "Dee": "R9"},
    }
    assert score(raw)["Ana"] == 0
    with pytest.raises(RuleError) as info:
        score({**raw, "discard": "Y13"})
    assert (info.value.code, info.value.player, info.value.cards) == ("not_out", "Ana", ("Y13",))
