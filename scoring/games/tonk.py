"""Tonk on the Django side (rules/tonk.md): its entry form and its adapter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.entry import (
    CardGrid,
    CardsField,
    EntryForm,
    card_input,
    cards_area,
    cards_lines,
    cards_of,
    cards_text,
    groups_of,
)
from scoring.games.base import (
    CARDS_SCHEMA,
    PLAYER_SCHEMA,
    GameAdapter,
    by_player,
    hand_shape,
)
from tonkrules.errors import ErrorCode
from tonkrules.tonk import ENDS_WITH_BY, TONK, TonkEnd

# --- the entry form --------------------------------------------------------------------------


TONK_ENDS = (
    (TonkEnd.KNOCK.value, _("Knock (drop)")),
    (TonkEnd.TONK_OUT.value, _("Tonk out")),
    (TonkEnd.OUT_ON_DISCARD.value, _("Out on a discard")),
    (TonkEnd.STOCK_OUT.value, _("Stock ran out")),
    (TonkEnd.DEAL_TONK.value, _("Tonk at the deal")),
    (TonkEnd.DEAL_TONK_TIE.value, _("Tie at the deal")),
)


class TonkEntryForm(EntryForm):
    """A Tonk hand (rules/tonk.md): how it ended and by whom, the cards each player held, the
    spreads on the table (optional)."""

    kind = "tonk"
    seat_fields = ("held",)
    end = forms.ChoiceField(
        label=_("How the hand ended"), choices=TONK_ENDS, widget=forms.RadioSelect
    )
    by = forms.TypedChoiceField(label=_("By"), coerce=int, required=False, empty_value=None)
    spreads = CardsField(
        label=_("Spreads on the table"),
        required=False,
        widget=cards_area(2),
        help_text=_("Optional. One spread per line."),
    )
    new_spread = forms.BooleanField(
        label=_("The going-out turn laid down a new spread"), required=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        by = cast(forms.ChoiceField, self.fields["by"])
        by.choices = [("", "—"), *((i, n) for i, n in enumerate(self.names))]
        for i, name in enumerate(self.names):
            self.fields[f"held_{i}"] = CardsField(
                label=_("Cards %(name)s held") % {"name": name},
                required=False,
                max_length=400,
                widget=card_input(),
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        end = data.get("end")
        if end in ENDS_WITH_BY and data.get("by") is None:
            self.add_error("by", _("Say who it was."))
        if end in (TonkEnd.KNOCK, TonkEnd.STOCK_OUT):
            for i, name in enumerate(self.names):
                if not cards_of(data.get(f"held_{i}", "")):
                    self.add_error(
                        f"held_{i}", _("Enter the cards %(name)s held.") % {"name": name}
                    )
        if end == TonkEnd.DEAL_TONK and data.get("by") is not None:
            by = data["by"]
            if not cards_of(data.get(f"held_{by}", "")):
                self.add_error(
                    f"held_{by}",
                    _("Enter the five cards %(name)s was dealt.") % {"name": self.names[by]},
                )
        return data

    def entry(self) -> dict[str, object]:
        data = self.cleaned_data
        end = data["end"]
        hand: dict[str, object] = {"dealer": self.name(data["dealer"]), "end": end}
        by = data.get("by")
        if end in ENDS_WITH_BY:
            hand["by"] = self.name(cast(int, by))  # clean() requires "by" for these ends
        held: dict[str, object] = {}
        for i, name in enumerate(self.names):
            cards = cards_of(data.get(f"held_{i}", ""))
            if end in (TonkEnd.TONK_OUT, TonkEnd.OUT_ON_DISCARD) and i == by and not cards:
                continue
            if cards or end in (TonkEnd.KNOCK, TonkEnd.STOCK_OUT):
                held[name] = cards
        hand["held"] = held
        spreads = groups_of(data.get("spreads", ""))
        if spreads:
            hand["spreads"] = spreads
        if end == TonkEnd.TONK_OUT and (
            data.get("new_spread")
            or getattr(self.game_options, "double_requires_new_spread", False)
        ):
            hand["new_spread"] = bool(data.get("new_spread"))
        return hand

    @classmethod
    def initial_from(cls, entry: Mapping[str, Any], names: Sequence[str]) -> dict[str, object]:
        initial: dict[str, object] = {
            "dealer": names.index(entry["dealer"]) if entry.get("dealer") in names else 0,
            "end": entry.get("end"),
            "by": names.index(entry["by"]) if entry.get("by") in names else "",
            "spreads": cards_lines(entry.get("spreads", [])),
            "new_spread": bool(entry.get("new_spread")),
        }
        held = entry.get("held") or {}
        for i, name in enumerate(names):
            initial[f"held_{i}"] = cards_text(held.get(name, ""))
        return initial

    def player_fields(self, index: int) -> list[str]:
        return [f"held_{index}"]

    def loose_fields(self) -> list[str]:
        return ["spreads"]

    def code_field(self, code: str, index: int | None = None) -> str | None:
        fields: dict[str, str] = {ErrorCode.BAD_MELD: "spreads", ErrorCode.BAD_TOTAL: "end"}
        return fields.get(code)


# --- the adapter -----------------------------------------------------------------------------


class TonkAdapter(GameAdapter):
    """Tonk: played for stakes (settle up), no schedule; a tournament round is a fresh sitting
    of ``hands_per_round`` hands."""

    rules = TONK
    hand_schema = hand_shape(
        {
            "dealer": PLAYER_SCHEMA,
            "end": {"type": "string", "enum": [e.value for e in TonkEnd]},
            "by": PLAYER_SCHEMA,
            "held": by_player(CARDS_SCHEMA),
            "spreads": {"type": "array", "items": CARDS_SCHEMA},
        },
        [
            (
                {"end": {"type": "string", "enum": [TonkEnd.DEAL_TONK.value]}},
                ("dealer", "end", "by", "held"),
            ),
            (
                {"end": {"type": "string", "enum": [TonkEnd.DEAL_TONK_TIE.value]}, "by": None},
                ("dealer", "end", "held"),
            ),
            (
                {
                    "end": {"type": "string", "enum": [TonkEnd.TONK_OUT.value]},
                    "new_spread": {"type": "boolean"},
                },
                ("dealer", "end", "by"),
            ),
            (
                {"end": {"type": "string", "enum": [TonkEnd.OUT_ON_DISCARD.value]}},
                ("dealer", "end", "by"),
            ),
            (
                {"end": {"type": "string", "enum": [TonkEnd.KNOCK.value]}},
                ("dealer", "end", "by", "held"),
            ),
            (
                {"end": {"type": "string", "enum": [TonkEnd.STOCK_OUT.value]}, "by": None},
                ("dealer", "end", "held"),
            ),
        ],
    )
    entry_form = TonkEntryForm
    play_template = "scoring/games/tonk/play.html"
    next_template = "scoring/games/tonk/next.html"
    description = _(
        "A fast knock-rummy game for two to four players, played for stakes: spread books "
        "and runs, knock with the lowest total or tonk out."
    )
    #: A tonk at the deal claimed on a total the rules do not allow (rules/tonk.md, "How a hand
    #: ends, and who pays"; formats/scoresheet.md, `bad_total`).
    error_headlines: ClassVar[Mapping[str, Any]] = {
        ErrorCode.BAD_TOTAL: _("This total does not tonk"),
    }

    #: What each value of a choice option means, keyed by (option, value).
    choice_texts: ClassVar[Mapping[tuple[str, str], Any]] = {
        ("caught_low_bonus", "all_others"): _("everyone outside the lowest group"),
        ("caught_low_bonus", "non_knockers"): _("only the other non-knockers"),
        ("caught_low_bonus", "none"): _("nobody"),
        ("stock_tie", "all_tied_collect"): _("each tied player collects"),
        ("stock_tie", "no_payment"): _("nobody pays"),
    }

    #: The house rules' labels people read; each explanation is the engine's one-line help
    #: (``Options.describe()``), translated where it is shown.
    option_labels: ClassVar[Mapping[str, Any]] = {
        "initial_tonk_totals": _("Totals that win at the deal"),
        "caught_low_bonus": _("Bonus to the lowest hand after a catch"),
        "stock_tie": _("Tie for lowest when the stock runs out"),
        "double_requires_new_spread": _("Double pay only with a new spread"),
        "must_lay_down_spreads": _("Warn about spreads kept in hand"),
        "upcard": _("Turn an upcard after the deal"),
    }

    def grid(self, grid: CardGrid, *, players: int, options: Any) -> None:
        """One standard deck."""
        grid.add_standard_deck()

    def hand_summary(self, entry: Mapping[str, Any]) -> str:
        """How the hand ended, and by whom."""
        end = str(dict(TONK_ENDS).get(entry.get("end", ""), entry.get("end", "")))
        return f"{end}: {entry['by']}" if entry.get("by") else end

    def table_play(
        self, *, round_number: int, game: Any, players: int, options: Any, tournament: Any
    ) -> dict[str, Any]:
        """The hands of the sitting and the stake."""
        return {
            "count": tournament.hands_per_round,
            "stake": tournament.stake,
            "currency": tournament.currency,
        }
