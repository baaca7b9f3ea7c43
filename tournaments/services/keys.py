"""The idempotency keys of the tournaments' creates: a tournament, a round's seat request
(``ops.idempotency``: the one rule; these are its lookups and decisions for this app). A
user's create keys are one space with scoring's games and imports
(``ops.idempotency.refuse_if_held_elsewhere``, with the lookups registered in
``TournamentsConfig.ready``)."""

from __future__ import annotations

from typing import Any

from ops import idempotency
from tournaments.errors import TournamentConflict
from tournaments.models import AuditEntry, Round, Tournament
from tournaments.services.audit import audit_user_of


def key_reused() -> TournamentConflict:
    """The 409 ``idempotency_key_reused`` for an ``Idempotency-Key`` its caller used for
    another request (to raise)."""
    return TournamentConflict("idempotency_key_reused")


def seat_replayed(by: Any, key: str, fingerprint: str) -> Round | None:
    """The round an earlier seat request of ``by`` under ``key`` asked for, as it is now,
    when it was this request (``fingerprint``); None when the key is new to the caller's
    seat requests (then checked against their other creates).

    Raises:
        TournamentConflict: ``idempotency_key_reused``: another request under the key.
    """
    user = audit_user_of(by)
    earlier = AuditEntry.objects.filter(  # the caller's key, in any tournament
        action=AuditEntry.Action.SEAT, user=user, details__idempotency_key=key
    ).first()
    if earlier is None:
        idempotency.refuse_if_held_elsewhere(
            getattr(user, "pk", None), key, kind="rounds", refusal=key_reused
        )
        return None
    idempotency.replay_or_refuse(
        str(earlier.details.get("request_fingerprint", "")), fingerprint, key_reused
    )
    found = (
        Round.objects.filter(tournament_id=earlier.tournament_id, number=earlier.round_number)
        .order_by()
        .first()
        if earlier.round_number is not None
        else None
    )
    if found is None:  # a round asked for, then taken back: the key's request is spent
        raise key_reused()
    return found


def seat_holds_key(user_id: int, key: str) -> bool:
    """Whether user ``user_id`` asked for a round's seating under ``key``
    (``ops.idempotency.holder_register``)."""
    return AuditEntry.objects.filter(
        action=AuditEntry.Action.SEAT, user_id=user_id, details__idempotency_key=key
    ).exists()


def tournament_holds_key(user_id: int, key: str) -> bool:
    """Whether user ``user_id`` created a tournament under ``key``
    (``ops.idempotency.holder_register``)."""
    return Tournament.objects.filter(created_by_id=user_id, idempotency_key=key).exists()


def tournament_replay_or_refuse(existing: Tournament, fingerprint: str) -> None:
    """The one decision (:func:`ops.idempotency.replay_or_refuse`) for a tournament created
    under a key its creator used already: a retry, or 409 ``idempotency_key_reused``."""
    idempotency.replay_or_refuse(
        existing.request_fingerprint,
        fingerprint,
        key_reused,
    )
