"""The ``swiss`` method, one round at a time, king of the hill: the players in standings order
fill the tables from the top, the tables are numbered from the top of the standings, and the
shared search (:mod:`tournaments.seating.search`) then avoids repeats at a cost of ``d ** 2``
for a player moved ``d`` tables from the seat the standings gave. Pure."""

from __future__ import annotations

import numpy as np

from tournaments.seating.common import Player, Split
from tournaments.seating.search import _first_seating


def first_seating(
    split: Split,
    faced: np.ndarray,
    active: tuple[Player, ...],
    rank: dict[Player, int],
    values: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first seating of a swiss round.

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
    tab = _first_seating(split, faced, order, order)
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
    """The cost ``(1, n, tables)`` of seating each player at each table: the square of the
    number of tables from their home table."""
    moved = np.arange(tables)[None, :] - home[:, None]
    cost: np.ndarray = (moved.astype(np.float64) ** 2)[None]
    return cost
