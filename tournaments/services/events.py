"""Tournaments and their players: creating a tournament, registrations and withdrawals.

It stays one module (about 500 lines): creating a tournament and changing its players read
the same checks (who can be seated at the game's tables, what its game accepts).

Every function is keyword-only; every write is one transaction. Names starting with ``_`` are
shared within ``tournaments.services`` only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction

from ops import idempotency
from scoring.models import Game
from scoring.money import stake_verify
from tonkrules import RuleError, find_game
from tonkrules.errors import PlayerError
from tonkrules.names import clean_name, name_key
from tournaments import languages, localtime, seating
from tournaments.errors import TournamentConflict, TournamentError
from tournaments.models import (
    TOURNAMENT_NAME_LENGTH,
    AuditEntry,
    Club,
    Membership,
    Player,
    Registration,
    Round,
    Tournament,
)
from tournaments.services.audit import audit_record
from tournaments.services.keys import key_reused, tournament_replay_or_refuse
from tournaments.services.order import (
    entry_round,
    last_round,
    last_seated_number,
    players_changed,
    players_locked,
)
from tournaments.services.overlap import check_elsewhere, elsewhere_audit
from tournaments.services.results import results_mark_changed


def is_director(user: Any, club: Club) -> bool:
    """Whether ``user`` directs ``club``'s tournaments."""
    return bool(
        user is not None
        and user.is_authenticated
        and Membership.objects.filter(club=club, user=user, role=Membership.Role.DIRECTOR).exists()
    )


def _choice(value: object, choices: type[Any], field: str) -> str:
    if value not in choices.values:
        allowed = ", ".join(choices.values)
        raise TournamentError(
            f"bad_{field}.choice", params={"field": field, "allowed": allowed}, field=field
        )
    return str(value)


def _whole(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TournamentError(
            f"bad_{field}.whole", params={"field": field, "low": low, "high": high}, field=field
        )
    return value


#: The arguments of :func:`tournament_create` that are not the request's body.
_NOT_THE_BODY = frozenset({"club", "created_by", "idempotency_key"})


@transaction.atomic
def tournament_create(
    *,
    club: Club,
    created_by: Any,
    name: str,
    kind: str,
    options: object = None,
    stake: object = None,
    currency: object = None,
    rounds: int | None = None,
    sizes: Sequence[int] | None = None,
    prefer: int | None = None,
    method: str = Tournament.Method.BALANCED,
    hands_per_round: int | None = None,
    time_zone: str = "UTC",
    starts_at: datetime | str | None = None,
    minutes_per_round: int | None = None,
    missed_round_score: str = Tournament.Missed.AVERAGE,
    basis: str = Tournament.Basis.TOTAL,
    confirmation: str = Game.Confirmation.ONE_OTHER,
    seed: int = 0,
    language: object = "",
    idempotency_key: str | None = None,
) -> tuple[Tournament, bool]:
    """Create a tournament of ``club`` (its director only).

    Args:
        kind: a registered game's name; what follows comes from its rules object
            (``tonkrules.GameRules``).
        rounds: 1 to ``max_rounds``; ``default_rounds`` when None (required for a game that
            has none: Rook's is 11, round r playing contract r).
        sizes: the allowed table sizes; each must be a player count the game allows
            (default ``table_sizes.allowed``); ``prefer`` one of them (``table_sizes.preferred``).
        hands_per_round: 1 to ``max_hands_per_round`` (``default_hands_per_round`` when None);
            a game whose tournament round is one round of the game takes only 1. A game with a
            schedule continues it from round to round (``sequence_start``).
        missed_round_score: ``average`` (default), ``zero`` (refused where the lowest total
            wins: ``zero_for_rook``), ``worst``.
        basis: ``total`` or ``placement``.
        confirmation: who must confirm a table's hand before it counts in the standings and
            the seating (``Game.Confirmation``: ``none``, ``one_other`` by default, ``all``,
            ``director``); every table's game is started with it.
        time_zone: an IANA zone name (``tournaments.localtime.zone``); UTC when not given.
        starts_at: when round 1 starts: a naive ``datetime`` or text without an offset is a
            wall time in ``time_zone``; an aware one, or text with an offset, is that instant
            (``tournaments.localtime.instant``: a wall time the zone skips, or shows twice,
            is refused). Stored as the instant.
        language: of its public pages for a visitor who chose none (``language_read``).
        idempotency_key: a retry with the same key (same user) returns the first tournament;
            the user's key on another create (a game, an import, a round's seating) is
            refused (``idempotency_key_reused``).

    Returns:
        (the tournament, whether it was created now).

    Raises:
        TournamentError: a request the rules refuse (``not_director``, ``bad_sizes``,
            ``bad_rounds``, ``bad_options``, ``zero_for_rook``, ``bad_time_zone``,
            ``bad_format`` for a time or a language…); nothing is saved.
    """
    request = {k: v for k, v in locals().items() if k not in _NOT_THE_BODY}
    if language == "":  # none: fingerprinted as before tournaments had a language
        del request["language"]
    fingerprint = idempotency.fingerprint("POST", "tournaments", request | {"club": club.pk})
    if not is_director(created_by, club):
        raise TournamentError("not_director")
    if idempotency_key:
        existing = Tournament.objects.filter(
            created_by=created_by, idempotency_key=idempotency_key
        ).first()
        if existing is not None:
            tournament_replay_or_refuse(existing, fingerprint)
            return existing, False
        user_id = getattr(created_by, "pk", None)
        idempotency.refuse_if_held_elsewhere(
            user_id, idempotency_key, kind="tournaments", refusal=key_reused
        )
    if not isinstance(name, str):
        raise TournamentError("bad_name", field="name")
    try:
        name = clean_name(name, max_length=TOURNAMENT_NAME_LENGTH)
    except PlayerError as exc:
        raise TournamentError.because("bad_name", exc, field="name") from exc
    try:
        engine = find_game(kind)
        engine.options(options)
    except RuleError as exc:
        raise TournamentError.because("bad_options", exc, field="options") from exc
    stake_text, currency_text = "", ""
    if stake is not None or currency is not None:
        if not engine.has_stakes:
            raise TournamentError("bad_stake", params={"title": engine.title}, field="stake")
        try:
            stake_text, currency_text = stake_verify(stake=stake, currency=currency)
        except RuleError as exc:
            field = "currency" if exc.detail == "currency" else "stake"
            raise TournamentError.because("bad_stake", exc, field=field) from exc
    default_sizes, default_prefer = engine.table_sizes.allowed, engine.table_sizes.preferred
    table_sizes = sorted(set(sizes)) if sizes is not None else list(default_sizes)
    if not table_sizes or any(
        isinstance(s, bool)
        or not isinstance(s, int)
        or not engine.min_players <= s <= engine.max_players
        for s in table_sizes
    ):
        raise TournamentError(
            "bad_sizes",
            params={
                "title": engine.title,
                "min": engine.min_players,
                "max": engine.max_players,
                "sizes": table_sizes,
            },
            field="sizes",
        )
    prefer = (
        prefer
        if prefer is not None
        else (default_prefer if default_prefer in table_sizes else max(table_sizes))
    )
    if prefer not in table_sizes:
        raise TournamentError("bad_prefer", field="prefer")
    rounds = _whole(
        engine.default_rounds if rounds is None else rounds, "rounds", 1, engine.max_rounds
    )
    if engine.max_hands_per_round == 1:  # a round of the tournament is one round of the game
        if hands_per_round not in (None, 1):
            raise TournamentError(
                "bad_hands_per_round.one",
                params={"title": engine.title},
                field="hands_per_round",
            )
        hands = 1
    else:
        hands = _whole(
            engine.default_hands_per_round if hands_per_round is None else hands_per_round,
            "hands_per_round",
            1,
            engine.max_hands_per_round,
        )
    method = _choice(method, Tournament.Method, "method")
    missed = _choice(missed_round_score, Tournament.Missed, "missed_round_score")
    if engine.lower_wins and missed == Tournament.Missed.ZERO:
        raise TournamentError(
            "zero_for_rook",  # the code clients know; any game whose lowest total wins
            params={"title": engine.title},
            field="missed_round_score",
        )
    basis = _choice(basis, Tournament.Basis, "basis")
    confirmation = _choice(confirmation, Game.Confirmation, "confirmation")
    zone = localtime.zone(time_zone)
    if starts_at is not None:
        starts_at = localtime.instant(starts_at, zone, field="starts_at")
    if minutes_per_round is not None:
        _whole(minutes_per_round, "minutes_per_round", 1, 24 * 60)
    try:
        with transaction.atomic():
            tournament = Tournament.objects.create(
                club=club,
                name=name.strip(),
                kind=engine.name,
                options=dict(options) if isinstance(options, dict) else {},
                stake=stake_text,
                currency=currency_text,
                round_count=rounds,
                sizes=table_sizes,
                prefer=prefer,
                method=method,
                hands_per_round=hands,
                time_zone=time_zone,
                starts_at=starts_at,
                minutes_per_round=minutes_per_round,
                missed_round_score=missed,
                basis=basis,
                confirmation=confirmation,
                seed=_whole(seed, "seed", 0, 2**31 - 1),
                language=languages.language_read(language),
                created_by=created_by,
                idempotency_key=idempotency_key or "",
                request_fingerprint=fingerprint if idempotency_key else "",
            )
    except IntegrityError:  # the same idempotency key, created meanwhile by a concurrent request
        existing = Tournament.objects.get(created_by=created_by, idempotency_key=idempotency_key)
        tournament_replay_or_refuse(existing, fingerprint)
        return existing, False
    audit_record(tournament.pk, AuditEntry.Action.CREATE, by=created_by, name=tournament.name)
    return tournament, True


@transaction.atomic
def club_player_for_name(*, club: Club, name: str) -> Player:
    """The club player ``name`` names, by the name rule: the player whose name has the same
    key (``tonkrules.names.name_key``: letter case, accents typed composed or not, spaces
    aside), else a new club player of that name (normalised, ``clean_name``).

    Raises:
        TournamentError: ``bad_name``, a name the rule refuses (its sentence the rule's:
            the invisible character, the length).
    """
    try:
        name = clean_name(name)
    except PlayerError as exc:
        raise TournamentError.because("bad_name", exc, field="names") from exc
    key = name_key(name)
    player = Player.objects.filter(club=club, name_key=key).first()
    if player is not None:
        return player
    try:
        with transaction.atomic():
            return Player.objects.create(club=club, name=name)
    except IntegrityError:  # added meanwhile by a concurrent request
        return Player.objects.get(club=club, name_key=key)


def seatable_verify(tournament: Tournament, players: int) -> None:
    """Refuse, before anything is saved, a request that would seat ``players`` players at the
    tournament's tables when they cannot fill one (the seating's own rule,
    ``tournaments.seating.check_seatable``: sit-outs let any number from the smallest table
    up be seated).

    Raises:
        TournamentConflict: ``too_few_players`` (its sentence the seating's: "4 players cannot
            fill a table: the smallest table seats 5").
    """
    try:
        seating.check_seatable(players, tournament.sizes, tournament.prefer)
    except seating.SeatingError as exc:
        raise TournamentConflict.because(exc.code, exc) from exc


@transaction.atomic
def registration_add(
    *,
    tournament: Tournament,
    player: Player,
    by: Any = None,
    reason: object = "",
    confirm_elsewhere: bool = False,
) -> Registration:
    """Register ``player`` (a player of the tournament's club). Between rounds this is a late
    entry: the player is seated from the next round and misses the earlier ones (scored as
    missed rounds). Kept in the audit (``register``, with ``late`` for a late entry) with
    ``by`` (the director; None: the system) and ``reason``.

    A late entry never makes a round harder to seat (one more player), so it is never refused
    for the table sizes: it is how a director mends a round whose players cannot fill a table
    (a failed seating then retried, a seating superseded then seated again).

    A player who sits at another of the club's tables during the round they would enter
    (``tournaments.services.overlap``) is refused (409 ``seated_elsewhere``) unless a director
    confirms it (``confirm_elsewhere``) with a ``reason``, kept in the audit (``elsewhere``).

    Raises:
        TournamentError: ``other_club``, ``bad_reason``, ``reason_needed``. TournamentConflict:
            ``already_registered``, ``finished`` (every round is seated), ``seated_elsewhere``.
    """
    if player.club_id != tournament.club_id:
        raise TournamentError(  # no name: other clubs' players are not to be discovered
            "other_club", field="player"
        )
    players_locked(tournament.pk)
    from_round = entry_round(tournament)
    if from_round > tournament.round_count:
        raise TournamentConflict("finished")
    try:
        with transaction.atomic():
            registration = Registration.objects.create(
                tournament=tournament, player=player, from_round=from_round
            )
    except IntegrityError:
        raise TournamentConflict(
            "already_registered", params={"name": player.name}, field="player"
        ) from None
    elsewhere = check_elsewhere(  # refused: the transaction undoes the registration
        tournament=tournament,
        number=from_round,
        rnd=None,  # not published: it starts when it is
        names=[player.name],
        confirm=confirm_elsewhere,
        reason=reason,
    )
    extra = elsewhere_audit(elsewhere)
    audit_record(
        tournament.pk,
        AuditEntry.Action.REGISTER,
        by=by,
        reason=reason,
        round_number=from_round,
        player=player.name,
        registration=registration.pk,
        late=last_round(tournament) is not None,
        **extra,
    )
    players_changed(tournament)
    results_mark_changed(tournament.pk)  # a new line in the standings
    return registration


@transaction.atomic
def registration_withdraw(
    *, registration: Registration, by: Any = None, reason: object = ""
) -> Registration:
    """Withdraw a player: their results stay, they are never seated again (rounds after the
    last one seated score as missed rounds), shown as withdrawn. Idempotent. Kept in the
    audit (``withdraw``) with ``by`` and ``reason`` (the first time only).

    When the players left could no longer fill a table (``tournaments.seating.check_seatable``)
    of the round this player would play next, what happens depends on where that round stands:

    - its seating is under way (``planned``), or it is the next round of a tournament already
      under way (a round was played and rounds remain): the withdrawal is refused, nothing
      changes (``too_few_players``: "withdrawing Ana would leave 4 players for round 2, who
      cannot fill a table: …; register another player first"). The seating would otherwise
      fail, or the next round could not be asked for, with nobody told why.
    - it is seated, not yet published: the withdrawal is allowed and the round flagged as seated
      on changed players (``superseded``). Its tables stay as they are and may still be
      published (a substitute playing the seat); seating it again is refused with the reason
      until a late entry makes the players fit.
    - before round 1 (registrations still being taken), for a round whose seating failed (its
      retry checks again), or once every round is seated: allowed; asking for the seating
      refuses with the reason.

    Raises:
        TournamentConflict: ``too_few_players`` (above). TournamentError: ``bad_reason``.
    """
    # The latest round and the tournament first, the registration after them: a seating under
    # way holds them while its seats (keys referring to the registration) wait at its commit
    # for a registration locked here.
    players_locked(registration.tournament_id)
    registration = (
        Registration.objects.select_for_update(of=("self",))
        .select_related("player")
        .get(pk=registration.pk)
    )
    if registration.withdrawn_after is None:
        _check_withdrawal(registration)
        last = last_round(registration.tournament)
        registration.withdrawn_after = last_seated_number(last)
        registration.save(update_fields=("withdrawn_after",))
        audit_record(
            registration.tournament_id,
            AuditEntry.Action.WITHDRAW,
            by=by,
            reason=reason,
            round_number=registration.withdrawn_after or None,
            player=registration.player.name,
            registration=registration.pk,
        )
        players_changed(registration.tournament)
        results_mark_changed(registration.tournament_id)
    return registration


def _check_withdrawal(registration: Registration) -> None:
    """Refuse a withdrawal that would leave the next round to seat, while its seating is under
    way or the tournament is under way, unable to fill a table (the rule:
    :func:`registration_withdraw`).

    Raises:
        TournamentConflict: ``too_few_players``.
    """
    tournament = Tournament.objects.select_for_update().get(pk=registration.tournament_id)
    last = last_round(tournament)
    if last is None or last.state in (Round.State.SEATED, Round.State.FAILED):
        return
    number = entry_round(tournament)
    if number > tournament.round_count:
        return
    active = [r.pk for r in players_to_seat(tournament, number)]
    if registration.pk not in active:
        return
    try:
        seating.check_seatable(len(active), tournament.sizes, tournament.prefer)
    except seating.SeatingError:
        return  # the round could not be seated before: this withdrawal changes nothing
    try:
        seating.check_seatable(len(active) - 1, tournament.sizes, tournament.prefer)
    except seating.SeatingError as exc:
        raise TournamentConflict(
            "too_few_players.withdraw",
            params={
                "name": registration.player.name,
                "players": len(active) - 1,
                "round": number,
                "smallest": exc.params.get("smallest"),
            },
        ) from exc


def players_to_seat(tournament: Tournament, number: int) -> list[Registration]:
    """The players to seat in round ``number``: registered by then, not withdrawn."""
    return list(
        tournament.registrations.filter(from_round__lte=number, withdrawn_after__isnull=True)
        .select_related("player")
        .order_by("id")
    )
