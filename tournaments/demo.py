"""The demo data of `make run`, written through the services (for a developer's own machine;
the demo command runs with DEBUG only): a superuser, the demo club and its players, one game of
each kind in progress, and a Toonerville Rook tournament evening half-way through."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from scoring import services as scoring_services
from scoring.models import Game
from scoring.permissions import Actor
from scoring.services import SeatSpec
from tonkrules.rook import CONTRACTS
from tournaments import services
from tournaments.models import Club, Membership, Player, Round, Tournament

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
                by=Actor(user=user),
                idempotency_key=f"demo-{kind}-{number}",
            )
        game.refresh_from_db()
        out.append((game, created))
    return out


DEMO_TOURNAMENT = "Demo Rook Night"
DEMO_ENTRANTS = ("Ana", "Ben", "Cyd", "Dee", "Eli", "Fay", "Gus", "Hana", "Ivo")
DEMO_ROUNDS = 5
ROUNDS_PLAYED = 2

# What the player going out lays down, per contract round (one Rook deck per player, so the
# same card may appear at several tables; within a table each card is used once).
_MELDS = {
    1: [["R5", "Y5", "G5"], ["R7", "Y7", "B7"]],
    2: [["R1", "R2", "R3", "ROOK"], ["Y9", "G9", "B9"]],
    3: [["G1", "G2", "G3", "G4"], ["B10", "B11", "B12", "B13"]],
}
_HELD = [["R12", "Y3"], ["G14"], ["B2", "B4", "ROOK"], ["Y11"]]


def _round_entry(number: int, names: list[str], out_index: int) -> dict[str, Any]:
    """A rule-abiding round: one player goes out with the contract, the others hold cards."""
    out = names[out_index % len(names)]
    others = [n for n in names if n != out]
    entry: dict[str, Any] = {
        "round": number,
        "dealer": names[0],
        "out": out,
        "melds": {out: _MELDS[number]},
        "held": {n: _HELD[i % len(_HELD)] for i, n in enumerate(others)},
    }
    if CONTRACTS[number].discard_allowed:
        entry["discard"] = "G13"
    return entry


def demo_tournament_ensure(*, club: Club, director: Any) -> Tournament:
    """Make sure the demo club runs a Rook tournament of nine players, rounds 1 and 2 played
    and complete, round 3 seated and published with one table reported. Idempotent: a
    tournament already there is returned as it is."""
    existing = Tournament.objects.filter(club=club, name=DEMO_TOURNAMENT).first()
    if existing is not None:
        return existing
    tournament, _created = services.tournament_create(
        club=club,
        created_by=director,
        name=DEMO_TOURNAMENT,
        kind="rook",
        rounds=DEMO_ROUNDS,
        sizes=[3, 4],
        prefer=3,
        minutes_per_round=40,
        idempotency_key="demo-tournament",
    )
    for name in DEMO_ENTRANTS:
        player, _ = Player.objects.get_or_create(club=club, name=name)
        services.registration_add(tournament=tournament, player=player)
    for number in range(1, ROUNDS_PLAYED + 2):
        rnd, _ = services.round_seat(tournament=tournament)
        rnd = services.round_seating_compute(round_id=rnd.pk)
        services.round_publish(round=rnd)
        tables = list(rnd.tables.select_related("game").order_by("number"))
        playing = tables if number <= ROUNDS_PLAYED else tables[:1]
        for i, table in enumerate(playing):
            names = [name for name, _seat in table.game.seating]
            scoring_services.hand_record(
                game=table.game,
                entry=_round_entry(number, names, i + number),
                by=Actor(user=director),
                idempotency_key=f"demo-tournament-{number}-{table.number}",
            )
        rnd.refresh_from_db()
        if number <= ROUNDS_PLAYED and rnd.state != Round.State.COMPLETE:
            services.round_close(round=rnd)
    tournament.refresh_from_db()
    return tournament
