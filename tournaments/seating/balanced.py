"""The ``balanced`` method (the default), one round at a time: the players who have faced the
most opponents take the smaller tables, then the shared search (:mod:`tournaments.seating.search`)
swaps players between tables to minimise the cost of the pairs seated together; fields of up to
``LOOKAHEAD_MAX`` players compare a few equally good rounds by how well the next round can be
seated. Pure."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.random import Generator

from tournaments.seating.common import LOOKAHEAD_CANDIDATES, Split
from tournaments.seating.search import greedy_first_seating

#: ``search(start, base, faced, effort=1)``: the best seating found from ``start`` and its cost
#: above the floor (the one-round search of :mod:`tournaments.seating.round`).
Search = Callable[..., tuple[np.ndarray, float]]


def first_seating(split: Split, faced: np.ndarray, priority: np.ndarray) -> np.ndarray:
    """The first seating of a balanced round: the players who have faced the fewest opponents
    take the seats facing the most, ties (and the order within a size) by ``priority``."""
    return greedy_first_seating(split, faced, priority)


def best_of_candidates(
    split: Split,
    faced: np.ndarray,
    local: np.ndarray,
    faced_local: np.ndarray,
    values: np.ndarray,
    best: np.ndarray,
    cost: float,
    search: Search,
    rng: Generator,
) -> np.ndarray:
    """The lookahead of small fields: ``best`` (of cost ``cost``) and a few seatings searched
    from other starts; among the equally good, the one whose next round can be seated with
    the fewest repeats.

    Args:
        split: the round's table sizes; ``faced`` the opponents faced so far (by position).
        local: the meetings among the players seated (dense); ``faced_local`` their opponents.
        values: per table, the opponents a seat there faces.
        search: the one-round search.
        rng: the round's random generator (its draws are part of the seeded result).
    """
    n = faced.size
    tables = len(split.tables)

    # Small fields: among a few equally good seatings (each searched from its own start), keep
    # the one whose next round can be seated with the fewest repeats.
    def tables_of(tab: np.ndarray) -> frozenset[frozenset[int]]:
        return frozenset(frozenset(np.flatnonzero(tab == t).tolist()) for t in range(tables))

    candidates, seen = [best], {tables_of(best)}
    for _ in range(LOOKAHEAD_CANDIDATES - 1):
        start = greedy_first_seating(split, faced, rng.permutation(n))
        other, other_cost = search(start, local, faced_local)
        if other_cost < cost - 1e-9:
            candidates, cost, seen = [other], other_cost, {tables_of(other)}
        elif other_cost <= cost + 1e-9 and tables_of(other) not in seen:
            candidates.append(other)
            seen.add(tables_of(other))
    if len(candidates) == 1:
        return candidates[0]
    scores = []
    for cand in candidates:  # a quicker search of the next round is enough to compare them
        after = local + ((cand[:, None] == cand[None, :]) & ~np.eye(n, dtype=bool))
        faced_after = faced_local + values[cand]
        start = greedy_first_seating(split, faced_after, rng.permutation(n))
        scores.append(search(start, after, faced_after, effort=2)[1])
    return candidates[int(np.argmin(scores))]
