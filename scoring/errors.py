"""Refusals of the scoring services that are not rule errors (those are ``tonkrules.RuleError``).

Each carries the facts a client needs to recover; the API answers them with 409 Conflict.
"""

from __future__ import annotations


class ScoringConflict(Exception):
    """A write that cannot be made in the game's present state.

    Attributes:
        code: a stable code (``stale_revision``, ``void_refused``, ``game_finished``, ...).
        message: plain English, for logs; pages translate from ``code``.
        details: values a client needs to recover (e.g. the current revision).
    """

    code = "conflict"

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, **self.details}


class StaleRevision(ScoringConflict):
    """A correction made from a revision that is no longer the current one."""

    code = "stale_revision"


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


class IdempotencyKeyReused(ScoringConflict):
    """An idempotency key already used for a different write in this game."""

    code = "idempotency_key_reused"


class NotTonk(ScoringConflict):
    """Settling up is for Tonk, the game played for stakes."""

    code = "not_tonk"
