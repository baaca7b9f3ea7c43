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
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from ops import idempotency, l10n
from ops.l10n_fields import DigitsField
from scoring.messages import SUIT_NAMES, error_message
from tonkrules import find_game
from tonkrules.cards import (
    CARD_SEPARATORS,
    STANDARD_DECK,
    canonical,
    spellings,
    split_tokens,
)
from tonkrules.errors import ErrorCode, RuleError
from tonkrules.sheet import SheetError

#: A headline people read for each error code of the format, translated, the same for every
#: game; a game's adapter replaces some (``GameAdapter.error_headlines``: Tonk's "This total
#: does not tonk"). The error's own sentence (``scoring.messages.error_message``, translated
#: too) follows it.
ERROR_HEADLINES: Mapping[str, Any] = {
    ErrorCode.BAD_FORMAT: _("Something is missing or not in the expected form"),
    ErrorCode.BAD_SEQUENCE: _("Out of order"),
    ErrorCode.BAD_PLAYER: _("Check the players"),
    ErrorCode.BAD_CARD: _("Not a card of this deck"),
    ErrorCode.TOO_MANY_COPIES: _("A card entered more often than the deck holds"),
    ErrorCode.HAND_SIZE: _("Wrong number of cards"),
    ErrorCode.BAD_MELD: _("Not a legal meld"),
    ErrorCode.BAD_TRUMP: _("Trump and the turned card disagree"),
    ErrorCode.BAD_TOTAL: _("The totals do not add up"),
    ErrorCode.NOT_OUT: _("Not out"),
    ErrorCode.CONTRACT_NOT_MET: _("The contract is not met"),
    ErrorCode.BAD_BID: _("Bid out of range"),
    ErrorCode.TRICKS_MISMATCH: _("The tricks do not add up"),
    ErrorCode.ILLEGAL_PLAY: _("Illegal play"),
}

_LINE_SPLIT = re.compile(r"[\r\n|;]+")


class CardsField(DigitsField):
    """A field of cards as typed (card notation, rules/*.md "Card notation"): the notation is
    the same in every language, and a phone's keyboard in Bengali, Assamese or Tamil may
    write its own digits for the indices (``৫H``, ``R১২``), which are read as ASCII (``5H``,
    ``R12``: :func:`ops.l10n.ascii_digits`), as the page script reads them."""


def cards_of(text: str) -> list[str]:
    """The card tokens of one field as typed (``"QS 10h, 3♣"`` → three tokens), split as the
    engine splits a list of cards (:func:`tonkrules.cards.split_tokens`)."""
    return split_tokens(text or "")


def groups_of(text: str) -> list[list[str]]:
    """Groups of cards (melds, spreads, tricks): one per line (or separated by ``|``)."""
    return [cards for line in _LINE_SPLIT.split(text or "") if (cards := cards_of(line))]


def cards_text(value: object) -> str:
    """A stored card list (a list of tokens or one string) as the text of a field."""
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def cards_lines(value: object) -> str:
    """A stored list of card groups (melds, spreads, tricks) as the text of a field, one group
    a line; a single list or string as :func:`cards_text` gives it."""
    if isinstance(value, list):
        return "\n".join(cards_text(group) for group in value)
    return cards_text(value)


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
    """A fresh key for one submission of the form (a retry or a double tap reuses it):
    :func:`ops.idempotency.new_key`."""
    return idempotency.new_key()


class CardGrid:
    """The cards of the game's deck for the tap grid, in rows, with how many copies are in play.

    Attributes:
        rows: (label, [(token, face, css class)]) per suit or colour.
        extra: cards outside the rows (the two Blukes, the Rook): (token, face, css class,
            its name for a screen reader, translated lazily).
        copies: copies of each card in play (Rook: one deck per player by default).
    """

    def __init__(self, kind: str, *, players: int, options: Any) -> None:
        from scoring.games import adapter_for  # the adapters import this module

        self.copies = 1
        self.css_class = ""
        self.extra: list[tuple[str, str, str, Any]] = []
        self.rows: list[tuple[Any, list[tuple[str, str, str]]]] = []
        adapter_for(kind).grid(self, players=players, options=options)

    def add_standard_deck(self) -> None:
        """Rows of the 52 cards of a standard deck, one per suit (Tonk, Bluke)."""
        names = {suit.value: name for suit, name in SUIT_NAMES.items()}
        by_suit: dict[str, list[tuple[str, str, str]]] = {s: [] for s in names}
        for card in STANDARD_DECK.cards():
            token = str(card)
            suit = card.suit.value
            rank = token[:-1]
            by_suit[suit].append((token, f"{rank}{card.suit.symbol}", f"suit-{suit}"))
        self.rows = [(names[s], by_suit[s]) for s in names]

    def notation(self) -> dict[str, object]:
        """What the page script needs to read typed cards as the server does: the accepted
        spellings (:meth:`spellings`) and the separators of cards and of groups (regular
        expressions)."""
        return {
            "spellings": self.spellings(),
            "separators": {"cards": CARD_SEPARATORS.pattern, "groups": _LINE_SPLIT.pattern},
        }

    def spellings(self) -> dict[str, str]:
        """Every accepted spelling of the grid's cards → canonical notation, from the engine
        (:func:`tonkrules.cards.spellings`): the page script reads typed tokens with it."""
        tokens = [token for _label, row in self.rows for token, _face, _css in row]
        return spellings([*tokens, *(token for token, _face, _css, _name in self.extra)])


class EntryForm(idempotency.KeyedForm):
    """One hand (or round) as entered at the table: the fields common to every game.

    Seat-indexed fields (``held_0``, ``bid_2``…) stand for the players in seat order, so that a
    name with spaces or accents never becomes a field name.
    """

    kind: ClassVar[str]
    idempotency_key = idempotency.KeyField(required=True)
    revision = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    after = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=0)
    dealer = forms.TypedChoiceField(label=_("Dealer"), coerce=int)

    def __init__(
        self, *args: Any, names: Sequence[str], options: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.names = list(names)
        self.game_options = options
        cast(forms.ChoiceField, self.fields["dealer"]).choices = list(enumerate(self.names))
        self.rule_error: SheetError | None = None
        self.error_cards: tuple[str, ...] = ()
        self.error_player: str | None = None

    def clean(self) -> dict[str, Any]:
        """The cleaned data, as ``forms.Form.clean`` returns it (never None here, which lets the
        games' ``clean`` read it without a check)."""
        return self.cleaned_data

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

    #: The field holding the round (hand) number of a numbered game, if any.
    number_field_name: ClassVar[str | None] = None

    @property
    def number_field(self) -> forms.BoundField | None:
        """The bound round (hand) number field of a numbered game, or None."""
        name = self.number_field_name
        return self[name] if name else None

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
        wanted = {canonical(c) for c in cards}
        for field in names:
            text = l10n.ascii_digits(str(self.data.get(field, "")))  # as CardsField reads it
            typed = {canonical(t) for t in cards_of(text)}
            if wanted & typed:
                return field
        return None

    def add_rule_error(self, exc: SheetError) -> None:
        """Show the engine's rule error next to the player and cards concerned."""
        error: RuleError = exc.error
        self.rule_error = exc
        self.error_cards = error.cards
        self.error_player = error.player
        message = error_text(error, kind=self.kind)
        index = self._seat(error.player)
        holding = None
        field: str | None
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


def error_headline(code: str, kind: str | None = None) -> str:
    """The translated headline of error ``code`` (an ``ErrorCode`` of formats/scoresheet.md):
    game ``kind``'s own (its adapter's ``error_headlines``) when it has one, else the common
    one of :data:`ERROR_HEADLINES`, else "Rejected". An unregistered ``kind`` (or None) gets
    the common headlines."""
    from scoring.games import adapter_for  # the adapters import this module

    try:
        own = adapter_for(kind).error_headlines if kind is not None else {}
    except LookupError:
        own = {}
    return str(own.get(code) or ERROR_HEADLINES.get(code, _("Rejected")))


def error_text(error: RuleError, *, kind: str | None = None) -> str:
    """What people read for a rule error: the translated headline (game ``kind``'s own when
    its adapter has one, :func:`error_headline`), the player and cards concerned, then the
    error's sentence in the active language."""
    headline = error_headline(error.code, kind)
    parts = [headline]
    if error.player:
        parts.append(error.player)
    if error.cards:
        parts.append(" ".join(error.cards))
    return f"{' — '.join(parts)}: {error_message(error)}"


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
        wraps: hand 1 follows the schedule's last (Bluke in a tournament).
        limit: the most hands the game takes; ``played``: the hands entered.

    Returns:
        ``{"dealer": seat index, "number": next round/hand or None, "done": whether every
        round or hand of the schedule (``GameRules.schedule_length``: Rook 11, Bluke 25) or
        the game's limit is entered}``.
    """
    dealer = 0
    if last is not None and last.get("dealer") in names:
        dealer = (list(names).index(last["dealer"]) + 1) % len(names)
    number = None
    done = limit is not None and played >= limit
    engine = find_game(kind)
    if engine.number_key is not None:
        previous = last.get(engine.number_key) if last is not None else None
        last_number = engine.schedule_length or 0
        if not isinstance(previous, int):
            number = start or 1
        elif wraps and previous == last_number:
            number = 1
        else:
            number = previous + 1
        done = done or number > last_number
    return {"dealer": dealer, "number": number, "done": done}


def hand_summary(kind: str, entry: Mapping[str, Any]) -> str:
    """One short line saying what happened in a hand, for the sheet (the game's adapter)."""
    from scoring.games import adapter_for  # the adapters import this module

    return adapter_for(kind).hand_summary(entry)


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
            return " | ".join(cards_text(v) for v in value)
        return cards_text(value)
    return str(value)
