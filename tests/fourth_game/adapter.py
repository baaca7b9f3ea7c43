"""Tally on the Django side: its entry form and its adapter (the test-only fourth game)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.entry import EntryForm
from scoring.games import GameAdapter
from tests.fourth_game.rules import MAX_POINTS, TALLY


class TallyEntryForm(EntryForm):
    """A Tally hand: the dealer and each player's points."""

    kind = "tally"
    seat_fields: ClassVar[tuple[str, ...]] = ("points",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for i, name in enumerate(self.names):
            self.fields[f"points_{i}"] = forms.IntegerField(
                label=_("%(name)s scored") % {"name": name}, min_value=0, max_value=MAX_POINTS
            )

    def entry(self) -> dict[str, object]:
        data = self.cleaned_data
        return {
            "dealer": self.name(data["dealer"]),
            "points": {name: data[f"points_{i}"] for i, name in enumerate(self.names)},
        }

    @classmethod
    def initial_from(cls, entry: Mapping[str, Any], names: Sequence[str]) -> dict[str, object]:
        points = entry.get("points") or {}
        initial: dict[str, object] = {
            "dealer": names.index(entry["dealer"]) if entry.get("dealer") in names else 0
        }
        for i, name in enumerate(names):
            initial[f"points_{i}"] = points.get(name)
        return initial

    def player_fields(self, index: int) -> list[str]:
        return [f"points_{index}"]


class TallyAdapter(GameAdapter):
    """Tally: no cards, no schedule; the entry partial lists each seat's points."""

    rules = TALLY
    entry_form = TallyEntryForm
    template_dir = "fourth_game"
    description = _("A test game: each player reports their points, and the highest total wins.")

    def hand_summary(self, entry: Mapping[str, Any]) -> str:
        points = entry.get("points") or {}
        return f"{max(points.values())} top" if points else ""


TALLY_ADAPTER = TallyAdapter()
