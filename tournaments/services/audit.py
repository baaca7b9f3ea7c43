"""The tournament's audit (issue 12): every change to its rounds and registrations is kept as
an :class:`~tournaments.models.AuditEntry` with who (the director's user; ``None`` for the
system, such as the round clock or a round completed by its last result), when and why.

Changes to a table's hands are the game's own trail (``scoring.Hand`` revisions and
``scoring.HandEvent``); :func:`tournaments.selectors.tournament_audit` shows both."""

from __future__ import annotations

from typing import Any

from scoring.permissions import MAX_REASON_LENGTH
from tournaments.errors import TournamentError
from tournaments.models import AuditEntry


def _reason(reason: object) -> str:
    """A reason as kept: stripped text of at most 500 characters.

    Raises:
        TournamentError: ``bad_reason`` (not text, or too long); nothing is changed.
    """
    if reason is None:
        return ""
    if not isinstance(reason, str) or len(reason.strip()) > MAX_REASON_LENGTH:
        raise TournamentError("bad_reason", params={"max": MAX_REASON_LENGTH}, field="reason")
    return reason.strip()


def audit_user_of(by: Any) -> Any:
    """The user to record: a signed-in user, else None (the system)."""
    return by if by is not None and getattr(by, "is_authenticated", False) else None


def audit_record(
    tournament_id: int,
    action: str,
    *,
    by: Any = None,
    reason: object = "",
    round_number: int | None = None,
    table_number: int | None = None,
    **details: Any,
) -> AuditEntry:
    """Keep one step of the tournament's audit, in the caller's transaction.

    Args:
        action: an ``AuditEntry.Action``.
        by: the user who made the change (None: the system).
        reason: why (optional; stripped, at most 500 characters).
        details: the step's facts (JSON: names, numbers).

    Raises:
        TournamentError: ``bad_reason`` (a reason over 500 characters).
    """
    return AuditEntry.objects.create(
        tournament_id=tournament_id,
        action=action,
        round_number=round_number,
        table_number=table_number,
        user=audit_user_of(by),
        reason=_reason(reason),
        details=details,
    )
