"""Writes of the scoring app: games, hands, corrections, voids, imports.

Every function is keyword-only, runs in one transaction and validates through ``tonkrules``.
Rule errors are raised as :class:`tonkrules.sheet.SheetError` (the format's error object, with
the hand's position); refusals that are not rule errors are :mod:`scoring.errors`. Writes to one
game are serialised by locking its row, so a retried request (same idempotency key) or two
corrections from the same revision can never both be applied.

After a change commits, the listeners registered with :func:`game_changed_register` are called
once with a typed :class:`scoring.events.GameChanged` (which game, what changed): this is how
``tournaments`` hears of results (no Django signals). Every service that changes a game takes
``origin``: the name of the listener on whose behalf it acts (``"tournaments"``), which is then
not told of the change (no echo; see :mod:`scoring.events`).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from scoring import rows, selectors
from scoring.errors import (
    GameFinished,
    GameNotOpen,
    HandLimitReached,
    HandNotFound,
    IdempotencyKeyReused,
    SeatsFixed,
    StaleRevision,
    VoidRefused,
)
from scoring.events import Change, GameChanged, Listener
from scoring.models import Game, Hand, ScoreLine, ScoresheetJob, Seat
from scoring.tasks import scoresheet_job_run
from tonkrules import HandScore, RuleError, find_game
from tonkrules.errors import FormatError, PlayerError, SequenceError
from tonkrules.games import GameRules
from tonkrules.sheet import (
    SheetError,
    parse_currency,
    parse_stake,
    read_sheet,
    score,
    score_sheet_json,
    verify_player_names,
)

User = AbstractBaseUser | AnonymousUser | None

# --- the seam to the layer above --------------------------------------------------------------

_game_changed: list[tuple[Listener, str | None]] = []


def game_changed_register(listener: Listener, *, name: str | None = None) -> None:
    """Call ``listener(event)`` once after every committed change to a game, with a
    :class:`scoring.events.GameChanged` saying which game and what changed.

    Args:
        listener: a callable taking the event; it runs after the commit, outside the
            transaction that made the change.
        name: the listener's name (``"tournaments"``): a change made with ``origin=name`` (on
            the listener's own behalf) is not delivered to it (no echo, see
            :mod:`scoring.events`).

    ``tournaments`` registers here in its ``AppConfig.ready()``; registering twice is a no-op.
    """
    if all(registered is not listener for registered, _name in _game_changed):
        _game_changed.append((listener, name))


def game_changed_unregister(listener: Listener) -> None:
    """Stop calling ``listener`` (tests). Unknown listeners are ignored."""
    _game_changed[:] = [(cb, name) for cb, name in _game_changed if cb is not listener]


def _announce(game_id: int, change: Change, origin: str | None) -> None:
    """Announce one change to game ``game_id``, once, after the outermost transaction commits
    (not at all if it rolls back), to every listener but the one named ``origin``."""
    event = GameChanged(game_id=game_id, change=change, origin=origin)
    listeners = [cb for cb, name in _game_changed if origin is None or name != origin]
    if listeners:
        transaction.on_commit(lambda: _deliver(event, listeners))


def _deliver(event: GameChanged, listeners: Sequence[Listener]) -> None:
    for listener in listeners:
        listener(event)


# --- helpers ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatSpec:
    """Who sits at a seat: a display name, and the club player if it is one (else a guest)."""

    name: str
    player_id: int | None = None


def engine_of(game: Game) -> tuple[GameRules[Any, Any], Any, dict[str, int]]:
    """The game's rules engine, its house rules, and its seat ids by name in seat order."""
    engine = find_game(game.kind)
    return engine, engine.options(game.options), {name: seat_id for name, seat_id in game.seating}


MAX_NAME_LENGTH = 80
MAX_STAKE_LENGTH = 32


def _verify_storable_names(names: Sequence[str]) -> None:
    """Names a seat can hold: at most 80 characters, no control characters.

    Raises:
        PlayerError: a name that is too long or holds a control character (a tab, a newline).
    """
    for name in names:
        if len(name) > MAX_NAME_LENGTH:
            raise PlayerError("name_too_long", player=name, params={"max": MAX_NAME_LENGTH})
        if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
            raise PlayerError("name_control", player=name)


def _request_fingerprint(kind: str, request: object) -> str:
    """A digest of a write's request, to tell a retry from another write under the same key."""
    text = json.dumps([kind, request], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def as_json_text(value: object) -> str:
    """JSON text of a value as stored on a hand: keys in their order, UTF-8 as is."""
    return json.dumps(value, ensure_ascii=False)


def _user(user: User) -> AbstractBaseUser | None:
    return user if user is not None and user.is_authenticated else None  # type: ignore[return-value]


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
    replaces: Hand | None = None,
    game_state: Mapping[str, object] | None = None,
    hot_path: bool = False,
) -> Hand | None:
    """Insert a hand revision and its score lines; with ``game_state``, also write the game
    row's totals and numbering. The caller has added the scores to ``game.totals``.

    Through the ORM, except with ``hot_path`` (:func:`hand_record` only, with ``game_state``):
    then :mod:`scoring.rows` writes all three in one statement where the database allows, and
    returns None, having written nothing, when another hand of the game already holds
    ``idempotency_key`` (the ORM path raises ``IntegrityError`` instead)."""
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
        "entered_by_id": getattr(_user(entered_by), "pk", None),
        "entered_via": via,
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
        )
        if inserted is None:
            return None
        hand = rows.loaded(Hand, {"id": inserted, **values})
    if replaces is not None:
        hand.replaces = replaces
    if values["entered_by_id"] is not None:
        hand.entered_by = _user(entered_by)  # type: ignore[assignment]
    hand.scores_cache = {name: score_.scores[name] for name in seats}
    return hand


def _line_scores(hand: Hand) -> list[tuple[str, int]]:
    return [(line.seat.name, line.points) for line in hand.lines.select_related("seat")]


def _locked(game: Game, *, replay_key: str | None = None, hot_path: bool = False) -> Game:
    """The game's row, locked until the transaction ends; with ``replay_key``, also the id of
    the hand an earlier request with that idempotency key wrote (``replay_id``, or None),
    read after the lock is granted so that it sees a concurrent request's committed hand.

    Through the ORM, except with ``hot_path`` (:func:`hand_record` only): :mod:`scoring.rows`.
    """
    if hot_path:
        locked = rows.select_for_update(Game, game.pk, LOCKED_FIELDS)
    else:
        locked = Game.objects.select_for_update().only(*LOCKED_FIELDS).get(pk=game.pk)
    if replay_key:
        locked.replay_id = _hand_with_key(game, replay_key)
    return locked


def _hand_with_key(game: Game, key: str) -> int | None:
    """The id of game ``game``'s hand written under idempotency key ``key``, or None."""
    return (
        Hand.objects.filter(game_id=game.pk, idempotency_key=key)
        .values_list("pk", flat=True)
        .first()
    )


LOCKED_FIELDS = (
    "kind",
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


HAND_STATE_FIELDS = ("totals", "last_number", "current_hands", "last_sequence")


def _state(game: Game) -> dict[str, object]:
    """The totals and numbering state the services keep on the game row."""
    return {f: getattr(game, f) for f in HAND_STATE_FIELDS}


def _save_state(game: Game) -> None:
    """Write the totals and numbering state the services keep on the game row."""
    Game.objects.filter(pk=game.pk).update(**_state(game))


# --- games ------------------------------------------------------------------------------------


@transaction.atomic
def game_start(
    *,
    kind: str,
    players: Sequence[str | SeatSpec],
    options: object = None,
    stake: object = None,
    currency: object = None,
    club: Any = None,
    created_by: User = None,
    idempotency_key: str | None = None,
    sequence_from: int | None = None,
    hand_limit: int | None = None,
    sequence_wraps: bool = False,
    waiting: bool = False,
    origin: str | None = None,
    _fingerprint: str | None = None,
) -> tuple[Game, bool]:
    """Seat players at a new game (rules: the game's player count; names as the format).

    Args:
        kind: a registered game's name (``tonkrules.find_game``: ``"tonk"``, ``"rook"``…).
        players: seat order, clockwise; names, or :class:`SeatSpec` naming club players.
        options: house rules (JSON object); missing keys take the rules' defaults.
        stake: Tonk only: the money value of one stake unit, a decimal string (``"0.25"``).
        currency: Tonk only: a three-letter code.
        club: the club the game belongs to (its members may see and change it).
        created_by: the user starting the game.
        idempotency_key: a retry with the same key (same user) returns the first game.
        sequence_from: Rook and Bluke: the number its first round or hand must have (a
            tournament table plays its part of the schedule).
        hand_limit: the most hands (rounds) it takes; one more is refused.
        sequence_wraps: Bluke: after hand 25 the hands start again at 1.
        waiting: seated but not open: hands are refused until :func:`game_open`.
        origin: the listener on whose behalf the game is started (not told of it).

    Returns:
        (the game, whether it was created now).

    Raises:
        SheetError: a bad game, option, stake, currency, name or number of players.
    """
    owner = _user(created_by)
    specs = [p if isinstance(p, SeatSpec) else SeatSpec(p) for p in players]
    fingerprint = _fingerprint or _request_fingerprint(
        "start",
        [
            kind,
            [(s.name, s.player_id) for s in specs],
            options,
            stake,
            currency,
            getattr(club, "pk", None),
        ],
    )
    if idempotency_key and owner is not None:
        existing = Game.objects.filter(created_by=owner, idempotency_key=idempotency_key).first()
        if existing is not None:
            if existing.request_fingerprint != fingerprint:
                raise IdempotencyKeyReused("idempotency_key_reused.game")
            return existing, False
    try:
        engine = find_game(kind)
        engine.options(options)  # validates; the game keeps the options as given
        if not engine.has_stakes and (stake is not None or currency is not None):
            raise FormatError("key_not_allowed.stake")
        stake_text = ""
        if stake is not None:
            parse_stake(stake)
            stake_text = str(stake)
            if len(stake_text) > MAX_STAKE_LENGTH:
                raise FormatError("stake.length", params={"max": MAX_STAKE_LENGTH})
        currency_text = parse_currency(currency) if currency is not None else ""
        names = [s.name for s in specs]
        verify_player_names(names)
        _verify_storable_names(names)
        engine.verify_players(names)
    except RuleError as exc:
        raise SheetError(exc) from exc
    player_ids = [s.player_id for s in specs if s.player_id is not None]
    if len(set(player_ids)) != len(player_ids):
        raise SheetError(PlayerError("duplicate_player"))
    if player_ids and (
        club is None or club.players.filter(pk__in=player_ids).count() != len(player_ids)
    ):
        raise SheetError(PlayerError("club"))
    try:
        with transaction.atomic():
            game = Game.objects.create(
                kind=engine.name,
                club=club,
                created_by=owner,
                options=dict(options) if isinstance(options, dict) else {},
                rules_version=engine.rules_version,
                stake=stake_text,
                currency=currency_text,
                idempotency_key=idempotency_key or "" if owner is not None else "",
                request_fingerprint=fingerprint,
                totals={s.name: 0 for s in specs},
                sequence_from=sequence_from,
                hand_limit=hand_limit,
                sequence_wraps=sequence_wraps,
                state=Game.State.WAITING if waiting else Game.State.IN_PLAY,
            )
    except IntegrityError:  # the same key, created meanwhile by a concurrent request
        existing = Game.objects.get(created_by=owner, idempotency_key=idempotency_key)
        if existing.request_fingerprint != fingerprint:
            raise IdempotencyKeyReused("idempotency_key_reused.game") from None
        return existing, False
    seats = Seat.objects.bulk_create(
        Seat(game=game, position=i, name=s.name, player_id=s.player_id) for i, s in enumerate(specs)
    )
    game.seating = [[seat.name, seat.pk] for seat in seats]
    game.save(update_fields=("seating",))
    _announce(game.pk, Change.STARTED, origin)
    return game, True


@transaction.atomic
def game_open(*, game: Game, origin: str | None = None) -> Game:
    """Open a waiting game for hands (a tournament round published). Idempotent; a finished
    game stays finished. ``origin``: the listener on whose behalf it acts (not told of it)."""
    game = _locked(game)
    if game.state == Game.State.WAITING:
        game.state = Game.State.IN_PLAY
        game.save(update_fields=("state",))
        _announce(game.pk, Change.OPENED, origin)
    return Game.objects.get(pk=game.pk)


@transaction.atomic
def game_limit_set(*, game: Game, hand_limit: int, origin: str | None = None) -> Game:
    """Lower the most hands a game takes to ``hand_limit`` (never below the hands entered;
    never raised): when a tournament round's time is called, the hand in progress is the last.
    Idempotent. ``origin``: the listener on whose behalf it acts (not told of it)."""
    game = _locked(game)
    limit = max(hand_limit, game.current_hands)
    if game.hand_limit is None or limit < game.hand_limit:
        game.hand_limit = limit
        game.save(update_fields=("hand_limit",))
        _announce(game.pk, Change.LIMIT_SET, origin)
    return Game.objects.get(pk=game.pk)


@transaction.atomic
def seat_replace(*, game: Game, position: int, seat: SeatSpec, origin: str | None = None) -> Game:
    """Put another player in seat ``position`` (0-based) of a game with no hands yet (a
    tournament substitute). ``origin``: the listener on whose behalf it acts (not told of it).

    Raises:
        SheetError: a name the game cannot take (blank, too long, already at the table).
        SeatsFixed: the game already has hands.
    """
    game = _locked(game)
    if game.last_number:
        raise SeatsFixed(game=game.pk)
    names = [name for name, _seat in game.seating]
    seat_id = game.seating[position][1]
    names[position] = seat.name
    try:
        verify_player_names(names)
        _verify_storable_names(names)
    except RuleError as exc:
        raise SheetError(exc) from exc
    Seat.objects.filter(pk=seat_id).update(name=seat.name, player_id=seat.player_id)
    game.seating[position] = [seat.name, seat_id]
    game.totals = dict.fromkeys(names, 0)  # no hands yet
    game.save(update_fields=("seating", "totals"))
    _announce(game.pk, Change.SEAT_REPLACED, origin)
    return Game.objects.get(pk=game.pk)


def _previous_sequence(game: Game, before: int | None, *, first: bool) -> int | None:
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


@transaction.atomic
def game_finish(*, game: Game, origin: str | None = None) -> Game:
    """Mark a game finished: no new hands (corrections and voids stay possible). Idempotent.
    ``origin``: the listener on whose behalf it acts (not told of it)."""
    game = _locked(game)
    if game.state != Game.State.FINISHED:
        game.state = Game.State.FINISHED
        game.finished_at = timezone.now()
        game.save(update_fields=("state", "finished_at"))
        _announce(game.pk, Change.FINISHED, origin)
    return Game.objects.get(pk=game.pk)


# --- hands ------------------------------------------------------------------------------------


def _replayed(hand_id: int | None, entry: object, *, number: int | None) -> Hand | None:
    """The hand an earlier request with the same idempotency key wrote, if any.

    A new hand replays only a new hand (``number`` None), a correction of hand ``number`` only
    a correction of that hand.

    Raises:
        IdempotencyKeyReused: the key was used for a different write.
    """
    if hand_id is None:
        return None
    hand = Hand.objects.select_related("replaces", "entered_by").get(pk=hand_id)
    same_write = (
        hand.replaces_id is None
        if number is None
        else (hand.replaces_id is not None and hand.number == number)
    )
    if not same_write or hand.entry_text != as_json_text(entry):
        raise IdempotencyKeyReused(number=hand.number)
    return hand


def _current(game: Game) -> list[Hand]:
    return list(game.hands.filter(state=Hand.State.CURRENT).order_by("number"))


def _next_revision(game: Game, number: int) -> int:
    last = game.hands.filter(number=number).order_by("-revision").first()
    return 1 if last is None else last.revision + 1


@transaction.atomic
def hand_record(
    *,
    game: Game,
    entry: object,
    entered_by: User = None,
    via: str = Hand.Via.USER,
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> tuple[Hand, bool]:
    """Check, score and record the next hand (or round) of a game, with its score lines.

    Args:
        game: the game; it must be in play.
        entry: one hand object of the score-sheet format, stored verbatim.
        entered_by: the user who entered it (None for a table link).
        via: how it came (signed-in user, table link).
        idempotency_key: the device's key for this write: a retry with the same key returns
            the hand the first request recorded, and records nothing.
        origin: the listener on whose behalf the hand is recorded (not told of it); None for
            a hand a person entered.

    Returns:
        (the hand, whether it was recorded now).

    Raises:
        SheetError: the hand breaks a rule; ``hand`` is its position in the sheet.
        GameFinished: the game is finished.
    """
    # The replay of a retried request is looked up only when the hand cannot be recorded:
    # a finished game, a rule error, or the key already taken (the insert writes nothing).
    game = _locked(game, hot_path=True)
    if game.state == Game.State.FINISHED:
        replay = _replay_of(game, idempotency_key, entry)
        if replay is not None:
            return replay, False
        raise GameFinished(game=game.pk)
    if game.state == Game.State.WAITING or (
        game.hand_limit is not None and game.current_hands >= game.hand_limit
    ):
        replay = _replay_of(game, idempotency_key, entry)
        if replay is not None:
            return replay, False
        if game.state == Game.State.WAITING:
            raise GameNotOpen(game=game.pk)
        raise HandLimitReached(game=game.pk, limit=game.hand_limit)
    engine, options, seats = engine_of(game)
    names = list(seats)
    # A new hand takes a number never used in the game (a voided number stays voided).
    number = game.last_number + 1
    previous = _previous_sequence(game, game.last_sequence, first=game.current_hands == 0)
    try:
        record = engine.read_hand(entry, players=names, options=options, previous=previous)
    except RuleError as exc:
        replay = _replay_of(game, idempotency_key, entry)
        if replay is not None:
            return replay, False
        raise SheetError(exc, game.current_hands + 1, number=number) from exc
    score_ = engine.score_hand(record, players=names, options=options)
    _add_to_totals(game, score_.scores.items(), +1)
    game.last_number = number
    game.current_hands += 1
    game.last_sequence = engine.schedule_number(record)
    hand = _write_hand(
        game=game,
        number=number,
        revision=1,
        entry=entry,
        engine=engine,
        record=record,
        score_=score_,
        seats=seats,
        entered_by=entered_by,
        via=via,
        idempotency_key=idempotency_key or "",
        game_state=_state(game),
        hot_path=True,
    )
    if hand is None:  # the key was taken: answer as the first request was answered
        replay = _replay_of(game, idempotency_key, entry)
        if replay is None:
            raise IntegrityError("a hand insert was skipped, yet no hand holds its key")
        return replay, False
    _announce(game.pk, Change.HAND_RECORDED, origin)
    return hand, True


def _replay_of(game: Game, key: str | None, entry: object) -> Hand | None:
    """The new hand an earlier request with ``key`` recorded in ``game``, if any.

    Raises:
        IdempotencyKeyReused: the key was used for a different write.
    """
    if not key:
        return None
    return _replayed(_hand_with_key(game, key), entry, number=None)


@transaction.atomic
def hand_correct(
    *,
    game: Game,
    number: int,
    revision: int,
    entry: object,
    entered_by: User = None,
    via: str = Hand.Via.USER,
    idempotency_key: str | None = None,
    origin: str | None = None,
) -> tuple[Hand, bool]:
    """Correct hand ``number``: a new revision that replaces the current one; every later
    total follows.

    Args:
        number: the hand's number in the game.
        revision: the revision the correction was made from; it must still be current.
        entry: the corrected hand object, stored verbatim.
        idempotency_key: a retry with the same key returns the revision it wrote.
        origin: the listener on whose behalf it is corrected (not told of it).

    Returns:
        (the new revision, whether it was written now).

    Raises:
        HandNotFound: no current hand ``number``.
        StaleRevision: ``revision`` is not the current one (``current_revision`` says which is).
        SheetError: the corrected hand breaks a rule (including a round or hand number that
            would break the sequence with the hands around it).
    """
    game = _locked(game, replay_key=idempotency_key)
    existing = _replayed(game.replay_id, entry, number=number)
    if existing is not None:
        return existing, False
    current = _current(game)
    index = next((i for i, h in enumerate(current) if h.number == number), None)
    if index is None:
        raise HandNotFound(number=number)
    old = current[index]
    if old.revision != revision:
        raise StaleRevision(
            params={"revision": revision}, number=number, current_revision=old.revision
        )
    engine, options, seats = engine_of(game)
    names = list(seats)
    previous = _previous_sequence(
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
                "not_consecutive.correction",
                params={
                    "number_key": engine.number_key,
                    "following": following.sequence,
                    "sequence": old.sequence,
                },
            )
    except RuleError as exc:
        raise SheetError(exc, index + 1, number=number) from exc
    score_ = engine.score_hand(record, players=names, options=options)
    _add_to_totals(game, _line_scores(old), -1)
    _add_to_totals(game, score_.scores.items(), +1)
    if index == len(current) - 1:
        game.last_sequence = engine.schedule_number(record)
    old.state = Hand.State.SUPERSEDED
    old.save(update_fields=("state",))
    hand = _write_hand(
        game=game,
        number=number,
        revision=_next_revision(game, number),
        entry=entry,
        engine=engine,
        record=record,
        score_=score_,
        seats=seats,
        entered_by=entered_by,
        via=via,
        idempotency_key=idempotency_key or "",
        replaces=old,
        game_state=_state(game),
    )
    if hand is None:  # the key was taken meanwhile (the lock makes this impossible)
        raise IntegrityError("a correction was skipped: its idempotency key is taken")
    _announce(game.pk, Change.HAND_CORRECTED, origin)
    return hand, True


@transaction.atomic
def hand_void(*, game: Game, number: int, origin: str | None = None) -> Hand:
    """Void hand ``number``: it no longer counts. Tonk: any hand. Rook and Bluke: only the
    latest, so the sequence of rounds or hands stays whole (an earlier one is corrected
    instead). Voiding a hand already voided returns it unchanged. ``origin``: the listener on
    whose behalf it acts (not told of it).

    Raises:
        HandNotFound: no hand ``number``.
        VoidRefused: a Rook round or Bluke hand that is not the latest.
    """
    game = _locked(game)
    current = _current(game)
    hand = next((h for h in current if h.number == number), None)
    if hand is None:
        last = game.hands.filter(number=number).order_by("-revision").first()
        if last is not None and last.state == Hand.State.VOIDED:
            return last
        raise HandNotFound(number=number)
    engine = find_game(game.kind)
    if engine.number_key is not None and hand is not current[-1]:
        raise VoidRefused(
            params={
                "number_key": engine.number_key,
                "title": engine.title,
                "sequence": hand.sequence,
            },
            number=number,
            latest=current[-1].number,
        )
    _add_to_totals(game, _line_scores(hand), -1)
    hand.state = Hand.State.VOIDED
    hand.voided_at = timezone.now()
    hand.save(update_fields=("state", "voided_at"))
    _sequence_state(game, [h for h in current if h is not hand])
    _save_state(game)
    _announce(game.pk, Change.HAND_VOIDED, origin)
    return hand


def game_totals_rebuild(*, game: Game) -> dict[str, int]:
    """Every seat's total recomputed from the current score lines (the source of truth);
    ``Game.totals`` must always equal it. Writes nothing."""
    return selectors.game_totals(game)


# --- score sheets -----------------------------------------------------------------------------


@transaction.atomic
def scoresheet_import(
    *,
    sheet: object,
    club: Any = None,
    created_by: User = None,
    idempotency_key: str | None = None,
) -> tuple[Game, bool]:
    """Import a whole score sheet as a new game, its hands stored verbatim, scored and lined.

    Returns:
        (the game, whether it was created now; a retry with the same key returns the first).

    Raises:
        SheetError: the sheet breaks a rule or the format; nothing is stored.
    """
    checked = read_sheet(sheet)
    assert isinstance(sheet, dict)
    result = score(checked)
    game, created = game_start(
        kind=checked.game.name,
        players=list(checked.players),
        options=sheet.get("options"),
        stake=sheet.get("stake"),
        currency=sheet.get("currency"),
        club=club,
        created_by=created_by,
        idempotency_key=idempotency_key,
        _fingerprint=_request_fingerprint("import", [sheet, getattr(club, "pk", None)]),
    )
    if not created:
        return game, False
    engine = checked.game
    seats = {name: seat_id for name, seat_id in game.seating}
    hands = []
    for number, (entry, record, score_) in enumerate(
        zip(sheet["hands"], checked.hands, result.hands, strict=True), 1
    ):
        _add_to_totals(game, score_.scores.items(), +1)
        hand = _write_hand(
            game=game,
            number=number,
            revision=1,
            entry=entry,
            engine=engine,
            record=record,
            score_=score_,
            seats=seats,
            entered_by=created_by,
            via=Hand.Via.IMPORT,
            idempotency_key="",
        )
        hands.append(hand)
    game.last_number = len(hands)
    _sequence_state(game, hands)
    _save_state(game)
    return game, True


@transaction.atomic
def scoresheet_job_submit(*, sheet: object) -> ScoresheetJob:
    """Store ``sheet`` as a queued job and score it in the background once this commits.

    In the embedded mode the task runs eagerly, right after the commit, in this process.
    """
    job = ScoresheetJob.objects.create(sheet=sheet)
    scoresheet_job_run.delay_on_commit(job.pk)
    return job


@transaction.atomic
def scoresheet_job_complete(*, job_id: int) -> ScoresheetJob:
    """Score job ``job_id``'s sheet with the rules engine and record the result.

    A sheet that breaks a rule is done too: its result is the engine's ``{"error": ...}``.
    Idempotent: a job already done is returned unchanged.
    """
    job = ScoresheetJob.objects.select_for_update().get(pk=job_id)
    if job.status == ScoresheetJob.Status.DONE:
        return job
    _exit_code, job.result = score_sheet_json(job.sheet)
    job.status = ScoresheetJob.Status.DONE
    job.finished_at = timezone.now()
    job.save(update_fields=("result", "status", "finished_at"))
    return job
