"""Books, sets and runs, with the wild Rook placed by search.

Tonk (rules/tonk.md): a **book** is 3 or 4 cards of one rank; a **run** is 3 or more cards of one
suit in sequence, ace low only (A-2-3 yes, Q-K-A and K-A-2 no), at most 13 cards.

Toonerville Rook (rules/rook.md, "Melds"): a **set** is 3 or more cards of one number in any
colours; a **run** is 4 or more cards of one colour with consecutive numbers, none repeated,
1 at the bottom and 14 at the top (no wrap-around), at most 14 cards. The Rook is wild: the
validator searches for a legal reading that places each Rook. Every meld holds at least
``min_natural`` natural cards and at most ``max_rooks`` Rooks.

Checks come in pairs: ``verify_*`` raises :class:`~tonkrules.errors.MeldError`, ``is_*``
answers a bool.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations

from .cards import Card, Colour, Rank, RookCard
from .errors import MeldError


class MeldKind(StrEnum):
    """What a meld or spread is: a book (Tonk), a set (Rook) or a run (both games)."""

    BOOK = "book"
    SET = "set"
    RUN = "run"


# --- Tonk spreads -------------------------------------------------------------------------


def spread_kind(cards: Sequence[Card]) -> MeldKind | None:
    """``MeldKind.BOOK`` or ``MeldKind.RUN`` when ``cards`` (unordered) are a legal Tonk
    spread, else ``None``."""
    try:
        return verify_spread(cards)
    except MeldError:
        return None


def is_spread(cards: Sequence[Card]) -> bool:
    """True when ``cards`` are a legal Tonk book or run (see :func:`verify_spread`)."""
    return spread_kind(cards) is not None


def verify_spread(cards: Sequence[Card], *, player: str | None = None) -> MeldKind:
    """Check a Tonk spread and say what it is (rules/tonk.md, "Book", "Run").

    Args:
        cards: the spread's cards, in any order.
        player: named in the error.

    Returns:
        ``MeldKind.BOOK`` or ``MeldKind.RUN``.

    Raises:
        MeldError: not a book of 3–4 cards of one rank, nor a run of 3 or more consecutive
            cards of one suit with the ace low.
    """
    n = len(cards)

    def fail(key: str) -> MeldError:
        return MeldError(key, player=player, cards=cards)

    if n < 3:
        raise fail("spread_too_short")
    ranks = {c.rank for c in cards}
    suits = {c.suit for c in cards}
    if len(ranks) == 1:
        if n > 4:
            raise fail("book_too_long")
        return MeldKind.BOOK
    if len(suits) != 1:
        raise fail("mixed.spread")
    if len(ranks) != n:
        raise fail("run_repeats.spread")
    low, high = min(ranks), max(ranks)
    if high - low + 1 != n:
        if Rank.ACE in ranks and Rank.KING in ranks:
            raise fail("run_wraps.spread")
        raise fail("run_gap.spread")
    return MeldKind.RUN


def find_spread(
    cards: Sequence[Card], *, exempt_three_aces: bool = True
) -> tuple[Card, ...] | None:
    """A spread hidden among held cards, or ``None`` (the ``must_lay_down_spreads`` rule).

    Looks for the largest book or run among ``cards``; a book of exactly three aces is exempt
    when ``exempt_three_aces`` (rules/tonk.md, house rule ``must_lay_down_spreads``).
    """
    for size in range(len(cards), 2, -1):
        for combo in combinations(cards, size):
            if not is_spread(combo):
                continue
            if exempt_three_aces and size == 3 and all(c.rank is Rank.ACE for c in combo):
                continue
            return tuple(combo)
    return None


# --- Toonerville Rook melds ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeldReading:
    """A legal reading of a Rook meld.

    Attributes:
        cards: the meld's cards as entered.
        kinds: what the meld can count as: ``{SET}``, ``{RUN}``, or both (only with three or
            more Rooks, e.g. ``ROOK ROOK ROOK G14``).
        rooks_as: for each Rook in the meld, the card it stands for in the first reading
            (set before run), in ascending order.
    """

    cards: tuple[RookCard, ...]
    kinds: frozenset[MeldKind]
    rooks_as: tuple[RookCard, ...]

    @property
    def kind(self) -> MeldKind:
        """The reading's kind when it is not ambiguous; a set when it is."""
        return MeldKind.SET if MeldKind.SET in self.kinds else MeldKind.RUN


def _set_reading(naturals: Sequence[RookCard], n_rooks: int) -> tuple[RookCard, ...] | str:
    """The cards the Rooks stand for in a set, or why it is not a set."""
    numbers = {c.number for c in naturals}
    if len(numbers) != 1:
        return "numbers_differ"
    if len(naturals) + n_rooks < 3:
        return "set_too_short"
    number = naturals[0].number
    colour = naturals[0].colour or Colour.RED
    return tuple(RookCard(colour, number) for _ in range(n_rooks))


def _run_reading(naturals: Sequence[RookCard], n_rooks: int) -> tuple[RookCard, ...] | str:
    """The cards the Rooks stand for in a run, found by searching the run's start, or why it
    is not a run."""
    colours = {c.colour for c in naturals}
    if len(colours) != 1:
        return "colours_differ"
    n = len(naturals) + n_rooks
    if n < 4:
        return "run_too_short"
    if n > 14:
        return "run_too_long"
    numbers = sorted(c.number for c in naturals)
    if len(set(numbers)) != len(numbers):
        return "run_repeats"
    colour = naturals[0].colour
    assert colour is not None
    present = set(numbers)
    for start in range(1, 14 - n + 2):  # the run start..start+n-1 must stay within 1..14
        span = range(start, start + n)
        if numbers[0] >= start and numbers[-1] < start + n:
            return tuple(RookCard(colour, k) for k in span if k not in present)
    if 14 in present and 1 in present:
        return "run_wraps"
    return "run_gap"


def read_meld(
    cards: Sequence[RookCard],
    *,
    min_natural: int = 1,
    max_rooks: int | None = None,
    player: str | None = None,
) -> MeldReading:
    """Find a legal reading of a Rook meld, placing each Rook where it fits.

    Args:
        cards: the meld as entered, in any order.
        min_natural: natural (non-Rook) cards every meld needs (house rule
            ``min_natural_per_meld``, default 1).
        max_rooks: the most Rooks one meld may hold (``max_rooks_per_meld``; None: no cap).
        player: named in the error.

    Returns:
        The reading, with every kind the meld can count as.

    Raises:
        MeldError: no legal reading as a set or a run, too few natural cards, or too many
            Rooks. ``detail`` says which (``run_too_short``, ``run_wraps``, ...).
    """
    naturals = [c for c in cards if not c.is_rook]
    n_rooks = len(cards) - len(naturals)

    def fail(key: str, **params: object) -> MeldError:
        return MeldError(key, player=player, cards=cards, params=params)

    if max_rooks is not None and n_rooks > max_rooks:
        raise fail("too_many_rooks", max=max_rooks)
    if len(naturals) < min_natural:
        raise fail("too_few_naturals", min=min_natural)
    if not naturals:
        raise fail("too_few_naturals.none")
    as_set = _set_reading(naturals, n_rooks)
    as_run = _run_reading(naturals, n_rooks)
    kinds = frozenset(
        kind
        for kind, r in ((MeldKind.SET, as_set), (MeldKind.RUN, as_run))
        if not isinstance(r, str)
    )
    if not kinds:
        # Explain by the reading the cards came closest to.
        reason = as_set if as_set != "numbers_differ" else as_run
        if reason == "colours_differ":
            reason = "mixed"
        if isinstance(reason, str):
            raise fail(reason)
    rooks_as = as_set if not isinstance(as_set, str) else as_run
    assert not isinstance(rooks_as, str)
    return MeldReading(tuple(cards), kinds, tuple(sorted(rooks_as)))


def verify_meld(
    cards: Sequence[RookCard],
    *,
    min_natural: int = 1,
    max_rooks: int | None = None,
    player: str | None = None,
) -> MeldReading:
    """Same as :func:`read_meld`: check a Rook meld and return its reading.

    Raises:
        MeldError: the meld has no legal reading.
    """
    return read_meld(cards, min_natural=min_natural, max_rooks=max_rooks, player=player)


def is_meld(
    cards: Sequence[RookCard], *, min_natural: int = 1, max_rooks: int | None = None
) -> bool:
    """True when ``cards`` are a legal Rook set or run (see :func:`read_meld`)."""
    try:
        read_meld(cards, min_natural=min_natural, max_rooks=max_rooks)
    except MeldError:
        return False
    return True


def count_kinds(readings: Iterable[MeldReading]) -> tuple[int, int, int]:
    """(runs only, sets only, either) among the readings of several melds."""
    runs = sets = either = 0
    for r in readings:
        if len(r.kinds) == 2:
            either += 1
        elif MeldKind.RUN in r.kinds:
            runs += 1
        else:
            sets += 1
    return runs, sets, either
