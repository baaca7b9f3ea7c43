"""Games: starting one (its seats), opening it, lowering its hand limit, replacing a seat before
the first hand, finishing it.

Every function is keyword-only and runs in one transaction; each change is announced after
commit to every listener but ``origin`` (:mod:`scoring.services.seam`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from scoring.errors import (
    IdempotencyKeyReused,
    SeatsFixed,
)
from scoring.events import Change
from scoring.models import Game, Seat, new_seat_key
from scoring.permissions import Act, Actor, check
from scoring.services.common import (
    MAX_STAKE_LENGTH,
    SeatSpec,
    User,
    _locked,
    _request_fingerprint,
    _user,
    _verify_storable_names,
)
from scoring.services.seam import _announce
from tonkrules import RuleError, find_game
from tonkrules.errors import FormatError, PlayerError
from tonkrules.sheet import (
    SheetError,
    parse_currency,
    parse_stake,
    verify_player_names,
)


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
        idempotency_key: a retry with the same key (same user) returns the first game.
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
        if confirmation not in Game.Confirmation.values:
            raise FormatError(
                "bad_value.confirmation", params={"choices": ", ".join(Game.Confirmation.values)}
            )
        engine = find_game(kind)
        engine.options(options)  # validates; the game keeps the options as given
        if not engine.has_stakes and (stake is not None or currency is not None):
            raise FormatError("key_not_allowed.stake", params={"title": engine.title})
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
                confirmation=confirmation,
                directed=directed,
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
        game.version += 1
        game.save(update_fields=("state", "version"))
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
        game.version += 1
        game.save(update_fields=("hand_limit", "version"))
        _announce(game.pk, Change.LIMIT_SET, origin)
    return Game.objects.get(pk=game.pk)


@transaction.atomic
def seat_replace(*, game: Game, position: int, seat: SeatSpec, origin: str | None = None) -> Game:
    """Put another player in seat ``position`` (0-based) of a game with no hands yet (a
    tournament substitute), with a new seat key (the seat's link is its player's).
    ``origin``: the listener on whose behalf it acts (not told of it).

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
    # The seat's private link is its player's: the substitute gets a new one (the old one,
    # still on the absent player's phone, opens nothing).
    Seat.objects.filter(pk=seat_id).update(
        name=seat.name, player_id=seat.player_id, seat_key=new_seat_key()
    )
    game.seating[position] = [seat.name, seat_id]
    game.totals = dict.fromkeys(names, 0)  # no hands yet
    game.version += 1
    game.save(update_fields=("seating", "totals", "version"))
    _announce(game.pk, Change.SEAT_REPLACED, origin)
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
    game = _locked(game)
    if by is not None:
        check(Act.FINISH, actor=by, game=game)
    if game.state != Game.State.FINISHED:
        game.state = Game.State.FINISHED
        game.finished_at = timezone.now()
        game.version += 1
        game.save(update_fields=("state", "finished_at", "version"))
        _announce(game.pk, Change.FINISHED, origin)
    return Game.objects.get(pk=game.pk)
