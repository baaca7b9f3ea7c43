"""The new-tournament form: the game, its house rules and stake, the seating method, table
sizes, rounds, time zone and clock, the standings basis, who confirms a table's hands; a refusal of
:func:`tournaments.services.tournament_create` is shown next to the field it concerns."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any, ClassVar, cast

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ops import idempotency, l10n, languages
from scoring import games
from scoring.forms import (
    DEFAULT_CURRENCY,
    HOUSE_RULES,
    chosen_options,
    currency_field,  # the start-a-game page's fields: the same controls here
    game_choices,
    option_field,
    plays_for_stakes,
    stake_field,
    start_error_text,
)
from scoring.games import adapter_for
from scoring.models import Game
from scoring.names import NameFormField
from tonkrules import RuleError
from tournaments import localtime
from tournaments.errors import TournamentError
from tournaments.forms.common import MAX_ROUNDS, LocalDateTimeField, error_text, table_sizes
from tournaments.models import (
    TOURNAMENT_NAME_LENGTH,
    Club,
    Tournament,
)


def default_time_zone(club: Club) -> str:
    """The time zone a new tournament of ``club`` starts with: its latest tournament's, else
    UTC."""
    latest = club.tournaments.order_by("-created_at", "-id").values_list("time_zone", flat=True)
    return latest.first() or "UTC"


def _time_zone_choices() -> list[tuple[str, str]]:
    """Every zone, by its id, labelled with the place it is named after in the active
    language and its id (``কোলকাতা · Asia/Kolkata``), so a director finds it either way."""
    choices = []
    for zone in localtime.zone_names():
        place, plain = l10n.zone_place(zone), zone.replace("_", " ")
        choices.append((zone, plain if place == plain else f"{place} · {plain}"))
    return choices


def _sizes_text(sizes: list[int]) -> str:
    return ", ".join(str(s) for s in sizes)


class TournamentForm(idempotency.KeyedForm):
    """Create a tournament: every option of :func:`tournaments.services.tournament_create`.

    Args:
        club: the club the tournament belongs to.

    The options that depend on the game (house rules, Tonk stake, rounds, table sizes,
    preferred size, hands per round) come once per game, each with that game's default, and
    only the chosen game's are read, so the three games' options sit on one page (a script
    shows the chosen game's only).
    """

    kind = forms.ChoiceField(label=_("Game"), widget=forms.RadioSelect, initial=games.names()[1])
    name = NameFormField(
        label=_("Name"),
        max_length=TOURNAMENT_NAME_LENGTH,
        help_text=_("Shown on the standings and the table cards, such as “Spring Rook night”."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    method = forms.ChoiceField(
        label=_("Seating method"),
        choices=Tournament.Method.choices,
        initial=Tournament.Method.BALANCED,
        widget=forms.RadioSelect,
        help_text=_("How each round's tables are chosen."),
    )
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        help_text=_(
            "The start time is read in this zone, and round times and the clock are shown in it."
        ),
    )
    starts_at = LocalDateTimeField(
        label=_("Start time"),
        required=False,
        help_text=_(
            "Optional: when round 1 starts, as the clocks show it in the time zone above; "
            "shown to players. A time the clocks skip that day is refused; for one they show "
            "twice (the hour they go back) the page asks which of the two is meant."
        ),
    )
    minutes_per_round = forms.IntegerField(
        label=_("Minutes per round"),
        required=False,
        min_value=1,
        max_value=24 * 60,
        help_text=_(
            "Optional: the round clock starts when a round is published; at the deadline time "
            "is called and each table finishes the hand in progress."
        ),
        widget=forms.NumberInput(attrs={"class": "short", "inputmode": "numeric"}),
    )
    missed_round_score = forms.ChoiceField(
        label=_("A missed round scores"),
        choices=Tournament.Missed.choices,
        initial=Tournament.Missed.AVERAGE,
        widget=forms.RadioSelect,
        help_text=_(
            "For a sit-out, a late entry, an absence or a table not played. Zero is refused for a "
            "game whose lowest total wins."
        ),
    )
    basis = forms.ChoiceField(
        label=_("Standings add up"),
        choices=Tournament.Basis.choices,
        initial=Tournament.Basis.TOTAL,
        widget=forms.RadioSelect,
        help_text=_(
            "Total score: points (stake units in a game played for stakes) added up. Placement: "
            "at each table a player earns (players − place) ÷ (players − 1), so tables of "
            "different sizes compare fairly."
        ),
    )
    confirmation = forms.ChoiceField(
        label=_("Hands count once confirmed by"),
        choices=Game.Confirmation.choices,
        initial=Game.Confirmation.ONE_OTHER,
        widget=forms.RadioSelect,
        help_text=_(
            "A hand entered at a table is provisional until confirmed: the standings and the "
            "next round's seating count confirmed hands only. Any player may dispute a hand; "
            "a director resolves it."
        ),
    )
    seed = forms.IntegerField(
        label=_("Seating seed"),
        initial=0,
        min_value=0,
        max_value=2**31 - 1,
        help_text=_(
            "The seating's random seed: the same seed and players give the same tables; change "
            "it for a different draw."
        ),
        widget=forms.NumberInput(attrs={"class": "short", "inputmode": "numeric"}),
    )
    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        initial="",
        help_text=_(
            "The language of the public pages, the table cards and the big screen, for a "
            "visitor who has not chosen one."
        ),
    )
    stake = stake_field()
    currency = currency_field()
    idempotency_key = idempotency.KeyField()

    #: The per-game options of the service, by the service's field name.
    GAME_FIELDS: ClassVar[tuple[str, ...]] = ("rounds", "sizes", "prefer", "hands_per_round")

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.club = club
        cast(forms.ChoiceField, self.fields["kind"]).choices = game_choices(
            _("%(game)s, %(min)d–%(max)d a table")
        )
        cast(forms.ChoiceField, self.fields["time_zone"]).choices = _time_zone_choices()
        cast(forms.ChoiceField, self.fields["language"]).choices = [
            ("", _("None: each visitor's browser decides")),
            *languages.local_names(),
        ]
        self.fields["time_zone"].initial = default_time_zone(club)
        for game in games.names():
            self._add_game_fields(game)
            for rule in HOUSE_RULES[game]:
                self.fields[rule.field_name] = option_field(game, rule)
        if not self.is_bound:
            self.initial.setdefault("idempotency_key", uuid.uuid4().hex)

    def _add_game_fields(self, game: str) -> None:
        """Rounds, table sizes, preferred size and hands per round of one game, with that
        game's defaults as initial values."""
        rules = adapter_for(game).rules
        sizes, prefer = list(rules.table_sizes.allowed), rules.table_sizes.preferred
        if rules.default_rounds is not None:  # Rook: round r plays contract r, 11 rounds
            rounds = forms.IntegerField(
                label=_("Rounds"),
                required=False,
                min_value=1,
                max_value=rules.max_rounds,
                initial=rules.default_rounds,
            )
        else:
            rounds = forms.IntegerField(
                label=_("Rounds"), required=False, min_value=1, max_value=rules.max_rounds
            )
        rounds.widget.attrs.update({"class": "short", "inputmode": "numeric"})
        self.fields[f"{game}__rounds"] = rounds
        self.fields[f"{game}__sizes"] = forms.TypedMultipleChoiceField(
            label=_("Table sizes"),
            choices=[(s, l10n.digits_lazy(s)) for s in table_sizes()],
            coerce=int,
            required=False,
            initial=sizes,
            widget=forms.CheckboxSelectMultiple,
        )
        self.fields[f"{game}__prefer"] = forms.TypedChoiceField(
            label=_("Preferred table size"),
            choices=[(s, l10n.digits_lazy(s)) for s in table_sizes()],
            coerce=int,
            required=False,
            initial=prefer,
        )
        if rules.max_hands_per_round > 1:  # not fixed at one (Rook's contract round)
            top = rules.max_hands_per_round
            hands = forms.IntegerField(
                label=_("Hands per round"),
                required=False,
                min_value=1,
                max_value=top,
                initial=rules.default_hands_per_round,
            )
            hands.widget.attrs.update({"class": "short", "inputmode": "numeric"})
            self.fields[f"{game}__hands_per_round"] = hands

    # --- what the template shows -------------------------------------------------------------

    def game_groups(self) -> Iterator[dict[str, Any]]:
        """Per game: its name, title, the options that depend on it (each with the line that
        explains it and its default), and its house rules."""
        for adapter in games.all_adapters():
            kind, title = adapter.name, adapter.label
            engine = adapter.rules
            sizes, prefer = list(engine.table_sizes.allowed), engine.table_sizes.preferred
            # Help made of words and numbers only: the numbers in the language's digits.
            rounds_help = l10n.digits(adapter.rounds_help())
            hands_help = l10n.digits(adapter.hands_help())
            options = [
                {"field": self[f"{kind}__rounds"], "help": rounds_help},
                {
                    "field": self[f"{kind}__sizes"],
                    "help": l10n.digits(
                        gettext(
                            "The players a table may seat (%(game)s: %(min)d to %(max)d). "
                            "Default: %(sizes)s."
                        )
                        % {
                            "game": title,
                            "min": engine.min_players,
                            "max": engine.max_players,
                            "sizes": _sizes_text(sizes),
                        }
                    ),
                },
                {
                    "field": self[f"{kind}__prefer"],
                    "help": l10n.digits(
                        gettext(
                            "Seating makes as many tables of this size as it can. "
                            "Default: %(prefer)d."
                        )
                        % {"prefer": prefer}
                    ),
                },
            ]
            hands_name = f"{kind}__hands_per_round"
            hands_field = self[hands_name] if hands_name in self.fields else None
            yield {
                "game": kind,
                "title": title,
                "has_stakes": adapter.has_stakes,
                "options": options,
                "hands": {"field": hands_field, "help": hands_help},
                "rules": [
                    {"rule": rule, "field": self[rule.field_name]} for rule in HOUSE_RULES[kind]
                ],
            }

    # --- reading the form --------------------------------------------------------------------

    def _other_fields(self, kind: str | None) -> list[str]:
        """The fields of the games not chosen, and the stake unless Tonk: not read."""
        names = [r.field_name for game in games.names() if game != kind for r in HOUSE_RULES[game]]
        names += [
            f"{game}__{name}"
            for game in games.names()
            if game != kind
            for name in self.GAME_FIELDS
            if f"{game}__{name}" in self.fields
        ]
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
        return cleaned

    def options(self) -> dict[str, object]:
        """The chosen game's house rules that differ from their defaults, as JSON."""
        return chosen_options(self.cleaned_data)

    def create_arguments(self) -> dict[str, Any]:
        """The keyword arguments of :func:`tournaments.services.tournament_create` (all but the
        club and the user). Blank per-game values are left out: the service's defaults."""
        data = self.cleaned_data
        kind = data["kind"]
        arguments: dict[str, Any] = {
            "kind": kind,
            "name": data["name"],
            "options": self.options(),
            "method": data["method"],
            "time_zone": data["time_zone"],
            "starts_at": data.get("starts_at"),
            "minutes_per_round": data.get("minutes_per_round"),
            "missed_round_score": data["missed_round_score"],
            "basis": data["basis"],
            "confirmation": data["confirmation"],
            "seed": data["seed"] if data.get("seed") is not None else 0,
            "language": data.get("language") or "",
            "idempotency_key": data.get("idempotency_key") or None,
        }
        for name in self.GAME_FIELDS:
            value = data.get(f"{kind}__{name}")
            if value not in (None, "", []):
                arguments[name] = value
        if plays_for_stakes(kind):
            stake = (data.get("stake") or "").replace(",", ".") or None
            currency = (data.get("currency") or "").upper() or None
            if stake is not None and currency is None:
                currency = DEFAULT_CURRENCY
            if stake is not None or currency is not None:
                arguments["stake"] = stake
                arguments["currency"] = currency
        return arguments

    # --- refusals ----------------------------------------------------------------------------

    def add_service_error(self, exc: TournamentError) -> None:
        """Show why the service refused to create the tournament, next to the field concerned."""
        kind = self.cleaned_data.get("kind", "")
        field = self._field_of(exc, kind)
        cause = exc.__cause__
        if exc.code in ("bad_options", "bad_stake") and isinstance(cause, RuleError):
            text = start_error_text(cause, kind)
        else:
            params: dict[str, object] = {"max": self._top(exc.code, kind)}
            if kind in games.names():
                engine = adapter_for(kind).rules
                params["game"] = games.label_of(kind)
                params["min"] = engine.min_players
                if exc.code == "bad_sizes":
                    params["max"] = engine.max_players
            text = error_text(exc, **params)
        target = self.fields.get(field or "")
        instants = exc.details.get("instants")
        if isinstance(target, LocalDateTimeField) and isinstance(instants, list):
            target.offer([str(i) for i in instants])  # a wall time shown twice: which one?
        self.add_error(field, text)

    @staticmethod
    def _top(code: str, kind: str) -> int:
        if kind not in games.names():
            return MAX_ROUNDS
        rules = adapter_for(kind).rules
        if code == "bad_rounds":
            return rules.max_rounds
        if code == "bad_hands_per_round":
            return rules.max_hands_per_round
        return MAX_ROUNDS

    def _field_of(self, exc: TournamentError, kind: str) -> str | None:
        field = exc.field
        if exc.code == "bad_name":
            return "name"
        if field in self.GAME_FIELDS:
            name = f"{kind}__{field}"
            return name if name in self.fields else None
        if field == "options":
            cause = exc.__cause__
            key = cause.params.get("key") if isinstance(cause, RuleError) else None
            name = f"{kind}__{key}"
            return name if key and name in self.fields else None
        if field in ("stake", "currency") and plays_for_stakes(kind):
            cause = exc.__cause__
            if isinstance(cause, RuleError) and cause.detail == "currency":
                return "currency"
            return "stake"
        if field in self.fields:
            return field
        return None
