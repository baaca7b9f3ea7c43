"""The shapes of the standings computation: what goes in (:class:`Entry`, :class:`SeatRecord`,
:class:`SeatColumns`), what comes out (:class:`StandingRow`, :class:`RoundScore`), the bases
and missed-round scores a tournament may choose, and the game facts the computation reads
(its rules, its tie-break keys, the result fields it reads). Pure; the words are defined in
:mod:`tournaments.standings`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from tonkrules import find_game
from tonkrules.errors import RuleError
from tonkrules.games import TIEBREAK_BESTS, TIEBREAK_COUNTS, GameRules

BASES = ("total", "placement")
MISSED_SCORES = ("average", "zero", "worst")

#: Where a player's table stands in the round in play (a round published and not complete),
#: as the caller tells it (issue 12, live standings): not seated in a round in play (or none
#: is in play); seated at a table that has reported nothing yet; at a table with hands not
#: yet confirmed (a provisional result); at a table whose hands are all confirmed.
IN_PLAY = ("", "not_reported", "provisional", "disputed", "reported")


def rules_of(kind: str | GameRules[Any, Any]) -> GameRules[Any, Any]:
    """The rules object of a game given by name (``tonkrules.find_game``) or as itself.

    Raises:
        ValueError: no game of that name.
    """
    if isinstance(kind, GameRules):
        return kind
    try:
        return find_game(kind)
    except RuleError as exc:
        raise ValueError(f"unknown game {kind!r}: {exc}") from exc


def tiebreak_keys(kind: str | GameRules[Any, Any]) -> tuple[str, ...]:
    """The keys of a game's tie-break columns, in the order they are applied (after the
    total): the order of :attr:`StandingRow.tiebreaks`."""
    return tuple(t.key for t in rules_of(kind).tiebreaks)


@dataclass(frozen=True)
class Entry:
    """A registered player: registration and player ids, the name shown, the first round they
    could be seated in (late entry) and the round after which they withdrew (``None``: still
    playing). Withdrawn players stay in the standings, flagged. ``in_play``: where their table
    stands in the round in play (:data:`IN_PLAY`), a fact the caller gives; it is shown on
    their row, never counted."""

    registration_id: int
    player_id: int
    name: str
    from_round: int = 1
    withdrawn_after: int | None = None
    in_play: str = ""

    @property
    def withdrawn(self) -> bool:
        return self.withdrawn_after is not None


class SeatRecord(NamedTuple):
    """One seat's aggregate over the current hands of one game (one table of one round).

    ``points`` is the sum of the seat's score lines (Rook and Bluke points, Tonk stake units),
    ``max_points`` and ``min_points`` its best and worst single hand, ``hands`` the number of
    lines, ``went_out``, ``bids_made`` and ``won`` the number of lines with that flag set.
    ``player_id`` is the seat's player (``None`` for a guest or substitute). A named tuple, not
    a dataclass: :func:`compute_standings` also takes plain tuples in this field order, as the
    seat results query returns them, without building one object per row.
    """

    round: int
    game_id: int
    seat_id: int
    player_id: int | None
    points: int
    max_points: int
    min_points: int
    hands: int
    went_out: int
    bids_made: int
    won: int


class SeatColumns(NamedTuple):
    """The same results as columns: for each field of :class:`SeatRecord` that the computation
    reads, one sequence holding that field of every result, in the same order in every column.
    A column that the tournament's game does not read (:func:`fields_read`) may be ``None``.
    What a query gives most cheaply: five or six of the eleven values of each result, and no
    tuple kept per result."""

    round: Sequence[int]
    game_id: Sequence[int]
    player_id: Sequence[int | None]
    points: Sequence[int]
    max_points: Sequence[int] | None = None
    went_out: Sequence[int] | None = None
    bids_made: Sequence[int] | None = None
    won: Sequence[int] | None = None
    min_points: Sequence[int] | None = None


def fields_read(kind: str | GameRules[Any, Any]) -> tuple[str, ...]:
    """The fields of a :class:`SeatRecord` that the computation reads for a game: the round,
    the table, whose seat it is, the points, and what the game's tie-breaks count
    (``GameRules.tiebreaks``): Rook rounds gone out; Bluke the best hand and bids made; Tonk
    hands won. Raises ``ValueError`` for an unknown game or tie-break source."""
    read = ["round", "game_id", "player_id", "points"]
    for tiebreak in rules_of(kind).tiebreaks:
        if tiebreak.source in TIEBREAK_COUNTS:
            field = tiebreak.source
        elif tiebreak.source == "best_hand":
            field = "max_points" if tiebreak.higher_is_better else "min_points"
        elif tiebreak.source in TIEBREAK_BESTS:
            continue  # the best round: from the points
        else:
            raise ValueError(f"unknown tie-break source {tiebreak.source!r}")
        if field not in read:
            read.append(field)
    return tuple(read)


class RoundScore(NamedTuple):
    """A player's score in one round and whether it is a missed round's score."""

    score: Fraction
    missed: bool


@dataclass(frozen=True)
class StandingRow:
    """One line of the standings.

    ``label`` is the place as shown ("2" or, when shared, "2="); ``rounds`` maps each round
    number, in order, to its :class:`RoundScore` (every round up to ``rounds_complete``, and
    later rounds where the player has results); ``tiebreaks`` holds the values of the game's
    tie-break columns (:func:`tiebreak_keys`), in order, ``None`` for a best round or hand of a
    player without results; ``games`` counts the tables at which the player has results.

    ``ranked`` is False for a player with no score yet (no round complete and no result
    entered: their table has not reported anything, or they sit the first round out): such a
    row has no place (``place`` 0, ``label`` ""), is never ranked on 0 above players who have
    scored, and is listed after the ranked rows. ``in_play`` is the entry's (:data:`IN_PLAY`):
    the row's live mark (not reported, provisional).
    """

    place: int
    shared: bool
    label: str
    registration_id: int
    name: str
    withdrawn: bool
    total: Fraction
    rounds: dict[int, RoundScore]
    tiebreaks: tuple[int | None, ...]
    games: int
    ranked: bool = True
    in_play: str = ""

    @property
    def provisional(self) -> bool:
        """Whether the row counts a round in play whose table has hands not yet confirmed."""
        return self.in_play == "provisional"

    @property
    def disputed(self) -> bool:
        """Whether the row's table in the round in play has a disputed hand that does not
        count (it waits for a director)."""
        return self.in_play == "disputed"

    @property
    def not_reported(self) -> bool:
        """Whether the player's table in the round in play has reported nothing yet."""
        return self.in_play == "not_reported"


def place_label(place: int, *, shared: bool) -> str:
    """The place as shown: ``"2"``, or ``"2="`` when shared with another player."""
    return f"{place}=" if shared else str(place)
