"""What the director's forms share: the table sizes and most rounds offered, the words for the
tournaments services' refusals (built from the error's stable code, so that they can be
translated), and the check of a player's name.

Names starting with ``_`` are shared within ``tournaments.forms`` only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ops import l10n
from scoring import games
from scoring.messages import error_message, translated_params
from tournaments import localtime
from tournaments.errors import TournamentError


def table_sizes() -> range:
    """The table sizes offered: from the fewest to the most players of any registered game
    (the service refuses those the chosen game does not allow)."""
    adapters = games.all_adapters()
    return range(
        min(a.rules.min_players for a in adapters), max(a.rules.max_players for a in adapters) + 1
    )


MAX_ROUNDS = 99
"""The most rounds the form takes for any game (``GameRules.max_rounds`` may be fewer)."""


# --- words for the services' refusals ---------------------------------------------------------

ERROR_TEXT: dict[str, Promise] = {
    "not_director": _("Only the club's directors run its tournaments."),
    "bad_name": _("Give it a name of 1 to 120 characters."),
    "bad_stake": _("Type the stake as an amount such as 0.25, and a three-letter currency."),
    "bad_sizes": _("%(game)s is played by %(min)d to %(max)d players: tick only those sizes."),
    "bad_prefer": _("The preferred size must be one of the ticked table sizes."),
    "bad_rounds": _("Type a whole number of rounds from 1 to %(max)d."),
    "bad_hands_per_round": _("Type a whole number of hands from 1 to %(max)d."),
    "bad_method": _("Choose one of the seating methods."),
    "bad_missed_round_score": _("Choose how a missed round scores."),
    "zero_for_rook": _(
        "A missed round of %(title)s cannot score zero: the lowest total wins, so missing a "
        "round would be an advantage."
    ),
    "bad_basis": _("Choose what the standings add up."),
    "bad_confirmation": _("Choose who confirms a table's hands."),
    "bad_reason": _("Say why in at most %(max)d characters."),
    "bad_time_zone": _("Choose a time zone from the list."),
    "bad_minutes_per_round": _("Type a whole number of minutes from 1 to 1440, or leave it blank."),
    "bad_seed": _("Type a whole number of at least 0."),
    "other_club": _("%(name)s is not a player of this club."),
    "already_registered": _("%(name)s is already registered."),
    "finished": _("Every round is seated: it is too late to enter."),
    "round_not_complete": _("Round %(round)s is not complete: close it before seating the next."),
    "all_seated": _("Every round of this tournament is seated."),
    "not_seated": _("That player has no seat in this round."),
    "not_published": _("The round is not published."),
    "complete": _("The round is complete: it can no longer change."),
    "results_exist": _(
        "The round has results: its seating can no longer change. Correct the results instead."
    ),
    "already_seated": _("%(name)s already sits in this round."),
    "already_seated.alike": _(
        "%(name)s and %(other)s are the same name: %(other)s already sits in this round."
    ),
    "unconfirmed": _(
        "Round %(round)s cannot close yet. Tables with hands not confirmed: %(numbers)s. "
        "Confirm or resolve those hands first: a director may confirm a hand, with a reason, "
        "on the table's hand page."
    ),
}


def error_text(exc: TournamentError, **params: object) -> str:
    """What people read when a service refuses a request, from the error's message key (else
    its stable code) and
    the values its words name (the error's details and parameters, then ``params``); the
    error's own sentence (translated, ``scoring.messages.error_message``) when the code has
    no words here or a value is missing."""
    template = ERROR_TEXT.get(exc.key, ERROR_TEXT.get(exc.code))
    if template is None:
        return error_message(exc)
    values = {**translated_params(exc.context()), **params}
    try:
        return l10n.sentence(str(template), values)
    except (KeyError, TypeError, ValueError):
        return error_message(exc)


# --- times ------------------------------------------------------------------------------------


class LocalDateTimeField(forms.Field):
    """A time typed on a director's form: a wall time in the tournament's zone, or an instant
    with its offset (``tournaments.localtime``: the one rule). The field reads the text
    (:func:`tournaments.localtime.parse`: ``2025-03-15T18:30``, what a ``datetime-local``
    input sends, or ``2025-03-15T18:30-05:00``); the service turns it into the instant in the
    tournament's zone (:func:`tournaments.localtime.instant`), and its refusal (a time the
    zone skips, or shows twice) comes back next to this field.

    Cleans to None (blank), a naive ``datetime`` (a wall time) or an aware one (an instant);
    unreadable text is a validation error (code ``bad_format``)."""

    widget: forms.Widget = forms.DateTimeInput(
        attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
    )

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", localtime.DESCRIPTION)
        super().__init__(**kwargs)

    def offer(self, instants: list[str]) -> None:
        """After a wall time the zone shows twice was refused: offer the instants it could be
        (ISO 8601 with their offsets, earlier first), as a choice, since a ``datetime-local``
        input cannot take an offset. The choice posts the instant with its offset."""
        labels = (gettext("%(time)s, the first time"), gettext("%(time)s, the second time"))
        choices = [("", gettext("Which one?"))]
        for i, instant in enumerate(instants):
            label = labels[i] if i < len(labels) else "%(time)s"
            choices.append((instant, label % {"time": instant}))
        self.widget = forms.Select(choices=choices)

    def to_python(self, value: Any) -> datetime | None:
        if isinstance(value, datetime):
            return value
        text = str(value).strip() if value is not None else ""
        if not text:
            return None
        try:
            return localtime.parse(text, field=str(self.label or "time"))
        except TournamentError as exc:
            raise ValidationError(error_message(exc), code="bad_format") from None
