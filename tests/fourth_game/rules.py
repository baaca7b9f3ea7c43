"""Tally, the test-only fourth game: its rules object (no Django).

Each player reports a number of points for the hand (0 to 100); the hand scores them as
reported; the highest total wins. 2 to 4 players; tie-breaks: hands won (more is better), then
best round (higher is better). It exists to show that a game is added with a rules object, an
adapter and a template partial, and nothing else (issue 11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tonkrules.errors import FormatError
from tonkrules.games import (
    GameRules,
    HandScore,
    Options,
    TableSizes,
    TieBreak,
    gettext_noop,
    hand_object,
    hand_winners,
    obj,
    player_of,
    players_of,
    require_players,
    text,
)
from tonkrules.messages import Template

MAX_POINTS = 100

#: The game's own error sentences, declared beside the engine's while the game is registered
#: (``tonkrules.messages.declare``; the fixture does it): pages and the API translate them
#: through gettext like the engine's.
TALLY_MESSAGES: dict[str, Template] = {
    "tally_points.whole": "the points of %(player)s must be a whole number",
    "tally_points.range": "the points of %(player)s must be 0 to %(max)s, not %(value)s",
}


@dataclass(frozen=True)
class TallyOptions(Options):
    """Tally has no house rules."""


@dataclass(frozen=True)
class TallyHand:
    """One hand: who dealt, and each player's points in seat order."""

    dealer: str
    points: tuple[tuple[str, int], ...]


class Tally(GameRules[TallyOptions, TallyHand]):
    """Tally: each player reports their points; highest total wins."""

    name = "tally"
    title = gettext_noop("Tally")
    rules_version = "tally/1"
    min_players = 2
    max_players = 4
    lower_wins = False
    unit = "points"
    number_key = None
    tiebreaks = (
        TieBreak(
            "hands_won",
            gettext_noop("Hands won"),
            gettext_noop("Hands the player won; more is better."),
            higher_is_better=True,
            source="won",
        ),
        TieBreak(
            "best_round",
            gettext_noop("Best round"),
            gettext_noop("The player's highest points in a single round; higher is better."),
            higher_is_better=True,
            source="best_round",
        ),
    )
    table_sizes = TableSizes(allowed=(2, 3, 4), preferred=2)
    default_hands_per_round = 2
    options_type: ClassVar[type[Options]] = TallyOptions

    def read_hand(
        self,
        raw: object,
        *,
        players: Sequence[str],
        options: TallyOptions,
        previous: int | None = None,
    ) -> TallyHand:
        hand = hand_object(raw, allowed=("dealer", "points"), required=("dealer", "points"))
        dealer = player_of(text(hand, "dealer"), players, role="dealer")
        points = obj(hand, "points")
        players_of(points, players, key="points")
        require_players(points, players, key="points")
        for player in players:
            value = points[player]
            if isinstance(value, bool) or not isinstance(value, int):
                raise FormatError("tally_points.whole", player=player)
            if not 0 <= value <= MAX_POINTS:
                raise FormatError(
                    "tally_points.range", player=player, params={"max": MAX_POINTS, "value": value}
                )
        return TallyHand(dealer, tuple((p, int(points[p])) for p in players))

    def score_hand(
        self, hand: TallyHand, *, players: Sequence[str], options: TallyOptions
    ) -> HandScore:
        scores = dict(hand.points)
        return HandScore(scores=scores, won=hand_winners(scores, lower_wins=False))

    def hand_to_json(self, hand: TallyHand) -> dict[str, object]:
        return {"dealer": hand.dealer, "points": dict(hand.points)}


TALLY = Tally()
