"""Errors of the tournaments services: a request that cannot be done, with a stable code.

:class:`TournamentError` is a bad request (400: table sizes the game does not allow, a player
of another club); :class:`TournamentConflict` a request the tournament's state refuses (409:
seating round r + 1 while round r is still playing, regenerating a seating with results).
Both change nothing. Their sentences are templates keyed by code (:data:`TOURNAMENT_MESSAGES`),
rendered at the edge by :func:`scoring.messages.error_message`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from django.utils.translation import gettext_noop as _

from scoring.messages import error_message
from tonkrules.errors import DomainError
from tonkrules.messages import Template, ngettext_lazy

#: Each refusal's English sentence, by message key (its code, or ``code.variant``); a key
#: ``*.variant`` is the sentence of that variant whatever the code (``bad_seed.whole``).
TOURNAMENT_MESSAGES: dict[str, Template] = {
    "*.choice": _("%(field)s must be one of %(allowed)s"),
    "*.whole": _("%(field)s must be a whole number from %(low)s to %(high)s"),
    "not_director": _("only the club's directors run its tournaments"),
    "bad_name": _("a tournament needs a name of 1 to 120 characters"),
    "bad_name.substitute": _("name the substitute"),
    "bad_stake": _("%(title)s is not played for stakes: no stake or currency"),
    "bad_sizes": _(
        "%(title)s is played by %(min)s to %(max)s players: tables of %(sizes)s are not all allowed"
    ),
    "bad_prefer": _("the preferred size must be one of the table sizes"),
    "bad_hands_per_round.one": _(
        "a round of a %(title)s tournament plays one round of the game, no more"
    ),
    "zero_for_rook": _(
        "a missed round of %(title)s cannot score zero: the lowest total wins, so missing a "
        "round would be an advantage"
    ),
    "bad_time_zone": _("unknown time zone %(time_zone)r"),
    "bad_format.time": _(
        "%(field)s: %(text)s is not a date and time; write 2025-03-15T18:30 (a wall time in "
        "the tournament's time zone) or add its offset, 2025-03-15T18:30-05:00"
    ),
    "bad_format.time_gap": _(
        "%(field)s: %(time)s does not exist in %(zone)s: the clocks go forward from "
        "UTC%(before)s to UTC%(after)s then, skipping it; give a time outside that gap"
    ),
    "bad_format.time_fold": _(
        "%(field)s: %(time)s happens twice in %(zone)s, as the clocks go back: %(first)s or "
        "%(second)s; send the one meant, with its offset"
    ),
    "other_club": _("that player is not a player of this club"),
    "finished": _("every round is seated: too late to enter"),
    "already_registered": _("%(name)s is already registered"),
    "round_not_complete": _("round %(round)s is not complete: close it before seating the next"),
    "all_seated": _("all %(rounds)s rounds are seated"),
    "idempotency_key_reused": _(
        "this idempotency key was used for a different request (another body or resource)"
    ),
    "too_few_players.withdraw": _(
        "withdrawing %(name)s would leave %(players)s players for round %(round)s, who cannot "
        "fill a table: the smallest table seats %(smallest)s; register another player first"
    ),
    "not_seated": _("round %(round)s is not seated yet"),
    "not_seated.player": _("%(name)s has no seat in round %(round)s"),
    "not_published": _("round %(round)s is not published"),
    "complete": _("round %(round)s is complete"),
    "unconfirmed": ngettext_lazy(
        "round %(round)s cannot close: table %(numbers)s has hands that are not confirmed; "
        "confirm or resolve them first (a director may confirm a hand, with a reason, on the "
        "table's hand page)",
        "round %(round)s cannot close: tables %(numbers)s have hands that are not confirmed; "
        "confirm or resolve them first (a director may confirm a hand, with a reason, on the "
        "table's hand page)",
        "count",
    ),
    "results_exist": _("round %(round)s has results: its seating can no longer change"),
    "results_exist.table": _("the table has hands: its seats can no longer change"),
    "already_seated": _("%(name)s already sits in round %(round)s"),
    "already_seated.alike": _(
        "%(name)s and %(other)s are the same name: %(other)s already sits in round %(round)s"
    ),
    "seated_elsewhere": _(
        "%(name)s already sits at table %(table)s of %(tournament)s (round %(round)s) at that "
        "time; a director may confirm it, with a reason"
    ),
    "reason_needed.elsewhere": _(
        "give the reason for seating someone at two of the club's tables at once"
    ),
    "substitutes_dropped": ngettext_lazy(
        "seating round %(round)s again drops the substitute of %(names)s, who is no longer "
        "seated in it; confirm to drop it",
        "seating round %(round)s again drops the substitutes of %(names)s, who are no longer "
        "seated in it; confirm to drop them",
        "count",
    ),
    "bad_reason": _("a reason is text of at most %(max)s characters"),
    "seating_unfinished": _(
        "the seating was started %(attempts)s times and never finished; try again, and if it "
        "fails again, tell whoever runs the server"
    ),
    "registered": _(
        "%(name)s is registered in this tournament: a registered player cannot substitute"
    ),
    "registered.alike": _(
        "%(name)s and %(other)s are the same name: %(other)s is registered in this tournament, "
        "and a registered player cannot substitute"
    ),
}


class TournamentError(DomainError):
    """A request that breaks a rule of tournaments.

    Args:
        key: the message key: the stable code (``bad_sizes``, ``too_few_players``,
            ``already_registered``…), or ``code.variant``. The code is the part before the dot.
        params: values the sentence names that the client does not need.
        field: the request field at fault, where there is one.
        details: values a client needs (e.g. the round); the sentence may name them too, and
            :meth:`to_dict` gives them.
    """

    status = 400
    messages: ClassVar[Mapping[str, Template]] = TOURNAMENT_MESSAGES

    def __init__(
        self,
        key: str,
        /,
        *,
        params: Mapping[str, object] | None = None,
        field: str | None = None,
        **details: object,
    ) -> None:
        self.code = key.partition(".")[0]
        self.field = field
        self.details = details
        self.cause: DomainError | None = None
        super().__init__(key, params=params)

    @classmethod
    def because(cls, code: str, cause: DomainError, *, field: str | None = None) -> TournamentError:
        """A refusal whose reason is another domain error (the engine's rule error for the
        options or the stake, the seating's refusal): its code is ``code``, its sentence the
        cause's. Raise it ``from cause``."""
        error = cls(code, params=cause.context(), field=field)
        error.cause = cause
        return error

    @property
    def template(self) -> Template:
        """The sentence template: the cause's when the refusal has one (:meth:`because`);
        else the key's, or its variant's (``*.variant``)."""
        if self.cause is not None:
            return self.cause.template
        variant = self.key.partition(".")[2]
        if self.key not in self.messages and variant:
            return self.messages[f"*.{variant}"]
        return super().template

    def context(self) -> dict[str, object]:
        """``details`` and ``params``: every value the sentence may name."""
        return {**self.details, **self.params}

    def to_dict(self) -> dict[str, object]:
        """The error as JSON: code, message, the field and details where given."""
        out: dict[str, object] = {"code": self.code, "message": self.message}
        if self.field is not None:
            out["field"] = self.field
        out.update(self.details)
        return out


class RecordedError(DomainError):
    """A refusal kept as it was recorded (``Round.failure``: a failed seating's code, English
    sentence and values), so that the edge renders it as any other refusal: its ``template``
    is the stored English sentence (a msgid of the catalogues), translated there."""

    code = "recorded"

    def __init__(self, template: str, /, *, params: Mapping[str, object] | None = None) -> None:
        self._template = template
        super().__init__("recorded", params=params)

    @property
    def template(self) -> Template:
        """The stored English sentence."""
        return self._template


def failure_error(failure: Mapping[str, object]) -> TournamentError:
    """The refusal a failed round recorded (``Round.failure``: ``code``, ``template``, the
    English sentence, and ``params``), as a :class:`TournamentError` of that code whose
    sentence is the recorded one. Render it with ``scoring.messages.error_message`` (the
    reader's language) or ``.message`` (English)."""
    params = failure.get("params")
    cause = RecordedError(
        str(failure.get("template") or ""), params=params if isinstance(params, dict) else {}
    )
    return TournamentError.because(str(failure.get("code") or "error"), cause)


def failure_message(failure: Mapping[str, object]) -> str:
    """The one sentence of a failed round's reason (``Round.failure``) in the active language,
    as the dashboard and the API show it (``scoring.messages.error_message``)."""
    return error_message(failure_error(failure))


class TournamentConflict(TournamentError):
    """A request the tournament's current state refuses (the same request may work later)."""

    status = 409
