"""The ``swiss`` method, one round at a time. Pure.

The rule (lexicographic, as a Swiss system forbids rematches):

1. **Fewest repeat meetings.** A round never seats together a pair that has met when the table
   sizes allow a seating of these players in which no such pair sits together; when none
   exists, it seats as few such pairs as possible (each adds one to E).
2. **Then the standings.** Among the seatings with that fewest, the one that follows the
   standings most closely, in the Swiss "pair down" order: the best-ranked player not yet
   seated opens the next table (the largest size still to fill first, where fairness allows),
   and takes as tablemates the best-ranked players still free who add no repeat; when the rest
   of the field cannot then be seated, the search backtracks to the next choice. Formally: the
   tables listed from the top (each by its best-ranked player), each written as
   ``(-size, ranks ascending)``, the whole sequence is the lexicographically smallest.
3. **Look-ahead.** A repeat-free round is chosen, in that order, among those after which the
   next ``later`` rounds can still be seated without a repeat (with the players who will sit
   out then, and the same standings; whether a round can be seated without a repeat does not
   depend on the standings). Both a dry-run plan and a tournament look ahead over all the
   rounds still to play (failing that, over the next one), so 9 players in threes play 4
   rounds and 16 in fours play 5 without a repeat. Rounds that no schedule could seat without
   a repeat (``lower_bound`` > 0) are not looked for. When the exact look-ahead runs out of
   budget in a small, tight field (a design or nearly: Kirkman's schoolgirls), the ``plan``
   method's tabu search looks for the repeat-free continuation (``round._tabu_ahead``); a
   dry-run plan still above LB takes the ``plan`` method's schedule renamed to start from the
   swiss first round (``plan._swiss_from_plan``).
4. **Fairness.** With mixed table sizes the seating keeps the spread of opponents faced after
   the round (max - min over the players seated) at most 2, or no larger than it was.

The search is exact depth-first search with a budget counted in steps (never in time, so the
result is deterministic): the players are bit masks of who each has met. Within the budget
the fewest repeats is proven (``proven=True``). When the budget runs out (large fields late in
a long event) the round falls back to the king-of-the-hill seating repaired by the shared
search (:mod:`tournaments.seating.search`), where a repeat costs far more than any move
(:func:`first_seating`, :func:`displacement`), and the round says its minimum is not proven.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from tournaments.seating.common import (
    SWISS_BUDGET,
    SWISS_LOOKAHEAD_BUDGET,
    SWISS_PRUNE_MAX,
    Player,
    Split,
)
from tournaments.seating.search import greedy_first_seating

#: One seated round in the search: its tables from the top, each a tuple of player indices
#: (index = standings position) in ascending order.
Tables = list[tuple[int, ...]]


class _OutOfBudget(Exception):
    """The search used its steps up."""


@dataclass(frozen=True)
class Round:
    """One round for the search: who plays (a bit mask over the standings positions) and the
    table sizes (largest first)."""

    active: int
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class Found:
    """The answer for one round.

    ``tables`` from the top (standings positions), or None when the search found nothing within
    its budget; ``repeats`` the pairs seated together again; ``proven`` whether no seating has
    fewer; ``at_least`` the fewest repeats any seating can have, as far as the search proved;
    ``ahead`` how many later rounds the search showed can still be seated without a repeat.
    """

    tables: Tables | None
    repeats: int
    proven: bool
    at_least: int
    ahead: int = 0


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Search:
    """Depth-first search over seatings in the order of the rule; ``steps`` the budget."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def _tick(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _OutOfBudget

    def seatings(
        self, met: Sequence[int], faced: Sequence[int], rnd: Round, allowed: int
    ) -> Iterator[tuple[Tables, int]]:
        """Every seating of ``rnd`` with at most ``allowed`` repeats, in the rule's order, with
        its repeats. ``met[i]``: bit mask of who player ``i`` has met; ``faced[i]`` the
        opponents faced so far. Raises :class:`_OutOfBudget`.

        An explicit stack (a field of 2,000 players is 2,000 choices deep): each frame holds
        the state before its choice and the choices left; backtracking pops a frame.
        """
        active = list(_bits(rnd.active))
        fair = len(set(rnd.sizes)) > 1
        values = [faced[i] for i in active]
        limit = max(2, max(values) - min(values)) if values else 0
        prune = allowed == 0 and len(active) <= SWISS_PRUNE_MAX
        kinds = sorted(set(rnd.sizes), reverse=True)
        counts = tuple(rnd.sizes.count(k) for k in kinds)
        # state: (free, tables done, table, mask, options, size, repeats, lo, hi, counts left
        # per size in ``kinds``)
        State = tuple[
            int,
            tuple[tuple[int, ...], ...],
            tuple[int, ...],
            int,
            int,
            int,
            int,
            int,
            int,
            tuple[int, ...],
        ]

        def frame(state: State) -> tuple[State, Iterator[int], bool] | Tables | None:
            """The choices at ``state``: sizes for a new table (True) or tablemates (False);
            the finished seating when everyone is seated; None when nothing can follow."""
            self._tick()
            free, done, table, mask, options, size, repeats, lo, hi, left = state
            if not table:
                if not free:
                    return list(done)
                if prune:  # everyone still free needs enough free players they have not met
                    need = min(k for k, c in zip(kinds, left, strict=True) if c) - 1
                    for u in _bits(free):
                        if (free & ~met[u]).bit_count() - 1 < need:
                            return None
                return state, iter([k for k, c in zip(kinds, left, strict=True) if c]), True
            if repeats == allowed:
                for i in table:
                    options &= ~met[i]
            if options.bit_count() < size - len(table):
                return None
            state = (free, done, table, mask, options, size, repeats, lo, hi, left)
            return state, _bits(options), False

        def apply(state: State, choice: int, opening: bool) -> State | None:
            free, done, table, mask, options, size, repeats, lo, hi, left = state
            if opening:
                top = (free & -free).bit_length() - 1
                at = kinds.index(choice)
                after = faced[top] + choice - 1
                lo, hi = min(lo, after), max(hi, after)
                if fair and hi - lo > limit:
                    return None
                left = (*left[:at], left[at] - 1, *left[at + 1 :])
                bit = 1 << top
                return (free ^ bit, done, (top,), bit, free ^ bit, choice, repeats, lo, hi, left)
            extra = (met[choice] & mask).bit_count()
            if repeats + extra > allowed:
                return None
            after = faced[choice] + size - 1
            lo, hi = min(lo, after), max(hi, after)
            if fair and hi - lo > limit:
                return None
            bit = 1 << choice
            table = (*table, choice)
            options &= ~((bit << 1) - 1)  # tablemates in ascending order
            if len(table) == size:
                return (free ^ bit, (*done, table), (), 0, 0, 0, repeats + extra, lo, hi, left)
            return (
                free ^ bit,
                done,
                table,
                mask | bit,
                options,
                size,
                repeats + extra,
                lo,
                hi,
                left,
            )

        def run() -> Iterator[tuple[Tables, int]]:
            start: State = (rnd.active, (), (), 0, 0, 0, 0, 1 << 60, -(1 << 60), counts)
            first = frame(start)
            if first is None:
                return
            if isinstance(first, list):
                yield first, 0
                return
            stack = [first]
            while stack:
                state, choices, opening = stack[-1]
                choice = next(choices, None)
                if choice is None:
                    stack.pop()
                    continue
                child = apply(state, choice, opening)
                if child is None:
                    continue
                nxt = frame(child)
                if nxt is None:
                    continue
                if isinstance(nxt, list):
                    yield nxt, child[6]
                    continue
                stack.append(nxt)

        return run()

    def schedule(
        self, met: Sequence[int], faced: Sequence[int], rounds: Sequence[Round]
    ) -> Iterator[list[Tables]]:
        """Every repeat-free schedule of ``rounds`` (in the rule's order, round by round)."""
        if not rounds:
            yield []
            return
        for tables, _ in self.seatings(met, faced, rounds[0], 0):
            met2, faced2 = _after(met, faced, tables)
            for rest in self.schedule(met2, faced2, rounds[1:]):
                yield [tables, *rest]


def _union(met: Sequence[int], table: Sequence[int]) -> int:
    out = 0
    for i in table:
        out |= met[i]
    return out


def _after(met: Sequence[int], faced: Sequence[int], tables: Tables) -> tuple[list[int], list[int]]:
    met2, faced2 = list(met), list(faced)
    for t in tables:
        mask = 0
        for i in t:
            mask |= 1 << i
        for i in t:
            met2[i] |= mask ^ (1 << i)
            faced2[i] += len(t) - 1
    return met2, faced2


def seat_round(
    met: Sequence[int],
    faced: Sequence[int],
    rounds: Sequence[Round],
    *,
    budget: int = SWISS_BUDGET,
    lookahead_budget: int = SWISS_LOOKAHEAD_BUDGET,
) -> Found:
    """Seat ``rounds[0]`` by the rule (module docstring), looking ahead over ``rounds[1:]``.

    Args:
        met: per player (index = standings position, 0 on top), the bit mask of who they have
            met (at least once).
        faced: per player, the opponents faced so far (for fairness).
        rounds: this round, then the later rounds to keep repeat-free where possible: the
            search first asks for all of them, then for the next one only, then for none.
        budget: the search steps for this round alone; ``lookahead_budget`` for the look-ahead.

    Returns:
        :class:`Found`; ``tables`` is None only when the budget ran out before any seating
        with the fewest repeats the search could prove was found.
    """
    for depth in sorted({len(rounds), min(2, len(rounds))} - {1}, reverse=True):
        # every later round first; failing that (none exists, or out of budget), the next one
        try:
            found = next(_Search(lookahead_budget).schedule(met, faced, rounds[:depth]), None)
        except _OutOfBudget:
            found = None
        if found is not None:
            return Found(found[0], 0, True, 0, depth - 1)
    search = _Search(budget)
    allowed = 0
    try:
        while True:
            first = next(search.seatings(met, faced, rounds[0], allowed), None)
            if first is not None:
                return Found(first[0], first[1], True, allowed)
            allowed += 1
            if allowed > sum(s * (s - 1) // 2 for s in rounds[0].sizes):
                return Found(None, 0, False, 0)  # fairness leaves no seating at all
    except _OutOfBudget:
        return Found(None, 0, False, allowed)


def plan_schedule(
    met: Sequence[int], faced: Sequence[int], rounds: Sequence[Round], budget: int
) -> list[Tables] | None:
    """The first repeat-free schedule of all ``rounds`` in the rule's order, or None (none
    exists, or the budget ran out first)."""
    try:
        return next(_Search(budget).schedule(met, faced, rounds), None)
    except _OutOfBudget:
        return None


def first_seating(
    split: Split,
    faced: np.ndarray,
    active: tuple[Player, ...],
    rank: dict[Player, int],
    values: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fallback's first seating: king of the hill (the players in standings order fill
    the tables from the top).

    Args:
        split: the round's table sizes (largest first).
        faced: the opponents each of ``active`` has faced so far (by position).
        active: the players seated this round.
        rank: each player's standings position (0 = top).
        values: per table (largest first), the opponents a seat there faces (size - 1).

    Returns:
        The table of each of ``active``, tables numbered from the top of the standings (by
        their best-ranked player); ``values`` in that table order; and each player's home
        table (the one the standings gave), from which a move is costed.
    """
    tables = len(split.tables)
    order = np.array([rank[p] for p in active], dtype=np.int64)
    tab = greedy_first_seating(split, faced, order, order)
    # number the tables from the top of the standings: by their best-ranked player
    top = np.full(tables, np.iinfo(np.int64).max)
    np.minimum.at(top, tab, order)
    table_order = np.argsort(top, kind="stable")
    position = np.empty(tables, dtype=np.int64)
    position[table_order] = np.arange(tables)
    tab = position[tab]
    values = values[table_order]
    home = tab.copy()
    return tab, values, home


def displacement(home: np.ndarray, tables: int) -> np.ndarray:
    """The fallback's cost ``(1, n, tables)`` of seating each player at each table: the square
    of the number of tables from their home table."""
    moved = np.arange(tables)[None, :] - home[:, None]
    cost: np.ndarray = (moved.astype(np.float64) ** 2)[None]
    return cost
