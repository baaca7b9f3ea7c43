"""Invariants of the engine, over generated hands (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tonkrules import (
    BLUKE_DECK,
    ROOK,
    STANDARD_DECK,
    Bluke,
    Card,
    Colour,
    RookCard,
    RookDeck,
    find_game,
)
from tonkrules.bluke import (
    BlukeLeadRule,
    cards_dealt,
    legal_plays,
    suit_to_follow,
    trick_winner,
    trump_of_turned,
)
from tonkrules.melds import is_meld, is_spread, read_meld
from tonkrules.tonk import (
    CaughtLowBonus,
    StockTie,
    TonkEnd,
    TonkHand,
    TonkOptions,
    hand_total,
    tonk_payouts,
)

NAMES = ["Ana", "Ben", "Cy", "Dee"]
DECK52 = STANDARD_DECK.cards()

# --- Tonk payouts sum to zero -------------------------------------------------------------


@st.composite
def tonk_hands(draw: st.DrawFn) -> tuple[TonkHand, list[str], TonkOptions]:
    players = NAMES[: draw(st.integers(2, 4))]
    options = TonkOptions(
        caught_low_bonus=draw(st.sampled_from(CaughtLowBonus)),
        stock_tie=draw(st.sampled_from(StockTie)),
        double_requires_new_spread=draw(st.booleans()),
    )
    end = draw(st.sampled_from(TonkEnd))
    deck = draw(st.permutations(DECK52))
    sizes = [draw(st.integers(0, 5)) for _ in players]
    held, at = {}, 0
    for p, k in zip(players, sizes, strict=True):
        held[p] = tuple(deck[at : at + k])
        at += k
    by = (
        None
        if end in (TonkEnd.STOCK_OUT, TonkEnd.DEAL_TONK_TIE)
        else draw(st.sampled_from(players))
    )
    new_spread = draw(st.booleans()) if end is TonkEnd.TONK_OUT else None
    return TonkHand(players[0], end, by, held, (), new_spread), players, options


@given(tonk_hands())
def test_tonk_payouts_sum_to_zero(case: tuple[TonkHand, list[str], TonkOptions]) -> None:
    hand, players, options = case
    units = tonk_payouts(hand, players=players, options=options)
    assert set(units) == set(players)
    assert sum(units.values()) == 0
    if hand.end is TonkEnd.KNOCK:
        assert hand.by is not None
        mine = hand_total(hand.held[hand.by])
        caught = any(hand_total(hand.held[p]) <= mine for p in players if p != hand.by)
        assert (units[hand.by] < 0) == caught


# --- a meld's validity does not depend on the order of its cards ------------------------


@st.composite
def rook_melds(draw: st.DrawFn) -> list[RookCard]:
    kind = draw(st.sampled_from(["run", "set", "junk"]))
    if kind == "run":
        colour = draw(st.sampled_from(Colour))
        length = draw(st.integers(3, 9))
        start = draw(st.integers(1, 15 - length))
        cards = [RookCard(colour, n) for n in range(start, start + length)]
    elif kind == "set":
        number = draw(st.integers(1, 14))
        cards = [
            RookCard(draw(st.sampled_from(Colour)), number) for _ in range(draw(st.integers(2, 6)))
        ]
    else:
        cards = draw(st.lists(st.sampled_from(RookDeck(1).cards()), min_size=1, max_size=7))
    for i in draw(st.lists(st.integers(0, len(cards) - 1), max_size=3)):
        cards[i] = ROOK
    return cards


@given(rook_melds(), st.data())
def test_rook_meld_validity_ignores_card_order(meld: list[RookCard], data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(meld))
    assert is_meld(shuffled) == is_meld(meld)
    if is_meld(meld):
        assert read_meld(shuffled).kinds == read_meld(meld).kinds


@st.composite
def tonk_spreads(draw: st.DrawFn) -> list[Card]:
    kind = draw(st.sampled_from(["run", "book", "junk"]))
    if kind == "run":
        suit = draw(st.sampled_from([c.suit for c in DECK52[::13]]))
        length = draw(st.integers(2, 6))
        start = draw(st.integers(1, 14 - length))
        return [c for c in DECK52 if c.suit == suit and start <= c.rank < start + length]
    if kind == "book":
        rank = draw(st.sampled_from(DECK52[:13])).rank
        return draw(
            st.lists(
                st.sampled_from([c for c in DECK52 if c.rank == rank]),
                min_size=2,
                max_size=4,
                unique=True,
            )
        )
    return draw(st.lists(st.sampled_from(DECK52), min_size=1, max_size=6, unique=True))


@given(tonk_spreads(), st.data())
def test_tonk_spread_validity_ignores_card_order(spread: list[Card], data: st.DataObject) -> None:
    assert is_spread(data.draw(st.permutations(spread))) == is_spread(spread)


# --- notation: parse and print round-trip ---------------------------------------------------


def spellings(card: Card) -> st.SearchStrategy[str]:
    rank = card.rank.notation
    ranks = [rank, rank.lower()] + (["T", "t"] if rank == "10" else [])
    suits = [
        card.suit.value,
        card.suit.value.lower(),
        card.suit.symbol,
        card.suit.symbol + "\ufe0f",
    ]
    return st.builds(
        lambda r, s, pad: f"{pad}{r}{s}{pad}",
        st.sampled_from(ranks),
        st.sampled_from(suits),
        st.sampled_from(["", " "]),
    )


@given(st.sampled_from(DECK52), st.data())
def test_standard_notation_round_trips(card: Card, data: st.DataObject) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(data.draw(spellings(card))) == card


@given(st.sampled_from(BLUKE_DECK.cards()))
def test_bluke_notation_round_trips(card: Card | Bluke) -> None:
    assert BLUKE_DECK.parse(str(card)) == card
    assert BLUKE_DECK.parse(str(card).lower()) == card


@given(st.sampled_from(RookDeck(1).cards()))
def test_rook_notation_round_trips(card: RookCard) -> None:
    assert RookCard.parse(str(card)) == card
    assert RookCard.parse(f" {str(card).lower()} ") == card


@given(
    st.lists(st.sampled_from(DECK52), max_size=8),
    st.lists(st.sampled_from([" ", ",", ", ", "  "]), min_size=8, max_size=8),
)
def test_card_lists_round_trip_through_one_string(cards: list[Card], seps: list[str]) -> None:
    text = "".join(f"{c}{s}" for c, s in zip(cards, seps, strict=False))
    assert list(STANDARD_DECK.parse_cards(text)) == cards


# --- Bluke: tricks derived from a legal play add up to the cards dealt ------------------


@given(
    st.integers(2, 4),
    st.integers(1, 25),
    st.sampled_from(BlukeLeadRule),
    st.permutations(BLUKE_DECK.cards()),
    st.data(),
)
def test_derived_bluke_tricks_add_up_to_cards_dealt(
    n: int, number: int, rule: BlukeLeadRule, deck: list[Any], data: st.DataObject
) -> None:
    """Deal from a shuffled deck, play random legal cards (each trick's winner leads the next),
    and enter the play: the engine accepts it and the tricks it derives add up to the deal."""
    players = NAMES[:n]
    dealt = cards_dealt(number)
    dealer = data.draw(st.integers(0, n - 1))
    turned, trump = deck[0], trump_of_turned(deck[0])
    hands = {p: list(deck[1 + i * dealt : 1 + (i + 1) * dealt]) for i, p in enumerate(players)}
    leader = (dealer + 1) % n
    play: list[list[str]] = []
    for _ in range(dealt):
        trick: list[Any] = []
        for k in range(n):
            hand = hands[players[(leader + k) % n]]
            card = data.draw(st.sampled_from(legal_plays(hand, trick, rule)))
            hand.remove(card)
            trick.append(card)
        play.append([str(c) for c in trick])
        leader = (leader + trick_winner(trick, trump, led=suit_to_follow(trick, rule))) % n
    bluke = find_game("bluke")
    raw = {
        "hand": number,
        "dealer": players[dealer],
        "trump": "none" if trump is None else trump.value,
        "turned": str(turned),
        "bids": dict.fromkeys(players, 1),
        "play": play,
    }
    hand_record = bluke.read_hand(
        raw, players=players, options=bluke.options({"bluke_lead_rule": rule.value})
    )
    assert sum(hand_record.tricks.values()) == dealt
    assert min(hand_record.tricks.values()) >= 0
