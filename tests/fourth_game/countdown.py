"""Countdown, the test-only fifth game: a game with a schedule where the lowest total wins.

Five numbered hands; hand ``h`` deals ``6 - h`` cards to each player (5, 4, 3, 2, 1); each
player reports their points for the hand (0 to 100) and the lowest total wins. A tournament's
rounds continue the hand sequence, hand 1 again after 5 (``schedule_wraps``). Its adapter
declares nothing but its rules, its entry form and its entry partial: the "Next" panel, the
tournament form's help and the table cards come from the base adapter's defaults for a game
with a schedule (issue 11).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.games import GameAdapter
from tests.fourth_game.adapter import TallyEntryForm
from tests.fourth_game.rules import MAX_POINTS
from tonkrules.errors import FormatError, SequenceError
from tonkrules.games import (
    GameRules,
    HandScore,
    Options,
    TableSizes,
    gettext_noop,
    hand_object,
    hand_winners,
    obj,
    player_of,
    players_of,
    require_players,
    text,
    whole_number,
)

#: The hands of a whole game.
HANDS = 5


@dataclass(frozen=True)
class CountdownOptions(Options):
    """Countdown has no house rules."""


@dataclass(frozen=True)
class CountdownHand:
    """One hand: its number in the schedule, who dealt, each player's points in seat order."""

    hand: int
    dealer: str
    points: tuple[tuple[str, int], ...]


class Countdown(GameRules[CountdownOptions, CountdownHand]):
    """Countdown: five numbered hands of 5, 4, 3, 2, 1 cards; lowest total wins."""

    name = "countdown"
    title = gettext_noop("Countdown")
    rules_version = "countdown/1"
    min_players = 2
    max_players = 4
    lower_wins = True
    unit = "points"
    number_key = "hand"
    schedule_length = HANDS
    schedule_wraps = True
    table_sizes = TableSizes(allowed=(2, 3, 4), preferred=3)
    default_hands_per_round = 2
    options_type: ClassVar[type[Options]] = CountdownOptions

    def cards_dealt(self, number: int) -> int | None:
        """Hand ``number`` (1 to 5) deals ``6 - number`` cards to each player."""
        return HANDS + 1 - number

    def read_hand(
        self,
        raw: object,
        *,
        players: Sequence[str],
        options: CountdownOptions,
        previous: int | None = None,
    ) -> CountdownHand:
        hand = hand_object(
            raw, allowed=("hand", "dealer", "points"), required=("hand", "dealer", "points")
        )
        number = whole_number(hand, "hand")
        if not 1 <= number <= HANDS:
            raise SequenceError("out_of_range.hands", params={"last": HANDS, "number": number})
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
        return CountdownHand(number, dealer, tuple((p, int(points[p])) for p in players))

    def score_hand(
        self, hand: CountdownHand, *, players: Sequence[str], options: CountdownOptions
    ) -> HandScore:
        scores = dict(hand.points)
        return HandScore(scores=scores, won=hand_winners(scores, lower_wins=True))

    def hand_to_json(self, hand: CountdownHand) -> dict[str, object]:
        return {"hand": hand.hand, "dealer": hand.dealer, "points": dict(hand.points)}

    def schedule_number(self, hand: CountdownHand) -> int | None:
        return hand.hand


COUNTDOWN = Countdown()


class CountdownEntryForm(TallyEntryForm):
    """A Countdown hand: its number, the dealer and each player's points."""

    kind = "countdown"
    number_field_name = "hand"
    hand = forms.IntegerField(label=_("Hand"), min_value=1, max_value=HANDS)

    def entry(self) -> dict[str, object]:
        return {"hand": self.cleaned_data["hand"], **super().entry()}

    @classmethod
    def initial_from(cls, entry: Mapping[str, Any], names: Sequence[str]) -> dict[str, object]:
        return {"hand": entry.get("hand"), **super().initial_from(entry, names)}


class CountdownAdapter(GameAdapter):
    """Countdown: only its rules, entry form and entry partial (Tally's); every text and
    partial of a game with a schedule comes from the base."""

    rules = COUNTDOWN
    entry_form = CountdownEntryForm
    template_dir = "fourth_game"


COUNTDOWN_ADAPTER = CountdownAdapter()
