"""The game's ledger: the one writer of a game row's bookkeeping (design.md, "The ledger").

The bookkeeping is what the services keep on the ``Game`` row so that a page or a hand never
adds up the score lines again: the running ``totals``, the ``last_number`` a hand took (a
voided number stays used), the ``current_hands`` that count, the ``last_sequence`` (round or
hand of the schedule) and the ``version`` every phone's copy of the sheet is compared with
(:data:`BOOKKEEPING_FIELDS`). Nothing else assigns them (``tests/test_architecture.py``).

A write to a game's hands goes through here, in its transaction:

1. :func:`open_game`: the game's row, locked until the transaction ends (the fast path of
   :mod:`scoring.rows` for a new hand, the ORM otherwise);
2. :func:`refuse_not_next`: a hand sent as one that is no longer next is refused (409), under
   the lock, so that two phones sending the same hand record it once;
3. :func:`record` / :func:`correct` / :func:`revert` / :func:`restore` / :func:`import_hands`
   apply a hand to the books (or take it off), and :func:`write_hand` writes the revision,
   its score lines and the books, on the fast path or through the ORM;
4. :func:`announce`: the change is told to the layer above once, after the commit
   (:mod:`scoring.services.seam`).

Steps that change no score (a confirmation, a game opened, a link rotated) take a new version
with :func:`bump` or :func:`bump_all`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.auth.models import User as AuthUser
from django.db.models import CharField, F, Value
from django.utils import timezone

from scoring import rows
from scoring.errors import GameNotFound, HandNotNext
from scoring.events import Change
from scoring.models import Game, Hand, HandEvent, ScoreLine
from tonkrules import HandScore
from tonkrules.games import GameRules

#: The game row's bookkeeping, written by this module alone.
BOOKKEEPING_FIELDS = ("totals", "last_number", "current_hands", "last_sequence", "version")

#: The game's columns a locked write reads.
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

#: What :func:`key_holder` says holds a key: a hand (an entry or a correction) or a step.
HAND, STEP = "hand", "step"

Scores = Iterable[tuple[str, int]]


# --- opening the game -------------------------------------------------------------------------


def open_game(game: Game, *, replay_key: str | None = None, hot_path: bool = False) -> Game:
    """The game's row, locked until the transaction ends; with ``replay_key``, also the id of
    the hand an earlier request with that idempotency key wrote (``replay_id``, or None) and
    whether a step holds it instead (``key_on_step``), read (:func:`key_holder`) after the
    lock is granted so that it sees a concurrent request's committed write.

    Through the ORM, except with ``hot_path`` (recording a new hand): :mod:`scoring.rows`.

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
        holder = key_holder(game, replay_key)
        locked.replay_id = holder[1] if holder is not None and holder[0] == HAND else None
        locked.key_on_step = holder is not None and holder[0] == STEP
    return locked


def key_holder(game: Game, key: str) -> tuple[str, int] | None:
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


def is_next(game: Game, number: int | None) -> bool:
    """Whether hand ``number`` (as the sender believes it) is the locked game's next hand;
    None (not said) is not checked."""
    return number is None or number == game.last_number + 1


def refuse_not_next(game: Game, number: int | None) -> None:
    """One hand, once: refuse a hand sent as ``number`` when the locked game's next hand is
    another.

    Raises:
        HandNotNext: another hand was entered since the sender saw the sheet (409).
    """
    if not is_next(game, number):
        assert number is not None
        raise HandNotNext(number=number, last_number=game.last_number)


# --- applying hands to the books ---------------------------------------------------------------


def opening_books(names: Iterable[str]) -> dict[str, object]:
    """The bookkeeping of a new game with seats ``names``: no hands, every total 0 (the other
    fields take their defaults)."""
    return {"totals": dict.fromkeys(names, 0)}


def _add(game: Game, scores: Scores, sign: int) -> None:
    totals = dict(game.totals)
    for name, points in scores:
        totals[name] = totals.get(name, 0) + sign * points
    game.totals = totals


def _count(game: Game, current: Sequence[Hand]) -> None:
    """The count and last round or hand of the hands that count, in order."""
    game.current_hands = len(current)
    game.last_sequence = current[-1].sequence if current else None


def books(game: Game) -> dict[str, object]:
    """The locked game's bookkeeping as a row update (:data:`BOOKKEEPING_FIELDS`)."""
    return {f: getattr(game, f) for f in BOOKKEEPING_FIELDS}


def _save(game: Game) -> None:
    Game.objects.filter(pk=game.pk).update(**books(game))


def record(game: Game, scores: Scores, sequence: int | None) -> int:
    """A new hand on the books of the locked game (not written: :func:`write_hand` writes
    them with the hand): its scores added, the next number taken, one more hand counting,
    ``sequence`` its round or hand, a new version. Returns the hand's number."""
    _add(game, scores, +1)
    game.last_number += 1
    game.current_hands += 1
    game.last_sequence = sequence
    game.version += 1
    return int(game.last_number)


def correct(game: Game, old: Scores, new: Scores, sequence: int | None, *, latest: bool) -> None:
    """A revision replacing another on the books of the locked game (written with it by
    :func:`write_hand`): ``old`` scores out, ``new`` in; the ``latest`` hand's ``sequence``
    becomes the game's; a new version."""
    _add(game, old, -1)
    _add(game, new, +1)
    if latest:
        game.last_sequence = sequence
    game.version += 1


def revert(game: Game, scores: Scores, current: Sequence[Hand]) -> None:
    """A hand taken off the books of the locked game (a void) and written: its ``scores`` out,
    ``current`` the hands that still count, in order; a new version."""
    _add(game, scores, -1)
    _count(game, current)
    game.version += 1
    _save(game)


def restore(game: Game, scores: Scores, current: Sequence[Hand]) -> None:
    """A voided hand back on the books of the locked game and written: its ``scores`` in,
    ``current`` the hands that count now, in order; a new version."""
    _add(game, scores, +1)
    _count(game, current)
    game.version += 1
    _save(game)


def import_hands(game: Game, scored: Sequence[tuple[Hand, HandScore]]) -> None:
    """Every hand of an imported sheet on the books of its new game, written: each one's
    scores added, numbered 1 to n, all counting; a new version."""
    for _hand, score_ in scored:
        _add(game, score_.scores.items(), +1)
    game.last_number = len(scored)
    _count(game, [hand for hand, _score in scored])
    game.version += 1
    _save(game)


def reset_totals(game: Game, names: Iterable[str], **fields: object) -> None:
    """The locked game, with no hands, seated anew as ``names``: every total 0, ``fields``
    (its seating) written with the books, a new version."""
    game.totals = opening_books(names)["totals"]
    game.version += 1
    Game.objects.filter(pk=game.pk).update(**books(game), **fields)


def bump(game: Game, **fields: object) -> None:
    """A new version of the locked game (every phone's copy of its sheet is out of date),
    written with ``fields`` that changed with it (a hand limit, a table key)."""
    game.version += 1
    for name, value in fields.items():
        setattr(game, name, value)
    Game.objects.filter(pk=game.pk).update(version=game.version, **fields)


def bump_all(game_ids: Iterable[int], **fields: Any) -> None:
    """A new version of each game of ``game_ids`` (their rows locked), written in one
    statement with ``fields`` (a state, a hand limit, expressions allowed)."""
    Game.objects.filter(pk__in=list(game_ids)).update(version=F("version") + 1, **fields)


# --- writing a hand -----------------------------------------------------------------------------


def signed_in(user: AbstractBaseUser | AnonymousUser | None) -> AuthUser | None:
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


def write_hand(
    *,
    game: Game,
    values: dict[str, Any],
    engine: GameRules[Any, Any],
    score_: HandScore,
    seats: dict[str, int],
    entered_by: AbstractBaseUser | AnonymousUser | None,
    replaces: Hand | None = None,
    with_books: bool = False,
    hot_path: bool = False,
) -> Hand | None:
    """Insert a hand revision (``values``: its columns but the ids and times this adds) and
    its score lines; with ``with_books``, also write the locked game's books (applied by
    :func:`record` or :func:`correct`).

    Through the ORM, except with ``hot_path`` (a new hand, with its books): then
    :mod:`scoring.rows` writes all three in one statement where the database allows, and
    returns None, having written nothing, when another hand or a step of a hand of the game
    already holds the hand's idempotency key (the ORM path raises ``IntegrityError`` instead
    for a hand; its callers looked for the key first)."""
    values = {
        **values,
        "game_id": game.pk,
        "state": Hand.State.CURRENT,
        "rules_version": engine.rules_version,
        "replaces_id": replaces.pk if replaces is not None else None,
        "entered_by_id": getattr(signed_in(entered_by), "pk", None),
        "created_at": timezone.now(),
        "voided_at": None,
    }
    if not values["idempotency_key"]:
        values["request_fingerprint"] = ""
    lines = [_line_row(game.pk, score_, seats, name) for name in score_.scores]
    if not hot_path:
        hand = Hand.objects.create(**values)
        ScoreLine.objects.bulk_create(ScoreLine(hand_id=hand.pk, **line) for line in lines)
        if with_books:
            _save(game)
    else:
        assert with_books
        inserted = rows.insert_with_children_and_update(
            Hand,
            values,
            ScoreLine,
            "hand_id",
            lines,
            Game,
            game.pk,
            books(game),
            skip_duplicate=("game_id", "idempotency_key"),
            skip_held_by=HandEvent,
        )
        if inserted is None:
            return None
        hand = rows.loaded(Hand, {"id": inserted, **values})
    if replaces is not None:
        hand.replaces = replaces
    if values["entered_by_id"] is not None:
        hand.entered_by = signed_in(entered_by)
    hand.scores_cache = {name: score_.scores[name] for name in seats}
    return hand


# --- telling the layer above ------------------------------------------------------------------


def announce(game_id: int, change: Change, origin: str | None) -> None:
    """Announce one change to game ``game_id``, once, after the outermost transaction commits
    (not at all if it rolls back), to every listener but the one named ``origin``."""
    announce_all((game_id,), change, origin)


def announce_all(game_ids: Iterable[int], change: Change, origin: str | None) -> None:
    """Announce the same change to each game of ``game_ids``, each once, after the commit
    (:func:`scoring.services.seam.announce_all`)."""
    # The registry lives with the services that register listeners; imported here, when a
    # change is announced, because the services import this module.
    from scoring.services.seam import announce_all as deliver

    deliver(game_ids, change, origin)
