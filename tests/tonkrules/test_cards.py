"""Card notation: every accepted spelling, canonical output (rules/README.md)."""

from __future__ import annotations

import pytest

from tonkrules import (
    BLUKE_DECK,
    ROOK,
    STANDARD_DECK,
    Bluke,
    Card,
    Rank,
    RookCard,
    RookDeck,
    RuleError,
    Suit,
)
from tonkrules.cards import canonical, normalise, spellings


@pytest.mark.parametrize(
    ("token", "card"),
    [
        ("10H", "10H"), ("th", "10H"), ("T♥", "10H"), ("10♥️", "10H"), (" qc ", "QC"),
        ("a♠", "AS"), ("2♦", "2D"), ("K♣", "KC"), ("9s", "9S"),
    ],
)  # fmt: skip
def test_standard_spellings(token: str, card: str) -> None:
    assert str(Card.parse(token)) == card


@pytest.mark.parametrize(
    "token", ["1S", "11H", "Q", "0H", "AH5", "HB", "10 H", "1OH", "S10", "", "♥"]
)
def test_standard_rejects(token: str) -> None:
    with pytest.raises(RuleError) as info:
        STANDARD_DECK.parse(token)
    assert (info.value.code, info.value.cards) == ("bad_card", (token,))


def test_bluke_deck_has_the_two_blukes() -> None:
    assert BLUKE_DECK.parse("hb") is Bluke.HIGH
    assert BLUKE_DECK.parse(" LB ") is Bluke.LOW
    assert len(set(BLUKE_DECK.cards())) == 54


@pytest.mark.parametrize("token", ["R0", "Y15", "P5", "AS", "R 7", "G-5", "R07", "ROOKS"])
def test_rook_rejects(token: str) -> None:
    assert not RookDeck(3).is_card(token)


def test_rook_cards() -> None:
    assert RookCard.parse("rook") == ROOK
    assert str(RookCard.parse("g14")) == "G14"
    assert len(RookDeck(4).cards()) == 57
    assert RookDeck(4).copies_of(ROOK) == 4


def test_lists_as_json_or_one_string() -> None:
    assert [str(c) for c in STANDARD_DECK.parse_cards("QS 10H,3C")] == ["QS", "10H", "3C"]
    assert [str(c) for c in STANDARD_DECK.parse_cards(["QS", " 10h "])] == ["QS", "10H"]
    assert STANDARD_DECK.parse_cards("") == ()
    with pytest.raises(RuleError) as info:
        STANDARD_DECK.parse_cards(["QS", 7], player="Ana")
    assert (info.value.code, info.value.player) == ("bad_card", "Ana")
    with pytest.raises(RuleError) as info:
        STANDARD_DECK.parse_cards({"QS": 1})
    assert info.value.code == "bad_format"


def test_values() -> None:
    assert [r.tonk_value for r in Rank] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert Card(Rank.ACE, Suit.SPADES).rank.trick_order == 14


# --- the notation the table page's script reads with (cards.spellings, cards.canonical) ---


@pytest.mark.parametrize(
    ("deck", "count"),
    [(STANDARD_DECK, 52 * 2 + 4 * 2), (BLUKE_DECK, 52 * 2 + 4 * 2 + 2), (RookDeck(3), 57)],
)
def test_spellings_cover_every_accepted_form_and_each_reads_as_its_card(
    deck: object, count: int
) -> None:
    table = spellings(deck.cards())  # type: ignore[attr-defined]
    assert len(table) == count
    for spelling, notation in table.items():
        assert str(deck.parse(spelling)) == notation  # type: ignore[attr-defined]
        assert normalise(spelling) == spelling


def test_spellings_of_the_ten_of_hearts_and_of_the_rook() -> None:
    table = spellings(["10H", "ROOK", "HB"])
    assert {k for k, v in table.items() if v == "10H"} == {"10H", "TH", "10♥", "T♥"}
    assert table["ROOK"] == "ROOK"
    assert table["HB"] == "HB"
    assert "1H" not in table


@pytest.mark.parametrize(
    ("typed", "notation"),
    [
        ("th", "10H"),
        (" 10♥️ ", "10H"),
        ("q♠", "QS"),
        ("rook", "ROOK"),
        ("g14", "G14"),
        ("lb", "LB"),
        ("11h", "11H"),
        ("1s", "1S"),
    ],
)
def test_canonical_reads_a_token_of_any_deck_and_leaves_a_non_card_normalised(
    typed: str, notation: str
) -> None:
    assert canonical(typed) == notation
