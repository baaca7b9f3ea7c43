"""The standings computation: placement points, missed rounds, totals, tie-breaks and places,
in exact arithmetic over numpy ``int64`` matrices. Pure; the words are defined in
:mod:`tournaments.standings`, the shapes in :mod:`tournaments.standings.shapes`."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from itertools import repeat
from typing import Any, NamedTuple, cast

import numpy as np

from tonkrules.games import TIEBREAK_COUNTS, GameRules, TieBreak
from tonkrules.names import name_key
from tournaments.standings.shapes import (
    BASES,
    MISSED_SCORES,
    Entry,
    RoundScore,
    SeatColumns,
    SeatRecord,
    StandingRow,
    fields_read,
    rules_of,
)

#: Placement points are added as int64 numerators over one denominator: the least common
#: multiple of 2 (n - 1) over the table sizes n, far below this for tables of 2 to 20 seats.
MAX_DENOMINATOR = 2**40


def placement_points(scores: Sequence[int], *, lower_wins: bool) -> list[Fraction]:
    """The placement points of each seat at one table, from the seats' round scores.

    Place ``p`` of ``n`` earns ``(n - p) / (n - 1)``; tied seats split the points of the places
    they span; ``lower_wins``: the lowest score takes place 1 (Rook). One seat alone: 1/2.
    Returns the points in the order of ``scores``. The plain-Python statement of the rule that
    :func:`compute_standings` applies to every table at once. ``ValueError`` for no scores.
    """
    n = len(scores)
    if n == 0:
        raise ValueError("a table needs at least one score")
    if n == 1:
        return [Fraction(1, 2)]
    order = sorted(range(n), key=scores.__getitem__, reverse=not lower_wins)
    out = [Fraction(0)] * n
    ahead = 0  # seats placed before the current group of tied seats
    while ahead < n:
        tied = 1
        while ahead + tied < n and scores[order[ahead + tied]] == scores[order[ahead]]:
            tied += 1
        places = range(ahead + 1, ahead + tied + 1)
        share = sum((Fraction(n - p, n - 1) for p in places), Fraction(0)) / tied
        for j in range(ahead, ahead + tied):
            out[order[j]] = share
        ahead += tied
    return out


def _check(rules: GameRules[Any, Any], basis: str, missed: str, rounds_complete: int) -> None:
    if basis not in BASES:
        raise ValueError(f"unknown standings basis {basis!r}: expected one of {', '.join(BASES)}")
    if missed not in MISSED_SCORES:
        raise ValueError(
            f"unknown missed round score {missed!r}: expected one of {', '.join(MISSED_SCORES)}"
        )
    if rules.lower_wins and basis == "total" and missed == "zero":
        raise ValueError(
            f"missed round score 'zero' is refused for {rules.title} totals (lowest wins)"
        )
    if rounds_complete < 0:
        raise ValueError(f"rounds_complete must be 0 or more, not {rounds_complete}")


class _Columns(NamedTuple):
    """The results as numpy columns (one element per result), what the game reads."""

    round: np.ndarray
    game: np.ndarray
    who: np.ndarray  # index into the entries, -1 for a seat that counts for nobody
    points: np.ndarray
    #: The other columns read (:func:`fields_read`): the tie-breaks' counts and best hands.
    extra: dict[str, np.ndarray]


def _columns(
    results: Iterable[SeatRecord] | SeatColumns, index: dict[int, int], rules: GameRules[Any, Any]
) -> _Columns:
    read = fields_read(rules)
    kind = rules.name
    if isinstance(results, SeatColumns):
        given = results._asdict()
        missing = [name for name in read if given[name] is None]
        if missing:
            raise ValueError(f"the results lack the columns {missing} that {kind} reads")
        n = len(results.round)
        if any(len(given[name]) != n for name in read):
            raise ValueError("the columns of the results differ in length")
    else:
        rows = results if isinstance(results, list | tuple) else list(results)
        n = len(rows)
        every = list(zip(*rows, strict=True)) if n else [()] * len(SeatRecord._fields)
        given = {name: every[SeatRecord._fields.index(name)] for name in read}

    def ints(values: Iterable[int]) -> np.ndarray:
        return np.fromiter(values, dtype=np.int64, count=n)

    return _Columns(
        round=ints(given["round"]),
        game=ints(given["game_id"]),
        who=ints(map(index.get, given["player_id"], repeat(-1))),
        points=ints(given["points"]),
        extra={name: ints(given[name]) for name in read[4:]},
    )


def _placement_numerators(
    game: np.ndarray, points: np.ndarray, *, lower_wins: bool
) -> tuple[np.ndarray, int]:
    """Every seat's placement points at its table, as numerators over one denominator.

    ``game`` and ``points``: one element per seat. Returns (numerators in the seats' order,
    denominator): the denominator is the least common multiple of ``2 (n - 1)`` over the table
    sizes ``n`` (and 2), so that a group of ``t`` seats tied after ``k`` better ones, which
    shares ``(2n - 2k - t - 1) / (2 (n - 1))``, is an integer numerator for every table.
    """
    count = len(game)
    if count == 0:
        return np.zeros(0, dtype=np.int64), 2
    order = np.lexsort((points if lower_wins else -points, game))
    g, p = game[order], points[order]
    new_table = np.ones(count, dtype=bool)
    new_table[1:] = g[1:] != g[:-1]
    new_group = new_table.copy()
    new_group[1:] |= p[1:] != p[:-1]

    def sizes(starts: np.ndarray) -> np.ndarray:
        """The size of the run each position is in, runs beginning where ``starts``."""
        first = np.flatnonzero(starts)
        length = np.diff(np.append(first, count))
        return np.repeat(length, length)

    position = np.arange(count)
    n = sizes(new_table)
    tied = sizes(new_group)
    ahead = np.maximum.accumulate(np.where(new_group, position, 0)) - np.maximum.accumulate(
        np.where(new_table, position, 0)
    )
    den = math.lcm(2, *(2 * (int(size) - 1) for size in np.unique(n) if size > 1))
    if den > MAX_DENOMINATOR:
        raise ValueError(f"table sizes {sorted(set(n.tolist()))}: too many to add up exactly")
    unit = den // (2 * np.maximum(n - 1, 1))
    nums = np.where(n > 1, (2 * n - 2 * ahead - tied - 1) * unit, den // 2)
    out = np.empty(count, dtype=np.int64)
    out[order] = nums
    return out, den


def compute_standings(
    *,
    kind: str | GameRules[Any, Any],
    basis: str,
    missed: str,
    entries: Sequence[Entry],
    results: Iterable[SeatRecord] | SeatColumns,
    rounds_complete: int,
    name_order: Callable[[str], Any] = name_key,
) -> list[StandingRow]:
    """The standings of a tournament: one row per registered player, best first.

    ``kind``: the game's rules object (``tonkrules.GameRules``: who wins, the tie-breaks) or
    its registered name (``"rook"``); ``basis``: ``"total"`` or ``"placement"``;
    ``missed``: ``"average"``, ``"zero"`` or ``"worst"`` (the rules: see the module's
    docstring). ``entries``: every registration of the tournament, withdrawn ones included.
    ``results``: one :class:`SeatRecord` (or plain tuple in its field order) per (round, game,
    seat) with current hands, for every game of the tournament, substitutes' and guests' seats
    included (they take places at their tables); in any order; or the same results as
    :class:`SeatColumns` (only the columns of :func:`fields_read` are read). ``rounds_complete``:
    rounds 1 to this one are complete and give missed rounds. ``name_order``: the sort key of
    names, which orders players tied on the total and every tie-break (the callers pass the
    collation of the tournament's language, ``ops.collation.sort_key``; by default
    ``name_key``).

    A player with results at more than one table in a round (not possible with valid seating)
    scores their sum. Raises ``ValueError`` for an unknown kind, basis or missed round score,
    for ``zero`` with totals where the lowest wins (Rook: a missed round would be an
    advantage), for a negative
    ``rounds_complete``, a round number below 1, a player registered twice, columns missing
    or of different lengths, and (placement) table sizes so varied that the common denominator
    passes ``MAX_DENOMINATOR``.
    """
    rules = rules_of(kind)
    _check(rules, basis, missed, rounds_complete)
    index = {entry.player_id: i for i, entry in enumerate(entries)}
    if len(index) != len(entries):
        raise ValueError("a player is registered twice")
    cols = _columns(results, index, rules)
    if len(cols.round) and int(cols.round.min()) < 1:
        raise ValueError(f"round numbers start at 1, not {int(cols.round.min())}")
    count = len(entries)
    if count == 0:
        return []
    last = max(rounds_complete, int(cols.round.max()) if len(cols.round) else 0)
    lower_wins = rules.lower_wins and basis == "total"  # the order of round scores and totals

    # Players x rounds (column 0 unused): points, seats played, round scores (numerators).
    mine = cols.who >= 0
    who, rnd = cols.who[mine], cols.round[mine]
    points = np.zeros((count, last + 1), dtype=np.int64)
    np.add.at(points, (who, rnd), cols.points[mine])
    seats = np.zeros((count, last + 1), dtype=np.int64)
    np.add.at(seats, (who, rnd), 1)
    played = seats > 0
    if basis == "placement":
        nums, den = _placement_numerators(cols.game, cols.points, lower_wins=rules.lower_wins)
        scores = np.zeros((count, last + 1), dtype=np.int64)
        np.add.at(scores, (who, rnd), nums[mine])
    else:
        scores, den = points, 1

    # Every cell is shared: one per distinct round score, one per missed round.
    missed_cells = [
        RoundScore(value, True)
        for value in _missed_scores(scores, played, missed, lower_wins, den, rounds_complete)
    ]
    played_cells = {
        num: RoundScore(Fraction(num, den), False) for num in np.unique(scores[played]).tolist()
    }
    missed_totals = _missed_totals(played, missed_cells, rounds_complete)

    # The tie-breaks, in the order the game declares them: counts and best rounds or hands.
    games = seats.sum(axis=1).tolist()
    columns: list[list[int | None]] = []
    for tiebreak in rules.tiebreaks:
        columns.append(_tiebreak(tiebreak, cols, who, mine, points, played, count, games))
    tiebreaks: list[tuple[int | None, ...]] = (
        list(zip(*columns, strict=True)) if columns else [()] * count
    )

    # Totals (shared when equal), and as integers over their least common denominator: the
    # sort keys, exact and much quicker to compare than fractions.
    played_sums = scores.sum(axis=1).tolist()
    played_totals = {value: Fraction(value, den) for value in set(played_sums)}
    totals = [played_totals[value] for value in played_sums]
    scale = math.lcm(den, *{extra.denominator for extra in missed_totals.values()})
    total_keys = [value * (scale // den) for value in played_sums]
    for i, extra in missed_totals.items():
        if extra:
            totals[i] += extra
            total_keys[i] += extra.numerator * (scale // extra.denominator)
    shown = range(1, last + 1)
    cell = played_cells.__getitem__
    rounds = [
        dict(zip(shown, map(cell, score_row[1:]), strict=True))
        if all(played_row[1:])
        else {
            r: cell(score_row[r]) if played_row[r] else missed_cells[r - 1]
            for r in shown
            if played_row[r] or r <= rounds_complete
        }
        for score_row, played_row in zip(scores.tolist(), played.tolist(), strict=True)
    ]
    return _ranked(
        entries,
        totals,
        total_keys,
        rounds,
        tiebreaks,
        games,
        lower_wins=lower_wins,
        higher_better=tuple(t.higher_is_better for t in rules.tiebreaks),
        name_order=name_order,
    )


def _tiebreak(
    tiebreak: TieBreak,
    cols: _Columns,
    who: np.ndarray,
    mine: np.ndarray,
    points: np.ndarray,
    played: np.ndarray,
    count: int,
    games: list[int],
) -> list[int | None]:
    """One tie-break's value for every entry: a count of flagged hands, or the best round
    (round points at the tables played) or hand (``None`` for a player without results)."""
    if tiebreak.source in TIEBREAK_COUNTS:
        total = np.zeros(count, dtype=np.int64)
        np.add.at(total, who, cols.extra[tiebreak.source][mine])
        values: list[int] = total.tolist()
        return list(values)
    low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    up = tiebreak.higher_is_better
    if tiebreak.source == "best_hand":
        column = cols.extra["max_points" if up else "min_points"]
        best = np.full(count, low if up else high)
        (np.maximum if up else np.minimum).at(best, who, column[mine])
    elif up:
        best = np.where(played, points, low).max(axis=1)
    else:
        best = np.where(played, points, high).min(axis=1)
    return [b if g else None for b, g in zip(best.tolist(), games, strict=True)]


def _missed_scores(
    scores: np.ndarray,
    played: np.ndarray,
    missed: str,
    lower_wins: bool,
    den: int,
    rounds_complete: int,
) -> list[Fraction]:
    """The score of a missed round, for each round 1..``rounds_complete``, from the round
    scores (numerators over ``den``) of the registered players who played it."""
    if missed == "zero":
        return [Fraction(0)] * rounds_complete
    complete = slice(1, rounds_complete + 1)
    s, p = scores[:, complete], played[:, complete]
    counts = p.sum(axis=0).tolist()
    if missed == "average":
        values = np.where(p, s, 0).sum(axis=0).tolist()
        return [
            Fraction(v, c * den) if c else Fraction(0) for v, c in zip(values, counts, strict=True)
        ]
    if lower_wins:
        values = np.where(p, s, np.iinfo(np.int64).min).max(axis=0).tolist()
    else:
        values = np.where(p, s, np.iinfo(np.int64).max).min(axis=0).tolist()
    return [Fraction(v, den) if c else Fraction(0) for v, c in zip(values, counts, strict=True)]


def _missed_totals(
    played: np.ndarray, missed_cells: list[RoundScore], rounds_complete: int
) -> dict[int, Fraction]:
    """The sum of the missed-round scores of each player who missed a round (by index).
    Computed once per pattern of absences: the patterns are few, fraction additions slow."""
    absent = ~played[:, 1 : rounds_complete + 1]
    missing = np.flatnonzero(absent.any(axis=1))
    by_pattern: dict[bytes, Fraction] = {}
    out = {}
    for i, pattern in zip(missing.tolist(), absent[missing], strict=True):
        key = pattern.tobytes()
        total = by_pattern.get(key)
        if total is None:
            rounds = np.flatnonzero(pattern).tolist()  # round r is at r - 1
            total = by_pattern[key] = sum((missed_cells[r].score for r in rounds), Fraction(0))
        out[i] = total
    return out


def _ranked(
    entries: Sequence[Entry],
    totals: list[Fraction],
    total_keys: list[int],
    rounds: list[dict[int, RoundScore]],
    tiebreaks: list[tuple[int | None, ...]],
    games: list[int],
    *,
    lower_wins: bool,
    higher_better: tuple[bool, ...],
    name_order: Callable[[str], Any] = name_key,
) -> list[StandingRow]:
    """The rows, ranked: by total (``lower_wins``: lowest first), then each tie-break in turn
    (``higher_better[i]``: the direction of tie-break ``i``; ``None`` last); players equal on
    the total and every tie-break share a place and are listed by name
    (``name_order``, then registration id).
    Players with no score yet (no round and no result) are not ranked: listed last, by name,
    with no place (issue 12: never "2=" on 0 above players who have scored).

    The arguments are parallel lists, one element per entry; ``total_keys`` holds the totals as
    integers over one common denominator (the same order as the fractions, compared quicker).
    """
    sign = 1 if lower_wins else -1
    signs = [-1 if up else 1 for up in higher_better]
    # Whether unranked (no score yet: listed last, no place), the total, then (is None,
    # value) per tie-break.
    decided = 2 + 2 * len(signs)

    def breaks(values: tuple[int | None, ...]) -> tuple[object, ...]:
        out: list[object] = []
        for value, s in zip(values, signs, strict=True):
            out += (value is None, 0 if value is None else s * value)
        return tuple(out)

    ranked = sorted(
        (
            not rounds[j] and not games[j],
            sign * total_key,
            *breaks(values),
            name_order(entry.name),
            entry.registration_id,
            j,
        )
        for j, (entry, total_key, values) in enumerate(
            zip(entries, total_keys, tiebreaks, strict=True)
        )
    )
    if not ranked:
        return []
    levels = [key[:decided] for key in ranked]  # what decides the place
    level_before = [False, *map(operator.eq, levels[1:], levels)]
    level_after = [*level_before[1:], False]
    out = []
    place = 0
    for position, (key, before, after) in enumerate(
        zip(ranked, level_before, level_after, strict=True), start=1
    ):
        if not before:
            place = position
        j = cast(int, key[-1])  # the entry's index closes every sort key
        entry = entries[j]
        if key[0]:  # no score yet: no place
            out.append(
                StandingRow(
                    0,
                    False,
                    "",
                    entry.registration_id,
                    entry.name,
                    entry.withdrawn_after is not None,
                    totals[j],
                    rounds[j],
                    tiebreaks[j],
                    games[j],
                    False,
                    entry.in_play,
                )
            )
            continue
        shared = before or after
        out.append(
            StandingRow(
                place,
                shared,
                f"{place}=" if shared else str(place),
                entry.registration_id,
                entry.name,
                entry.withdrawn_after is not None,
                totals[j],
                rounds[j],
                tiebreaks[j],
                games[j],
                True,
                entry.in_play,
            )
        )
    return out
