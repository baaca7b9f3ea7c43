"""Hands as an API client sends them: the hand object with the number it says it is
(``POST /api/v1/games/{id}/hands/``'s ``number``, issue 24: one hand, once)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def numbered(hand: Mapping[str, Any], number: int = 1) -> dict[str, Any]:
    """``hand`` as the body of a new hand that says it is hand ``number`` of its game."""
    return {**hand, "number": number}


def next_number(game: Any) -> int:
    """The number the next hand of ``game`` (a ``Game`` or its id) takes, read now: what a
    phone showing the game's sheet as it stands would send."""
    from scoring.models import Game

    game_id = game if isinstance(game, int) else game.pk
    return int(Game.objects.values_list("last_number", flat=True).get(pk=game_id)) + 1
