"""The demo tournament of `make run`: a Toonerville Rook evening half-way through, played
through the services (for a developer's own machine; the demo command runs with DEBUG only)."""

from __future__ import annotations

from typing import Any

from scoring import services as scoring_services
from tonkrules.rook import CONTRACTS
from tournaments import services
from tournaments.models import Club, Player, Round, Tournament

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
                entered_by=director,
                idempotency_key=f"demo-tournament-{number}-{table.number}",
            )
        rnd.refresh_from_db()
        if number <= ROUNDS_PLAYED and rnd.state != Round.State.COMPLETE:
            services.round_close(round=rnd)
    tournament.refresh_from_db()
    return tournament
