"""Every error code of the format can be produced, and names the player and the cards."""

from __future__ import annotations

from typing import Any

import pytest

from tonkrules import ErrorCode, RuleError, find_game
from tonkrules.errors import ERROR_CLASSES
from tonkrules.sheet import SheetError, read_sheet

P3 = ["Ana", "Ben", "Cy"]
ROUND1_OUT = {"Ana": [["R7", "Y7", "G7"], ["B11", "B11", "R11"]]}

# (id, game, options, previous hand number, hand as entered, code, player, cards)
CASES: list[
    tuple[str, str, dict[str, Any], int | None, dict[str, Any], ErrorCode, str | None, list[str]]
] = [
    (
        "unknown key",
        "tonk",
        {},
        None,
        {
            "dealer": "Cy",
            "end": "knock",
            "by": "Ana",
            "held": {"Ana": "AS", "Ben": "2C", "Cy": "3C"},
            "winner": "Ana",
        },
        ErrorCode.BAD_FORMAT,
        None,
        [],
    ),
    (
        "bid typed as text",
        "bluke",
        {},
        None,
        {
            "hand": 1,
            "dealer": "Cy",
            "trump": "S",
            "bids": {"Ana": "4", "Ben": 5, "Cy": 3},
            "tricks": {"Ana": 5, "Ben": 3, "Cy": 5},
        },
        ErrorCode.BAD_FORMAT,
        "Ana",
        [],
    ),
    (
        "round 3 after round 1",
        "rook",
        {},
        1,
        {
            "round": 3,
            "dealer": "Ana",
            "out": "Ana",
            "melds": ROUND1_OUT,
            "held": {"Ben": "R3", "Cy": "G12"},
        },
        ErrorCode.BAD_SEQUENCE,
        None,
        [],
    ),
    (
        "knock by a stranger",
        "tonk",
        {},
        None,
        {
            "dealer": "Cy",
            "end": "knock",
            "by": "Zed",
            "held": {"Ana": "AS", "Ben": "2C", "Cy": "3C"},
        },
        ErrorCode.BAD_PLAYER,
        "Zed",
        [],
    ),
    (
        "stock out missing a player's cards",
        "tonk",
        {},
        None,
        {"dealer": "Cy", "end": "stock_out", "held": {"Ana": "AS", "Cy": "3C"}},
        ErrorCode.BAD_PLAYER,
        "Ben",
        [],
    ),
    (
        "11H is no card",
        "tonk",
        {},
        None,
        {
            "dealer": "Cy",
            "end": "knock",
            "by": "Ana",
            "held": {"Ana": ["2C", "11H"], "Ben": "9H", "Cy": "3C"},
        },
        ErrorCode.BAD_CARD,
        "Ana",
        ["11H"],
    ),
    (
        "rook card in bluke play",
        "bluke",
        {},
        12,
        {
            "hand": 13,
            "dealer": "Cy",
            "trump": "S",
            "bids": {"Ana": 1, "Ben": 1, "Cy": 1},
            "play": [["R7", "2H", "3H"]],
        },
        ErrorCode.BAD_CARD,
        None,
        ["R7"],
    ),
    (
        "10H written twice",
        "tonk",
        {},
        None,
        {
            "dealer": "Cy",
            "end": "knock",
            "by": "Ana",
            "held": {"Ana": "AS", "Ben": ["10H", "TH"], "Cy": "3C"},
        },
        ErrorCode.TOO_MANY_COPIES,
        "Ben",
        ["10H"],
    ),
    (
        "a fourth R7 with three decks",
        "rook",
        {},
        None,
        {
            "round": 1,
            "dealer": "Ana",
            "out": "Ana",
            "melds": {"Ana": [["R7", "Y7", "G7"], ["R6", "Y6", "B6"]]},
            "held": {"Ben": "R7 R7", "Cy": "R7"},
        },
        ErrorCode.TOO_MANY_COPIES,
        "Cy",
        ["R7"],
    ),
    (
        "six cards at a knock",
        "tonk",
        {},
        None,
        {
            "dealer": "Cy",
            "end": "knock",
            "by": "Ana",
            "held": {"Ana": "AS", "Ben": "KH QH 3C 4C 5C 6C", "Cy": "2D"},
        },
        ErrorCode.HAND_SIZE,
        "Ben",
        ["KH", "QH", "3C", "4C", "5C", "6C"],
    ),
    (
        "three-card run in round 3",
        "rook",
        {},
        2,
        {
            "round": 3,
            "dealer": "Ana",
            "out": "Ana",
            "melds": {"Ana": [["B1", "B2", "B3"], ["R5", "R6", "R7", "R8"]]},
            "held": {"Ben": "R3", "Cy": "G12"},
        },
        ErrorCode.BAD_MELD,
        "Ana",
        ["B1", "B2", "B3"],
    ),
    (
        "spread Q-K-A",
        "tonk",
        {},
        None,
        {
            "dealer": "Cy",
            "end": "knock",
            "by": "Ana",
            "held": {"Ana": "AS", "Ben": "2C", "Cy": "3C"},
            "spreads": [["QH", "KH", "AH"]],
        },
        ErrorCode.BAD_MELD,
        None,
        ["QH", "KH", "AH"],
    ),
    (
        "9H turned but spades entered",
        "bluke",
        {},
        None,
        {
            "hand": 1,
            "dealer": "Cy",
            "trump": "S",
            "turned": "9H",
            "bids": {"Ana": 4, "Ben": 5, "Cy": 3},
            "tricks": {"Ana": 5, "Ben": 3, "Cy": 5},
        },
        ErrorCode.BAD_TRUMP,
        None,
        ["9H"],
    ),
    (
        "tonk at the deal on 48",
        "tonk",
        {},
        None,
        {"dealer": "Cy", "end": "deal_tonk", "by": "Ana", "held": {"Ana": "KS QH JD 9C 9S"}},
        ErrorCode.BAD_TOTAL,
        "Ana",
        ["KS", "QH", "JD", "9C", "9S"],
    ),
    (
        "went out still holding B2",
        "rook",
        {},
        None,
        {
            "round": 1,
            "dealer": "Ana",
            "out": "Ana",
            "melds": ROUND1_OUT,
            "held": {"Ana": "B2", "Ben": "R3", "Cy": "G12"},
        },
        ErrorCode.NOT_OUT,
        "Ana",
        ["B2"],
    ),
    (
        "one set in round 1",
        "rook",
        {},
        None,
        {
            "round": 1,
            "dealer": "Ana",
            "out": "Ana",
            "melds": {"Ana": [["R7", "Y7", "G7"]]},
            "held": {"Ben": "R3", "Cy": "G12"},
        },
        ErrorCode.CONTRACT_NOT_MET,
        "Ana",
        ["R7", "Y7", "G7"],
    ),
    (
        "bid 0 without the house rule",
        "bluke",
        {},
        None,
        {
            "hand": 1,
            "dealer": "Cy",
            "trump": "S",
            "bids": {"Ana": 4, "Ben": 0, "Cy": 3},
            "tricks": {"Ana": 5, "Ben": 3, "Cy": 5},
        },
        ErrorCode.BAD_BID,
        "Ben",
        [],
    ),
    (
        "tricks disagree with the play",
        "bluke",
        {},
        12,
        {
            "hand": 13,
            "dealer": "Cy",
            "trump": "S",
            "bids": {"Ana": 1, "Ben": 1, "Cy": 1},
            "play": [["QH", "2H", "AS"]],
            "tricks": {"Ana": 1, "Ben": 0, "Cy": 0},
        },
        ErrorCode.TRICKS_MISMATCH,
        "Ana",
        [],
    ),
    (
        "revoke: trumped while holding the suit led",
        "bluke",
        {},
        10,
        {
            "hand": 11,
            "dealer": "Cy",
            "trump": "S",
            "bids": {"Ana": 1, "Ben": 2, "Cy": 1},
            "play": [["9D", "2S", "KD"], ["4D", "8C", "5H"], ["LB", "6H", "7C"]],
        },
        ErrorCode.ILLEGAL_PLAY,
        "Ben",
        ["2S", "4D"],
    ),
]


@pytest.mark.parametrize(
    ("game", "options", "previous", "raw", "code", "player", "cards"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_error_names_code_player_and_cards(
    game: str,
    options: dict[str, Any],
    previous: int | None,
    raw: dict[str, Any],
    code: ErrorCode,
    player: str | None,
    cards: list[str],
) -> None:
    g = find_game(game)
    with pytest.raises(RuleError) as info:
        g.read_hand(raw, players=P3, options=g.options(options), previous=previous)
    err = info.value
    assert (err.code, err.player, list(err.cards)) == (code, player, cards)
    assert isinstance(err, ERROR_CLASSES[code])
    assert isinstance(err, ValueError)
    assert err.message


def test_every_code_of_the_format_is_produced_above() -> None:
    assert {c[5] for c in CASES} == set(ErrorCode)


@pytest.mark.parametrize(
    ("sheet", "code", "player"),
    [
        (
            {
                "format": "tabletally.scoresheet/1",
                "game": "rook",
                "players": ["A", "B"],
                "hands": [],
            },
            "bad_player",
            None,
        ),
        (
            {
                "format": "tabletally.scoresheet/1",
                "game": "tonk",
                "players": ["Ana", " ana "],
                "hands": [],
            },
            "bad_player",
            " ana ",
        ),
        (
            {
                "format": "tabletally.scoresheet/1",
                "game": "tonk",
                "players": ["Ana", "  "],
                "hands": [],
            },
            "bad_player",
            "  ",
        ),
        (
            {
                "format": "tabletally.scoresheet/1",
                "game": "tonk",
                "players": ["A", "B"],
                "hands": [],
                "stake": "-1",
            },
            "bad_format",
            None,
        ),
        (
            {
                "format": "tabletally.scoresheet/1",
                "game": "tonk",
                "players": ["A", "B"],
                "hands": [],
                "stake": 0.25,
            },
            "bad_format",
            None,
        ),
        (
            {
                "format": "tabletally.scoresheet/1",
                "game": "tonk",
                "players": ["A", "B"],
                "hands": [],
                "options": {"caught_low_bonus": "everyone"},
            },
            "bad_format",
            None,
        ),
        (
            {
                "format": "tabletally.scoresheet/1",
                "game": "rook",
                "players": ["A", "B", "C"],
                "hands": [],
                "options": {"decks": 0},
            },
            "bad_format",
            None,
        ),
    ],
)
def test_top_level_errors_have_no_hand(
    sheet: dict[str, Any], code: str, player: str | None
) -> None:
    with pytest.raises(SheetError) as info:
        read_sheet(sheet)
    assert info.value.hand is None
    assert info.value.error.code == code
    assert info.value.error.player == player
    assert "hand" not in info.value.to_json()["error"]  # type: ignore[operator]


def test_first_broken_rule_in_check_order_wins() -> None:
    # An unknown player (bad_player) and a bad card (bad_card) in one hand: bad_player is first.
    tonk = find_game("tonk")
    raw = {
        "dealer": "Cy",
        "end": "knock",
        "by": "Ana",
        "held": {"Ana": "AS", "Ben": "ZZ", "Cy": "3C", "Dee": "4C"},
    }
    with pytest.raises(RuleError) as info:
        tonk.read_hand(raw, players=P3, options=tonk.options())
    assert info.value.code is ErrorCode.BAD_PLAYER
    assert info.value.player == "Dee"


def test_turned_card_in_play_is_illegal_play_not_a_copy() -> None:
    bluke = find_game("bluke")
    raw = {
        "hand": 13,
        "dealer": "Cy",
        "trump": "S",
        "turned": "QS",
        "bids": {"Ana": 1, "Ben": 1, "Cy": 1},
        "play": [["QS", "2S", "3S"]],
    }
    with pytest.raises(RuleError) as info:
        bluke.read_hand(raw, players=P3, options=bluke.options(), previous=12)
    assert (info.value.code, info.value.player, list(info.value.cards)) == (
        "illegal_play",
        "Ana",
        ["QS"],
    )


def test_duplicate_in_play_names_who_played_it_after_the_lead_passed() -> None:
    # Dealer Cy: Ana leads trick 1 and Ben wins it with AS, so Ben leads trick 2, where Ana
    # (third to play, not first) plays the second AS.
    bluke = find_game("bluke")
    raw = {
        "hand": 12,
        "dealer": "Cy",
        "trump": "H",
        "bids": {"Ana": 1, "Ben": 1, "Cy": 1},
        "play": [["AS", "KS", "2S"], ["3C", "4C", "AS"]],
    }
    with pytest.raises(RuleError) as info:
        bluke.read_hand(raw, players=P3, options=bluke.options(), previous=11)
    assert (info.value.code, info.value.player, info.value.cards) == (
        "too_many_copies",
        "Cy",
        ("AS",),
    )


def test_card_in_a_spread_and_a_hand_names_the_holder() -> None:
    tonk = find_game("tonk")
    raw = {
        "dealer": "Cy",
        "end": "knock",
        "by": "Ana",
        "held": {"Ana": "JS 2C", "Ben": "9H", "Cy": "3C"},
        "spreads": [["JS", "JH", "JD"]],
    }
    with pytest.raises(RuleError) as info:
        tonk.read_hand(raw, players=P3, options=tonk.options())
    assert (info.value.code, info.value.player, info.value.cards) == (
        "too_many_copies",
        "Ana",
        ("JS",),
    )


def test_unknown_player_message_suggests_the_seated_name() -> None:
    tonk = find_game("tonk")
    raw = {"dealer": "cy ", "end": "tonk_out", "by": "Ana"}
    with pytest.raises(RuleError) as info:
        tonk.read_hand(raw, players=P3, options=tonk.options())
    assert info.value.player == "cy "
    assert "did you mean 'Cy'?" in info.value.message


def test_false_tie_at_the_deal_names_the_player_whose_total_does_not_tie() -> None:
    tonk = find_game("tonk")
    raw = {
        "dealer": "Cy",
        "end": "deal_tonk_tie",
        "held": {"Ben": "KS QH JD 9C 9S", "Cy": "KH QS JC 10D 10S"},
    }
    with pytest.raises(RuleError) as info:
        tonk.read_hand(raw, players=P3, options=tonk.options())
    assert (info.value.code, info.value.player) == ("bad_total", "Ben")
    assert info.value.cards == ("KS", "QH", "JD", "9C", "9S")
    assert "Ben holds 48" in info.value.message
