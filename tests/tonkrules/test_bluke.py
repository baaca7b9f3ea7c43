"""Bluke: hand schedule, trump, trick winners, follow suit, bids and scores (rules/bluke.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tonkrules import BLUKE_DECK, RuleError, Suit, find_game
from tonkrules.bluke import (
    BlukeLeadRule,
    bid_score,
    cards_dealt,
    is_legal_play,
    legal_plays,
    trick_winner,
)

BLUKE = find_game("bluke")
P3 = ["Ana", "Ben", "Cy"]


def cards(text: str) -> list[Any]:
    return list(BLUKE_DECK.parse_cards(text))


def scores(raw: dict[str, Any], previous: int | None = None, **options: Any) -> dict[str, int]:
    opts = BLUKE.options(options)
    hand = BLUKE.read_hand(raw, players=P3, options=opts, previous=previous)
    return dict(BLUKE.score_hand(hand, players=P3, options=opts).scores)


def test_hand_schedule() -> None:
    assert [cards_dealt(h) for h in range(1, 26)] == [*range(13, 0, -1), *range(2, 14)]


@pytest.mark.parametrize(
    ("bid", "tricks", "points"),
    [(6, 8, 62), (5, 3, -50), (13, 13, 130), (1, 13, 22), (0, 0, 0), (0, 3, 3)],
)
def test_bid_scores(bid: int, tricks: int, points: int) -> None:
    assert bid_score(bid, tricks) == points


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        ("7S AS 2H", Suit.HEARTS, 2),  # a trump 2 beats a plain ace
        ("AC LB KC", Suit.CLUBS, 1),  # the Low Bluke beats the trump ace
        ("LB HB 2H", Suit.HEARTS, 1),  # the High Bluke beats everything
        ("4C KD 2C", None, 0),  # no trump: highest of the suit led
        ("3H QH KS AH", Suit.HEARTS, 3),
        ("9D 2S AD", Suit.SPADES, 1),
    ],
)
def test_trick_winner(trick: str, trump: Suit | None, winner: int) -> None:
    assert trick_winner(cards(trick), trump) == winner


def test_follow_suit_with_bluke_exception() -> None:
    hand = cards("4D 2S LB")
    led = cards("9D")
    assert legal_plays(hand, led, BlukeLeadRule.FREE) == tuple(cards("4D LB"))
    assert not is_legal_play(cards("2S")[0], hand, led, BlukeLeadRule.FREE)
    assert is_legal_play(cards("2S")[0], cards("2S 3C"), led, BlukeLeadRule.FREE)


def test_bluke_lead_rule_option() -> None:
    hand = cards("5H 2C")
    trick = cards("LB 9C")  # a Bluke led, then a club
    assert is_legal_play(cards("5H")[0], hand, trick, BlukeLeadRule.FREE)
    assert not is_legal_play(cards("5H")[0], hand, trick, BlukeLeadRule.NEXT_CARD_SETS_SUIT)


def test_allow_zero_bid_option() -> None:
    raw = {
        "hand": 1,
        "dealer": "Cy",
        "trump": "S",
        "bids": {"Ana": 0, "Ben": 5, "Cy": 3},
        "tricks": {"Ana": 0, "Ben": 8, "Cy": 5},
    }
    with pytest.raises(RuleError) as info:
        scores(raw)
    assert (info.value.code, info.value.player) == ("bad_bid", "Ana")
    assert scores(raw, allow_zero_bid=True) == {"Ana": 0, "Ben": 53, "Cy": 32}


def test_play_derives_tricks_and_leader_follows_winner() -> None:
    raw = {
        "hand": 11,
        "dealer": "Cy",
        "trump": "S",
        "bids": {"Ana": 1, "Ben": 3, "Cy": 1},
        "play": [["9D", "LB", "KD"], ["4D", "8C", "5H"], ["2S", "6H", "7C"]],
    }
    opts = BLUKE.options()
    hand = BLUKE.read_hand(raw, players=P3, options=opts, previous=10)
    assert dict(hand.tricks) == {"Ana": 0, "Ben": 3, "Cy": 0}
    assert sum(hand.tricks.values()) == cards_dealt(11)
    assert dict(BLUKE.score_hand(hand, players=P3, options=opts).scores) == {
        "Ana": -10,
        "Ben": 30,
        "Cy": -10,
    }


def test_turned_card_must_agree_with_trump() -> None:
    base = {
        "hand": 1,
        "dealer": "Cy",
        "bids": {"Ana": 4, "Ben": 5, "Cy": 3},
        "tricks": {"Ana": 5, "Ben": 3, "Cy": 5},
    }
    assert scores({**base, "trump": "none", "turned": "HB"}) == {"Ana": 41, "Ben": -50, "Cy": 32}
    with pytest.raises(RuleError) as info:
        scores({**base, "trump": "H", "turned": "LB"})
    assert (info.value.code, info.value.cards) == ("bad_trump", ("LB",))
