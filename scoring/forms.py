"""Forms of the scoring pages for signed-in members: starting a game.

The form parses what was typed into the arguments of :func:`scoring.services.game_start`; the
rules (player counts, names, house-rule values, stake, currency) are checked once, by the
service through ``tonkrules``, and a refusal is placed next to the field it concerns, in words
built here from the error's stable code so that they can be translated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, ClassVar, cast

from django import forms
from django.contrib.auth.models import User
from django.db.models import Model
from django.http import QueryDict
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext_lazy as _

from ops import collation, idempotency, l10n
from ops.l10n_fields import DigitsField
from scoring import games, money
from scoring.errors import IdempotencyKeyReused
from scoring.games import adapter_for
from scoring.messages import error_message
from scoring.names import MAX_NAME_LENGTH, NameFormField
from scoring.services import MAX_STAKE_LENGTH, SeatSpec
from tonkrules import RuleError, find_game
from tonkrules.errors import PlayerError
from tonkrules.names import name_key
from tonkrules.sheet import SheetError


def seat_count() -> int:
    """Seats on the form: the most players any registered game seats."""
    return max(a.rules.max_players for a in games.all_adapters())


DEFAULT_CURRENCY = "USD"
"""The currency of a Tonk stake entered without one."""


# --- house rules: labels and explanations people read ---------------------------------------
# The keys, defaults, parsers and one-line explanations come from the rules engine
# (``Options.describe()``; the explanations are marked for translation there); each game's
# adapter gives the labels.


def _choice_text(game: str, key: str, value: str) -> Any:
    """What value ``value`` of choice option ``key`` means, from the game's adapter
    (``choice_texts``); the value itself when it has no text."""
    return adapter_for(game).choice_texts.get((key, value), value)


@dataclass(frozen=True)
class HouseRule:
    """One house-rule option of one game, as the form offers it.

    Attributes:
        game: the game's name (``"tonk"``).
        key: the option's key in the score-sheet format.
        default: the default, as JSON (the value the game takes when the key is absent).
        field_name: the form field, ``<game>__<key>``.
        label: a short name for people.
        help: the one-line explanation.
        default_text: the default, as people read it.
    """

    game: str
    key: str
    default: object
    field_name: str
    label: Any
    help: Any
    default_text: Any


class WholeNumbersField(forms.CharField):
    """Whole numbers typed as text, ``"49, 50"`` → ``[49, 50]`` (digits of any script read as
    ASCII: ``"৪৯, ৫০"`` too); blank → None (the default)."""

    default_error_messages: ClassVar[dict[str, Any]] = {
        "invalid": _("Type whole numbers separated by commas, such as 49, 50."),
    }

    def to_python(self, value: Any) -> list[int] | None:  # type: ignore[override]
        text = super().to_python(value)
        if not text:
            return None
        tokens = [t for t in re.split(r"[\s,;]+", l10n.ascii_digits(text)) if t]
        if not all(t.isdigit() and t.isascii() for t in tokens):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return [int(t) for t in tokens]

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return ", ".join(str(v) for v in value)
        return value


def _minimum(parse: Callable[[str, object], object], key: str) -> int | None:
    """The least value a whole-number option takes, as its parser reports it (for ``min``)."""
    try:
        parse(key, -1)
    except RuleError as exc:
        minimum = exc.params.get("minimum")
        return minimum if isinstance(minimum, int) else None
    return None


def _default_text(game: str, key: str, default: object) -> Any:
    if isinstance(default, bool):
        return gettext_lazy("on") if default else gettext_lazy("off")
    if default is None:
        return adapter_for(game).no_default_texts.get(key, gettext_lazy("none"))
    if isinstance(default, list):
        return l10n.digits_lazy(", ".join(str(v) for v in default))
    if isinstance(default, str):
        return _choice_text(game, key, default)
    return l10n.digits_lazy(default)


def house_rules(game: str) -> list[HouseRule]:
    """The house rules of ``game`` in their declared order, from the engine's options."""
    rules = []
    for described in find_game(game).options_type.describe():
        key = str(described["key"])
        label = adapter_for(game).option_labels.get(key, key.replace("_", " ").capitalize())
        help_ = gettext_lazy(str(described["help"]))  # translated where it is shown
        rules.append(
            HouseRule(
                game=game,
                key=key,
                default=described["default"],
                field_name=f"{game}__{key}",
                label=label,
                help=help_,
                default_text=_default_text(game, key, described["default"]),
            )
        )
    return rules


def option_field(game: str, rule: HouseRule) -> forms.Field:
    """The form field of one option, by the type of its default: a checkbox for true/false, a
    select for a choice, a text field for a list of numbers, a number field otherwise."""
    spec = next(f for f in fields(find_game(game).options_type) if f.name == rule.key)
    default = spec.default
    common: dict[str, Any] = {"label": rule.label, "help_text": rule.help, "required": False}
    if isinstance(default, bool):
        return forms.BooleanField(initial=default, **common)
    if isinstance(default, Enum):
        choices = [(m.value, _choice_text(game, rule.key, m.value)) for m in type(default)]
        return forms.ChoiceField(choices=choices, initial=default.value, **common)
    if isinstance(default, tuple):
        return WholeNumbersField(
            initial=list(default),
            max_length=60,
            widget=forms.TextInput(attrs={"autocomplete": "off"}),  # a number pad lacks ","
            **common,
        )
    if default is None or isinstance(default, int):
        minimum = _minimum(spec.metadata["parse"], rule.key)
        attrs = {"min": minimum} if minimum is not None else {}
        return forms.IntegerField(initial=default, widget=forms.NumberInput(attrs=attrs), **common)
    raise TypeError(f"no form field for {game} option {rule.key!r} ({default!r})")


class _HouseRules(Mapping[str, list[HouseRule]]):
    """Game name → its house rules (:func:`house_rules`), for every registered game (the
    registry of ``scoring.games``), read when asked: a game registered later is included."""

    def __getitem__(self, game: str) -> list[HouseRule]:
        adapter_for(game)  # LookupError: no such game
        return house_rules(game)

    def __iter__(self) -> Iterator[str]:
        return iter(games.names())

    def __len__(self) -> int:
        return len(games.names())


HOUSE_RULES: Mapping[str, list[HouseRule]] = _HouseRules()
"""Each registered game's house rules, by game name."""


# --- the form ---------------------------------------------------------------------------------


def plays_for_stakes(kind: object) -> bool:
    """Whether game ``kind`` is played for stakes (False for no or an unknown game)."""
    try:
        return games.adapter_for(kind).has_stakes
    except LookupError:
        return False


def game_choices(label: Any) -> list[tuple[str, str]]:
    """Every registered game as a choice, labelled by ``label`` (a translated text naming
    ``%(game)s``, ``%(min)d`` and ``%(max)d``, the players a table seats)."""
    text = str(label)
    return [
        (
            a.name,
            l10n.sentence(
                text, {"game": a.label, "min": a.rules.min_players, "max": a.rules.max_players}
            ),
        )
        for a in games.all_adapters()
    ]


def chosen_options(cleaned: dict[str, Any]) -> dict[str, object]:
    """The chosen game's (``cleaned["kind"]``) house rules that differ from their defaults, as
    JSON; a rule left blank takes its default."""
    chosen: dict[str, object] = {}
    for rule in HOUSE_RULES[cleaned["kind"]]:
        value = cleaned.get(rule.field_name)
        if value in (None, "") and not isinstance(rule.default, bool):
            continue  # left blank: the default
        if value != rule.default:
            chosen[rule.key] = value
    return chosen


def stake_field() -> forms.CharField:
    """The Tonk stake: the money value of one stake unit, as typed (a decimal string; digits
    of any script read as ASCII)."""
    return DigitsField(
        label=_("Stake"),
        required=False,
        max_length=MAX_STAKE_LENGTH,
        help_text=_("Optional: the money value of one stake unit, such as 0.25."),
        widget=forms.TextInput(
            attrs={
                "inputmode": "decimal",
                "autocomplete": "off",
                "placeholder": "0.25",
                "class": "short",
            }
        ),
    )


def currency_field() -> forms.CharField:
    """The Tonk currency: a three-letter code."""
    return forms.CharField(
        label=_("Currency"),
        required=False,
        max_length=3,
        help_text=_("Optional: a three-letter code; USD when a stake is given."),
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "autocapitalize": "characters",
                "placeholder": DEFAULT_CURRENCY,
                "class": "short",
            }
        ),
    )


class GameStartForm(idempotency.KeyedForm):
    """Start a game: which game, who sits where, the club, the house rules, the Tonk stake.

    Args:
        user: the signed-in user starting the game (their clubs are offered).

    Only the chosen game's house rules are read, so the three games' rules can sit on one page.
    A house rule left at its default is not passed on: the game stores only what differs.
    """

    kind = forms.ChoiceField(label=_("Game"), widget=forms.RadioSelect, initial=games.names()[0])
    # A tournaments.Club, which scoring does not import (the layers contract).
    club: forms.ModelChoiceField[Model] = forms.ModelChoiceField(
        label=_("Club"),
        queryset=None,  # set in __init__: the user's clubs
        required=False,
        empty_label=_("No club: a casual game"),
        help_text=_("The club's members can see and keep this game; club players can sit."),
    )
    stake = stake_field()
    currency = currency_field()
    idempotency_key = idempotency.KeyField()

    PLAYERS_DATALIST = "club-players"

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        cast(forms.ChoiceField, self.fields["kind"]).choices = game_choices(
            _("%(game)s, %(min)d–%(max)d players")
        )
        club_field = cast("forms.ModelChoiceField[Model]", self.fields["club"])
        club_field.queryset = clubs = user.clubs.all()  # listed by name in the page's language:
        clubs_players = collation.sorted_by_name(
            clubs.prefetch_related("players"), then=lambda c: c.pk
        )
        self.has_clubs = bool(clubs_players)
        self.club_player_names: list[str] = collation.sorted_by_name(
            {player.name for club in clubs_players for player in club.players.all()}
        )
        self.seat_specs: list[tuple[str, SeatSpec]] = []
        if self.has_clubs:
            # A member's game belongs to a club by default: choosing none is deliberate.
            club_field.required = True
            club_field.empty_label = None
            club_field.choices = [(club.pk, str(club)) for club in clubs_players]
            club_field.initial = clubs_players[0].pk
        else:
            del self.fields["club"]
        self.seat_count = seat_count()
        for seat in range(1, self.seat_count + 1):
            attrs = {"autocomplete": "off", "autocapitalize": "words"}
            if self.club_player_names:
                attrs["list"] = self.PLAYERS_DATALIST
            self.fields[f"player_{seat}"] = NameFormField(
                label=l10n.sentence(gettext("Seat %(seat)d"), {"seat": seat}),
                required=False,
                widget=forms.TextInput(attrs=attrs),
            )
        for game in games.names():
            for rule in HOUSE_RULES[game]:
                self.fields[rule.field_name] = option_field(game, rule)
        if not self.is_bound:
            self.initial.setdefault("idempotency_key", idempotency.new_key())

    # --- what the template shows -------------------------------------------------------------

    def player_fields(self) -> list[forms.BoundField]:
        """The seat fields, in seat order (clockwise)."""
        return [self[f"player_{seat}"] for seat in range(1, self.seat_count + 1)]

    def rule_groups(self) -> Iterator[dict[str, Any]]:
        """Per game: its name, title, and each house rule with its bound field."""
        for adapter in games.all_adapters():
            yield {
                "game": adapter.name,
                "title": adapter.label,
                "has_stakes": adapter.has_stakes,
                "rules": [
                    {"rule": rule, "field": self[rule.field_name]}
                    for rule in HOUSE_RULES[adapter.name]
                ],
            }

    # --- reading the form --------------------------------------------------------------------

    def _other_fields(self, kind: str | None) -> list[str]:
        """The fields of the games not chosen, and the stake unless the chosen game is played
        for stakes: not read."""
        names = [r.field_name for game in games.names() if game != kind for r in HOUSE_RULES[game]]
        if not plays_for_stakes(kind):
            names += ["stake", "currency"]
        return names

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        kind = cleaned.get("kind")
        for name in self._other_fields(kind):
            self.errors.pop(name, None)
            cleaned.pop(name, None)
        self.seat_specs = self._seats(cleaned)
        return cleaned

    def _seats(self, cleaned: dict[str, Any]) -> list[tuple[str, SeatSpec]]:
        """(field name, seat) of every filled seat, in order; a name that is a player of the
        chosen club's by the name rule (``tonkrules.names.name_key``: letter case, accents
        typed differently and spaces aside) seats that player, any other a guest."""
        club = cleaned.get("club")
        by_name = {}
        if club is not None:
            by_name = {name_key(p.name): p for p in club.players.all()}
        seats = []
        for seat in range(1, self.seat_count + 1):
            name = cleaned.get(f"player_{seat}") or ""
            if not name:
                continue
            player = by_name.get(name_key(name))
            spec = SeatSpec(player.name, player.pk) if player is not None else SeatSpec(name)
            seats.append((f"player_{seat}", spec))
        return seats

    def options(self) -> dict[str, object]:
        """The chosen game's house rules that differ from their defaults, as JSON."""
        return chosen_options(self.cleaned_data)

    def start_arguments(self) -> dict[str, Any]:
        """The keyword arguments of :func:`scoring.services.game_start` (all but the user)."""
        kind = self.cleaned_data["kind"]
        stake = currency = None
        if plays_for_stakes(kind):
            stake = self.cleaned_data.get("stake", "").replace(",", ".") or None
            currency = self.cleaned_data.get("currency") or None
            if stake is not None and currency is None:
                currency = DEFAULT_CURRENCY
        return {
            "kind": kind,
            "players": [spec for _field, spec in self.seat_specs],
            "options": self.options(),
            "stake": stake,
            "currency": currency,
            "club": self.cleaned_data.get("club"),
            "idempotency_key": self.cleaned_data.get("idempotency_key") or None,
        }

    # --- refusals ----------------------------------------------------------------------------

    def add_start_error(self, exc: SheetError | IdempotencyKeyReused) -> None:
        """Show why the service refused to start the game, next to the field concerned."""
        if isinstance(exc, IdempotencyKeyReused):
            # This page already started a different game: a fresh key lets it start this one.
            data = cast(QueryDict, self.data).copy()  # the form was bound to request.POST
            data[self.add_prefix("idempotency_key")] = idempotency.new_key()
            self.data = data
            self.add_error(
                None,
                gettext(
                    "This form already started a game with other details. "
                    "Check the details and start again to start another game."
                ),
            )
            return
        error = exc.error
        self.add_error(self._field_of(error), start_error_text(error, self.cleaned_data["kind"]))

    def _field_of(self, error: RuleError) -> str | None:
        seats = self.seat_specs
        detail = error.detail
        if detail in ("stake", "currency"):
            return detail
        if detail == "key_not_allowed":
            return "stake"
        if detail == "option_value" and "key" in error.params:
            name = f"{self.cleaned_data['kind']}__{error.params['key']}"
            return name if name in self.fields else None
        if detail in ("club", "duplicate_player"):
            return "club" if "club" in self.fields else None
        if isinstance(error, PlayerError):
            if detail == "player_count":
                engine = find_game(self.cleaned_data["kind"])
                if len(seats) > engine.max_players:
                    return seats[engine.max_players][0]
                filled = {name for name, _spec in seats}
                blank = [
                    f"player_{s}"
                    for s in range(1, self.seat_count + 1)
                    if f"player_{s}" not in filled
                ]
                return blank[0] if blank else None
            # Duplicates name the later seat: the last seat holding the name.
            for field_name, spec in reversed(seats):
                if spec.name == error.player:
                    return field_name
            return "player_1"
        return None


def start_error_text(error: RuleError, kind: str) -> str:
    """What people read when a game cannot be started, from the error's stable code."""
    detail = error.detail
    name = error.player or ""
    if detail == "player_count":
        engine = find_game(kind)
        values = {"game": games.label_of(kind), "count": error.params.get("count", 0)}
        values |= {"min": engine.min_players, "max": engine.max_players}
        text = gettext("%(game)s is played by %(min)d to %(max)d players, not %(count)d.")
        return l10n.sentence(text, values)
    texts: dict[str | None, Any] = {
        "duplicate_name": _(
            "“%(name)s” and “%(other)s” are the same name (letter case and accents aside): "
            "give each seat a different name."
        ),
        "blank_name": _("A player's name cannot be blank."),
        "name_too_long": _("A name has at most %(max)d characters."),
        "duplicate_player": _("A club player can sit in one seat only."),
        "club": _("A seated club player must be a player of the game's club."),
        "stake": _("Type the stake as an amount such as 0.25: digits and a point, no sign."),
        "currency": _("Type a three-letter currency code such as USD."),
        "key_not_allowed": _("Only a game played for stakes takes a stake and a currency."),
    }
    if error.key in money.MONEY_MESSAGES:  # the money rule's own sentence names the currency
        return error_message(error)
    if detail == "option_value":
        minimum = error.params.get("minimum")
        if isinstance(minimum, int):
            text = gettext("Type a whole number of at least %(minimum)d.")
            return l10n.sentence(text, {"minimum": minimum})
        return gettext("This value is not one the rule allows.")
    if detail in texts:
        other = error.params.get("other", "")
        values = {"name": name, "other": other, "max": MAX_NAME_LENGTH}
        return l10n.sentence(str(texts[detail]), values)
    return error_message(error)
