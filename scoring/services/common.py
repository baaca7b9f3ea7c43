"""Helpers shared by the scoring services: seat specs, the game's engine, storable names,
request fingerprints, who a write records, the trail of a hand's steps and the replay of a
retried step. The game row's bookkeeping (totals, numbers, version) is :mod:`scoring.ledger`'s.

Each name here is public and documented: the services modules import it by that name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from ops import idempotency
from scoring import ledger
from scoring.errors import IdempotencyKeyReused
from scoring.ledger import HAND, key_holder, signed_in
from scoring.models import Game, Hand, HandEvent
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


def caller_of(by: Actor | None) -> str:
    """Whom an idempotency key within a game belongs to (:func:`ops.idempotency.fingerprint`'s
    ``caller``): the device acting (its session, seat key or token) and the signed-in user;
    "" for the system."""
    if by is None:
        return ""
    user = by.signed_in
    return f"{by.device}/{user.pk if user is not None else ''}"


def hand_fingerprint(
    game: Game, number: int | None, by: Actor | None, body: object, *, step: str = ""
) -> str:
    """The fingerprint of a write to ``game``'s hands (:mod:`ops.idempotency`): a new hand
    (``number`` None), a correction of hand ``number``, or one of its steps (``step``: an
    ``HandEvent.Action``), with the request's ``body`` and the caller."""
    if number is None:
        return idempotency.fingerprint("POST", f"games/{game.pk}/hands", body, caller=caller_of(by))
    path = f"games/{game.pk}/hands/{number}" + (f"/{step}" if step else "")
    return idempotency.fingerprint("POST" if step else "PUT", path, body, caller=caller_of(by))


def as_json_text(value: object) -> str:
    """JSON text of a value as stored on a hand: keys in their order, UTF-8 as is."""
    return json.dumps(value, ensure_ascii=False)


def line_scores(hand: Hand) -> list[tuple[str, int]]:
    """Each player's points on ``hand``'s score lines: (seat name, points)."""
    return [(line.seat.name, line.points) for line in hand.lines.select_related("seat")]


def checked(act: Act, by: Actor | None, game: Game, reason: str) -> Role | None:
    """``by``'s role at the locked ``game`` if they may make change ``act``; None for the
    system (``by`` None: not checked). Raises what :func:`scoring.permissions.check` raises."""
    return None if by is None else check(act, actor=by, game=game, reason=reason)


def author_of(by: Actor | None, role: Role | None, game: Game, via: str | None) -> dict[str, Any]:
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


def keep_step(
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
    idempotency key for the write with the request's fingerprint (:func:`replayed_step`
    finds them on a retry)."""
    return HandEvent.objects.create(
        game_id=hand.game_id,
        hand=hand,
        number=hand.number,
        action=action,
        seat_id=role.seat_id if role is not None else None,
        user=signed_in(by.user) if by is not None else None,
        reason=reason,
        details=details,
        device=by.device if by is not None else "",
        idempotency_key=idempotency_key or "",
        request_fingerprint=request_fingerprint if idempotency_key else "",
    )


def replayed_step(game: Game, key: str | None, fingerprint: str) -> Hand | None:
    """The hand (as it is now) of the step an earlier request with idempotency key ``key``
    kept in ``game``, if any: a retry changes nothing and answers with it. ``fingerprint``:
    the request's (:func:`hand_fingerprint`), which the one decision compares
    (:func:`ops.idempotency.replay_or_refuse`).

    Raises:
        IdempotencyKeyReused: the key was used for another request (another kind of step,
            another hand, another body, from another device), or by a hand entered or
            corrected in the game.
    """
    if not key:
        return None
    holder = key_holder(game, key)
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


def write_revision(
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
    with_books: bool = False,
    hot_path: bool = False,
) -> Hand | None:
    """Write revision ``revision`` of hand ``number`` (``entry`` as sent, ``record`` as the
    engine read it, scored ``score_``) with its score lines, through
    :func:`scoring.ledger.write_hand` (``with_books``: the game's books too; ``hot_path``:
    :mod:`scoring.rows`, None when the idempotency key was taken meanwhile)."""
    values: dict[str, Any] = {
        "number": number,
        "revision": revision,
        "sequence": engine.schedule_number(record),
        "entry_text": as_json_text(entry),
        "record_text": as_json_text(engine.hand_to_json(record)),
        "warnings": [w.to_json() for w in score_.warnings],
        "idempotency_key": idempotency_key,
        "request_fingerprint": request_fingerprint,
        "entered_via": via,
        "entered_seat_id": seat_id,
        "status": status,
        "reason": reason,
        "entered_device": device,
    }
    return ledger.write_hand(
        game=game,
        values=values,
        engine=engine,
        score_=score_,
        seats=seats,
        entered_by=entered_by,
        replaces=replaces,
        with_books=with_books,
        hot_path=hot_path,
    )
