"""Toonerville Rook on the Django side (rules/rook.md): its entry form and its adapter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from django import forms
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from ops import l10n
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
from scoring.messages import words_for
from tonkrules.cards import RookDeck
from tonkrules.errors import ErrorCode
from tonkrules.rook import CONTRACTS, ROOK_GAME, ROUNDS, Contract

# --- the entry form ------------------------------------------------------------------------


NOBODY_OUT = "none"


class RookEntryForm(EntryForm):
    """A Toonerville Rook round (rules/rook.md): who went out (or time called), their melds in
    groups, their discard, the cards the others held."""

    kind = "rook"
    number_field_name = "round"
    seat_fields = ("melds", "held")
    round = forms.IntegerField(label=_("Round"), min_value=1, max_value=ROUNDS)
    out = forms.ChoiceField(label=_("Who went out"), widget=forms.RadioSelect)
    discard = CardsField(
        label=_("Their discard"),
        required=False,
        max_length=12,
        widget=card_input(),
        help_text=l10n.digits_lazy(_("Optional; none in round 11.")),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["out"]).choices = [
            *((str(i), n) for i, n in enumerate(self.names)),
            (NOBODY_OUT, _("Nobody: time called")),
        ]
        for i, name in enumerate(self.names):
            self.fields[f"melds_{i}"] = CardsField(
                label=_("Melds %(name)s laid down") % {"name": name},
                required=False,
                max_length=600,
                widget=cards_area(2),
                help_text=_("One meld per line."),
            )
            self.fields[f"held_{i}"] = CardsField(
                label=_("Cards %(name)s held") % {"name": name},
                required=False,
                max_length=600,
                widget=card_input(),
            )

    def _out(self) -> int | None:
        out = self.cleaned_data.get("out")
        return None if out in (None, NOBODY_OUT) else int(out)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if "out" not in data:
            return data
        out = self._out()
        if out is None and cards_of(data.get("discard", "")):
            self.add_error("discard", _("No discard when time was called: nobody went out."))
        if len(cards_of(data.get("discard", ""))) > 1:
            self.add_error("discard", _("The discard is one card."))
        if out is not None and not groups_of(data.get(f"melds_{out}", "")):
            self.add_error(
                f"melds_{out}",
                _("Enter the melds %(name)s laid down to go out.") % {"name": self.names[out]},
            )
        for i, name in enumerate(self.names):
            if i != out and not cards_of(data.get(f"held_{i}", "")):
                self.add_error(f"held_{i}", _("Enter the cards %(name)s held.") % {"name": name})
        return data

    def entry(self) -> dict[str, object]:
        data = self.cleaned_data
        out = self._out()
        hand: dict[str, object] = {
            "round": data["round"],
            "dealer": self.name(data["dealer"]),
            "out": None if out is None else self.name(out),
        }
        # Every meld typed is sent, time called or not: the engine checks each one (bad_meld
        # beside its field), as it checks an API client's or an imported sheet's.
        melds = {
            name: groups
            for i, name in enumerate(self.names)
            if (groups := groups_of(data.get(f"melds_{i}", "")))
        }
        if out is not None or melds:
            hand["melds"] = melds
        if out is not None:
            discard = cards_of(data.get("discard", ""))
            if discard:
                hand["discard"] = " ".join(discard)
        # Cards typed for the player who went out are sent too: the engine answers not_out
        # (rules/rook.md: the going-out player holds nothing) rather than losing them.
        hand["held"] = {
            name: cards_of(data.get(f"held_{i}", ""))
            for i, name in enumerate(self.names)
            if i != out or cards_of(data.get(f"held_{i}", ""))
        }
        return hand

    @classmethod
    def initial_from(cls, entry: Mapping[str, Any], names: Sequence[str]) -> dict[str, object]:
        out = entry.get("out")
        initial: dict[str, object] = {
            "round": entry.get("round"),
            "dealer": names.index(entry["dealer"]) if entry.get("dealer") in names else 0,
            "out": str(names.index(out)) if out in names else NOBODY_OUT,
            "discard": cards_text(entry.get("discard", "")),
        }
        melds = entry.get("melds") or {}
        held = entry.get("held") or {}
        for i, name in enumerate(names):
            initial[f"melds_{i}"] = cards_lines(melds.get(name, []))
            initial[f"held_{i}"] = cards_text(held.get(name, ""))
        return initial

    def player_fields(self, index: int) -> list[str]:
        out = self._out() if hasattr(self, "cleaned_data") else None
        if index == out:
            return [f"melds_{index}", "discard", f"held_{index}"]
        return [f"held_{index}", f"melds_{index}"]

    def loose_fields(self) -> list[str]:
        return ["discard"]

    def code_field(self, code: str, index: int | None = None) -> str | None:
        fields: dict[str, str] = {ErrorCode.BAD_SEQUENCE: "round"}
        return fields.get(code)


@words_for(Contract)
def contract_text(contract: Contract) -> str:
    """A round's contract in words, translated, its numbers in the language's digits
    (``"1 run and 2 sets"``; ``ops.l10n.digits``): on the pages, and in a refusal that names
    the contract (``contract_not_met``: :func:`scoring.messages.words_for`)."""
    runs = ngettext("%(n)d run", "%(n)d runs", contract.runs) % {"n": contract.runs}
    sets = ngettext("%(n)d set", "%(n)d sets", contract.sets) % {"n": contract.sets}
    if contract.runs and contract.sets:
        # One sentence, not words joined: a language may put "and" elsewhere.
        return l10n.digits(str(_("%(runs)s and %(sets)s") % {"runs": runs, "sets": sets}))
    return l10n.digits(runs if contract.runs else sets)


# --- the adapter -----------------------------------------------------------------------------


class RookAdapter(GameAdapter):
    """Toonerville Rook: 11 numbered rounds, one contract each; a tournament round is one
    contract round (round r plays contract r); the Rook deck, one per player by default."""

    rules = ROOK_GAME
    hand_schema = hand_shape(
        {
            "round": {"type": "integer"},
            "dealer": PLAYER_SCHEMA,
            "melds": by_player({"type": "array", "items": CARDS_SCHEMA}),
            "held": by_player(CARDS_SCHEMA),
        },
        [
            # Someone went out (or, spelled as a word, nobody did): melds, maybe a discard.
            (
                {"out": PLAYER_SCHEMA, "discard": {"type": "string"}},
                ("round", "dealer", "out", "held", "melds"),
            ),
            # Time was called before anyone went out: no discard.
            (
                {"out": {"type": "string", "nullable": True, "enum": [None]}},
                ("round", "dealer", "out", "held"),
            ),
        ],
    )
    entry_form = RookEntryForm
    play_template = "scoring/games/rook/play.html"
    next_template = "scoring/games/rook/next.html"
    description = _(
        "A contract-rummy game over eleven rounds with Rook cards: meet each round's "
        "contract, go out first, and keep your total low."
    )

    #: What each value of a choice option means, keyed by (option, value); the option's
    #: explanation names the values, so their labels do too.
    choice_texts: ClassVar[Mapping[tuple[str, str], Any]] = {
        ("contract_mode", "exact"): _("exact: exactly the contract"),
        ("contract_mode", "at_least"): _("at_least: extra melds allowed"),
    }

    #: The house rules' labels people read; each explanation is the engine's one-line help
    #: (``Options.describe()``), translated where it is shown.
    option_labels: ClassVar[Mapping[str, Any]] = {
        "decks": _("Decks in play"),
        "contract_mode": _("Contract lay-down"),
        "min_natural_per_meld": _("Natural cards per meld, at least"),
        "max_rooks_per_meld": _("Rooks per meld, at most"),
    }
    #: What an option whose default is ``null`` means, shown as its default.
    no_default_texts: ClassVar[Mapping[str, Any]] = {
        "decks": _("one per player"),
        "max_rooks_per_meld": _("no cap"),
    }

    def grid(self, grid: CardGrid, *, players: int, options: Any) -> None:
        """The four colours 1–14 and the Rook, as many copies as decks in play."""
        deck: RookDeck = options.deck(players)
        grid.copies = deck.decks
        grid.css_class = "rook"
        names = {
            "R": pgettext_lazy("Rook colour", "Red"),
            "Y": pgettext_lazy("Rook colour", "Yellow"),
            "G": pgettext_lazy("Rook colour", "Green"),
            "B": pgettext_lazy("Rook colour", "Black"),
        }
        for colour, label in names.items():
            grid.rows.append(
                (
                    label,
                    [(f"{colour}{n}", f"{colour}{n}", f"colour-{colour}") for n in range(1, 15)],
                )
            )
        grid.extra.append(("ROOK", "ROOK", "rook", _("Rook card")))

    def next_info(
        self, *, number: int | None, dealer: int, names: Sequence[str], options: Any
    ) -> dict[str, Any]:
        """The next round's number, contract, cards dealt, decks and whether a discard is
        allowed to go out."""
        if number is None:
            return {}
        contract = CONTRACTS[number]
        return {
            "round": number,
            "contract": contract_text(contract),
            "cards": contract.cards_dealt,
            "decks": options.deck(len(names)).decks,
            "no_discard": not contract.discard_allowed,
        }

    def hand_summary(self, entry: Mapping[str, Any]) -> str:
        """Who went out, or time called."""
        out = entry.get("out")
        return str(_("%(name)s out") % {"name": out}) if out else str(_("time called"))

    def rounds_help(self) -> str:
        return l10n.sentence(
            gettext("Round r plays contract r, so at most %(max)d rounds. Default: %(max)d."),
            {"max": ROUNDS},
        )

    def hands_help(self) -> str:
        return gettext("Each round is one contract round, dealt afresh at every table.")

    def table_play(
        self, *, round_number: int, game: Any, players: int, options: Any, tournament: Any
    ) -> dict[str, Any]:
        """The round's contract, cards dealt, decks, and whether going out needs a discard."""
        contract = CONTRACTS[round_number]
        return {
            "contract": contract_text(contract),
            "cards": contract.cards_dealt,
            "decks": options.deck(players).decks,
            "no_discard": not contract.discard_allowed,
        }

    def round_play_text(self, *, game: Any, tournament: Any) -> str:
        contract = CONTRACTS[game.sequence_from or 1]
        return l10n.sentence(
            gettext("Round %(n)d: %(contract)s, %(cards)d cards dealt"),
            {
                "n": contract.round,
                "contract": contract_text(contract),
                "cards": contract.cards_dealt,
            },
        )
