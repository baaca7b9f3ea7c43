"""One adapter per game (:mod:`scoring.games.base`), registered here in the order the pages
list the games: Tonk, Toonerville Rook, Bluke."""

from scoring.games.base import (
    GameAdapter,
    TiebreakColumn,
    adapter_for,
    all_adapters,
    choices,
    label_of,
    names,
    register,
    unregister,
)
from scoring.games.bluke import BlukeAdapter
from scoring.games.rook import RookAdapter
from scoring.games.tonk import TonkAdapter

for _adapter in (TonkAdapter(), RookAdapter(), BlukeAdapter()):
    register(_adapter)

__all__ = [
    "GameAdapter",
    "TiebreakColumn",
    "adapter_for",
    "all_adapters",
    "choices",
    "label_of",
    "names",
    "register",
    "unregister",
]
