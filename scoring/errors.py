"""Refusals of the scoring services that are not rule errors (those are ``tonkrules.RuleError``),
and the English sentences of both kinds of error the scoring services raise.

Each conflict carries a stable ``code`` and the facts a client needs to recover (its
``details``, in the API's body); the API answers them with 409 Conflict. The sentences are
templates keyed by code, rendered at the edge by :func:`scoring.messages.error_message`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from django.utils.translation import gettext_noop as _

from scoring import money  # noqa: F401  (declares the money rule's sentences, as below)
from tonkrules.errors import DomainError
from tonkrules.messages import RULE_MESSAGES, Template, declare

#: The sentences of the rule errors the scoring services raise themselves (names a seat can
#: store, club seats, stakes, corrections, request bodies), added to the engine's catalogue.
SCORING_RULE_MESSAGES: dict[str, Template] = {
    "key_not_allowed.stake": _(
        "a stake and a currency are only for a game played for stakes, which %(title)s is not"
    ),
    "not_consecutive.correction_hand": _(
        "hand %(following)s follows; this hand must stay %(sequence)s"
    ),
    "not_consecutive.correction_round": _(
        "round %(following)s follows; this round must stay %(sequence)s"
    ),
    "duplicate_player": _("one club player cannot sit in two seats"),
    "club": _("a seated club player must be a player of the game's club"),
    "bad_value.confirmation": _("confirmation is one of %(choices)s"),
}
declare(SCORING_RULE_MESSAGES, into=RULE_MESSAGES)

#: Each conflict's English sentence, by message key (its code, or ``code.variant``).
CONFLICT_MESSAGES: dict[str, Template] = {
    "conflict": _("this change cannot be made in the game's present state"),
    "stale_revision": _("hand %(number)s is at revision %(current_revision)s, not %(revision)s"),
    "hand_not_next": _(
        "hand %(number)s is not the next one: hand %(last_number)s was entered meanwhile, "
        "so the next is hand %(next)s"
    ),
    "hand_not_next.first": _("hand %(number)s is not the next one: the next is hand %(next)s"),
    "hand_number_required": _(
        "say which hand this is: the body's \"number\" is the hand's number in the game, "
        "one more than the last hand on the sheet"
    ),
    "void_refused.hand": _(
        "only the latest hand of %(title)s can be voided, so that the sequence stays whole; "
        "correct hand %(sequence)s instead"
    ),
    "void_refused.round": _(
        "only the latest round of %(title)s can be voided, so that the sequence stays whole; "
        "correct round %(sequence)s instead"
    ),
    "game_finished": _("the game is finished: no more hands"),
    "game_not_open": _("the game is not open for hands yet"),
    "hand_limit": _("this game takes %(limit)s hands at most: all are entered"),
    "seats_fixed": _("hands are entered: the seats can no longer change"),
    "no_such_hand": _("no current hand %(number)s"),
    "no_such_game": _("this game no longer exists (its round was seated again)"),
    "idempotency_key_reused": _("this idempotency key was used for a different write"),
    "idempotency_key_reused.game": _("this idempotency key was used for a different game"),
    "not_tonk": _("%(title)s is not played for stakes: there is nothing to settle up"),
    "reason_required": _("a reason is needed for this change"),
    "reason_required.closed": _(
        "the round is complete: a change to its hands needs a reason, for the record"
    ),
    "reason_too_long": _("a reason has at most %(max)s characters"),
    "hand_disputed": _("hand %(number)s is disputed: a club director resolves it"),
    "restore_refused": _(
        "hand %(number)s cannot be restored: it no longer follows the hands that count now"
    ),
    "not_voided": _("hand %(number)s is not voided"),
    "not_allowed": _("you may not change this game"),
    "not_allowed.seat": _(
        "only the players seated at this table (each with their seat link) or a club director "
        "may do this"
    ),
    "not_allowed.round_complete": _(
        "the round is complete: only a club director may change its hands now"
    ),
    "not_allowed.director": _("only a club director may do this"),
    "not_allowed.table_link": _(
        "the table link alone only shows this game: choose your seat (or open your seat link) "
        "to change it, so that each change says who made it"
    ),
    "not_allowed.table_key": _(
        "a table key only reads this game: to change it, send your seat's key "
        "(Authorization: Seat <seat key>), or sign in as its creator or a club director"
    ),
    "not_allowed.ends_with_round": _(
        "a tournament table ends with its round: nobody finishes it from the table"
    ),
    "not_allowed.own_hand": _("you entered this hand: another player at the table confirms it"),
    "not_allowed.same_device": _(
        "this phone entered this hand or confirmed it already: another player confirms it on "
        "their own phone"
    ),
    "not_allowed.seat_taken": _(
        "this phone has already played at this table as another seat: one phone is one player "
        "(open your own seat link on your own phone)"
    ),
    "not_allowed.seat_in_use": _(
        "this seat already plays on another phone: take it up again with its own seat link"
    ),
    "not_allowed.referee": _("you play at this table: another club director resolves its hands"),
    "not_allowed.director_void": _(
        "a club director voided this hand: only a club director restores it"
    ),
    "not_allowed.void_confirmed": _(
        "this hand is confirmed: correct it (the table then confirms the correction) or ask a "
        "club director to void it"
    ),
    "not_allowed.director_confirms": _("in this game a club director confirms each hand"),
}


class ScoringConflict(DomainError):
    """A write that cannot be made in the game's present state.

    Args:
        key: the message key: the class's ``code`` (the default), or ``code.variant``.
        params: values the sentence names that the client does not need.
        details: values a client needs to recover (e.g. the current revision); the sentence
            may name them too, and :meth:`to_dict` gives them.

    Attributes:
        code: a stable code (``stale_revision``, ``void_refused``, ``game_finished``, ...).
    """

    code = "conflict"
    messages: ClassVar[Mapping[str, Template]] = CONFLICT_MESSAGES

    def __init__(
        self,
        key: str | None = None,
        /,
        *,
        params: Mapping[str, object] | None = None,
        **details: object,
    ) -> None:
        self.details = details
        super().__init__(key or self.code, params=params)

    def context(self) -> dict[str, object]:
        """``details`` and ``params``: every value the sentence may name."""
        return {**self.details, **self.params}

    def to_dict(self) -> dict[str, object]:
        """The conflict as JSON: code, the English message and the details."""
        return {"code": self.code, "message": self.message, **self.details}


class StaleRevision(ScoringConflict):
    """A correction made from a revision that is no longer the current one."""

    code = "stale_revision"


class HandNotNext(ScoringConflict):
    """A hand sent as hand ``number`` when the game's next hand is another (``next``): another
    phone entered one meanwhile (``last_number``), or the same hand is sent twice. Nothing is
    saved; the sender shows the sheet as it stands and asks before sending again.
    ``meanwhile=False`` (a score sheet's hand numbered out of its place: nothing was entered
    meanwhile) words it without "entered meanwhile"."""

    code = "hand_not_next"

    def __init__(self, *, number: int, last_number: int, meanwhile: bool = True) -> None:
        super().__init__(
            "hand_not_next" if last_number and meanwhile else "hand_not_next.first",
            number=number,
            next=last_number + 1,
            last_number=last_number,
        )


class HandNumberRequired(ScoringConflict):
    """A hand sent through the API without saying which hand it is (its ``number``): the API
    answers 428 Precondition Required, nothing saved."""

    code = "hand_number_required"


class VoidRefused(ScoringConflict):
    """A void the rules do not allow (Rook, Bluke: only the latest hand may be voided)."""

    code = "void_refused"


class GameFinished(ScoringConflict):
    """A change to a game that is finished."""

    code = "game_finished"


class GameNotOpen(ScoringConflict):
    """A hand for a game that is seated but not open yet (a tournament round not published)."""

    code = "game_not_open"


class HandLimitReached(ScoringConflict):
    """A hand beyond the number a game takes (a tournament table that has reported)."""

    code = "hand_limit"


class SeatsFixed(ScoringConflict):
    """A change of seats in a game that already has hands."""

    code = "seats_fixed"


class HandNotFound(ScoringConflict):
    """No current hand with that number."""

    code = "no_such_hand"


class GameNotFound(ScoringConflict):
    """The game was deleted while the request waited for it (a tournament round seated again
    under a hand being entered): answered 404, like a game that never existed."""

    code = "no_such_game"


class IdempotencyKeyReused(ScoringConflict):
    """An idempotency key already used by the caller for a different request (another body,
    another resource): :func:`ops.idempotency.replay_or_refuse`."""

    code = "idempotency_key_reused"


class NotForStakes(ScoringConflict):
    """Settling up is for a game played for stakes (``GameRules.has_stakes``: Tonk). The code
    stays ``not_tonk``, as the API has always answered it."""

    code = "not_tonk"


class ReasonRequired(ScoringConflict):
    """A change that must say why (a director's resolution, any change once a tournament
    round is complete) was made without a reason, or with one too long to keep."""

    code = "reason_required"


class HandDisputed(ScoringConflict):
    """A confirmation of a disputed hand: a director resolves it first."""

    code = "hand_disputed"


class RestoreRefused(ScoringConflict):
    """A voided hand that cannot count again: hands of the sequence were entered after it, or
    the game already holds every hand it takes."""

    code = "restore_refused"


class NotVoided(ScoringConflict):
    """A restore of a hand that is not voided."""

    code = "not_voided"


class NotAllowed(ScoringConflict):
    """The caller may see the game but not make this change (issue 12's permissions); the API
    answers 403. Keys: ``not_allowed`` and its variants (``.seat``, ``.round_complete``,
    ``.director``, ``.own_hand``, ``.director_confirms``, ``.table_link``, ``.table_key`` (the
    API's word for ``.table_link``), ``.ends_with_round``)."""

    code = "not_allowed"
