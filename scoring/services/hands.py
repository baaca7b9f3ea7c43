"""Hands: recording the next hand (or round), correcting one by a new revision, voiding one,
and recomputing the totals from the score lines.

Every write is keyword-only, runs in one transaction under the game row's lock, keeps the game's
books through :mod:`scoring.ledger` and is announced after commit to every listener but
``origin``. A retry with the same idempotency key returns what the first request wrote.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from ops import idempotency
from scoring import ledger, selectors
from scoring.errors import (
    GameFinished,
    GameNotOpen,
    HandDisputed,
    HandLimitReached,
    HandNotFound,
    HandNumberRequired,
    IdempotencyKeyReused,
    NotAllowed,
    StaleRevision,
    VoidRefused,
)
from scoring.events import Change
from scoring.models import Game, Hand, HandEvent
from scoring.permissions import Act, Actor, Role, reason_text
from scoring.services.common import (
    author_of,
    checked,
    engine_of,
    hand_fingerprint,
    keep_step,
    line_scores,
    replayed_step,
    write_revision,
)
from tonkrules import RuleError, find_game
from tonkrules.errors import SequenceError
from tonkrules.sheet import (
    SheetError,
)


def previous_sequence(game: Game, before: int | None, *, first: bool) -> int | None:
    """The round or hand number the next one must follow: the one before it, or, for the
    first of a game that plays a fixed part of the schedule, the number before its start;
    0 after Bluke's hand 25 when the game's hands start again."""
    if first and game.sequence_from is not None:
        return game.sequence_from - 1
    if (
        before is not None
        and game.sequence_wraps
        and before == find_game(game.kind).schedule_length
    ):
        return 0
    return before


def replayed_hand(hand_id: int | None, fingerprint: str) -> Hand | None:
    """The hand an earlier request with the same idempotency key wrote, if any, when
    ``fingerprint`` is that request's (:func:`ops.idempotency.replay_or_refuse`).

    Raises:
        IdempotencyKeyReused: the key was used for a different write.
    """
    if hand_id is None:
        return None
    hand = Hand.objects.select_related("replaces", "entered_by").get(pk=hand_id)
    idempotency.replay_or_refuse(
        hand.request_fingerprint, fingerprint, lambda: IdempotencyKeyReused(number=hand.number)
    )
    return hand


def check_revision(hand: Hand, revision: int | None) -> None:
    """A step or correction acts on the revision its sender saw: ``revision`` (None: not
    checked) must be ``hand``'s.

    Raises:
        StaleRevision: another revision came meanwhile (409; ``current_revision`` says which).
    """
    if revision is not None and hand.revision != revision:
        raise StaleRevision(
            params={"revision": revision}, number=hand.number, current_revision=hand.revision
        )


def counting_hands(game: Game) -> list[Hand]:
    """The game's hands that count now, in order (locked: read under the game's lock)."""
    return list(game.hands.filter(state=Hand.State.CURRENT).order_by("number"))


def _next_revision(game: Game, number: int) -> int:
    last = game.hands.filter(number=number).order_by("-revision").first()
    return 1 if last is None else last.revision + 1


@transaction.atomic
def hand_record(
    *,
    game: Game,
    entry: object,
    number: int | None = None,
    number_required: bool = False,
    by: Actor | None = None,
    via: str | None = None,
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> tuple[Hand, bool]:
    """Check, score and record the next hand (or round) of a game, with its score lines.

    One hand, once: the sender says which hand it believes it is entering (``number``: the
    game's last hand number as the sender saw it, plus one). Under the game's row lock a hand
    that is no longer next is refused (:class:`HandNotNext`, nothing saved): two phones
    sending the same hand at once record it once, and a hand sent again later under a new key
    is refused unless it says it is the next hand. A retry with the same idempotency key is
    looked up first and answers as the first request did, whatever its number says now.

    The hand is *provisional* when the game requires confirmation (``Game.confirmation``)
    and it was not a director who entered it; otherwise it is confirmed at once.

    Args:
        game: the game; it must be in play.
        entry: one hand object of the score-sheet format, stored verbatim.
        number: the hand's number in the game as the sender believes it (1 for the first;
            voided numbers stay used); None: not checked (the system, a service caller that
            holds the game itself).
        number_required: a ``number`` must be given (the API): None is
            :class:`HandNumberRequired` (after the replay of a retried request).
        by: who entered it (a seat, a signed-in user, the table link), checked against
            :func:`scoring.permissions.check`; None for the system (not checked).
        via: how it came, when not as ``by`` says (an import).
        idempotency_key: the device's key for this write: a retry with the same key returns
            the hand the first request recorded, and records nothing.
        origin: the listener on whose behalf the hand is recorded (not told of it); None for
            a hand a person entered.

    Returns:
        (the hand, whether it was recorded now).

    Raises:
        SheetError: the hand breaks a rule; ``hand`` is its position in the sheet.
        GameFinished: the game is finished.
        HandNotNext: ``number`` is not the game's next hand number (409).
        HandNumberRequired: ``number_required`` and no ``number`` (the API's 428).
        NotAllowed: ``by`` may not enter hands in this game.
    """
    # The replay of a retried request is looked up only when the hand cannot be recorded:
    # a finished game, a stale number, a rule error, or the key already taken (the insert
    # writes nothing).
    game = ledger.open_game(game, hot_path=True)
    fingerprint = hand_fingerprint(game, None, by, entry) if idempotency_key else ""
    full = game.hand_limit is not None and game.current_hands >= game.hand_limit
    stale = not ledger.is_next(game, number)
    if game.state != Game.State.IN_PLAY or full or stale or (number is None and number_required):
        replay = _replay_of(game, idempotency_key, fingerprint)
        if replay is not None:
            return replay, False
    # Who may comes before what the game's state allows: a caller who may not write here
    # learns nothing of its state (403, not 409).
    role = checked(Act.ENTER, by, game, "")
    if game.state == Game.State.FINISHED:
        raise GameFinished(game=game.pk)
    if game.state == Game.State.WAITING:
        raise GameNotOpen(game=game.pk)
    if number is None and number_required:
        raise HandNumberRequired()
    ledger.refuse_not_next(game, number)
    if full:
        raise HandLimitReached(game=game.pk, limit=game.hand_limit)
    engine, options, seats = engine_of(game)
    names = list(seats)
    previous = previous_sequence(game, game.last_sequence, first=game.current_hands == 0)
    try:
        record = engine.read_hand(entry, players=names, options=options, previous=previous)
    except RuleError as exc:
        replay = _replay_of(game, idempotency_key, fingerprint)
        if replay is not None:
            return replay, False
        # A new hand takes a number never used in the game (a voided number stays voided).
        raise SheetError(exc, game.current_hands + 1, number=game.last_number + 1) from exc
    score_ = engine.score_hand(record, players=names, options=options)
    hand = write_revision(
        game=game,
        number=ledger.record(game, score_.scores.items(), engine.schedule_number(record)),
        revision=1,
        entry=entry,
        engine=engine,
        record=record,
        score_=score_,
        seats=seats,
        **author_of(by, role, game, via),
        idempotency_key=idempotency_key or "",
        request_fingerprint=fingerprint,
        with_books=True,
        hot_path=True,
    )
    if hand is None:  # the key was taken: answer as the first request was answered
        replay = _replay_of(game, idempotency_key, fingerprint)
        if replay is None:
            raise IntegrityError("a hand insert was skipped, yet no hand holds its key")
        return replay, False
    ledger.announce(game.pk, Change.HAND_RECORDED, origin)
    return hand, True


def _replay_of(game: Game, key: str | None, fingerprint: str) -> Hand | None:
    """The hand an earlier request with ``key`` wrote in ``game``, if any, when it was this
    request (``fingerprint``). One statement looks for the key on hands and steps alike
    (:func:`scoring.ledger.key_holder`).

    Raises:
        IdempotencyKeyReused: the key was used for a different write: another hand, or a
            step of a hand (a void, a confirmation…).
    """
    if not key:
        return None
    holder = ledger.key_holder(game, key)
    if holder is None:
        return None
    if holder[0] == ledger.STEP:
        raise IdempotencyKeyReused()
    return replayed_hand(holder[1], fingerprint)


def correction_fingerprint(
    game: Game, number: int, by: Actor | None, revision: int | None, entry: object, reason: object
) -> str:
    """The fingerprint of a correction of hand ``number`` (:mod:`ops.idempotency`): from
    ``revision``, to ``entry``, for ``reason``, by ``by``'s device."""
    body = {"revision": revision, "hand": entry, "reason": str(reason or "")}
    return hand_fingerprint(game, number, by, body)


@transaction.atomic
def hand_correct(
    *,
    game: Game,
    number: int,
    revision: int,
    entry: object,
    by: Actor | None = None,
    reason: object = "",
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> tuple[Hand, bool]:
    """Correct hand ``number``: a new revision that replaces the current one; every later
    total follows. The new revision is provisional again where the game requires
    confirmation (unless a director corrected it).

    Args:
        number: the hand's number in the game.
        revision: the revision the correction was made from; it must still be current.
        entry: the corrected hand object, stored verbatim.
        by: who corrects it (checked: :func:`scoring.permissions.check`); None: the system.
        reason: why (kept on the revision); needed once a tournament round is complete.
        idempotency_key: a retry with the same key returns the revision it wrote.
        origin: the listener on whose behalf it is corrected (not told of it).

    Returns:
        (the new revision, whether it was written now).

    Raises:
        HandNotFound: no current hand ``number``.
        StaleRevision: ``revision`` is not the current one (``current_revision`` says which is).
        SheetError: the corrected hand breaks a rule (including a round or hand number that
            would break the sequence with the hands around it).
        NotAllowed, ReasonRequired: ``by`` may not correct it, or must say why.
    """
    game = ledger.open_game(game, replay_key=idempotency_key)
    fingerprint = correction_fingerprint(game, number, by, revision, entry, reason)
    existing = replayed_hand(game.replay_id, fingerprint)
    if existing is not None:
        return existing, False
    if game.key_on_step:
        raise IdempotencyKeyReused()  # a step of a hand holds the key
    why = reason_text(reason)
    role = checked(Act.CORRECT, by, game, why)
    return correct_locked(
        game,
        number=number,
        revision=revision,
        entry=entry,
        author={**author_of(by, role, game, None), "reason": why},
        idempotency_key=idempotency_key,
        request_fingerprint=fingerprint,
        origin=origin,
        director=role is None or role.director,
    )


def correct_locked(
    game: Game,
    *,
    number: int,
    revision: int,
    entry: object,
    author: dict[str, object],
    idempotency_key: str | None,
    request_fingerprint: str,
    origin: str | None,
    director: bool,
) -> tuple[Hand, bool]:
    """The correction itself, on the locked game (:func:`hand_correct`; a director's
    resolution, :mod:`scoring.services.trust`): ``author`` holds the revision's
    ``entered_by``, ``via``, ``seat_id``, ``status``, ``reason`` and ``device``;
    ``director``: a director (or the system) corrects it, who alone may correct a disputed
    hand."""
    current = counting_hands(game)
    index = next((i for i, h in enumerate(current) if h.number == number), None)
    if index is None:
        raise HandNotFound(number=number)
    old = current[index]
    if old.status == Hand.Status.DISPUTED and not director:
        raise HandDisputed(number=number)
    check_revision(old, revision)
    engine, options, seats = engine_of(game)
    names = list(seats)
    previous = previous_sequence(
        game, current[index - 1].sequence if index else None, first=index == 0
    )
    try:
        record = engine.read_hand(entry, players=names, options=options, previous=previous)
        following = current[index + 1] if index + 1 < len(current) else None
        new_sequence = engine.schedule_number(record)
        if (
            following is not None
            and new_sequence is not None
            and following.sequence != new_sequence + 1
        ):
            raise SequenceError(
                "not_consecutive.correction_round"
                if engine.number_key == "round"
                else "not_consecutive.correction_hand",
                params={
                    "following": following.sequence,
                    "sequence": old.sequence,
                },
            )
    except RuleError as exc:
        raise SheetError(exc, index + 1, number=number) from exc
    score_ = engine.score_hand(record, players=names, options=options)
    ledger.correct(
        game,
        line_scores(old),
        score_.scores.items(),
        new_sequence,
        latest=index == len(current) - 1,
    )
    old.state = Hand.State.SUPERSEDED
    old.save(update_fields=("state",))
    hand = write_revision(
        game=game,
        number=number,
        revision=_next_revision(game, number),
        entry=entry,
        engine=engine,
        record=record,
        score_=score_,
        seats=seats,
        **author,  # type: ignore[arg-type]
        idempotency_key=idempotency_key or "",
        request_fingerprint=request_fingerprint,
        replaces=old,
        with_books=True,
    )
    if hand is None:  # the key was taken meanwhile (the lock makes this impossible)
        raise IntegrityError("a correction was skipped: its idempotency key is taken")
    ledger.announce(game.pk, Change.HAND_CORRECTED, origin)
    return hand, True


@transaction.atomic
def hand_void(
    *,
    game: Game,
    number: int,
    by: Actor | None = None,
    reason: object = "",
    revision: int | None = None,
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> Hand:
    """Void hand ``number``: it no longer counts, and stays on the sheet struck through with
    who voided it and why (a :class:`HandEvent`); :func:`scoring.services.hand_restore` makes
    it count again. Tonk: any hand. Rook and Bluke: only the latest, so the sequence of rounds
    or hands stays whole (an earlier one is corrected instead). Voiding a hand already voided
    returns it unchanged.

    Args:
        by: who voids it (checked: :func:`scoring.permissions.check`); None: the system.
        reason: why; needed once a tournament round is complete.
        revision: the revision the sender saw and voids; None: not checked.
        idempotency_key: the device's key: a retry answers with the hand the first voided.
        origin: the listener on whose behalf it acts (not told of it).

    Raises:
        HandNotFound: no hand ``number``.
        VoidRefused: a Rook round or Bluke hand that is not the latest.
        StaleRevision: ``revision`` is no longer the hand's current revision (409).
        NotAllowed, ReasonRequired: ``by`` may not void it, or must say why.
    """
    game = ledger.open_game(game)
    body: dict[str, object] = {"reason": str(reason or "")}
    if revision is not None:
        body["revision"] = revision
    fingerprint = hand_fingerprint(game, number, by, body, step=HandEvent.Action.VOID)
    replay = replayed_step(game, idempotency_key, fingerprint)
    if replay is not None:  # a late retry never voids a hand restored since
        return replay
    why = reason_text(reason)
    role = checked(Act.VOID, by, game, why)
    return void_locked(
        game, number, by, role, why, origin, idempotency_key, fingerprint, revision=revision
    )


def void_locked(
    game: Game,
    number: int,
    by: Actor | None,
    role: Role | None,
    why: str,
    origin: str | None,
    idempotency_key: str | None = None,
    request_fingerprint: str = "",
    *,
    revision: int | None = None,
) -> Hand:
    """The void itself, on the locked game (:func:`hand_void`; a director's resolution,
    :mod:`scoring.services.trust`)."""
    current = counting_hands(game)
    hand = next((h for h in current if h.number == number), None)
    if hand is None:
        last = game.hands.filter(number=number).order_by("-revision").first()
        if last is not None and last.state == Hand.State.VOIDED:
            return last
        raise HandNotFound(number=number)
    check_revision(hand, revision)
    engine = find_game(game.kind)
    if engine.number_key is not None and hand is not current[-1]:
        raise VoidRefused(
            "void_refused.round" if engine.number_key == "round" else "void_refused.hand",
            params={
                "title": engine.title,
                "sequence": hand.sequence,
            },
            number=number,
            latest=current[-1].number,
        )
    if role is not None and not role.director:
        if hand.status == Hand.Status.DISPUTED:
            raise HandDisputed(number=number)
        # Once the table agreed on a hand, one player cannot take it off the sheet, not even
        # by correcting it first: any confirmed revision of the number makes it a director's.
        if game.confirmation != Game.Confirmation.NONE and (
            game.hands.filter(number=number, status=Hand.Status.CONFIRMED).exists()
        ):
            raise NotAllowed("not_allowed.void_confirmed")
    hand.state = Hand.State.VOIDED
    hand.voided_at = timezone.now()
    hand.save(update_fields=("state", "voided_at"))
    keep_step(
        hand,
        HandEvent.Action.VOID,
        by,
        role,
        reason=why,
        idempotency_key=idempotency_key,
        request_fingerprint=request_fingerprint,
        revision=hand.revision,
        director=role is not None and role.director,
    )
    ledger.revert(game, line_scores(hand), [h for h in current if h is not hand])
    ledger.announce(game.pk, Change.HAND_VOIDED, origin)
    return hand


def game_totals_rebuild(*, game: Game) -> dict[str, int]:
    """Every seat's total recomputed from the current score lines (the source of truth);
    ``Game.totals`` must always equal it. Writes nothing."""
    return selectors.game_totals(game)
