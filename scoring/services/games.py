"""Games: starting one (its seats), opening it, lowering its hand limit, replacing a seat before
the first hand, finishing it; and starting, opening and finishing many at once (a tournament
round's tables), in a few statements whatever their number, by the same rules.

Every function is keyword-only and runs in one transaction; each change is announced after
commit to every listener but ``origin``; versions and totals are :mod:`scoring.ledger`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from ops import idempotency
from scoring import ledger
from scoring.errors import (
    IdempotencyKeyReused,
    SeatsFixed,
)
from scoring.events import Change
from scoring.models import Game, Seat, new_seat_key
from scoring.money import stake_verify
from scoring.permissions import Act, Actor, check
from scoring.services.common import (
    SeatSpec,
    User,
)
from tonkrules import RuleError, find_game
from tonkrules.errors import FormatError, PlayerError
from tonkrules.games import GameRules
from tonkrules.names import clean_names
from tonkrules.sheet import SheetError


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
    confirmation: str = Game.Confirmation.NONE,
    directed: bool = False,
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
        idempotency_key: a retry with the same key (same user) returns the first game; the
            user's key on another create (a tournament, a round's seating) is refused.
        sequence_from: Rook and Bluke: the number its first round or hand must have (a
            tournament table plays its part of the schedule).
        hand_limit: the most hands (rounds) it takes; one more is refused.
        sequence_wraps: Bluke: after hand 25 the hands start again at 1.
        waiting: seated but not open: hands are refused until :func:`game_open`.
        confirmation: who must confirm a hand before it counts (``Game.Confirmation``).
        directed: a tournament table: once finished, its hands are a director's alone.
        origin: the listener on whose behalf the game is started (not told of it).

    Returns:
        (the game, whether it was created now).

    Raises:
        SheetError: a bad game, option, stake, currency, name or number of players.
        IdempotencyKeyReused: the key was used for another game or another create.
    """
    owner = ledger.signed_in(created_by)
    specs = [p if isinstance(p, SeatSpec) else SeatSpec(p) for p in players]
    fingerprint = _fingerprint or idempotency.fingerprint(
        "POST",
        "games",
        {
            "game": kind,
            "players": [(s.name, s.player_id) for s in specs],
            "options": options,
            "stake": stake,
            "currency": currency,
            "club": getattr(club, "pk", None),
            "confirmation": confirmation,
        },
    )
    if idempotency_key and owner is not None:
        existing = Game.objects.filter(created_by=owner, idempotency_key=idempotency_key).first()
        if existing is not None:
            _replay_or_refuse(existing, fingerprint)
            return existing, False
        idempotency.refuse_if_held_elsewhere(
            owner.pk, idempotency_key, kind="games", refusal=_key_reused
        )
    engine, settings = _settings_verify(
        kind=kind, options=options, stake=stake, currency=currency, confirmation=confirmation
    )
    (specs,) = _seats_verify(engine, [specs], club)
    try:
        with transaction.atomic():
            (game,) = _games_create(
                [specs],
                settings=settings,
                club=club,
                created_by=owner,
                idempotency_key=idempotency_key or "" if owner is not None else "",
                request_fingerprint=fingerprint,
                sequence_from=sequence_from,
                hand_limit=hand_limit,
                sequence_wraps=sequence_wraps,
                directed=directed,
                waiting=waiting,
                origin=origin,
            )
    except IntegrityError:  # the same key, created meanwhile by a concurrent request
        existing = Game.objects.get(created_by=owner, idempotency_key=idempotency_key)
        _replay_or_refuse(existing, fingerprint)
        return existing, False
    return game, True


def _key_reused() -> IdempotencyKeyReused:
    return IdempotencyKeyReused("idempotency_key_reused.game")


def game_holds_key(user_id: int, key: str) -> bool:
    """Whether user ``user_id`` started a game (or imported a sheet) under ``key``
    (``ops.idempotency.holder_register``)."""
    return Game.objects.filter(created_by_id=user_id, idempotency_key=key).exists()


def _replay_or_refuse(existing: Game, fingerprint: str) -> None:
    """The one decision (:func:`ops.idempotency.replay_or_refuse`) for a game started under a
    key the creator used already: a retry, or ``idempotency_key_reused.game``."""
    idempotency.replay_or_refuse(
        existing.request_fingerprint,
        fingerprint,
        _key_reused,
    )


@transaction.atomic
def games_start(
    *,
    kind: str,
    tables: Sequence[Sequence[SeatSpec]],
    options: object = None,
    stake: object = None,
    currency: object = None,
    club: Any = None,
    sequence_from: int | None = None,
    hand_limit: int | None = None,
    sequence_wraps: bool = False,
    waiting: bool = False,
    confirmation: str = Game.Confirmation.NONE,
    directed: bool = False,
    origin: str | None = None,
) -> list[Game]:
    """Start one game per entry of ``tables`` (a tournament round's tables), all with the same
    game, house rules, stake, club and schedule part, in a few statements whatever their
    number: the games inserted together, then their seats, then each game's seating (ids).

    The rules are :func:`game_start`'s, checked for every table before anything is written
    (the settings once; each table's names and player count; the club players, all in one
    query). No idempotency key and no creator: the caller's own row (a round) makes the work
    safe to run twice.

    Args:
        tables: each game's seats in seat order, clockwise (:class:`SeatSpec`).
        the others: as :func:`game_start`'s.

    Returns:
        The games, in the order of ``tables``, with their ``seating`` (each game announced
        ``STARTED`` after commit, as :func:`game_start` does).

    Raises:
        SheetError: a bad game, option, stake, currency, name or number of players (at any
            table: nothing is written).
    """
    engine, settings = _settings_verify(
        kind=kind, options=options, stake=stake, currency=currency, confirmation=confirmation
    )
    tables = _seats_verify(engine, tables, club)
    return _games_create(
        tables,
        settings=settings,
        club=club,
        created_by=None,
        idempotency_key="",
        request_fingerprint="",  # no key, so no retry to tell apart
        sequence_from=sequence_from,
        hand_limit=hand_limit,
        sequence_wraps=sequence_wraps,
        directed=directed,
        waiting=waiting,
        origin=origin,
    )


def _settings_verify(
    *, kind: str, options: object, stake: object, currency: object, confirmation: str
) -> tuple[GameRules[Any, Any], dict[str, Any]]:
    """The engine of game ``kind`` and the game row's settings as stored (its name, options,
    rules version, stake and currency text, confirmation), once checked.

    Raises:
        SheetError: a bad game, option, stake or currency, or confirmation rule.
    """
    try:
        if confirmation not in Game.Confirmation.values:
            raise FormatError(
                "bad_value.confirmation", params={"choices": ", ".join(Game.Confirmation.values)}
            )
        engine = find_game(kind)
        engine.options(options)  # validates; the game keeps the options as given
        if not engine.has_stakes and (stake is not None or currency is not None):
            raise FormatError("key_not_allowed.stake", params={"title": engine.title})
        stake_text, currency_text = stake_verify(stake=stake, currency=currency)
    except RuleError as exc:
        raise SheetError(exc) from exc
    return engine, {
        "kind": engine.name,
        "options": dict(options) if isinstance(options, dict) else {},
        "rules_version": engine.rules_version,
        "stake": stake_text,
        "currency": currency_text,
        "confirmation": confirmation,
    }


def _seats_verify(
    engine: GameRules[Any, Any], tables: Sequence[Sequence[SeatSpec]], club: Any
) -> list[list[SeatSpec]]:
    """Check each game's seats: names by the name rule (``tonkrules.names.clean_names``:
    normalised, no invisible character, no two the same name at one table), as many players
    as the game takes, no club player twice at one game, and every club player one of
    ``club``'s (one query for all the games).

    Returns:
        The seats of each game with their names as stored (normalised).

    Raises:
        SheetError: a bad name or number of players, a player twice, a player of no club or
            of another club.
    """
    cleaned: list[list[SeatSpec]] = []
    for specs in tables:
        try:
            names = clean_names(s.name for s in specs)
            engine.verify_players(names)
        except RuleError as exc:
            raise SheetError(exc) from exc
        cleaned.append([SeatSpec(name, s.player_id) for name, s in zip(names, specs, strict=True)])
        player_ids = [s.player_id for s in specs if s.player_id is not None]
        if len(set(player_ids)) != len(player_ids):
            raise SheetError(PlayerError("duplicate_player"))
    wanted = {s.player_id for specs in tables for s in specs if s.player_id is not None}
    if wanted and (club is None or club.players.filter(pk__in=wanted).count() != len(wanted)):
        raise SheetError(PlayerError("club"))
    return cleaned


def _games_create(
    tables: Sequence[Sequence[SeatSpec]],
    *,
    settings: dict[str, Any],
    waiting: bool,
    origin: str | None,
    **fields: Any,
) -> list[Game]:
    """Insert checked games (one per entry of ``tables``, each with ``settings`` and
    ``fields``) and their seats, then record each game's seating (names and seat ids, in seat
    order): three statements, whatever the number of games. Each is announced ``STARTED``."""
    games = Game.objects.bulk_create(
        Game(
            **settings,
            **fields,
            **ledger.opening_books(s.name for s in specs),
            state=Game.State.WAITING if waiting else Game.State.IN_PLAY,
        )
        for specs in tables
    )
    seats = Seat.objects.bulk_create(
        Seat(game_id=game.pk, position=i, name=s.name, player_id=s.player_id)
        for game, specs in zip(games, tables, strict=True)
        for i, s in enumerate(specs)
    )
    at = 0
    for game, specs in zip(games, tables, strict=True):
        game.seating = [[seat.name, seat.pk] for seat in seats[at : at + len(specs)]]
        at += len(specs)
    if len(games) == 1:
        Game.objects.filter(pk=games[0].pk).update(seating=games[0].seating)
    else:
        # Every row's seating in one statement: the rows just inserted, inserted again on
        # their ids with ON CONFLICT (id) DO UPDATE of the seating alone. The same UPDATE as
        # bulk_update's, without its CASE of one compiled WHEN per game (500 games: about 50
        # ms of CPU, not 170).
        Game.objects.bulk_create(
            games, update_conflicts=True, unique_fields=("id",), update_fields=("seating",)
        )
    ledger.announce_all((game.pk for game in games), Change.STARTED, origin)
    return games


@transaction.atomic
def game_open(*, game: Game, origin: str | None = None) -> Game:
    """Open a waiting game for hands (a tournament round published). Idempotent; a finished
    game stays finished. ``origin``: the listener on whose behalf it acts (not told of it)."""
    game = ledger.open_game(game)
    if game.state == Game.State.WAITING:
        _open([game.pk], origin)
    return Game.objects.get(pk=game.pk)


@transaction.atomic
def games_open(*, game_ids: Iterable[int], origin: str | None = None) -> list[int]:
    """Open every waiting game of ``game_ids`` for hands (a tournament round published), as
    :func:`game_open` opens one: two statements whatever their number (the waiting ones
    locked, in id order, then opened together). ``game_ids``: ids, or a queryset of them
    (read as a subquery). Idempotent; games not waiting are left as they are.

    Returns:
        The ids of the games opened now.
    """
    waiting = list(
        Game.objects.select_for_update()
        .filter(pk__in=game_ids, state=Game.State.WAITING)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    _open(waiting, origin)
    return waiting


def _open(game_ids: list[int], origin: str | None) -> None:
    """Open waiting games (their rows locked): in play, a new version, announced ``OPENED``."""
    if game_ids:
        ledger.bump_all(game_ids, state=Game.State.IN_PLAY)
        ledger.announce_all(game_ids, Change.OPENED, origin)


@transaction.atomic
def game_limit_set(*, game: Game, hand_limit: int, origin: str | None = None) -> Game:
    """Lower the most hands a game takes to ``hand_limit`` (never below the hands entered;
    never raised): when a tournament round's time is called, the hand in progress is the last.
    Idempotent. ``origin``: the listener on whose behalf it acts (not told of it)."""
    game = ledger.open_game(game)
    limit = max(hand_limit, game.current_hands)
    if game.hand_limit is None or limit < game.hand_limit:
        ledger.bump(game, hand_limit=limit)
        ledger.announce(game.pk, Change.LIMIT_SET, origin)
    return Game.objects.get(pk=game.pk)


@transaction.atomic
def games_last_hand(*, game_ids: Iterable[int], origin: str | None = None) -> list[int]:
    """Time called on a tournament round: each game of ``game_ids`` takes the hand in progress
    and no more, its hand limit lowered to its hands entered + 1 (never raised), as
    :func:`game_limit_set` lowers one game's. Two statements whatever their number (the games
    to change locked, in id order, then changed together), each read under its lock, so a hand
    being recorded now is counted. ``game_ids``: ids, or a queryset of them. Idempotent;
    ``origin``: the listener on whose behalf it acts (not told of it).

    Returns:
        The ids of the games whose limit changed now (each announced ``LIMIT_SET``).
    """
    changed = list(
        Game.objects.select_for_update()
        .filter(pk__in=game_ids)
        .filter(Q(hand_limit__isnull=True) | Q(hand_limit__gt=F("current_hands") + 1))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if changed:
        ledger.bump_all(changed, hand_limit=F("current_hands") + 1)
        ledger.announce_all(changed, Change.LIMIT_SET, origin)
    return changed


@transaction.atomic
def seat_replace(*, game: Game, position: int, seat: SeatSpec, origin: str | None = None) -> Game:
    """Put another player in seat ``position`` (0-based) of a game with no hands yet (a
    tournament substitute), with a new seat key (the seat's link is its player's).
    ``origin``: the listener on whose behalf it acts (not told of it).

    Raises:
        SheetError: a name the game cannot take (blank, too long, already at the table).
        SeatsFixed: the game already has hands.
    """
    game = ledger.open_game(game)
    if game.last_number:
        raise SeatsFixed(game=game.pk)
    names = [name for name, _seat in game.seating]
    seat_id = game.seating[position][1]
    names[position] = seat.name
    try:
        names = list(clean_names(names))
    except RuleError as exc:
        raise SheetError(exc) from exc
    seat = SeatSpec(names[position], seat.player_id)
    # The seat's private link is its player's: the substitute gets a new one (the old one,
    # still on the absent player's phone, opens nothing).
    Seat.objects.filter(pk=seat_id).update(
        name=seat.name, player_id=seat.player_id, seat_key=new_seat_key()
    )
    game.seating[position] = [seat.name, seat_id]
    ledger.reset_totals(game, names, seating=game.seating)  # no hands yet
    ledger.announce(game.pk, Change.SEAT_REPLACED, origin)
    return Game.objects.get(pk=game.pk)


@transaction.atomic
def game_finish(*, game: Game, by: Actor | None = None, origin: str | None = None) -> Game:
    """Mark a game finished: no new hands (corrections and voids stay possible). Idempotent.
    ``by``: who finishes it (checked: :func:`scoring.permissions.check`; a tournament table is
    finished by its round, never from the table); ``origin``: the listener on whose behalf it
    acts (not told of it).

    Raises:
        NotAllowed: ``by`` may not finish it.
    """
    game = ledger.open_game(game)
    if by is not None:
        check(Act.FINISH, actor=by, game=game)
    if game.state != Game.State.FINISHED:
        _finish([game.pk], origin)
    return Game.objects.get(pk=game.pk)


@transaction.atomic
def games_finish(*, game_ids: Iterable[int], origin: str | None = None) -> list[int]:
    """Finish every game of ``game_ids`` not finished yet (a tournament round closed), as
    :func:`game_finish` finishes one: two statements whatever their number (the unfinished
    ones locked, in id order, then finished together). ``game_ids``: ids, or a queryset of
    them (read as a subquery). No permission check: the caller decides (a round closing its
    tables). Idempotent.

    Returns:
        The ids of the games finished now.
    """
    unfinished = list(
        Game.objects.select_for_update()
        .filter(pk__in=game_ids)
        .exclude(state=Game.State.FINISHED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    _finish(unfinished, origin)
    return unfinished


def _finish(game_ids: list[int], origin: str | None) -> None:
    """Finish games (their rows locked): no new hands, when, a new version, announced
    ``FINISHED``."""
    if game_ids:
        ledger.bump_all(game_ids, state=Game.State.FINISHED, finished_at=timezone.now())
        ledger.announce_all(game_ids, Change.FINISHED, origin)
