"""The table page's entry forms: what the people at a table tap or type, turned into one hand
object of the score-sheet format (shared/formats/scoresheet.md), and back again to correct a
hand.

The forms check only the shape of what was typed (a number is a number, a player is seated);
every rule is the engine's. A rule error comes back from the services as a
:class:`~tonkrules.sheet.SheetError` and :meth:`EntryForm.add_rule_error` puts it next to the
field of the player and cards concerned, with the entry kept as typed.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy

from scoring.messages import error_message
from tonkrules import find_game
from tonkrules.bluke import HANDS, cards_dealt, trump_of_turned
from tonkrules.cards import BLUKE_DECK, STANDARD_DECK, RookDeck, Suit
from tonkrules.errors import CardError, ErrorCode, RuleError
from tonkrules.rook import CONTRACTS, ROUNDS, Contract
from tonkrules.sheet import SheetError
from tonkrules.tonk import ENDS_WITH_BY, TonkEnd

#: A headline people read for each error code of the format, translated; the error's own
#: sentence (``scoring.messages.error_message``, translated too) follows it.
ERROR_HEADLINES: Mapping[str, Any] = {
    ErrorCode.BAD_FORMAT: _("Something is missing or not in the expected form"),
    ErrorCode.BAD_SEQUENCE: _("Out of order"),
    ErrorCode.BAD_PLAYER: _("Check the players"),
    ErrorCode.BAD_CARD: _("Not a card of this deck"),
    ErrorCode.TOO_MANY_COPIES: _("A card entered more often than the deck holds"),
    ErrorCode.HAND_SIZE: _("Wrong number of cards"),
    ErrorCode.BAD_MELD: _("Not a legal meld"),
    ErrorCode.BAD_TRUMP: _("Trump and the turned card disagree"),
    ErrorCode.BAD_TOTAL: _("This total does not tonk"),
    ErrorCode.NOT_OUT: _("Not out"),
    ErrorCode.CONTRACT_NOT_MET: _("The contract is not met"),
    ErrorCode.BAD_BID: _("Bid out of range"),
    ErrorCode.TRICKS_MISMATCH: _("The tricks do not add up"),
    ErrorCode.ILLEGAL_PLAY: _("Illegal play"),
}

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SYMBOL_SUITS = {v: k for k, v in SUIT_SYMBOLS.items()}
_TOKEN_SPLIT = re.compile(r"[\s,]+")
_LINE_SPLIT = re.compile(r"[\r\n|;]+")


def cards_of(text: str) -> list[str]:
    """The card tokens of one field as typed (``"QS 10h, 3♣"`` → three tokens)."""
    return [t for t in _TOKEN_SPLIT.split(text or "") if t]


def groups_of(text: str) -> list[list[str]]:
    """Groups of cards (melds, spreads, tricks): one per line (or separated by ``|``)."""
    return [cards for line in _LINE_SPLIT.split(text or "") if (cards := cards_of(line))]


def canonical_token(token: str) -> str:
    """A typed token in the form the grid and the errors use: upper-case, suit letters, no
    emoji selector (``"10♥️"`` → ``"10H"``, ``"rook"`` → ``"ROOK"``)."""
    text = token.strip().replace("\ufe0f", "").upper()
    return "".join(_SYMBOL_SUITS.get(c, c) for c in text)


def _text_of(value: object) -> str:
    """A stored card list (a list of tokens or one string) as the text of a field."""
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _lines_of(value: object) -> str:
    if isinstance(value, list):
        return "\n".join(_text_of(group) for group in value)
    return _text_of(value)


#: Card fields on a phone: no capitals or corrections forced on "qs"; Enter moves on.
CARD_INPUT = {
    "autocapitalize": "characters",
    "autocorrect": "off",
    "spellcheck": "false",
    "autocomplete": "off",
    "enterkeyhint": "next",
}


def card_input() -> forms.TextInput:
    """A text field for cards."""
    return forms.TextInput(attrs=CARD_INPUT)


def cards_area(rows: int = 2) -> forms.Textarea:
    """A text area for groups of cards (melds, spreads, tricks), one per line."""
    return forms.Textarea(attrs={**CARD_INPUT, "rows": rows})


def new_idempotency_key() -> str:
    """A fresh key for one submission of the form (a retry or a double tap reuses it)."""
    return uuid.uuid4().hex


class CardGrid:
    """The cards of the game's deck for the tap grid, in rows, with how many copies are in play.

    Attributes:
        rows: (label, [(token, face, css class)]) per suit or colour.
        extra: cards outside the rows (the two Blukes, the Rook).
        copies: copies of each card in play (Rook: one deck per player by default).
    """

    def __init__(self, kind: str, *, players: int, options: Any) -> None:
        self.copies = 1
        self.extra: list[tuple[str, str, str]] = []
        self.rows: list[tuple[Any, list[tuple[str, str, str]]]] = []
        if kind == "rook":
            deck: RookDeck = options.deck(players)
            self.copies = deck.decks
            names = {
                "R": pgettext_lazy("Rook colour", "Red"),
                "Y": pgettext_lazy("Rook colour", "Yellow"),
                "G": pgettext_lazy("Rook colour", "Green"),
                "B": pgettext_lazy("Rook colour", "Black"),
            }
            for colour, label in names.items():
                self.rows.append(
                    (
                        label,
                        [
                            (f"{colour}{n}", f"{colour}{n}", f"colour-{colour}")
                            for n in range(1, 15)
                        ],
                    )
                )
            self.extra.append(("ROOK", "ROOK", "rook"))
            return
        names = {
            "S": _("Spades"),
            "H": _("Hearts"),
            "D": _("Diamonds"),
            "C": _("Clubs"),
        }
        by_suit: dict[str, list[tuple[str, str, str]]] = {s: [] for s in names}
        for card in STANDARD_DECK.cards():
            token = str(card)
            suit = card.suit.value
            rank = token[:-1]
            by_suit[suit].append((token, f"{rank}{SUIT_SYMBOLS[suit]}", f"suit-{suit}"))
        self.rows = [(names[s], by_suit[s]) for s in names]
        if kind == "bluke":
            self.extra = [("HB", "HB", "bluke"), ("LB", "LB", "bluke")]


class EntryForm(forms.Form):
    """One hand (or round) as entered at the table: the fields common to every game.

    Seat-indexed fields (``held_0``, ``bid_2``…) stand for the players in seat order, so that a
    name with spaces or accents never becomes a field name.
    """

    kind: ClassVar[str]
    idempotency_key = forms.CharField(widget=forms.HiddenInput, max_length=64)
    revision = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    after = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=0)
    dealer = forms.TypedChoiceField(label=_("Dealer"), coerce=int)

    def __init__(
        self, *args: Any, names: Sequence[str], options: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.names = list(names)
        self.game_options = options
        self.fields["dealer"].choices = [(i, n) for i, n in enumerate(self.names)]
        self.rule_error: SheetError | None = None
        self.error_cards: tuple[str, ...] = ()
        self.error_player: str | None = None

    # --- the hand object -----------------------------------------------------------------

    def entry(self) -> dict[str, object]:
        """The hand object of the score-sheet format built from the cleaned fields."""
        raise NotImplementedError

    @classmethod
    def initial_from(cls, entry: Mapping[str, Any], names: Sequence[str]) -> dict[str, object]:
        """The form's initial values from a stored hand object (to correct it)."""
        raise NotImplementedError

    def name(self, index: int) -> str:
        return self.names[index]

    #: Seat-indexed fields per player, by role in the templates.
    seat_fields: ClassVar[tuple[str, ...]] = ()

    def seats(self) -> list[dict[str, Any]]:
        """Per seat: the player's name, index, whether the rule error names them, and their
        bound fields by role (``held``, ``melds``, ``bid``, ``tricks``)."""
        return [
            {
                "index": i,
                "name": name,
                "at_fault": self.error_player == name,
                **{role: self[f"{role}_{i}"] for role in self.seat_fields},
            }
            for i, name in enumerate(self.names)
        ]

    def _seat(self, name: object) -> int | None:
        return self.names.index(name) if name in self.names else None

    # --- errors ----------------------------------------------------------------------------

    def player_fields(self, index: int) -> list[str]:
        """The fields of seat ``index`` an error naming that player may concern, most likely
        first."""
        return []

    def loose_fields(self) -> list[str]:
        """Fields holding cards of no one player (spreads, tricks played)."""
        return []

    def code_field(self, code: str, index: int | None = None) -> str | None:
        """The field an error code points at when no typed card does (``index``: the seat of
        the player the error names, if any)."""
        return None

    def _field_holding(self, names: Sequence[str], cards: Sequence[str]) -> str | None:
        wanted = {canonical_token(c) for c in cards}
        for field in names:
            typed = {canonical_token(t) for t in cards_of(str(self.data.get(field, "")))}
            if wanted & typed:
                return field
        return None

    def add_rule_error(self, exc: SheetError) -> None:
        """Show the engine's rule error next to the player and cards concerned."""
        error: RuleError = exc.error
        self.rule_error = exc
        self.error_cards = error.cards
        self.error_player = error.player
        message = error_text(error)
        index = self._seat(error.player)
        holding = None
        if index is not None:
            candidates = self.player_fields(index)
            if error.cards:
                holding = self._field_holding(candidates, error.cards)
            field = holding or self.code_field(error.code, index) or candidates[0]
        else:
            if error.cards:
                holding = self._field_holding(self.loose_fields(), error.cards)
            field = holding or self.code_field(error.code)
        self.add_error(field if field in self.fields else None, message)


def error_text(error: RuleError) -> str:
    """What people read for a rule error: the translated headline, the player and cards
    concerned, then the error's sentence in the active language."""
    headline = str(ERROR_HEADLINES.get(error.code, _("Rejected")))
    parts = [headline]
    if error.player:
        parts.append(error.player)
    if error.cards:
        parts.append(" ".join(error.cards))
    return f"{' — '.join(parts)}: {error_message(error)}"


# --- Tonk ----------------------------------------------------------------------------------


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
    spreads = forms.CharField(
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
        self.fields["by"].choices = [("", "—"), *((i, n) for i, n in enumerate(self.names))]
        for i, name in enumerate(self.names):
            self.fields[f"held_{i}"] = forms.CharField(
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
            hand["by"] = self.name(by)
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
            "spreads": _lines_of(entry.get("spreads", [])),
            "new_spread": bool(entry.get("new_spread")),
        }
        held = entry.get("held") or {}
        for i, name in enumerate(names):
            initial[f"held_{i}"] = _text_of(held.get(name, ""))
        return initial

    def player_fields(self, index: int) -> list[str]:
        return [f"held_{index}"]

    def loose_fields(self) -> list[str]:
        return ["spreads"]

    def code_field(self, code: str, index: int | None = None) -> str | None:
        return {ErrorCode.BAD_MELD: "spreads", ErrorCode.BAD_TOTAL: "end"}.get(code)


# --- Toonerville Rook ------------------------------------------------------------------------


NOBODY_OUT = "none"


class RookEntryForm(EntryForm):
    """A Toonerville Rook round (rules/rook.md): who went out (or time called), their melds in
    groups, their discard, the cards the others held."""

    kind = "rook"
    seat_fields = ("melds", "held")
    round = forms.IntegerField(label=_("Round"), min_value=1, max_value=ROUNDS)
    out = forms.ChoiceField(label=_("Who went out"), widget=forms.RadioSelect)
    discard = forms.CharField(
        label=_("Their discard"),
        required=False,
        max_length=12,
        widget=card_input(),
        help_text=_("Optional; none in round 11."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["out"].choices = [
            *((str(i), n) for i, n in enumerate(self.names)),
            (NOBODY_OUT, _("Nobody: time called")),
        ]
        for i, name in enumerate(self.names):
            self.fields[f"melds_{i}"] = forms.CharField(
                label=_("Melds %(name)s laid down") % {"name": name},
                required=False,
                max_length=600,
                widget=cards_area(2),
                help_text=_("One meld per line."),
            )
            self.fields[f"held_{i}"] = forms.CharField(
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
        if out is not None:
            melds = {
                name: groups
                for i, name in enumerate(self.names)
                if (groups := groups_of(data.get(f"melds_{i}", "")))
            }
            hand["melds"] = melds
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
            "discard": _text_of(entry.get("discard", "")),
        }
        melds = entry.get("melds") or {}
        held = entry.get("held") or {}
        for i, name in enumerate(names):
            initial[f"melds_{i}"] = _lines_of(melds.get(name, []))
            initial[f"held_{i}"] = _text_of(held.get(name, ""))
        return initial

    def player_fields(self, index: int) -> list[str]:
        out = self._out() if hasattr(self, "cleaned_data") else None
        if index == out:
            return [f"melds_{index}", "discard", f"held_{index}"]
        return [f"held_{index}", f"melds_{index}"]

    def loose_fields(self) -> list[str]:
        return ["discard"]

    def code_field(self, code: str, index: int | None = None) -> str | None:
        return {ErrorCode.BAD_SEQUENCE: "round"}.get(code)


def contract_text(contract: Contract) -> str:
    """A round's contract in words, translated (``"1 run and 2 sets"``)."""
    parts = []
    if contract.runs:
        parts.append(ngettext("%(n)d run", "%(n)d runs", contract.runs) % {"n": contract.runs})
    if contract.sets:
        parts.append(ngettext("%(n)d set", "%(n)d sets", contract.sets) % {"n": contract.sets})
    return str(_(" and ")).join(parts)


# --- Bluke -----------------------------------------------------------------------------------


TRUMPS = (
    ("S", format_lazy("♠ {}", _("Spades"))),
    ("H", format_lazy("♥ {}", _("Hearts"))),
    ("D", format_lazy("♦ {}", _("Diamonds"))),
    ("C", format_lazy("♣ {}", _("Clubs"))),
    ("none", _("No trump")),
)


class BlukeEntryForm(EntryForm):
    """A Bluke hand (rules/bluke.md): trump or the turned card, bids in bidding order, tricks
    taken (or the play, trick by trick)."""

    kind = "bluke"
    seat_fields = ("bid", "tricks")
    hand = forms.IntegerField(label=_("Hand"), min_value=1, max_value=HANDS)
    trump = forms.ChoiceField(
        label=_("Trump"), choices=[], widget=forms.RadioSelect, required=False
    )
    turned = forms.CharField(
        label=_("Or the card turned up"),
        required=False,
        max_length=12,
        widget=card_input(),
        help_text=_("Its suit is trump; a Bluke turned up means no trump."),
    )
    play = forms.CharField(
        label=_("The play, trick by trick (optional)"),
        required=False,
        max_length=2000,
        widget=cards_area(3),
        help_text=_("One trick per line, the cards in the order played."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["trump"].choices = list(TRUMPS)
        for i, name in enumerate(self.names):
            self.fields[f"bid_{i}"] = forms.IntegerField(
                label=_("%(name)s bid") % {"name": name}, min_value=0, max_value=99
            )
            self.fields[f"tricks_{i}"] = forms.IntegerField(
                label=_("%(name)s took") % {"name": name},
                min_value=0,
                max_value=99,
                required=False,
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        turned = (data.get("turned") or "").strip()
        if turned:
            try:
                card = BLUKE_DECK.parse(turned)
            except CardError:
                self.add_error(
                    "turned", _("%(card)s is not a card of the Bluke deck.") % {"card": turned}
                )
            else:
                if not data.get("trump"):
                    suit: Suit | None = trump_of_turned(card)
                    data["trump"] = "none" if suit is None else suit.value
        elif not data.get("trump"):
            self.add_error("trump", _("Choose trump, or enter the card turned up."))
        tricks = [data.get(f"tricks_{i}") for i in range(len(self.names))]
        given = [t for t in tricks if t is not None]
        if given and len(given) != len(tricks):
            self.add_error(None, _("Enter every player's tricks, or none and the play."))
        if not given and not groups_of(data.get("play", "")):
            self.add_error(None, _("Enter the tricks each player took."))
        return data

    def entry(self) -> dict[str, object]:
        data = self.cleaned_data
        hand: dict[str, object] = {
            "hand": data["hand"],
            "dealer": self.name(data["dealer"]),
            "trump": data["trump"],
        }
        turned = (data.get("turned") or "").strip()
        if turned:
            hand["turned"] = turned
        hand["bids"] = {name: data[f"bid_{i}"] for i, name in enumerate(self.names)}
        if data.get("tricks_0") is not None:
            hand["tricks"] = {name: data[f"tricks_{i}"] for i, name in enumerate(self.names)}
        play = groups_of(data.get("play", ""))
        if play:
            hand["play"] = play
        return hand

    @classmethod
    def initial_from(cls, entry: Mapping[str, Any], names: Sequence[str]) -> dict[str, object]:
        trump = str(entry.get("trump", "")).upper()
        initial: dict[str, object] = {
            "hand": entry.get("hand"),
            "dealer": names.index(entry["dealer"]) if entry.get("dealer") in names else 0,
            "trump": "none" if trump == "NONE" else trump,
            "turned": _text_of(entry.get("turned", "")),
            "play": _lines_of(entry.get("play", [])),
        }
        bids = entry.get("bids") or {}
        tricks = entry.get("tricks") or {}
        for i, name in enumerate(names):
            initial[f"bid_{i}"] = bids.get(name)
            initial[f"tricks_{i}"] = tricks.get(name)
        return initial

    def seats(self) -> list[dict[str, Any]]:
        """The seats in bidding order: from the dealer's left, clockwise (rules/bluke.md)."""
        seats = super().seats()
        try:
            dealer = int(self["dealer"].value())
        except (TypeError, ValueError):
            dealer = 0
        n = len(seats)
        return [seats[(dealer + 1 + i) % n] for i in range(n)] if 0 <= dealer < n else seats

    def player_fields(self, index: int) -> list[str]:
        return [f"bid_{index}", f"tricks_{index}"]

    def loose_fields(self) -> list[str]:
        return ["play", "turned"]

    def code_field(self, code: str, index: int | None = None) -> str | None:
        if code == ErrorCode.TRICKS_MISMATCH and index is not None:
            return f"tricks_{index}"
        if code == ErrorCode.BAD_BID and index is not None:
            return f"bid_{index}"
        return {
            ErrorCode.BAD_SEQUENCE: "hand",
            ErrorCode.BAD_TRUMP: "turned",
            ErrorCode.BAD_CARD: "play",
            ErrorCode.TOO_MANY_COPIES: "play",
            ErrorCode.ILLEGAL_PLAY: "play",
            ErrorCode.HAND_SIZE: "play",
        }.get(code)


ENTRY_FORMS: Mapping[str, type[EntryForm]] = {
    "tonk": TonkEntryForm,
    "rook": RookEntryForm,
    "bluke": BlukeEntryForm,
}


def bluke_cards_dealt() -> dict[int, int]:
    """Hand number → cards dealt to each player, for the live tricks check."""
    return {h: cards_dealt(h) for h in range(1, HANDS + 1)}


def rook_contracts() -> dict[int, dict[str, object]]:
    """Round → cards dealt and the contract in words, for the page."""
    return {r: {"cards": c.cards_dealt, "contract": contract_text(c)} for r, c in CONTRACTS.items()}


def engine_title(kind: str) -> str:
    """The game's name as people know it."""
    return find_game(kind).title


# --- what the sheet shows --------------------------------------------------------------------


def next_defaults(
    kind: str,
    names: Sequence[str],
    last: Mapping[str, Any] | None,
    *,
    start: int | None = None,
    wraps: bool = False,
    limit: int | None = None,
    played: int = 0,
) -> dict[str, Any]:
    """What comes next at the table: the next dealer (the deal passes left, to the next seat
    clockwise: rules/*.md) and, for numbered games, the next round or hand number.

    Args:
        last: the latest current hand object as entered, or None before the first hand.
        start: the first round or hand of a game that plays a part of the schedule.
        wraps: Bluke: hand 1 follows hand 25 (a tournament's schedule).
        limit: the most hands the game takes; ``played``: the hands entered.

    Returns:
        ``{"dealer": seat index, "number": next round/hand or None, "done": whether every
        round (Rook 11) or hand (Bluke 25, or the game's limit) is entered}``.
    """
    dealer = 0
    if last is not None and last.get("dealer") in names:
        dealer = (list(names).index(last["dealer"]) + 1) % len(names)
    number = None
    done = limit is not None and played >= limit
    engine = find_game(kind)
    if engine.number_key is not None:
        previous = last.get(engine.number_key) if last is not None else None
        last_number = ROUNDS if kind == "rook" else HANDS
        if not isinstance(previous, int):
            number = start or 1
        elif wraps and previous == last_number:
            number = 1
        else:
            number = previous + 1
        done = done or number > last_number
    return {"dealer": dealer, "number": number, "done": done}


def bidding_order(names: Sequence[str], dealer: int) -> list[str]:
    """Bluke: bids start left of the dealer and go clockwise (rules/bluke.md, "Bidding")."""
    n = len(names)
    return [names[(dealer + 1 + i) % n] for i in range(n)]


def hand_summary(kind: str, entry: Mapping[str, Any]) -> str:
    """One short line saying what happened in a hand, for the sheet."""
    if kind == "tonk":
        end = str(dict(TONK_ENDS).get(entry.get("end", ""), entry.get("end", "")))
        return f"{end}: {entry['by']}" if entry.get("by") else end
    if kind == "rook":
        out = entry.get("out")
        return str(_("%(name)s out") % {"name": out}) if out else str(_("time called"))
    trump = str(entry.get("trump", "")).upper()
    symbol = SUIT_SYMBOLS.get(trump)
    return str(_("trump %(suit)s") % {"suit": symbol}) if symbol else str(_("no trump"))


def entry_changes(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[tuple[str, str, str]]:
    """What a correction changed: (what, before, after) for every key, or player under a key,
    whose value differs (``("held · Ben", "5S 6S", "5S 7S")``)."""
    changes: list[tuple[str, str, str]] = []
    for key in dict.fromkeys([*before, *after]):
        old, new = before.get(key), after.get(key)
        if isinstance(old, Mapping) or isinstance(new, Mapping):
            old_map = old if isinstance(old, Mapping) else {}
            new_map = new if isinstance(new, Mapping) else {}
            for sub in dict.fromkeys([*old_map, *new_map]):
                a, b = _shown(old_map.get(sub)), _shown(new_map.get(sub))
                if a != b:
                    changes.append((f"{key} · {sub}", a, b))
        elif _shown(old) != _shown(new):
            changes.append((str(key), _shown(old), _shown(new)))
    return changes


def _shown(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        if value and all(isinstance(v, list) for v in value):
            return " | ".join(_text_of(v) for v in value)
        return _text_of(value)
    return str(value)
