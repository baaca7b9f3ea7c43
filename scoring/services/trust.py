"""Trust at the table (issue 12): confirming a hand, disputing it, a director's resolution,
restoring a voided hand, and rotating a game's private links.

A hand's ``status`` follows the game's ``confirmation``:

- ``none``: confirmed when entered;
- ``one_other``: provisional until one seat other than the one that entered it confirms;
- ``all``: provisional until every other seat has confirmed;
- ``director``: provisional until a club director confirms.

A director's entry or correction is confirmed at once. Any seat may dispute a hand, with a
reason; it stays disputed until a director resolves it (confirm, correct or void, with a
reason). Every step is kept as a :class:`scoring.models.HandEvent` (who, when, why), and each
is announced after commit like every other change (:mod:`scoring.services.seam`).

Each function is keyword-only, runs in one transaction under the game row's lock, and is safe
to repeat: a confirmation or dispute a seat already made, a restore of a hand that counts, a
resolution already applied change nothing; and a retry with the device's idempotency key
answers with the hand its first request kept, whatever happened since (a late retry of a
dispute never disputes a hand resolved meanwhile).
"""

from __future__ import annotations

from django.db import transaction

from scoring import ledger
from scoring.errors import (
    HandDisputed,
    HandLimitReached,
    HandNotFound,
    NotAllowed,
    NotVoided,
    ReasonRequired,
    RestoreRefused,
)
from scoring.events import Change
from scoring.models import Game, Hand, HandEvent, Seat, new_seat_key, new_table_key
from scoring.permissions import Act, Actor, check, check_confirm, reason_text
from scoring.services.common import (
    hand_fingerprint,
    keep_step,
    line_scores,
    replayed_step,
)
from scoring.services.hands import (
    check_revision,
    correct_locked,
    counting_hands,
    previous_sequence,
    replayed_hand,
    void_locked,
)
from tonkrules import RuleError, find_game


def step_body(reason: object, revision: int | None) -> dict[str, object]:
    """The body of a step's request as its fingerprint sees it (:mod:`ops.idempotency`): the
    reason, and the revision it acts on when the request named one."""
    body: dict[str, object] = {"reason": str(reason or "")}
    if revision is not None:
        body["revision"] = revision
    return body


def _current_hand(game: Game, number: int) -> Hand:
    hand = game.hands.filter(number=number, state=Hand.State.CURRENT).first()
    if hand is None:
        raise HandNotFound(number=number)
    return hand


def _confirmations(hand: Hand) -> list[tuple[int | None, str]]:
    """(seat id, device) of each confirmation of ``hand`` since it last came back from a
    void (a restored hand is the table's to confirm again)."""
    steps = HandEvent.objects.filter(
        hand=hand, action__in=(HandEvent.Action.CONFIRM, HandEvent.Action.RESTORE)
    ).order_by("created_at", "id")
    out: list[tuple[int | None, str]] = []
    for step in steps:
        out = [] if step.action == HandEvent.Action.RESTORE else [*out, (step.seat_id, step.device)]
    return out


def _set_status(game: Game, hand: Hand, status: str) -> None:
    hand.status = status
    hand.save(update_fields=("status",))
    ledger.bump(game)


@transaction.atomic
def hand_confirm(
    *,
    game: Game,
    number: int,
    by: Actor,
    reason: object = "",
    revision: int | None = None,
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> Hand:
    """Confirm the current revision of hand ``number`` (issue 12: Confirmation).

    A seat other than the one that entered it, on another device, confirms it (``one_other``),
    or adds its confirmation towards every other seat's (``all``: each from a device of its
    own); a director not playing at the table makes it count in any game (``director``: a
    director). A hand already confirmed, or already confirmed by this seat, is returned
    unchanged. ``reason``: optional, kept with the confirmation; a director confirming a hand
    of a complete tournament round gives one.

    Raises:
        HandNotFound: no current hand ``number``.
        StaleRevision: ``revision`` (the revision the confirmer saw; None: not checked) is
            no longer the current one.
        HandDisputed: the hand is disputed (a director resolves it).
        NotAllowed: not a seat of this game (``.seat``), the seat that entered it
            (``.own_hand``), the device that entered or already confirmed it under another
            seat (``.same_device``), or not a director where a director confirms
            (``.director_confirms``).
        ReasonRequired: a director, a complete round, no reason (``.closed``); or a reason
            over 500 characters.
    """
    game = ledger.open_game(game)
    fingerprint = hand_fingerprint(
        game, number, by, step_body(reason, revision), step=HandEvent.Action.CONFIRM
    )
    replay = replayed_step(game, idempotency_key, fingerprint)
    if replay is not None:
        return replay
    why = reason_text(reason)
    role = check(Act.CONFIRM, actor=by, game=game, reason=why)
    hand = _current_hand(game, number)
    check_revision(hand, revision)
    if hand.status == Hand.Status.CONFIRMED:
        return hand
    if hand.status == Hand.Status.DISPUTED:
        raise HandDisputed(number=number)
    earlier = _confirmations(hand)
    check_confirm(role, by, game, hand, earlier)
    confirmed_by: set[int | None] = {seat_id for seat_id, _device in earlier}
    if not role.referee and role.seat_id in confirmed_by:
        return hand  # this seat confirmed it already
    keep_step(
        hand,
        HandEvent.Action.CONFIRM,
        by,
        role,
        reason=why,
        idempotency_key=idempotency_key,
        request_fingerprint=fingerprint,
        revision=hand.revision,
    )
    confirmed_by.add(role.seat_id)
    seats: set[int | None] = {seat_id for _name, seat_id in game.seating}
    if role.referee or game.confirmation == Game.Confirmation.DIRECTOR:
        agreed = role.director
    elif game.confirmation == Game.Confirmation.ALL:
        agreed = seats <= confirmed_by | {hand.entered_seat_id}
    else:
        agreed = True
    if agreed:
        _set_status(game, hand, Hand.Status.CONFIRMED)
        ledger.announce(game.pk, Change.HAND_CONFIRMED, origin)
    else:
        ledger.bump(game)
        ledger.announce(game.pk, Change.HAND_STATUS, origin)
    return hand


@transaction.atomic
def hand_dispute(
    *,
    game: Game,
    number: int,
    by: Actor,
    reason: object,
    revision: int | None = None,
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> Hand:
    """Dispute the current revision of hand ``number`` with a reason (issue 12: Disputes): it
    shows as disputed at the table and on the director's dashboard until a director resolves
    it. The same seat disputing it again with the same reason changes nothing.

    Raises:
        HandNotFound: no current hand ``number``.
        StaleRevision: ``revision`` (the revision disputed; None: not checked) is no longer
            the current one.
        ReasonRequired: no reason given, or one over 500 characters.
        NotAllowed: not a seat of this game.
    """
    game = ledger.open_game(game)
    fingerprint = hand_fingerprint(
        game, number, by, step_body(reason, revision), step=HandEvent.Action.DISPUTE
    )
    replay = replayed_step(game, idempotency_key, fingerprint)
    if replay is not None:  # a late retry never disputes a hand resolved since
        return replay
    why = reason_text(reason)
    role = check(Act.DISPUTE, actor=by, game=game, reason=why)  # who may, before the reason
    if not why:
        raise ReasonRequired()
    hand = _current_hand(game, number)
    check_revision(hand, revision)
    repeated = HandEvent.objects.filter(
        hand=hand, action=HandEvent.Action.DISPUTE, seat=role.seat_id, reason=why
    ).exists()
    if hand.status == Hand.Status.DISPUTED and repeated:
        return hand
    keep_step(
        hand,
        HandEvent.Action.DISPUTE,
        by,
        role,
        reason=why,
        idempotency_key=idempotency_key,
        request_fingerprint=fingerprint,
        revision=hand.revision,
    )
    _set_status(game, hand, Hand.Status.DISPUTED)
    ledger.announce(game.pk, Change.HAND_DISPUTED, origin)
    return hand


#: A director's resolutions of a disputed hand.
RESOLUTIONS = ("confirm", "correct", "void")


@transaction.atomic
def hand_resolve(
    *,
    game: Game,
    number: int,
    by: Actor,
    action: str,
    reason: object,
    revision: int | None = None,
    entry: object = None,
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> Hand:
    """A director resolves hand ``number`` (issue 12: Disputes): ``confirm`` it as it
    stands, ``correct`` it (``entry``, from ``revision``: the current one when None; the new
    revision is confirmed), or ``void`` it; always with a reason, kept with the resolution.
    ``revision``, when given, is the revision the director acts on, for every action: one
    that is no longer current is :class:`StaleRevision` (409).
    A resolution already applied (a confirmed hand confirmed, a voided one voided, a
    correction retried with its idempotency key) changes nothing and keeps nothing.

    Returns:
        The hand as resolved: the confirmed, new or voided revision.

    Raises:
        NotAllowed: not a director of the game's club.
        ReasonRequired: no reason.
        ValueError: ``action`` is not one of :data:`RESOLUTIONS`.
        HandNotFound, StaleRevision, SheetError, VoidRefused: as the correction or void says.
        IdempotencyKeyReused: ``idempotency_key`` was used for a different write.
    """
    if action not in RESOLUTIONS:
        raise ValueError(f"action must be one of {RESOLUTIONS}")
    game = ledger.open_game(game, replay_key=idempotency_key if action == "correct" else None)
    body = {"action": action, "reason": str(reason or ""), "revision": revision, "hand": entry}
    fingerprint = hand_fingerprint(game, number, by, body, step=HandEvent.Action.RESOLVE)
    replay = replayed_step(game, idempotency_key, fingerprint)
    if replay is not None:
        return replay
    why = reason_text(reason)
    role = check(Act.RESOLVE, actor=by, game=game, reason=why)  # who may, before the reason
    if not why:
        raise ReasonRequired()
    if action == "correct":  # a retried correction returns the revision it wrote
        existing = replayed_hand(game.replay_id, fingerprint)
        if existing is not None:
            return existing
    if action == "void":
        if not game.hands.filter(number=number, state=Hand.State.CURRENT).exists():
            return void_locked(game, number, by, role, why, origin)  # voided already: as it was
        hand = void_locked(game, number, by, role, why, origin, revision=revision)
    else:
        current = _current_hand(game, number)
        if action == "confirm":
            check_revision(current, revision)
            hand = current
            if hand.status == Hand.Status.CONFIRMED:
                return hand  # resolved already: nothing to keep
            _set_status(game, hand, Hand.Status.CONFIRMED)
            ledger.announce(game.pk, Change.HAND_CONFIRMED, origin)
        else:
            hand, _created = correct_locked(
                game,
                number=number,
                revision=current.revision if revision is None else revision,
                entry=entry,
                author={
                    "entered_by": by.signed_in,
                    "via": by.via,
                    "seat_id": None,
                    "status": Hand.Status.CONFIRMED,
                    "reason": why,
                    "device": by.device,
                },
                idempotency_key=idempotency_key,
                request_fingerprint=fingerprint,
                origin=origin,
                director=True,
            )
    keep_step(
        hand,
        HandEvent.Action.RESOLVE,
        by,
        role,
        reason=why,
        idempotency_key=idempotency_key,
        request_fingerprint=fingerprint,
        resolution=action,
    )
    return hand


@transaction.atomic
def hand_restore(
    *,
    game: Game,
    number: int,
    by: Actor | None = None,
    reason: object = "",
    revision: int | None = None,
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> Hand:
    """Make voided hand ``number`` count again (its last revision, with its status as it
    was; restored by a player where the game requires confirmation, a confirmed hand is
    provisional again, for the table to confirm). A hand that counts is returned unchanged.

    Rook and Bluke: only a hand that still follows the hands that count (the latest round or
    hand voided, nothing entered after it) can come back, checked by the rules engine as if it
    were entered now; Tonk: any hand.

    Raises:
        HandNotFound: no hand ``number``.
        NotVoided: the hand was corrected, never voided (its number has no voided revision).
        StaleRevision: ``revision`` (the voided revision restored; None: not checked) is not
            the hand's last revision.
        RestoreRefused: it would break the sequence of rounds or hands.
        HandLimitReached: the game already holds every hand it takes.
        NotAllowed: as :func:`scoring.permissions.check` says; or a player restoring a hand a
            director voided (``.director_void``: a director's to undo).
        ReasonRequired: as :func:`scoring.permissions.check` says.
    """
    game = ledger.open_game(game)
    fingerprint = hand_fingerprint(
        game, number, by, step_body(reason, revision), step=HandEvent.Action.RESTORE
    )
    replay = replayed_step(game, idempotency_key, fingerprint)
    if replay is not None:  # a late retry never restores a hand voided since
        return replay
    why = reason_text(reason)
    role = None if by is None else check(Act.RESTORE, actor=by, game=game, reason=why)
    last = game.hands.filter(number=number).order_by("-revision").first()
    if last is None:
        raise HandNotFound(number=number)
    if last.state == Hand.State.CURRENT:
        return last
    if last.state != Hand.State.VOIDED:
        raise NotVoided(number=number)
    check_revision(last, revision)
    if role is not None and not role.director:
        void = (
            HandEvent.objects.filter(hand=last, action=HandEvent.Action.VOID)
            .order_by("-created_at", "-id")
            .first()
        )
        if void is not None and void.details.get("director"):
            raise NotAllowed("not_allowed.director_void")
    if game.hand_limit is not None and game.current_hands >= game.hand_limit:
        raise HandLimitReached(game=game.pk, limit=game.hand_limit)
    current = counting_hands(game)
    engine = find_game(game.kind)
    if engine.number_key is not None:
        if current and current[-1].number > number:
            raise RestoreRefused(number=number)
        names = [name for name, _seat in game.seating]
        previous = previous_sequence(
            game, current[-1].sequence if current else None, first=not current
        )
        try:
            engine.read_hand(
                last.entry, players=names, options=engine.options(game.options), previous=previous
            )
        except RuleError:
            raise RestoreRefused(number=number) from None
    last.state = Hand.State.CURRENT
    last.voided_at = None
    if (
        role is not None
        and not role.referee
        and game.confirmation != Game.Confirmation.NONE
        and last.status == Hand.Status.CONFIRMED
    ):
        # Back from a void, a player's restore is the table's to confirm again.
        last.status = Hand.Status.PROVISIONAL
    last.save(update_fields=("state", "voided_at", "status"))
    ledger.restore(game, line_scores(last), sorted([*current, last], key=lambda h: h.number))
    keep_step(
        last,
        HandEvent.Action.RESTORE,
        by,
        role,
        reason=why,
        idempotency_key=idempotency_key,
        request_fingerprint=fingerprint,
        revision=last.revision,
    )
    ledger.announce(game.pk, Change.HAND_RESTORED, origin)
    return last


@transaction.atomic
def game_links_rotate(*, game: Game, by: Actor | None = None) -> Game:
    """New private keys for the game's table link and every seat link: the old links open
    nothing any more (a link shared too widely). A director's; a casual game's creator's too.

    Raises:
        NotAllowed: ``by`` may not.
    """
    game = ledger.open_game(game)
    if by is not None:
        check(Act.ROTATE, actor=by, game=game)
    ledger.bump(game, table_key=new_table_key())
    for seat in Seat.objects.filter(game_id=game.pk):
        seat.seat_key = new_seat_key()
        seat.save(update_fields=("seat_key",))
    return Game.objects.get(pk=game.pk)
