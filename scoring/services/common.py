"""Helpers shared by the scoring services: seat specs, the game's engine, storable names,
request fingerprints, and writing a hand revision with its score lines and the game row's
totals and numbering (through the ORM, or :mod:`scoring.rows` on the hot path).

Names starting with ``_`` are shared within ``scoring.services`` only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.auth.models import User as AuthUser
from django.db.models import CharField, Value
from django.utils import timezone

from ops import idempotency
from scoring import rows
from scoring.errors import GameNotFound, IdempotencyKeyReused
from scoring.models import Game, Hand, HandEvent, ScoreLine
from scoring.permissions import Act, Actor, Role, check
from tonkrules import HandScore, find_game
from tonkrules.games import GameRules

User = AbstractBaseUser | AnonymousUser | None


@dataclass(frozen=True)
class SeatSpec:
    """Who sits at a seat: a display name, and the club player if it is one (else a guest)."""

    name: str
    player_id: int | None = None


def engine_of(game: Game) -> tuple[GameRules[Any, Any], Any, dict[str, int]]:
    """The game's rules engine, its house rules, and its seat ids by name in seat order."""
    engine = find_game(game.kind)
    return engine, engine.options(game.options), {name: seat_id for name, seat_id in game.seating}


def _caller(by: Actor | None) -> str:
    """Whom an idempotency key within a game belongs to (:func:`ops.idempotency.fingerprint`'s
    ``caller``): the device acting (its session, seat key or token) and the signed-in user;
    "" for the system."""
    if by is None:
        return ""
    user = by.signed_in
    return f"{by.device}/{user.pk if user is not None else ''}"


def _hand_fingerprint(
    game: Game, number: int | None, by: Actor | None, body: object, *, step: str = ""
) -> str:
    """The fingerprint of a write to ``game``'s hands (:mod:`ops.idempotency`): a new hand
    (``number`` None), a correction of hand ``number``, or one of its steps (``step``: an
    ``HandEvent.Action``), with the request's ``body`` and the caller."""
    if number is None:
        return idempotency.fingerprint("POST", f"games/{game.pk}/hands", body, caller=_caller(by))
    path = f"games/{game.pk}/hands/{number}" + (f"/{step}" if step else "")
    return idempotency.fingerprint("POST" if step else "PUT", path, body, caller=_caller(by))


def as_json_text(value: object) -> str:
    """JSON text of a value as stored on a hand: keys in their order, UTF-8 as is."""
    return json.dumps(value, ensure_ascii=False)


def _user(user: User) -> AuthUser | None:
    """The signed-in user a write records, or None (anonymous: a table link, a command)."""
    return user if isinstance(user, AuthUser) and user.is_authenticated else None


def _line_row(
    game_id: int, score_: HandScore, seats: dict[str, int], name: str
) -> dict[str, object]:
    """One player's score line of a hand (its hand id is added on insert): points and the
    facts tie-breaks need."""
    return {
        "game_id": game_id,
        "seat_id": seats[name],
        "points": score_.scores[name],
        "went_out": name in score_.went_out,
        "bid_made": (name in score_.made) if score_.made is not None else None,
        "won": name in score_.won,
    }


def _add_to_totals(game: Game, scores: Iterable[tuple[str, int]], sign: int) -> None:
    totals = dict(game.totals)
    for name, points in scores:
        totals[name] = totals.get(name, 0) + sign * points
    game.totals = totals


def _write_hand(
    *,
    game: Game,
    number: int,
    revision: int,
    entry: object,
    engine: GameRules[Any, Any],
    record: Any,
    score_: HandScore,
    seats: dict[str, int],
    entered_by: User,
    via: str,
    idempotency_key: str,
    request_fingerprint: str = "",
    status: str = Hand.Status.CONFIRMED,
    seat_id: int | None = None,
    reason: str = "",
    device: str = "",
    replaces: Hand | None = None,
    game_state: Mapping[str, object] | None = None,
    hot_path: bool = False,
) -> Hand | None:
    """Insert a hand revision and its score lines; with ``game_state``, also write the game
    row's totals and numbering. The caller has added the scores to ``game.totals``.

    Through the ORM, except with ``hot_path`` (:func:`hand_record` only, with ``game_state``):
    then :mod:`scoring.rows` writes all three in one statement where the database allows, and
    returns None, having written nothing, when another hand or a step of a hand of the game
    already holds ``idempotency_key`` (the ORM path raises ``IntegrityError`` instead for a
    hand; its callers looked for the key first)."""
    values: dict[str, Any] = {
        "game_id": game.pk,
        "number": number,
        "revision": revision,
        "state": Hand.State.CURRENT,
        "sequence": engine.schedule_number(record),
        "entry_text": as_json_text(entry),
        "record_text": as_json_text(engine.hand_to_json(record)),
        "warnings": [w.to_json() for w in score_.warnings],
        "rules_version": engine.rules_version,
        "replaces_id": replaces.pk if replaces is not None else None,
        "idempotency_key": idempotency_key,
        "request_fingerprint": request_fingerprint if idempotency_key else "",
        "entered_by_id": getattr(_user(entered_by), "pk", None),
        "entered_via": via,
        "entered_seat_id": seat_id,
        "status": status,
        "reason": reason,
        "entered_device": device,
        "created_at": timezone.now(),
        "voided_at": None,
    }
    lines = [_line_row(game.pk, score_, seats, name) for name in score_.scores]
    if not hot_path:
        hand = Hand.objects.create(**values)
        ScoreLine.objects.bulk_create(ScoreLine(hand_id=hand.pk, **line) for line in lines)
        if game_state is not None:
            Game.objects.filter(pk=game.pk).update(**game_state)
    else:
        assert game_state is not None
        inserted = rows.insert_with_children_and_update(
            Hand,
            values,
            ScoreLine,
            "hand_id",
            lines,
            Game,
            game.pk,
            game_state,
            skip_duplicate=("game_id", "idempotency_key"),
            skip_held_by=HandEvent,
        )
        if inserted is None:
            return None
        hand = rows.loaded(Hand, {"id": inserted, **values})
    if replaces is not None:
        hand.replaces = replaces
    if values["entered_by_id"] is not None:
        hand.entered_by = _user(entered_by)
    hand.scores_cache = {name: score_.scores[name] for name in seats}
    return hand


def _line_scores(hand: Hand) -> list[tuple[str, int]]:
    return [(line.seat.name, line.points) for line in hand.lines.select_related("seat")]


def _locked(game: Game, *, replay_key: str | None = None, hot_path: bool = False) -> Game:
    """The game's row, locked until the transaction ends; with ``replay_key``, also the id of
    the hand an earlier request with that idempotency key wrote (``replay_id``, or None) and
    whether a step holds it instead (``key_on_step``), read (:func:`_key_holder`) after the
    lock is granted so that it sees a concurrent request's committed write.

    Through the ORM, except with ``hot_path`` (:func:`hand_record` only): :mod:`scoring.rows`.

    Raises:
        GameNotFound: the game is gone (deleted while the request waited for its lock).
    """
    try:
        if hot_path:
            locked = rows.select_for_update(Game, game.pk, LOCKED_FIELDS)
        else:
            locked = Game.objects.select_for_update().only(*LOCKED_FIELDS).get(pk=game.pk)
    except Game.DoesNotExist as exc:  # deleted while we waited for its lock (a regenerate)
        raise GameNotFound(game=game.pk) from exc
    if replay_key:
        holder = _key_holder(game, replay_key)
        locked.replay_id = holder[1] if holder is not None and holder[0] == HAND else None
        locked.key_on_step = holder is not None and holder[0] == STEP
    return locked


#: What :func:`_key_holder` says holds a key: a hand (an entry or a correction) or a step.
HAND, STEP = "hand", "step"


def _key_holder(game: Game, key: str) -> tuple[str, int] | None:
    """Which write of ``game`` holds idempotency key ``key``: (:data:`HAND`, the hand
    revision's id) or (:data:`STEP`, the step's ``HandEvent`` id); None when none does.

    A game's keys are one space across its hands and their steps: one statement reads both
    tables (UNION ALL), so a key is never taken for a hand by one write and a step by another.
    """
    hands = (
        Hand.objects.filter(game_id=game.pk, idempotency_key=key)
        .order_by()
        .annotate(held_by=Value(HAND, output_field=CharField()))
        .values_list("held_by", "pk")
    )
    steps = (
        HandEvent.objects.filter(game_id=game.pk, idempotency_key=key)
        .order_by()
        .annotate(held_by=Value(STEP, output_field=CharField()))
        .values_list("held_by", "pk")
    )
    # A resolution's correction keeps the key on its step and on the revision: the step first.
    found = list(hands.union(steps, all=True).order_by("-held_by")[:1])
    return (str(found[0][0]), int(found[0][1])) if found else None


LOCKED_FIELDS = (
    "kind",
    "club",
    "created_by",
    "confirmation",
    "directed",
    "version",
    "options",
    "state",
    "sequence_from",
    "hand_limit",
    "sequence_wraps",
    "seating",
    "totals",
    "last_number",
    "current_hands",
    "last_sequence",
)


def _sequence_state(game: Game, current: Sequence[Hand]) -> None:
    """Set the game's count and last round or hand from its current hands, in order."""
    game.current_hands = len(current)
    game.last_sequence = current[-1].sequence if current else None


HAND_STATE_FIELDS = ("totals", "last_number", "current_hands", "last_sequence", "version")


def _state(game: Game) -> dict[str, object]:
    """The totals and numbering state the services keep on the game row (with its version,
    which each write bumps first: ``game.version += 1``)."""
    return {f: getattr(game, f) for f in HAND_STATE_FIELDS}


def _save_state(game: Game) -> None:
    """Write the totals and numbering state the services keep on the game row."""
    Game.objects.filter(pk=game.pk).update(**_state(game))


def _checked(act: Act, by: Actor | None, game: Game, reason: str) -> Role | None:
    """``by``'s role at the locked ``game`` if they may make change ``act``; None for the
    system (``by`` None: not checked). Raises what :func:`scoring.permissions.check` raises."""
    return None if by is None else check(act, actor=by, game=game, reason=reason)


def _author(by: Actor | None, role: Role | None, game: Game, via: str | None) -> dict[str, Any]:
    """Who a new revision records (``entered_by``, ``via``, ``seat_id``) and the status it
    starts with: confirmed where the game needs no confirmation, or a director (or the
    system) wrote it; provisional otherwise."""
    needs = game.confirmation != Game.Confirmation.NONE
    provisional = needs and role is not None and not role.referee
    return {
        "entered_by": by.signed_in if by is not None else None,
        "via": via or (by.via if by is not None else Hand.Via.USER),
        "seat_id": role.seat_id if role is not None else None,
        "status": Hand.Status.PROVISIONAL if provisional else Hand.Status.CONFIRMED,
        "device": by.device if by is not None else "",
    }


def _event(
    hand: Hand,
    action: str,
    by: Actor | None,
    role: Role | None,
    *,
    reason: str = "",
    idempotency_key: str | None = None,
    request_fingerprint: str = "",
    **details: object,
) -> HandEvent:
    """Keep one step of ``hand``'s trail: who (seat and/or user), what, why, and the device's
    idempotency key for the write with the request's fingerprint (:func:`_replayed_step`
    finds them on a retry)."""
    return HandEvent.objects.create(
        game_id=hand.game_id,
        hand=hand,
        number=hand.number,
        action=action,
        seat_id=role.seat_id if role is not None else None,
        user=_user(by.user) if by is not None else None,
        reason=reason,
        details=details,
        device=by.device if by is not None else "",
        idempotency_key=idempotency_key or "",
        request_fingerprint=request_fingerprint if idempotency_key else "",
    )


def _replayed_step(game: Game, key: str | None, fingerprint: str) -> Hand | None:
    """The hand (as it is now) of the step an earlier request with idempotency key ``key``
    kept in ``game``, if any: a retry changes nothing and answers with it. ``fingerprint``:
    the request's (:func:`_hand_fingerprint`), which the one decision compares
    (:func:`ops.idempotency.replay_or_refuse`).

    Raises:
        IdempotencyKeyReused: the key was used for another request (another kind of step,
            another hand, another body, from another device), or by a hand entered or
            corrected in the game.
    """
    if not key:
        return None
    holder = _key_holder(game, key)
    if holder is None:
        return None
    if holder[0] == HAND:  # a hand's entry or correction holds the key
        raise IdempotencyKeyReused()
    step = HandEvent.objects.get(pk=holder[1])
    idempotency.replay_or_refuse(
        step.request_fingerprint,
        fingerprint,
        lambda: IdempotencyKeyReused(number=step.number),
    )
    return Hand.objects.get(pk=step.hand_id)
