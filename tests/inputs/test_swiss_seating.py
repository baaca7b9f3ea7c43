"""Issue 14, row 10 (swiss seating), through every way a swiss seating is asked for.

The rule (``tournaments.seating.swiss``): swiss never seats together a pair that has met when
the table sizes allow a seating without; the standings decide among the repeat-free
seatings. The entry points: ``manage.py seating plan --method swiss``, the tournament services
(asking for a round, its seating task, seating it again: all through
``tournaments.services.seatings._seating_for``), and the library calls ``seat_round`` /
``plan_rounds`` (the benchmark). Every caller of the seating functions in the project is found
by reading the source, so a new one fails :func:`test_every_caller_of_the_seating_is_covered`
until it is listed (and tested) here.
"""

from __future__ import annotations

import ast
import itertools
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from scoring import services as scoring
from scoring.models import Seat
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tests.tournaments.play import tonk_hand
from tournaments import seating, services
from tournaments.models import Membership, Round, TableSeat, Tournament

ROOT = Path(__file__).resolve().parents[2]

#: Fields where a repeat-free schedule exists (LB = 0 and known designs), as (players, sizes,
#: rounds): the issue's example and others of the same kind.
REPEAT_FREE = [
    (9, (3,), 4),  # the issue's example: affine plane of order 3
    (16, (4,), 5),  # affine plane of order 4
    (12, (3,), 4),
    (15, (3,), 7),  # Kirkman's schoolgirls
    (14, (3, 4), 3),  # mixed sizes: 4 4 3 3
    (20, (3, 4), 4),  # mixed sizes: 4 4 3 3 3 3
    (17, (4,), 3),  # one sits out each round
    (13, (3,), 4),  # one sits out each round
]


def pair_counts(rounds: Iterable[Iterable[Iterable[Any]]]) -> Counter[frozenset[Any]]:
    met: Counter[frozenset[Any]] = Counter()
    for tables in rounds:
        for table in tables:
            met.update(frozenset(p) for p in itertools.combinations(table, 2))
    return met


def excess_of(rounds: Iterable[Iterable[Iterable[Any]]]) -> int:
    return sum(m - 1 for m in pair_counts(rounds).values())


def size_text(sizes: Sequence[int]) -> str:
    return ",".join(map(str, sizes))


# --- the entry points -----------------------------------------------------------------------


def by_command(players: int, sizes: Sequence[int], rounds: int) -> list[list[list[Any]]]:
    out = StringIO()
    call_command(
        "seating", "plan", "--players", str(players), "--sizes", size_text(sizes),
        "--rounds", str(rounds), "--method", "swiss", "--json", stdout=out,
    )  # fmt: skip
    result = json.loads(out.getvalue())
    assert result["bound"] == 0
    assert result["proven"] == [True] * rounds
    assert result["excess"] == excess_of(result["rounds"])
    return result["rounds"]  # type: ignore[no-any-return]


def by_plan_rounds(players: int, sizes: Sequence[int], rounds: int) -> list[list[list[Any]]]:
    plan = seating.plan_rounds(range(1, players + 1), rounds, sizes=sizes, method="swiss")
    assert plan.bound == 0
    return [[list(t.players) for t in r.tables] for r in plan.rounds]


def by_seat_round(players: int, sizes: Sequence[int], rounds: int) -> list[list[list[Any]]]:
    """Round after round as a tournament asks, the standings shuffled between rounds (results
    came in), each round looking ahead over the rounds still to play."""
    ids = list(range(1, players + 1))
    rng = random.Random(players * 100 + rounds)
    meetings = seating.Meetings.none(ids)
    sat: Counter[int] = Counter()
    done = []
    for number in range(rounds):
        standing = ids[:]
        rng.shuffle(standing)
        seated = seating.seat_round(
            ids, meetings, sizes=sizes, method="swiss", standing=standing,
            sit_outs_so_far=sat, seed=number, later=rounds - number - 1,
        )  # fmt: skip
        assert seated.proven is True
        meetings = meetings.after(seated)
        sat.update(seated.sit_outs)
        done.append([list(t.players) for t in seated.tables])
    return done


@pytest.mark.parametrize("players,sizes,rounds", REPEAT_FREE)
@pytest.mark.parametrize("entry", [by_command, by_plan_rounds, by_seat_round])
def test_swiss_repeats_no_meeting_the_table_sizes_allow_it_to_avoid(
    entry: Callable[[int, Sequence[int], int], list[list[list[Any]]]],
    players: int,
    sizes: Sequence[int],
    rounds: int,
) -> None:
    done = entry(players, sizes, rounds)

    assert len(done) == rounds
    assert excess_of(done) == 0
    split = seating.table_sizes(players, sizes)
    for tables in done:
        assert sorted(len(t) for t in tables) == sorted(split.tables)


def test_the_command_example_of_the_issue() -> None:
    rounds = by_command(9, (3,), 4)

    assert [sorted(t) for t in rounds[0]] == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]  # standings
    assert len(pair_counts(rounds)) == 36  # every pair of 9 met exactly once


# --- the tournament services (pages and the API ask through them) ---------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("players,rounds", [(9, 4), (12, 4)])
def test_a_swiss_tournament_seats_every_round_without_a_repeat(players: int, rounds: int) -> None:
    club = ClubFactory(name="Swiss Club")
    director = MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="Swiss night", kind="tonk", sizes=[3],
        rounds=rounds, method="swiss", hands_per_round=1,
    )  # fmt: skip
    for i in range(players):
        services.registration_add(
            tournament=tournament, player=PlayerFactory(club=club, name=f"Player {i + 1}")
        )
    rng = random.Random(5)
    seated: list[list[list[int]]] = []
    for number in range(1, rounds + 1):
        rnd, created = services.round_seat(tournament=tournament)
        assert created
        rnd.refresh_from_db()
        assert rnd.state == Round.State.SEATED
        tables = []
        for table in rnd.tables.order_by("number"):
            tables.append(
                list(
                    TableSeat.objects.filter(table=table).values_list("registration_id", flat=True)
                )
            )
        seated.append(tables)
        services.round_publish(round=rnd)
        for table in rnd.tables.select_related("game"):
            names = list(Seat.objects.filter(game_id=table.game_id).values_list("name", flat=True))
            scoring.hand_record(
                game=table.game, entry=tonk_hand(rng, names, names[0]),
                idempotency_key=f"swiss-{number}-{table.pk}",
            )  # fmt: skip
        rnd.refresh_from_db()
        assert rnd.state == Round.State.COMPLETE

    assert excess_of(seated) == 0
    assert Tournament.objects.get(pk=tournament.pk).method == Tournament.Method.SWISS


# --- no entry point left out ----------------------------------------------------------------

#: Every function in the project (tests and the seating package aside) that calls the seating,
#: with the test above that covers it.
COVERED = {
    ("tournaments/services/seatings.py", "_seating_for", "seat_round"): "tournament",
    ("tournaments/services/seatings.py", "_seating_for", "plan_rounds"): "plan method only",
    ("tournaments/management/commands/seating.py", "handle", "plan_rounds"): "by_command",
    ("bench/seating.py", "_round_by_round", "seat_round"): "by_seat_round",
    ("bench/seating.py", "_measure", "plan_rounds"): "by_plan_rounds",
    ("bench/seating.py", "_swiss_plans", "plan_rounds"): "by_plan_rounds",
}


def callers() -> set[tuple[str, str, str]]:
    """(file, enclosing function, seating function) for every call of ``seat_round`` or
    ``plan_rounds`` outside the tests and the seating package."""
    found = set()
    for path in sorted(ROOT.glob("**/*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("tests/", ".venv/", "tournaments/seating/")) or "/." in rel:
            continue
        tree = ast.parse(path.read_text(), filename=rel)
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Call):
                    name = getattr(node.func, "attr", getattr(node.func, "id", None))
                    if name in ("seat_round", "plan_rounds"):
                        found.add((rel, func.name, name))
    return found


def test_every_caller_of_the_seating_is_covered() -> None:
    assert callers() == set(COVERED)


def test_every_way_to_choose_swiss_reaches_the_swiss_method() -> None:
    # the tournament's methods and the command's choices are the seating's methods
    assert {m.value for m in Tournament.Method} == set(seating.METHODS)
    assert "swiss" in seating.METHODS
