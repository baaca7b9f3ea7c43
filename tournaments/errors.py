"""Errors of the tournaments services: a request that cannot be done, with a stable code.

:class:`TournamentError` is a bad request (400: table sizes the game does not allow, a player
of another club); :class:`TournamentConflict` a request the tournament's state refuses (409:
seating round r + 1 while round r is still playing, regenerating a seating with results).
Both change nothing.
"""

from __future__ import annotations


class TournamentError(Exception):
    """A request that breaks a rule of tournaments.

    Args:
        code: a stable code (``bad_sizes``, ``too_few_players``, ``already_registered``…).
        message: plain English for people and logs.
        field: the request field at fault, where there is one.
    """

    status = 400

    def __init__(self, code: str, message: str, *, field: str | None = None, **details: object):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.details = details

    def to_dict(self) -> dict[str, object]:
        """The error as JSON: code, message, the field and details where given."""
        out: dict[str, object] = {"code": self.code, "message": self.message}
        if self.field is not None:
            out["field"] = self.field
        out.update(self.details)
        return out


class TournamentConflict(TournamentError):
    """A request the tournament's current state refuses (the same request may work later)."""

    status = 409
