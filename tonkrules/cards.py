"""Cards, decks and card notation (rules/README.md, "Card notation").

Three decks are in use:

* the standard 52-card deck (Tonk): :class:`Card`, ranks ``A 2 … 10 J Q K``, suits ``S H D C``;
* the Bluke deck: the 52 cards plus the two jokers :attr:`Bluke.HIGH` (``HB``) and
  :attr:`Bluke.LOW` (``LB``);
* Toonerville Rook: :class:`RookCard`, colours ``R Y G B`` and numbers 1–14, plus the wild
  :data:`ROOK`; one such 57-card deck per player by default.

Input is case-insensitive, ignores surrounding spaces and the emoji presentation selector
(U+FE0F), accepts ``T`` for ten and the suit symbols ``♠ ♥ ♦ ♣``. ``str(card)`` is always the
canonical form, and ``parse(str(card)) == card``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, IntEnum, StrEnum
from typing import Generic, TypeVar

from .errors import CardError, CopiesError, FormatError


class Suit(StrEnum):
    """A suit of the standard deck; the value is the canonical letter."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        """The suit symbol (``♠ ♥ ♦ ♣``)."""
        return _SUIT_SYMBOLS[self]


_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_BY_TEXT: dict[str, Suit] = {s.value: s for s in Suit} | {
    v: k for k, v in _SUIT_SYMBOLS.items()
}


class Rank(IntEnum):
    """A rank of the standard deck; the value is the rank's number with the ace as 1."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def notation(self) -> str:
        """The canonical rank text: ``A``, ``2`` … ``10``, ``J``, ``Q``, ``K``."""
        return _RANK_NOTATION[self]

    @property
    def tonk_value(self) -> int:
        """Points in Tonk: ace 1, 2–10 face value, J Q K 10 (rules/tonk.md, "Cards and values")."""
        return min(int(self), 10)

    @property
    def trick_order(self) -> int:
        """Order within a suit in Bluke, where the ace is high: 2 → 2 … K → 13, A → 14."""
        return 14 if self is Rank.ACE else int(self)


_RANK_NOTATION = {r: ({1: "A", 11: "J", 12: "Q", 13: "K"}.get(int(r)) or str(int(r))) for r in Rank}
_RANK_BY_TEXT: dict[str, Rank] = {v: k for k, v in _RANK_NOTATION.items()} | {"T": Rank.TEN}


@dataclass(frozen=True, slots=True)
class Card:
    """A card of the standard 52-card deck, e.g. ``Card(Rank.TEN, Suit.HEARTS)`` is ``10H``."""

    rank: Rank
    suit: Suit

    def __str__(self) -> str:
        return f"{self.rank.notation}{self.suit.value}"

    @classmethod
    def parse(cls, token: str) -> Card:
        """Read one card: ``"10H"``, ``"th"``, ``"10♥"``, ``" 10♥️ "``.

        Raises:
            CardError: the token is not a card of the 52-card deck (``1S``, ``11H``, ``Q``).
        """
        card = _parse_standard(_normalise(token))
        if card is None:
            raise CardError("not_in_deck.standard", cards=[token], params={"token": token})
        return card


class Bluke(Enum):
    """The two jokers of the Bluke deck: the High Bluke (``HB``) and the Low Bluke (``LB``)."""

    HIGH = "HB"
    LOW = "LB"

    def __str__(self) -> str:
        return self.value


BlukeCard = Card | Bluke
"""A card of the Bluke deck: one of the 52 cards or one of the two Blukes."""


class Colour(StrEnum):
    """A colour of the Rook deck; the value is the canonical letter."""

    RED = "R"
    YELLOW = "Y"
    GREEN = "G"
    BLACK = "B"


@dataclass(frozen=True, slots=True, order=True)
class RookCard:
    """A card of the Rook deck: a colour and a number 1–14, or the wild Rook (:data:`ROOK`).

    The Rook has ``colour=None`` and ``number=0``.
    """

    colour: Colour | None
    number: int

    def __post_init__(self) -> None:
        natural = self.colour is not None and 1 <= self.number <= 14
        if not natural and not (self.colour is None and self.number == 0):
            raise ValueError(f"no such Rook card: {self.colour!r} {self.number!r}")

    @property
    def is_rook(self) -> bool:
        """True for the wild bird card."""
        return self.colour is None

    @property
    def points(self) -> int:
        """Penalty points left in hand: 1–9 → 5, 10–14 → 10, Rook → 25 (rules/rook.md)."""
        if self.colour is None:
            return 25
        return 5 if self.number <= 9 else 10

    def __str__(self) -> str:
        return "ROOK" if self.colour is None else f"{self.colour.value}{self.number}"

    @classmethod
    def parse(cls, token: str) -> RookCard:
        """Read one Rook-deck card: ``"R1"``, ``"g14"``, ``"rook"``.

        Raises:
            CardError: not a card of the Rook deck (``R0``, ``Y15``, ``P5``, ``AS``, ``R 7``).
        """
        card = _parse_rook(_normalise(token))
        if card is None:
            raise CardError("not_in_deck.rook", cards=[token], params={"token": token})
        return card


ROOK = RookCard(None, 0)
"""The wild bird card of Toonerville Rook."""

CARD_SEPARATORS = re.compile(r"[\s,]+")
"""What separates the cards of a list written as one string: spaces and commas."""
_STANDARD = re.compile(r"^(10|[2-9]|[ATJQK])([SHDC♠♥♦♣])$")
_ROOK = re.compile(r"^([RYGB])(1[0-4]|[1-9])$")


_EMOJI_SUIT = re.compile("([♠♥♦♣])\ufe0f")


def _normalise(token: str) -> str:
    """Strip spaces, drop the emoji presentation selector after a suit symbol, and upper-case
    ASCII letters only (so that no other letter turns into a suit or rank)."""
    text = _EMOJI_SUIT.sub(r"\1", token.strip())
    return "".join(c.upper() if c.isascii() else c for c in text)


def _parse_standard(text: str) -> Card | None:
    m = _STANDARD.match(text)
    if m is None:
        return None
    return Card(_RANK_BY_TEXT[m.group(1)], _SUIT_BY_TEXT[m.group(2)])


def _parse_rook(text: str) -> RookCard | None:
    if text == "ROOK":
        return ROOK
    m = _ROOK.match(text)
    if m is None:
        return None
    return RookCard(Colour(m.group(1)), int(m.group(2)))


def split_tokens(value: object, *, player: str | None = None, what: str = "cards") -> list[str]:
    """Split a list of cards as entered into tokens (rules/README.md, "Card notation").

    ``value`` is a JSON list of strings (each one token) or one string separated by spaces or
    commas (``"QS 10H 3C"``, ``"as, 2d"``). An empty string or list is no cards.

    Raises:
        FormatError: ``value`` is neither a list nor a string.
        CardError: a list item that is not a string (it cannot be a card).
    """
    if isinstance(value, str):
        return [t for t in CARD_SEPARATORS.split(value) if t]
    if isinstance(value, list):
        for item in value:
            if not isinstance(item, str):
                raise CardError(
                    "not_a_card", player=player, cards=[repr(item)], params={"token": repr(item)}
                )
        return list(value)
    raise FormatError(
        "cards_type", player=player, params={"what": what, "type": type(value).__name__}
    )


C = TypeVar("C", Card, BlukeCard, RookCard)


class Deck(ABC, Generic[C]):
    """The cards a game is played with, and how many copies of each are in play."""

    name: str

    @abstractmethod
    def parse(self, token: str) -> C:
        """Read one token as a card of this deck.

        Raises:
            CardError: the token is not a card of this deck; the error names the token.
        """

    @abstractmethod
    def copies_of(self, card: C) -> int:
        """How many copies of ``card`` the deck(s) in play hold."""

    def is_card(self, token: str) -> bool:
        """True when ``token`` reads as a card of this deck (see :meth:`parse`)."""
        try:
            self.parse(token)
        except CardError:
            return False
        return True

    def parse_cards(self, value: object, *, player: str | None = None) -> tuple[C, ...]:
        """Read a list of cards as entered (a JSON list or one string) into cards.

        Raises:
            FormatError: ``value`` is neither a list nor a string.
            CardError: a token that is not a card of this deck, naming the player and token.
        """
        cards = []
        for token in split_tokens(value, player=player):
            try:
                cards.append(self.parse(token))
            except CardError as exc:
                exc.player = player
                raise
        return tuple(cards)

    def verify_copies(self, entries: Iterable[tuple[str | None, C]]) -> None:
        """Check that no card appears more often than the deck(s) hold.

        ``entries`` are (player, card) pairs in the order entered; the error names the player
        whose entry first exceeds the count.

        Raises:
            CopiesError: a card appears more often than :meth:`copies_of` allows.
        """
        seen: Counter[C] = Counter()
        first: dict[C, str | None] = {}
        for player, card in entries:
            seen[card] += 1
            first.setdefault(card, player)
            limit = self.copies_of(card)
            if seen[card] > limit:
                raise CopiesError(
                    "copies",
                    player=player if player is not None else first[card],
                    cards=[card],
                    params={"count": seen[card], "limit": limit},
                )


class StandardDeck(Deck[Card]):
    """One 52-card deck, no jokers (Tonk)."""

    name = "52-card deck"

    def parse(self, token: str) -> Card:
        return Card.parse(token)

    def copies_of(self, card: Card) -> int:
        return 1

    def cards(self) -> tuple[Card, ...]:
        """All 52 cards, suit by suit."""
        return tuple(Card(r, s) for s in Suit for r in Rank)


class BlukeDeck(Deck[BlukeCard]):
    """The 52 cards plus the High and the Low Bluke (Bluke)."""

    name = "Bluke deck"

    def parse(self, token: str) -> BlukeCard:
        text = _normalise(token)
        if text in ("HB", "LB"):
            return Bluke(text)
        card = _parse_standard(text)
        if card is None:
            raise CardError("not_in_deck.bluke", cards=[token], params={"token": token})
        return card

    def copies_of(self, card: BlukeCard) -> int:
        return 1

    def cards(self) -> tuple[BlukeCard, ...]:
        """All 54 cards: the 52 then ``HB`` and ``LB``."""
        return (*STANDARD_DECK.cards(), Bluke.HIGH, Bluke.LOW)


@dataclass(frozen=True)
class RookDeck(Deck[RookCard]):
    """``decks`` Rook decks shuffled together: every card, the Rook included, ``decks`` times."""

    decks: int = 1
    name = "Rook decks"

    def __post_init__(self) -> None:
        if self.decks < 1:
            raise ValueError("at least one Rook deck")

    def parse(self, token: str) -> RookCard:
        return RookCard.parse(token)

    def copies_of(self, card: RookCard) -> int:
        return self.decks

    def cards(self) -> tuple[RookCard, ...]:
        """One deck's 57 cards: the 56 coloured cards then the Rook."""
        return (*(RookCard(c, n) for c in Colour for n in range(1, 15)), ROOK)


STANDARD_DECK = StandardDeck()
BLUKE_DECK = BlukeDeck()


def normalise(token: str) -> str:
    """A token as :meth:`Deck.parse` reads it: surrounding spaces and the emoji presentation
    selector dropped, ASCII letters upper-cased (``" 10♥️ "`` → ``"10♥"``, ``"th"`` → ``"TH"``)."""
    return _normalise(token)


def canonical(token: str) -> str:
    """The canonical notation of a token as typed, whichever deck it belongs to
    (``"th"`` → ``"10H"``, ``"10♥️"`` → ``"10H"``, ``"rook"`` → ``"ROOK"``, ``"hb"`` → ``"HB"``);
    a token that is no card of any deck comes back normalised (``"11h"`` → ``"11H"``).

    Pages use it to find the field holding a card an error names; it never raises.
    """
    text = _normalise(token)
    if text in ("HB", "LB"):
        return text
    card: object = _parse_standard(text) or _parse_rook(text)
    return text if card is None else str(card)


def spellings(cards: Iterable[object]) -> dict[str, str]:
    """Every spelling the notation accepts for each of ``cards`` (cards, or their canonical
    notation), normalised as
    :func:`normalise` leaves it, mapped to the card's canonical notation (rules/README.md,
    "Card notation"): ``10H``, ``TH`` and ``10♥`` for the ten of hearts; ``HB``; ``R1``; ``ROOK``.

    The table page's script looks typed tokens up in this table (after upper-casing them and
    dropping the emoji selector), so card notation is read by the engine's rules only.
    """
    out: dict[str, str] = {}
    for item in cards:
        text = str(item)
        out[text] = text
        card = item if isinstance(item, Card) else _parse_standard(text)
        if card is not None:
            ranks = [card.rank.notation] + (["T"] if card.rank is Rank.TEN else [])
            for rank in ranks:
                out[f"{rank}{card.suit.value}"] = text
                out[f"{rank}{card.suit.symbol}"] = text
    return out
