"""Tabletally's rules engine: Tonk, Toonerville Rook and Bluke, exactly as ``shared/rules/``.

Standard library only: no Django, no database, no I/O. Cards and notation are in
:mod:`tonkrules.cards`, melds in :mod:`tonkrules.melds`, each game in its own module, and the
score-sheet format in :mod:`tonkrules.sheet`.

    >>> from tonkrules import find_game
    >>> tonk = find_game("tonk")
    >>> opts = tonk.options({})
    >>> hand = tonk.read_hand({"dealer": "Ben", "end": "knock", "by": "Ana",
    ...                        "held": {"Ana": "AS 2D", "Ben": "KH QH"}},
    ...                       players=["Ana", "Ben"], options=opts)
    >>> dict(tonk.score_hand(hand, players=["Ana", "Ben"], options=opts).scores)
    {'Ana': 1, 'Ben': -1}
"""

from . import bluke, rook, tonk
from .cards import (
    BLUKE_DECK,
    ROOK,
    STANDARD_DECK,
    Bluke,
    Card,
    Colour,
    Rank,
    RookCard,
    RookDeck,
    Suit,
)
from .errors import ErrorCode, RuleError
from .games import (
    GameRules,
    HandScore,
    Options,
    TableSizes,
    TieBreak,
    all_games,
    find_game,
    rank_players,
)

__all__ = [
    "BLUKE_DECK",
    "ROOK",
    "STANDARD_DECK",
    "Bluke",
    "Card",
    "Colour",
    "ErrorCode",
    "GameRules",
    "HandScore",
    "Options",
    "Rank",
    "RookCard",
    "RookDeck",
    "RuleError",
    "Suit",
    "TableSizes",
    "TieBreak",
    "all_games",
    "bluke",
    "find_game",
    "rank_players",
    "rook",
    "tonk",
]
