"""Writes of the tournaments app: clubs and the demo, tournaments, registrations, rounds
(seating, publishing, closing, regenerating), substitutes, the scoring seam and the round
clock. Every function here is keyword-only; every write is one transaction; tasks are enqueued
after commit and are safe to run twice."""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import available_timezones

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connections, router, transaction
from django.db.models import Count, F, Max, Min, Q, QuerySet, Sum
from django.utils import timezone

from scoring import services as scoring_services
from scoring.errors import SeatsFixed
from scoring.models import Game, Hand, ScoreLine
from scoring.services import SeatSpec
from tonkrules import RuleError, find_game
from tonkrules.bluke import HANDS as BLUKE_HANDS
from tonkrules.rook import ROUNDS as ROOK_ROUNDS
from tonkrules.sheet import SheetError, parse_currency, parse_stake
from tournaments import seating, tasks
from tournaments.errors import TournamentConflict, TournamentError
from tournaments.models import (
    DEFAULT_HANDS_PER_ROUND,
    DEFAULT_SIZES,
    Club,
    Membership,
    Player,
    Registration,
    Round,
    SeatResult,
    SitOut,
    Table,
    TableSeat,
    Tournament,
)

DEMO_CLUB_NAME = "Demo Card Club"
DEMO_PLAYERS = ("Ana", "Ben", "Cyd", "Dee")


@transaction.atomic
def demo_superuser_ensure(*, username: str, password: str) -> tuple[AbstractBaseUser, bool]:
    """Make sure a local superuser ``username`` exists and logs in with ``password``.

    Returns the user and whether anything was created or changed. Idempotent: a second call
    with the same arguments changes nothing. For a developer's own machine only.
    """
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        **{user_model.USERNAME_FIELD: username},
        defaults={"is_staff": True, "is_superuser": True, "is_active": True},
    )
    changed = created
    if not (user.is_staff and user.is_superuser and user.is_active):
        user.is_staff = user.is_superuser = user.is_active = True
        changed = True
    if not user.check_password(password):
        user.set_password(password)
        changed = True
    if changed:
        user.save()
    return user, changed


@transaction.atomic
def demo_club_ensure(*, director: AbstractBaseUser) -> tuple[Club, bool]:
    """Make sure the demo club exists, with ``director`` as its director and four players.

    Returns the club and whether it was created now. Idempotent.
    """
    club, created = Club.objects.get_or_create(name=DEMO_CLUB_NAME)
    Membership.objects.update_or_create(
        club=club, user=director, defaults={"role": Membership.Role.DIRECTOR}
    )
    for name in DEMO_PLAYERS:
        Player.objects.get_or_create(club=club, name=name)
    return club, created


# --- the demo games ---------------------------------------------------------------------------
# One game of each kind in progress, with real hands that keep the rules (rules/*.md). Fixed
# idempotency keys make a second run find the games and hands of the first.

DEMO_GAMES: tuple[dict[str, Any], ...] = (
    {
        "kind": "tonk",
        "players": ("Ana", "Ben", "Cyd"),
        "stake": "0.25",
        "currency": "USD",
        "hands": (
            # Ben knocks on 5, strictly lowest (Ana 23, Cyd 18): each pays Ben 1.
            {
                "dealer": "Ana",
                "end": "knock",
                "by": "Ben",
                "held": {"Ana": "KS 9D 4C", "Ben": "3H 2C", "Cyd": "QD 8S"},
                "spreads": [["7H", "8H", "9H"]],
            },
            # Cyd plays his last cards into spreads: a tonk out, each pays Cyd 2.
            {
                "dealer": "Ben",
                "end": "tonk_out",
                "by": "Cyd",
                "held": {"Ana": "JD 6H", "Ben": "AC 10S 2D", "Cyd": []},
                "spreads": [["5S", "5H", "5D"], ["JC", "QC", "KC"]],
            },
            # Ana knocks on 11 and is caught by Ben's 7: Ana pays Ben 2, and Ben, lowest,
            # collects 1 from Ana and from Cyd (12).
            {
                "dealer": "Cyd",
                "end": "knock",
                "by": "Ana",
                "held": {"Ana": "6C 5D", "Ben": "4S 3D", "Cyd": "10H 2S"},
            },
        ),
    },
    {
        "kind": "rook",
        "players": ("Ana", "Ben", "Cyd", "Dee"),
        "hands": (
            # Round 1, two sets: Ben goes out.
            {
                "round": 1,
                "dealer": "Ana",
                "out": "Ben",
                "melds": {
                    "Ben": [["R5", "Y5", "G5", "B5", "R5"], ["B9", "R9", "Y9", "ROOK", "G9"]]
                },
                "discard": "Y12",
                "held": {"Ana": "R3 Y9 G10 B14 ROOK", "Cyd": "R1 R1 G12", "Dee": "Y14"},
            },
            # Round 2, one run and one set, the Rook standing for G7 in the run: Cyd goes out.
            {
                "round": 2,
                "dealer": "Ben",
                "out": "Cyd",
                "melds": {"Cyd": [["G3", "G4", "G5", "G6", "ROOK"], ["B11", "B11", "R11"]]},
                "discard": "Y2",
                "held": {"Ana": "R7 Y7 B13", "Ben": "G14 G14 ROOK Y1", "Dee": "B2 B3 R4 Y6 Y8 G9"},
            },
        ),
    },
    {
        "kind": "bluke",
        "players": ("Ana", "Ben", "Cyd"),
        "hands": (
            # Bids in bidding order, from the dealer's left.
            {
                "hand": 1,
                "dealer": "Ana",
                "trump": "S",
                "turned": "7S",
                "bids": {"Ben": 4, "Cyd": 5, "Ana": 3},
                "tricks": {"Ben": 4, "Cyd": 6, "Ana": 3},
            },
            {
                "hand": 2,
                "dealer": "Ben",
                "trump": "H",
                "turned": "QH",
                "bids": {"Cyd": 5, "Ana": 4, "Ben": 3},
                "tricks": {"Cyd": 3, "Ana": 5, "Ben": 4},
            },
            # The High Bluke turned: no trump.
            {
                "hand": 3,
                "dealer": "Cyd",
                "trump": "none",
                "turned": "HB",
                "bids": {"Ana": 2, "Ben": 4, "Cyd": 4},
                "tricks": {"Ana": 2, "Ben": 5, "Cyd": 4},
            },
        ),
    },
)


@transaction.atomic
def demo_games_ensure(*, club: Club, user: AbstractBaseUser) -> list[tuple[Game, bool]]:
    """Make sure the demo club has one game of each kind in progress, started by ``user``
    with the club's players seated, and its first hands entered, all through the scoring
    services.

    Returns each game and whether it was created now. Idempotent: the games and hands carry
    fixed idempotency keys, so a second call finds them and records nothing.
    """
    players = {p.name: p for p in club.players.filter(name__in=DEMO_PLAYERS)}
    out = []
    for demo in DEMO_GAMES:
        kind = demo["kind"]
        game, created = scoring_services.game_start(
            kind=kind,
            players=[SeatSpec(name, players[name].pk) for name in demo["players"]],
            stake=demo.get("stake"),
            currency=demo.get("currency"),
            club=club,
            created_by=user,
            idempotency_key=f"demo-{kind}",
        )
        for number, hand in enumerate(demo["hands"], 1):
            scoring_services.hand_record(
                game=game,
                entry=hand,
                entered_by=user,
                idempotency_key=f"demo-{kind}-{number}",
            )
        game.refresh_from_db()
        out.append((game, created))
    return out


# --- tournaments ------------------------------------------------------------------------------


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
    starts_at: datetime | None = None,
    minutes_per_round: int | None = None,
    missed_round_score: str = Tournament.Missed.AVERAGE,
    basis: str = Tournament.Basis.TOTAL,
    seed: int = 0,
    idempotency_key: str | None = None,
) -> tuple[Tournament, bool]:
    """Create a tournament of ``club`` (its director only).

    Args:
        kind: ``"tonk"``, ``"rook"`` or ``"bluke"``.
        rounds: Rook: at most 11, 11 by default (round r plays contract r); others: required.
        sizes: the allowed table sizes; each must be a player count the game allows
            (defaults: Tonk 2–3, Rook 3–5, Bluke 3–4); ``prefer`` one of them (3, 4, 4).
        hands_per_round: Bluke 1–25 (25 by default; fewer: each round continues the hand
            sequence where the last stopped); Tonk 10 by default; Rook always 1.
        missed_round_score: ``average`` (default), ``zero`` (refused for Rook, where the lowest
            total wins), ``worst``.
        basis: ``total`` or ``placement``.
        idempotency_key: a retry with the same key (same user) returns the first tournament.

    Returns:
        (the tournament, whether it was created now).

    Raises:
        TournamentError: a request the rules refuse (``not_director``, ``bad_sizes``,
            ``bad_rounds``, ``bad_options``, ``zero_for_rook``…); nothing is saved.
    """
    if not is_director(created_by, club):
        raise TournamentError("not_director")
    if idempotency_key:
        existing = Tournament.objects.filter(
            created_by=created_by, idempotency_key=idempotency_key
        ).first()
        if existing is not None:
            return existing, False
    if not isinstance(name, str) or not name.strip() or len(name) > 120:
        raise TournamentError("bad_name")
    try:
        engine = find_game(kind)
        engine.options(options)
    except RuleError as exc:
        raise TournamentError.because("bad_options", exc, field="options") from exc
    stake_text, currency_text = "", ""
    if stake is not None or currency is not None:
        if engine.name != "tonk":
            raise TournamentError("bad_stake", field="stake")
        try:
            if stake is not None:
                parse_stake(stake)
                stake_text = str(stake)
            currency_text = parse_currency(currency) if currency is not None else ""
        except RuleError as exc:
            raise TournamentError.because("bad_stake", exc, field="stake") from exc
    default_sizes, default_prefer = DEFAULT_SIZES[engine.name]
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
    if engine.name == "rook":
        rounds = _whole(ROOK_ROUNDS if rounds is None else rounds, "rounds", 1, ROOK_ROUNDS)
        if hands_per_round not in (None, 1):
            raise TournamentError(
                "bad_hands_per_round.rook",
                field="hands_per_round",
            )
        hands = 1
    else:
        rounds = _whole(rounds, "rounds", 1, 99)
        default_hands = DEFAULT_HANDS_PER_ROUND[engine.name]
        top = BLUKE_HANDS if engine.name == "bluke" else 99
        hands = _whole(
            default_hands if hands_per_round is None else hands_per_round,
            "hands_per_round",
            1,
            top,
        )
    method = _choice(method, Tournament.Method, "method")
    missed = _choice(missed_round_score, Tournament.Missed, "missed_round_score")
    if engine.name == "rook" and missed == Tournament.Missed.ZERO:
        raise TournamentError(
            "zero_for_rook",
            field="missed_round_score",
        )
    basis = _choice(basis, Tournament.Basis, "basis")
    # "localtime" and "posixrules" are files of the system's zone database, not time zones.
    if (
        not isinstance(time_zone, str)
        or time_zone in ("localtime", "posixrules", "Factory")
        or time_zone not in available_timezones()
    ):
        raise TournamentError("bad_time_zone", params={"time_zone": time_zone}, field="time_zone")
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
                rounds=rounds,
                sizes=table_sizes,
                prefer=prefer,
                method=method,
                hands_per_round=hands,
                time_zone=time_zone,
                starts_at=starts_at,
                minutes_per_round=minutes_per_round,
                missed_round_score=missed,
                basis=basis,
                seed=_whole(seed, "seed", 0, 2**31 - 1),
                created_by=created_by,
                idempotency_key=idempotency_key or "",
            )
    except IntegrityError:  # the same idempotency key, created meanwhile by a concurrent request
        return Tournament.objects.get(created_by=created_by, idempotency_key=idempotency_key), False
    return tournament, True


def _last_round(tournament: Tournament) -> Round | None:
    return tournament.round_set.order_by("-number").first()


def _players_changed(tournament: Tournament) -> None:
    """The players changed while the latest round is seated but not published: its seating no
    longer fits them, so it is flagged to be seated again (while it has no results)."""
    Round.objects.filter(
        tournament=tournament, state=Round.State.SEATED, number=entry_round(tournament)
    ).update(superseded=True)


def entry_round(tournament: Tournament) -> int:
    """The first round a player registered now can play: the latest round while it is not
    yet published (its seating may be done again to take them: :func:`round_regenerate`),
    else the next one."""
    last = _last_round(tournament)
    if last is None:
        return 1
    if last.state in (Round.State.PLANNED, Round.State.SEATED):
        return last.number
    return last.number + 1


@transaction.atomic
def registration_add(*, tournament: Tournament, player: Player) -> Registration:
    """Register ``player`` (a player of the tournament's club). Between rounds this is a late
    entry: the player is seated from the next round and misses the earlier ones (scored as
    missed rounds).

    Raises:
        TournamentError: ``other_club``, ``already_registered``, ``finished`` (every round is
            seated).
    """
    if player.club_id != tournament.club_id:
        raise TournamentError(  # no name: other clubs' players are not to be discovered
            "other_club", field="player"
        )
    from_round = entry_round(tournament)
    if from_round > tournament.rounds:
        raise TournamentError("finished")
    try:
        with transaction.atomic():
            registration = Registration.objects.create(
                tournament=tournament, player=player, from_round=from_round
            )
    except IntegrityError:
        raise TournamentError(
            "already_registered", params={"name": player.name}, field="player"
        ) from None
    _players_changed(tournament)
    _results_changed(tournament.pk)  # a new line in the standings
    return registration


@transaction.atomic
def registration_withdraw(*, registration: Registration) -> Registration:
    """Withdraw a player: their results stay, they are never seated again (rounds after the
    last one seated score as missed rounds), shown as withdrawn. Idempotent."""
    registration = Registration.objects.select_for_update().get(pk=registration.pk)
    if registration.withdrawn_after is None:
        last = _last_round(registration.tournament)
        registration.withdrawn_after = last.number if last is not None else 0
        registration.save(update_fields=("withdrawn_after",))
        _players_changed(registration.tournament)
        _results_changed(registration.tournament_id)
    return registration


def _active(tournament: Tournament, number: int) -> list[Registration]:
    """The players to seat in round ``number``: registered by then, not withdrawn."""
    return list(
        tournament.registrations.filter(from_round__lte=number, withdrawn_after__isnull=True)
        .select_related("player")
        .order_by("id")
    )


@transaction.atomic
def round_seat(*, tournament: Tournament) -> tuple[Round, bool]:
    """Ask for the next round's seating; the seating itself runs as a task after commit.

    One seating per (tournament, round), guarded by a database constraint: while the latest
    round is not yet published, asking again (or concurrently) returns it.

    Returns:
        (the round, whether it was created now). Its state shows when it is seated.

    Raises:
        TournamentConflict: ``round_not_complete`` (round r is being played), ``all_seated``.
        TournamentError: ``too_few_players`` (fewer active players than the smallest table).
    """
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    last = _last_round(tournament)
    if last is not None and last.state in (Round.State.PLANNED, Round.State.SEATED):
        if last.state == Round.State.PLANNED:  # its task may have been lost: ask again (idempotent)
            planned_id = last.pk
            transaction.on_commit(lambda: tasks.round_seat.delay(planned_id))
        return last, False
    if last is not None and last.state != Round.State.COMPLETE:
        raise TournamentConflict(
            "round_not_complete",
            round=last.number,
        )
    number = last.number + 1 if last is not None else 1
    if number > tournament.rounds:
        raise TournamentConflict("all_seated", params={"rounds": tournament.rounds})
    active = _active(tournament, number)
    if len(active) < min(tournament.sizes):
        raise TournamentError(
            "too_few_players",
            params={"active": len(active), "smallest": min(tournament.sizes)},
        )
    try:
        with transaction.atomic():
            rnd = Round.objects.create(tournament=tournament, number=number)
    except IntegrityError:  # a concurrent request created it first
        return Round.objects.get(tournament=tournament, number=number), False
    round_id = rnd.pk
    transaction.on_commit(lambda: tasks.round_seat.delay(round_id))
    return rnd, True


def _history(
    tournament: Tournament, before: int
) -> tuple[dict[tuple[int, int], int], Counter[int], Counter[int]]:
    """Meetings (pairs of registration ids → times), first-dealer turns and sit-outs of the
    rounds before ``before``."""
    tables: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for table_id, registration_id, position in TableSeat.objects.filter(
        round__tournament=tournament, round__number__lt=before
    ).values_list("table_id", "registration_id", "position"):
        tables[table_id].append((position, registration_id))
    meetings: Counter[tuple[int, int]] = Counter()
    dealers: Counter[int] = Counter()
    for seats in tables.values():
        seats.sort()
        dealers[seats[0][1]] += 1
        ids = [r for _p, r in seats]
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                meetings[(min(a, b), max(a, b))] += 1
    sit_outs = Counter(
        SitOut.objects.filter(round__tournament=tournament, round__number__lt=before).values_list(
            "registration_id", flat=True
        )
    )
    return dict(meetings), dealers, sit_outs


def _standing_order(tournament: Tournament) -> list[int]:
    """Registration ids best first, by the current standings."""
    from tournaments import selectors

    return [row.registration_id for row in selectors.standings(tournament).rows]


def _schedule_part(tournament: Tournament, number: int) -> dict[str, Any]:
    """What a table of round ``number`` plays (issue rules, "What a round is"): Rook the one
    contract round ``number``; Bluke ``hands_per_round`` hands continuing the sequence (hand 1
    again after 25); Tonk ``hands_per_round`` hands of a fresh sitting."""
    hands = tournament.hands_per_round
    if tournament.kind == "rook":
        return {"sequence_from": number, "hand_limit": 1}
    if tournament.kind == "bluke":
        start = ((number - 1) * hands) % BLUKE_HANDS + 1
        return {"sequence_from": start, "hand_limit": hands, "sequence_wraps": True}
    return {"hand_limit": hands}


def round_seating_compute(*, round_id: int) -> Round:
    """Seat a planned round: choose the tables (``tournaments.seating``), start each table's
    game (waiting until the round is published), record seats and sit-outs. Safe to run twice:
    a round already seated is returned as it is."""
    with transaction.atomic():
        rnd = Round.objects.select_for_update().select_related("tournament").get(pk=round_id)
        if rnd.state != Round.State.PLANNED:
            return rnd
        tournament = rnd.tournament
        active = _active(tournament, rnd.number)
        meetings, dealers, sit_outs = _history(tournament, rnd.number)
        ids = [r.pk for r in active]
        standing = _standing_order(tournament)
        seating = _seating_for(tournament, rnd.number, ids, meetings, dealers, sit_outs, standing)
        by_id = {r.pk: r for r in active}
        part = _schedule_part(tournament, rnd.number)
        for number, table in enumerate(seating.tables, 1):
            seated = [by_id[i] for i in table.players]
            game, _created = scoring_services.game_start(
                kind=tournament.kind,
                players=[SeatSpec(r.player.name, r.player_id) for r in seated],
                options=tournament.options or None,
                stake=tournament.stake or None,
                currency=tournament.currency or None,
                club=tournament.club,
                waiting=True,
                **part,
            )
            row = Table.objects.create(round=rnd, number=number, game=game)
            TableSeat.objects.bulk_create(
                TableSeat(table=row, round=rnd, position=i, registration=r)
                for i, r in enumerate(seated)
            )
        SitOut.objects.bulk_create(
            SitOut(round=rnd, registration=by_id[i]) for i in seating.sit_outs
        )
        rnd.state = Round.State.SEATED
        rnd.seated_at = timezone.now()
        rnd.superseded = False
        rnd.based_on_version = tournament.results_version
        rnd.save(update_fields=("state", "seated_at", "superseded", "based_on_version"))
        return rnd


def _seating_for(
    tournament: Tournament,
    number: int,
    ids: list[int],
    meetings: dict[tuple[int, int], int],
    dealers: Counter[int],
    sit_outs: Counter[int],
    standing: list[int],
) -> seating.RoundSeating:
    """Round ``number``'s tables: from the stored plan (method ``plan``, while the players are
    the plan's), else one round of ``balanced`` or ``swiss``."""
    if tournament.method == Tournament.Method.PLAN:
        if tournament.plan is None and number == 1:
            plan = seating.plan_rounds(
                ids,
                tournament.rounds,
                sizes=tournament.sizes,
                prefer=tournament.prefer,
                seed=tournament.seed,
            )
            tournament.plan = {
                "players": list(plan.players),
                "rounds": [
                    {"tables": [list(t.players) for t in r.tables], "sit_outs": list(r.sit_outs)}
                    for r in plan.rounds
                ],
            }
            tournament.save(update_fields=("plan",))
        planned = tournament.plan
        if (
            planned
            and sorted(planned["players"]) == sorted(ids)
            and number <= len(planned["rounds"])
        ):
            part = planned["rounds"][number - 1]
            return seating.RoundSeating(
                tables=tuple(seating.Table(tuple(t), t[0]) for t in part["tables"]),
                sit_outs=tuple(part["sit_outs"]),
            )
    method = "swiss" if tournament.method == Tournament.Method.SWISS else "balanced"
    try:
        return seating.seat_round(
            ids,
            meetings,
            sizes=tournament.sizes,
            prefer=tournament.prefer,
            method=method,
            standing=[i for i in standing if i in set(ids)],
            sit_outs_so_far=sit_outs,
            dealer_counts=dealers,
            seed=[tournament.seed, number],
        )
    except seating.SeatingError as exc:
        raise TournamentError(f"{exc.code}.seating", params={"reason": exc.message}) from exc


@transaction.atomic
def round_publish(*, round: Round) -> Round:
    """Publish a seated round: its tables appear, their games open for hands, and its clock
    starts (deadline = now + minutes per round). Idempotent once published.

    Raises:
        TournamentConflict: ``not_seated`` (still being seated).
    """
    rnd = Round.objects.select_for_update().select_related("tournament").get(pk=round.pk)
    if rnd.state in (Round.State.PUBLISHED, Round.State.PLAYING, Round.State.COMPLETE):
        return rnd
    if rnd.state != Round.State.SEATED:
        raise TournamentConflict("not_seated", params={"round": rnd.number})
    for table in rnd.tables.select_related("game"):
        scoring_services.game_open(game=table.game)
    now = timezone.now()
    rnd.state = Round.State.PUBLISHED
    rnd.published_at = now
    minutes = rnd.tournament.minutes_per_round
    rnd.deadline = now + timedelta(minutes=minutes) if minutes else None
    rnd.save(update_fields=("state", "published_at", "deadline"))
    return rnd


def _complete(rnd: Round) -> None:
    """Close a round (its row locked): tables with no hands are not played, every game is
    finished (corrections stay possible), and the standings count the round."""
    for table in rnd.tables.select_related("game"):
        if table.game.current_hands == 0:
            table.state = Table.State.NOT_PLAYED
        elif table.state != Table.State.REPORTED:
            table.state = Table.State.REPORTED
        table.save(update_fields=("state",))
        scoring_services.game_finish(game=table.game)
    rnd.state = Round.State.COMPLETE
    rnd.completed_at = timezone.now()
    rnd.save(update_fields=("state", "completed_at"))
    Tournament.objects.filter(pk=rnd.tournament_id, rounds_complete__lt=rnd.number).update(
        rounds_complete=rnd.number
    )
    _results_changed(rnd.tournament_id)


@transaction.atomic
def round_close(*, round: Round) -> Round:
    """The director closes a published round: tables that entered no hand are marked not
    played (their players score a missed round); the hands entered count. Idempotent.

    Raises:
        TournamentConflict: ``not_published``.
    """
    rnd = Round.objects.select_for_update().get(pk=round.pk)
    if rnd.state == Round.State.COMPLETE:
        return rnd
    if rnd.state not in (Round.State.PUBLISHED, Round.State.PLAYING):
        raise TournamentConflict("not_published", params={"round": rnd.number})
    _complete(rnd)
    return rnd


@transaction.atomic
def round_regenerate(*, round: Round) -> Round:
    """Seat a round again (after its standings were superseded), while none of its results
    exist: its tables and games are removed and the seating task runs again.

    Raises:
        TournamentConflict: ``results_exist``, ``complete``.
    """
    rnd = Round.objects.select_for_update().get(pk=round.pk)
    if rnd.state == Round.State.COMPLETE:
        raise TournamentConflict("complete", params={"round": rnd.number})
    if rnd.state == Round.State.PLANNED:
        return rnd
    games = list(rnd.tables.values_list("game_id", flat=True))
    if Game.objects.filter(pk__in=games, last_number__gt=0).exists():
        raise TournamentConflict(
            "results_exist",
            round=rnd.number,
        )
    rnd.seats.all().delete()
    rnd.sit_outs.all().delete()
    rnd.tables.all().delete()
    SeatResult.objects.filter(game_id__in=games).delete()
    Game.objects.filter(pk__in=games).delete()
    rnd.state = Round.State.PLANNED
    rnd.superseded = False
    rnd.published_at = rnd.deadline = rnd.seated_at = rnd.time_called_at = None
    rnd.save()
    round_id = rnd.pk
    transaction.on_commit(lambda: tasks.round_seat.delay(round_id))
    return rnd


@transaction.atomic
def substitute_set(*, round: Round, registration: Registration, substitute: str) -> TableSeat:
    """A substitute plays ``registration``'s seat in ``round``: the hands are recorded under
    the substitute, and the registered player misses the round.

    Raises:
        TournamentError: ``not_seated`` (the player has no seat that round), ``already_seated``
            (the substitute already sits in this round), ``bad_name``.
        TournamentConflict: ``results_exist`` (the table has hands), ``complete``.
    """
    rnd = Round.objects.select_for_update().get(pk=round.pk)
    if rnd.state == Round.State.COMPLETE:
        raise TournamentConflict("complete", params={"round": rnd.number})
    name = (substitute or "").strip()
    if not name:
        raise TournamentError("bad_name.substitute", field="substitute")
    seat = (
        TableSeat.objects.select_related("table__game")
        .filter(round=rnd, registration=registration)
        .first()
    )
    if seat is None:
        raise TournamentError(
            "not_seated.player", params={"name": registration.player.name, "round": rnd.number}
        )
    taken = {n.casefold() for n in _names_in_round(rnd)}
    if name.casefold() in taken:
        raise TournamentError(
            "already_seated",
            params={"name": name, "round": rnd.number},
            field="substitute",
        )
    if rnd.tournament.registrations.filter(player__name__iexact=name).exists():
        raise TournamentError(
            "registered",
            params={"name": name},
            field="substitute",
        )
    try:
        scoring_services.seat_replace(
            game=seat.table.game,
            position=seat.position,
            # No player id: a substitute's results count for nobody in these standings, even if
            # they register later.
            seat=SeatSpec(name),
        )
    except SeatsFixed as exc:
        raise TournamentConflict("results_exist.table") from exc
    except SheetError as exc:
        raise TournamentError.because("bad_name", exc.error, field="substitute") from exc
    seat.substitute = name
    seat.save(update_fields=("substitute",))
    return seat


def _names_in_round(rnd: Round) -> list[str]:
    """Everyone sitting in a round: the registered players and the substitutes."""
    names = []
    for player_name, substitute in TableSeat.objects.filter(round=rnd).values_list(
        "registration__player__name", "substitute"
    ):
        names.append(substitute or player_name)
    return names


# --- results and the clock ---------------------------------------------------------------------


def _results_changed(tournament_id: int) -> None:
    """A result changed: bump the results version and refresh the standings after commit
    (coalesced: the task does nothing when the standings are already for this version)."""
    Tournament.objects.filter(pk=tournament_id).update(results_version=F("results_version") + 1)
    transaction.on_commit(lambda: tasks.standings_refresh.apply_async((tournament_id,)))


#: ``SeatResult``'s columns filled from the aggregate of a game's current score lines, each
#: with the aggregate's column it takes.
_SEAT_RESULT_COLUMNS = {
    "game_id": "game_id",
    "seat_id": "seat_id",
    "player_id": "seat__player_id",
    "points": "points_sum",
    "max_points": "points_max",
    "min_points": "points_min",
    "hands": "lines",
    "went_out": "went_out_count",
    "bids_made": "bid_made_count",
    "won": "won_count",
}
_SEAT_RESULT_AGGREGATES = {
    "points_sum": Sum("points"),
    "points_max": Max("points"),
    "points_min": Min("points"),
    "lines": Count("id"),
    "went_out_count": Count("id", filter=Q(went_out=True)),
    "bid_made_count": Count("id", filter=Q(bid_made=True)),
    "won_count": Count("id", filter=Q(won=True)),
}


def _seat_lines(game_id: int) -> QuerySet[ScoreLine]:
    """The current hands' score lines of game ``game_id``, aggregated per seat (with the
    seat's player): the columns named in :data:`_SEAT_RESULT_COLUMNS`."""
    return (
        ScoreLine.objects.filter(game_id=game_id, hand__state=Hand.State.CURRENT)
        .order_by()
        .values("game_id", "seat_id", "seat__player_id")
        .annotate(**_SEAT_RESULT_AGGREGATES)
    )


_GAME_MARK = -1_999_999_999  # a game id no row has: marks the parameter to replace


@functools.cache
def _seat_results_sql(alias: str) -> tuple[str, str, tuple[Any, ...], int]:
    """The statements of :func:`seat_results_write` on database ``alias``, built once (the ORM
    takes milliseconds to build the aggregate): the DELETE of a game's rows (its one parameter
    the game id), the INSERT … SELECT of the aggregate (its parameters the tournament id, the
    round number, then those returned), and where the game id goes among those returned."""
    connection = connections[alias]
    quote = connection.ops.quote_name
    meta = SeatResult._meta
    table = quote(meta.db_table)
    delete = f"DELETE FROM {table} WHERE {quote(meta.get_field('game').column)} = %s"
    aggregate, params = _seat_lines(_GAME_MARK).query.get_compiler(using=alias).as_sql()
    if list(params).count(_GAME_MARK) != 1:
        raise RuntimeError("the seat results aggregate does not take the game id once")
    target = ("tournament", "round_number", *_SEAT_RESULT_COLUMNS)
    insert = (
        f"INSERT INTO {table} "
        f"({', '.join(quote(meta.get_field(name).column) for name in target)}) "
        f"SELECT %s, %s, {', '.join(map(quote, _SEAT_RESULT_COLUMNS.values()))} "
        f"FROM ({aggregate}) {quote('seat_lines')}"
    )
    return delete, insert, tuple(params), list(params).index(_GAME_MARK)


@transaction.atomic(savepoint=False)
def seat_results_write(*, game_id: int, tournament_id: int, round_number: int) -> None:
    """Rewrite the materialised results (``SeatResult``) of game ``game_id``, round
    ``round_number`` of tournament ``tournament_id``, from its current score lines: its rows
    deleted, then one ``INSERT … SELECT`` of the aggregate (one row per seat with current
    hands). Two statements; idempotent.

    Called by :func:`game_changed` with the round's row locked (so that two changes to one
    game are written one after the other, never interleaved), in the transaction that bumps the
    results version; the benchmark and tests call it to build the rows of data they write
    directly.
    """
    alias = router.db_for_write(SeatResult)
    delete, insert, params, at = _seat_results_sql(alias)
    with connections[alias].cursor() as cursor:
        cursor.execute(delete, (game_id,))
        cursor.execute(
            insert, (tournament_id, round_number, *params[:at], game_id, *params[at + 1 :])
        )


def game_changed(game_id: int) -> None:
    """The scoring seam (registered in ``TournamentsConfig.ready``): a game's hands changed.

    For a tournament table: its materialised results rewritten (:func:`seat_results_write`),
    the table's state (playing, reported), the round's (playing; complete when every table
    reported), later rounds already seated flagged as seated on superseded standings, and the
    standings refreshed.
    """
    table = Table.objects.filter(game_id=game_id).values_list("pk", "round_id").first()
    if table is None:
        return
    table_id, round_id = table
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=round_id)
        seat_results_write(
            game_id=game_id, tournament_id=rnd.tournament_id, round_number=rnd.number
        )
        row = Table.objects.select_related("game").get(pk=table_id)
        game = row.game
        if rnd.state in (Round.State.PUBLISHED, Round.State.PLAYING):
            if game.current_hands and rnd.state == Round.State.PUBLISHED:
                rnd.state = Round.State.PLAYING
                rnd.save(update_fields=("state",))
            reported = game.hand_limit is not None and game.current_hands >= game.hand_limit
            state = (
                Table.State.REPORTED
                if reported
                else (Table.State.PLAYING if game.current_hands else Table.State.SEATED)
            )
            if state != row.state:
                row.state = state
                row.save(update_fields=("state",))
            if not rnd.tables.exclude(
                state__in=(Table.State.REPORTED, Table.State.NOT_PLAYED)
            ).exists():
                _complete(rnd)
                return
        Round.objects.filter(
            tournament_id=rnd.tournament_id,
            number__gt=rnd.number,
            state__in=(Round.State.SEATED, Round.State.PUBLISHED, Round.State.PLAYING),
        ).update(superseded=True)
        _results_changed(rnd.tournament_id)


def tick(*, now: datetime | None = None) -> int:
    """Move rounds through their deadlines (Celery beat every 30 s; ``manage.py tick --loop``
    in the embedded mode): a published round whose deadline passed is "time called" once —
    each table may still enter the hand in progress (its game takes one more hand at most; a
    Rook table its round, with nobody out if need be). Driven by the deadlines stored in the
    database; running it twice changes nothing more.

    Returns:
        How many rounds had their time called now.
    """
    now = now or timezone.now()
    called = 0
    due = Round.objects.filter(
        deadline__lte=now,
        time_called_at__isnull=True,
        state__in=(Round.State.PUBLISHED, Round.State.PLAYING),
    ).values_list("pk", flat=True)
    for round_id in due:
        with transaction.atomic():
            rnd = Round.objects.select_for_update().get(pk=round_id)
            if rnd.time_called_at is not None or rnd.state not in (
                Round.State.PUBLISHED,
                Round.State.PLAYING,
            ):
                continue
            rnd.time_called_at = now
            rnd.save(update_fields=("time_called_at",))
            for table in rnd.tables.select_related("game").exclude(
                state__in=(Table.State.REPORTED, Table.State.NOT_PLAYED)
            ):
                scoring_services.game_limit_set(
                    game=table.game, hand_limit=table.game.current_hands + 1
                )
            called += 1
    return called


def standings_refresh(*, tournament_id: int) -> bool:
    """Recompute and cache the standings for the latest results, once: a refresh that finds
    them already computed for the current results version does nothing (many results, one
    recomputation). Returns whether it computed."""
    from tournaments import selectors

    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.standings_version == tournament.results_version:
            return False
        selectors.standings_refresh(tournament.pk)
        tournament.standings_version = tournament.results_version
        tournament.save(update_fields=("standings_version",))
    return True
