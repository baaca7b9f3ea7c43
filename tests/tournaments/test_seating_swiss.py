"""The swiss rule (issue 14, row 10): fewest repeat meetings first, then the standings.

Checked by brute force on small fields: every seating of the players at the round's table
sizes is listed, and the one swiss picks must have the fewest repeats of them all and, among
those, be the first by the documented standings order (:mod:`tournaments.seating.swiss`):
the tables listed from the top (each by its best-ranked player), each as
``(-size, ranks ascending)``, lexicographically smallest. Then whole plans: the known
repeat-free designs come out repeat-free under swiss, and a search that runs out of budget
says its minimum is not proven.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.seating import Meetings, RoundSeating, plan_rounds, seat_round, swiss, table_sizes

SLOW = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def partitions(players: Sequence[Any], sizes: Sequence[int]) -> Iterator[list[tuple[Any, ...]]]:
    """Every way to seat ``players`` at tables of ``sizes`` (a multiset), each once."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes), reverse=True):
        left = list(sizes)
        left.remove(size)
        for mates in itertools.combinations(rest, size - 1):
            others = [p for p in rest if p not in mates]
            for tail in partitions(others, left):
                yield [(first, *mates), *tail]


def repeats(tables: Sequence[Sequence[Any]], meetings: Meetings) -> int:
    return sum(meetings.count(a, b) > 0 for t in tables for a, b in itertools.combinations(t, 2))


def standings_key(tables: Sequence[Sequence[Any]], rank: dict[Any, int]) -> tuple[int, ...]:
    """The documented order: tables by their best-ranked player, each (-size, ranks...)."""
    ranked = sorted((sorted(rank[p] for p in t) for t in tables), key=lambda t: t[0])
    return tuple(x for t in ranked for x in (-len(t), *t))


def fair(tables: Sequence[Sequence[Any]], meetings: Meetings) -> bool:
    """The fairness rule with mixed sizes: spread of opponents faced after the round at most
    max(2, the spread before), over the players seated."""
    if len({len(t) for t in tables}) == 1:
        return True
    before = {p: int(meetings.faced[meetings.index[p]]) for t in tables for p in t}
    after = {p: before[p] + len(t) - 1 for t in tables for p in t}
    limit = max(2, max(before.values()) - min(before.values()))
    return max(after.values()) - min(after.values()) <= limit


@st.composite
def small_fields(draw: st.DrawFn) -> tuple[list[int], list[int], Meetings, list[int]]:
    sizes = sorted(draw(st.sets(st.integers(2, 4), min_size=1, max_size=2)))
    n = draw(st.integers(max(4, sizes[0]), 10))
    players = list(range(n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    meetings = Meetings.none(players)
    split = table_sizes(n, sizes)
    for _ in range(draw(st.integers(0, 4))):  # a random history of random tables
        perm = rng.permutation(players).tolist()
        tables, at = [], 0
        for size in split.tables:
            tables.append(perm[at : at + size])
            at += size
        meetings = meetings.after(tables)
    standing = rng.permutation(players).tolist()
    return players, sizes, meetings, standing


def seated_sets(seating: RoundSeating) -> list[frozenset[Any]]:
    return [frozenset(t.players) for t in seating.tables]


@SLOW
@given(field=small_fields())
def test_swiss_seats_the_fewest_repeats_then_the_standings_by_brute_force(
    field: tuple[list[int], list[int], Meetings, list[int]],
) -> None:
    players, sizes, meetings, standing = field
    rank: dict[Any, int] = {p: i for i, p in enumerate(standing)}

    seating = seat_round(
        players, meetings, sizes=sizes, method="swiss", standing=standing, later=0, seed=3
    )

    active = sorted(seating.seated, key=rank.__getitem__)
    split = table_sizes(len(players), sizes)
    every = [t for t in partitions(active, split.tables) if fair(t, meetings)]
    fewest = min(repeats(t, meetings) for t in every)
    best = min(
        (t for t in every if repeats(t, meetings) == fewest), key=lambda t: standings_key(t, rank)
    )
    assert repeats([t.players for t in seating.tables], meetings) == fewest
    assert seated_sets(seating) == [frozenset(t) for t in best]
    assert seating.proven is True


def test_a_repeat_free_round_is_found_when_the_king_of_the_hill_seating_repeats() -> None:
    # 1-2, 1-3 ... : the top player has met the next three; tables of 4 for 8 players
    standing = list(range(1, 9))
    meetings = Meetings.from_pairs({(1, 2): 1, (1, 3): 1, (1, 4): 1, (5, 6): 1}, standing)

    seating = seat_round(standing, meetings, sizes=[4], method="swiss", standing=standing)

    assert seated_sets(seating) == [frozenset({1, 5, 7, 8}), frozenset({2, 3, 4, 6})]
    assert seating.proven is True


def test_when_a_repeat_cannot_be_avoided_swiss_seats_the_fewest() -> None:
    # 6 players at tables of 3 after 1-2-3 | 4-5-6: every table of 3 takes two of one group
    standing = list(range(1, 7))
    meetings = Meetings.from_rounds([[(1, 2, 3), (4, 5, 6)]], standing)

    seating = seat_round(standing, meetings, sizes=[3], method="swiss", standing=standing)

    assert repeats([t.players for t in seating.tables], meetings) == 2
    assert seated_sets(seating) == [frozenset({1, 2, 4}), frozenset({3, 5, 6})]
    assert seating.proven is True


@pytest.mark.parametrize(
    ("players", "sizes", "rounds"),
    [
        (9, [3], 4),  # affine plane of order 3
        (16, [4], 5),  # affine plane of order 4
        (12, [3], 4),
        (15, [3], 7),  # Kirkman's schoolgirls
        (25, [5], 6),  # affine plane of order 5
        (20, [4], 5),
        (14, [3, 4], 3),  # mixed sizes: 4 4 3 3
        (22, [3, 4, 5], 4),  # mixed sizes
    ],
)
def test_swiss_plans_reach_the_bound_where_a_repeat_free_schedule_exists(
    players: int, sizes: list[int], rounds: int
) -> None:
    plan = plan_rounds(range(1, players + 1), rounds, sizes=sizes, method="swiss")

    assert plan.bound == 0
    assert plan.excess == 0
    assert all(r.proven for r in plan.rounds)
    first = [sorted(t.players) for t in plan.rounds[0].tables]  # type: ignore[type-var]
    split = table_sizes(players, sizes)
    at, expected = 1, []
    for size in split.tables:  # round 1: king of the hill, the top of the standings together
        expected.append(list(range(at, at + size)))
        at += size
    assert first == expected


def test_a_search_out_of_budget_answers_and_says_its_minimum_is_not_proven() -> None:
    # 6 players, 1-2-3 | 4-5-6 met: no repeat-free round; with no budget the search stops
    met = [0b000110, 0b000101, 0b000011, 0b110000, 0b101000, 0b011000]
    rnd = swiss.Round(0b111111, (3, 3))

    none = swiss.seat_round(met, [2] * 6, [rnd], budget=3, lookahead_budget=3)
    enough = swiss.seat_round(met, [2] * 6, [rnd])

    assert (none.tables, none.proven) == (None, False)
    assert (enough.tables, enough.repeats, enough.proven) == ([(0, 1, 3), (2, 4, 5)], 2, True)


def test_the_fallback_marks_a_round_not_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    standing = list(range(1, 7))
    meetings = Meetings.from_rounds([[(1, 2, 3), (4, 5, 6)]], standing)
    monkeypatch.setattr(swiss, "SWISS_BUDGET", 2)
    monkeypatch.setattr(swiss.seat_round, "__kwdefaults__", {"budget": 2, "lookahead_budget": 2})

    seating = seat_round(standing, meetings, sizes=[3], method="swiss", standing=standing)

    assert sorted(len(t.players) for t in seating.tables) == [3, 3]
    assert repeats([t.players for t in seating.tables], meetings) == 2  # the fewest, found
    assert seating.proven is False  # ... but the search did not prove it
