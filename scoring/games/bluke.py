"""Bluke on the Django side (rules/bluke.md): its entry form and its adapter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from scoring.entry import (
    CardGrid,
    CardsField,
    EntryForm,
    card_input,
    cards_area,
    cards_lines,
    cards_text,
    groups_of,
)
from scoring.games.base import (
    CARDS_SCHEMA,
    PLAYER_SCHEMA,
    GameAdapter,
    by_player,
    hand_shape,
    spans,
)
from scoring.messages import SUIT_NAMES
from tonkrules.bluke import BLUKE, HANDS, cards_dealt, trump_of_turned
from tonkrules.cards import BLUKE_DECK, Suit
from tonkrules.errors import CardError, ErrorCode

# --- the entry form --------------------------------------------------------------------------


TRUMPS = (
    *((suit.value, format_lazy("{} {}", suit.symbol, name)) for suit, name in SUIT_NAMES.items()),
    ("none", _("No trump")),
)


class BlukeEntryForm(EntryForm):
    """A Bluke hand (rules/bluke.md): trump or the turned card, bids in bidding order, tricks
    taken (or the play, trick by trick)."""

    kind = "bluke"
    number_field_name = "hand"
    seat_fields = ("bid", "tricks")
    hand = forms.IntegerField(label=_("Hand"), min_value=1, max_value=HANDS)
    trump = forms.ChoiceField(
        label=_("Trump"), choices=[], widget=forms.RadioSelect, required=False
    )
    turned = CardsField(
        label=_("Or the card turned up"),
        required=False,
        max_length=12,
        widget=card_input(),
        help_text=_("Its suit is trump; a Bluke turned up means no trump."),
    )
    play = CardsField(
        label=_("The play, trick by trick (optional)"),
        required=False,
        max_length=2000,
        widget=cards_area(3),
        help_text=_("One trick per line, the cards in the order played."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["trump"]).choices = list(TRUMPS)
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
            "turned": cards_text(entry.get("turned", "")),
            "play": cards_lines(entry.get("play", [])),
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
        fields: dict[str, str] = {
            ErrorCode.BAD_SEQUENCE: "hand",
            ErrorCode.BAD_TRUMP: "turned",
            ErrorCode.BAD_CARD: "play",
            ErrorCode.TOO_MANY_COPIES: "play",
            ErrorCode.ILLEGAL_PLAY: "play",
            ErrorCode.HAND_SIZE: "play",
        }
        return fields.get(code)


def bidding_order(names: Sequence[str], dealer: int) -> list[str]:
    """Bluke: bids start left of the dealer and go clockwise (rules/bluke.md, "Bidding")."""
    n = len(names)
    return [names[(dealer + 1 + i) % n] for i in range(n)]


def table_hands(start: int, count: int) -> list[int]:
    """The hand numbers a table plays: ``count`` from ``start``, hand 1 again after 25."""
    return BlukeAdapter().table_hands(start, count)


# --- the adapter -----------------------------------------------------------------------------


class BlukeAdapter(GameAdapter):
    """Bluke: 25 numbered hands; a tournament's rounds continue the sequence (hand 1 again
    after 25: the base's texts for a game with a schedule); a standard deck and the two
    Blukes."""

    rules = BLUKE
    hand_schema = hand_shape(
        {
            "hand": {"type": "integer"},
            "dealer": PLAYER_SCHEMA,
            # Case-insensitive (ASCII): "S", "h", "none", "NONE"...
            "trump": {"type": "string", "pattern": "^(?:[SHDCshdc]|[Nn][Oo][Nn][Ee])$"},
            "turned": {"type": "string"},
            "bids": by_player({"type": "integer"}),
            "tricks": by_player({"type": "integer"}),
            "play": {"type": "array", "items": CARDS_SCHEMA},
        },
        [
            ({"play": None}, ("hand", "dealer", "trump", "bids", "tricks")),
            ({}, ("hand", "dealer", "trump", "bids", "play")),
        ],
    )
    entry_form = BlukeEntryForm
    play_template = "scoring/games/bluke/play.html"
    next_template = "scoring/games/bluke/next.html"
    description = _(
        "A trick-taking game of 25 hands with two jokers, the Blukes: bid the tricks you "
        "expect to take, then take at least that many."
    )

    #: What each value of a choice option means, keyed by (option, value).
    choice_texts: ClassVar[Mapping[tuple[str, str], Any]] = {
        ("bluke_lead_rule", "free"): _("free: no suit to follow"),
        ("bluke_lead_rule", "next_card_sets_suit"): _("the next card played sets the suit"),
    }

    #: The house rules' labels people read; each explanation is the engine's one-line help
    #: (``Options.describe()``), translated where it is shown.
    option_labels: ClassVar[Mapping[str, Any]] = {
        "allow_zero_bid": _("Allow a bid of 0"),
        "bluke_lead_rule": _("After a Bluke is led"),
    }

    def grid(self, grid: CardGrid, *, players: int, options: Any) -> None:
        """One standard deck and the high and low Bluke."""
        grid.add_standard_deck()
        grid.extra = [
            ("HB", "HB", "bluke", _("High Bluke")),
            ("LB", "LB", "bluke", _("Low Bluke")),
        ]

    def next_info(
        self, *, number: int | None, dealer: int, names: Sequence[str], options: Any
    ) -> dict[str, Any]:
        """The next hand's number, its cards dealt and the bidding order."""
        if number is None:
            return {}
        return {
            "hand": number,
            "cards": cards_dealt(number),
            "bidding": bidding_order(names, dealer),
        }

    def hand_summary(self, entry: Mapping[str, Any]) -> str:
        """The trump suit, or no trump."""
        trump = str(entry.get("trump", "")).upper()
        symbol = Suit(trump).symbol if trump in {s.value for s in Suit} else None
        return str(_("trump %(suit)s") % {"suit": symbol}) if symbol else str(_("no trump"))

    def table_play(
        self, *, round_number: int, game: Any, players: int, options: Any, tournament: Any
    ) -> dict[str, Any]:
        """The hands the table plays and the cards dealt in each (the base's, counting the
        tournament's hands per round)."""
        hands = self.table_hands(game.sequence_from or 1, tournament.hands_per_round)
        return {
            "hands": spans(hands),
            "count": len(hands),
            "cards": ", ".join(str(cards_dealt(h)) for h in hands),
        }
