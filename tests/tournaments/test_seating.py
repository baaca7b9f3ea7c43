"""tournaments.seating: table sizes, sit-outs, the three methods, the bound, the known designs.

Issue #5's acceptance lines, each a test here:
- every round seats every active player exactly once at allowed sizes:
  ``test_every_active_player_is_seated_once_at_allowed_sizes`` (hypothesis, both round methods)
  and ``test_plan_seats_every_active_player_once_each_round``;
- sit-outs rotate (13 players at tables of 4 over 6 rounds: 6 different sit-outs):
  ``test_thirteen_at_tables_of_four_over_six_rounds_six_different_players_sit_out``,
  ``test_nobody_sits_out_twice_while_an_active_player_has_sat_out_less``;
- tables of 3-4: 13 players sit 4+3+3+3, nobody out:
  ``test_thirteen_players_at_tables_of_three_or_four_sit_four_three_three_three``;
- same seed, same plan: ``test_same_seed_same_plan`` and ``test_same_seed_same_round``;
- Tonk heads-up, A-D after A-B, C-D then A-C, B-D:
  ``test_tonk_heads_up_third_round_is_exactly_a_d_and_b_c``;
- the three known designs come out with E = 0 under plan:
  ``test_plan_finds_the_known_repeat_free_design``.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.seating import (
    Meetings,
    Plan,
    RoundSeating,
    SeatingError,
    Split,
    Table,
    default_prefer,
    excess,
    lower_bound,
    opponent_spread,
    opponents_faced,
    pairs_seated,
    plan_rounds,
    seat_round,
    split_of,
    table_sizes,
)

ROOT = Path(__file__).resolve().parents[2]
# derandomized: the same examples on every run (hypothesis still shrinks a failure)
SLOW = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def pair_counts(rounds: list[RoundSeating]) -> Counter[frozenset[object]]:
    return Counter(frozenset(p) for r in rounds for p in r.pairs())


# --- Table sizes ----------------------------------------------------------------------------


def test_thirteen_players_at_tables_of_three_or_four_sit_four_three_three_three() -> None:
    assert table_sizes(13, [3, 4], prefer=4) == Split((4, 3, 3, 3), 0)

    seating = seat_round(range(1, 14), sizes=[3, 4], prefer=4, seed=0)

    assert sorted(len(t.players) for t in seating.tables) == [3, 3, 3, 4]
    assert seating.sit_outs == ()
    assert sorted(seating.seated) == list(range(1, 14))


def test_thirteen_players_at_tables_of_exactly_four_leave_one_out() -> None:
    assert table_sizes(13, [4]) == Split((4, 4, 4), 1)


@pytest.mark.parametrize(
    ("players", "sizes", "prefer", "expected"),
    [
        (16, [4], 4, Split((4, 4, 4, 4), 0)),
        (13, [3, 4, 5], 4, Split((5, 4, 4), 0)),
        (14, [3, 4, 5], 4, Split((4, 4, 3, 3), 0)),
        (15, [3, 4, 5], 4, Split((4, 4, 4, 3), 0)),
        (13, [2, 3], 3, Split((3, 3, 3, 2, 2), 0)),
        (20, [2, 3], 3, Split((3, 3, 3, 3, 3, 3, 2), 0)),
        (7, [2, 5], 5, Split((5, 2), 0)),
        (22, [3, 4, 5], 5, Split((5, 5, 5, 4, 3), 0)),
        (5, [3, 4], 4, Split((4,), 1)),
        (7, [4], 4, Split((4,), 3)),
        (2, [2, 3], 3, Split((2,), 0)),
    ],
)
def test_table_sizes_prefer_the_preferred_size_then_fewest_other_tables(
    players: int, sizes: list[int], prefer: int, expected: Split
) -> None:
    assert table_sizes(players, sizes, prefer) == expected


def test_preferred_size_defaults_to_four_else_the_largest() -> None:
    assert default_prefer([3, 4, 5]) == 4
    assert default_prefer([2, 3]) == 3
    assert default_prefer([5]) == 5
    assert table_sizes(12, [3, 4, 5]) == Split((4, 4, 4), 0)


def _best_split_key(players: int, sizes: set[int], prefer: int) -> tuple[int, int, int]:
    """Brute force: (sit-outs, -tables of prefer, other tables) of the best split."""
    best = None
    ordered = sorted(sizes)
    for counts in itertools.product(*(range(players // s + 1) for s in ordered)):
        seated = sum(c * s for c, s in zip(counts, ordered, strict=True))
        if seated > players:
            continue
        by_size = dict(zip(ordered, counts, strict=True))
        key = (players - seated, -by_size[prefer], sum(counts) - by_size[prefer])
        best = key if best is None or key < best else best
    assert best is not None
    return best


@settings(SLOW, max_examples=100)
@given(
    players=st.integers(2, 40),
    sizes=st.sets(st.integers(2, 5), min_size=1, max_size=4),
    data=st.data(),
)
def test_table_sizes_follow_the_rule_against_brute_force(
    players: int, sizes: set[int], data: st.DataObject
) -> None:
    prefer = data.draw(st.sampled_from(sorted(sizes)))
    if players < min(sizes):
        with pytest.raises(SeatingError) as caught:
            table_sizes(players, sizes, prefer)
        assert caught.value.code == "too_few_players"
        return

    split = table_sizes(players, sizes, prefer)

    assert sum(split.tables) + split.sit_outs == players
    assert set(split.tables) <= sizes
    assert list(split.tables) == sorted(split.tables, reverse=True)
    key = (
        split.sit_outs,
        -split.tables.count(prefer),
        len(split.tables) - split.tables.count(prefer),
    )
    assert key == _best_split_key(players, sizes, prefer)


def test_fewer_players_than_the_smallest_table_is_an_error() -> None:
    with pytest.raises(SeatingError) as caught:
        seat_round(["A", "B"], sizes=[3, 4])

    assert caught.value.code == "too_few_players"
    assert str(caught.value) == "2 players cannot fill a table: the smallest table seats 3"


@pytest.mark.parametrize(
    ("sizes", "prefer", "code"),
    [([1, 3], None, "bad_sizes"), ([], None, "bad_sizes"), ([3, 4], 5, "bad_prefer")],
)
def test_rejects_bad_sizes_and_a_preferred_size_not_allowed(
    sizes: list[int], prefer: int | None, code: str
) -> None:
    with pytest.raises(SeatingError) as caught:
        table_sizes(12, sizes, prefer)

    assert caught.value.code == code


def test_rejects_a_player_listed_twice_and_an_unknown_method() -> None:
    with pytest.raises(SeatingError) as twice:
        seat_round([1, 2, 3, 3], sizes=[2])
    with pytest.raises(SeatingError) as method:
        seat_round([1, 2, 3, 4], sizes=[2], method="plan")
    with pytest.raises(SeatingError) as rounds:
        plan_rounds([1, 2, 3, 4], 0, sizes=[2])

    assert (twice.value.code, method.value.code, rounds.value.code) == (
        "duplicate_player",
        "bad_method",
        "bad_rounds",
    )
    assert isinstance(twice.value, ValueError)


# --- Sit-outs -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["balanced", "plan"])
def test_thirteen_at_tables_of_four_over_six_rounds_six_different_players_sit_out(
    method: str,
) -> None:
    plan = plan_rounds(range(1, 14), 6, sizes=[4], method=method, seed=0)

    outs = [r.sit_outs for r in plan.rounds]
    assert all(len(o) == 1 for o in outs)
    assert len({o[0] for o in outs}) == 6


def test_sit_outs_rotate_round_by_round_through_seat_round() -> None:
    players = list(range(1, 10))  # 9 players at tables of 4: one sits out each round
    meetings = Meetings.none(players)
    sat: Counter[int] = Counter()
    for r in range(9):
        seating = seat_round(players, meetings, sizes=[4], sit_outs_so_far=sat, seed=(7, r))
        meetings = meetings.after(seating)
        sat.update(seating.sit_outs)

    assert sat == Counter(players)  # 9 rounds, 9 different players, once each


@SLOW
@given(
    players=st.integers(5, 30),
    history=st.lists(st.integers(0, 3), min_size=30, max_size=30),
    seed=st.integers(0, 10_000),
)
def test_nobody_sits_out_twice_while_an_active_player_has_sat_out_less(
    players: int, history: list[int], seed: int
) -> None:
    ids = list(range(players))
    so_far = {p: history[p] for p in ids}
    seating = seat_round(ids, sizes=[4], sit_outs_so_far=so_far, seed=seed)

    out = set(seating.sit_outs)
    assert len(out) == players % 4
    if out:
        assert max(so_far[p] for p in out) <= min(so_far[p] for p in ids if p not in out)


def test_among_equals_the_lowest_in_the_standings_sits_out() -> None:
    players = list(range(1, 14))
    standing = players  # 1 on top, 13 last

    first = seat_round(players, sizes=[4], standing=standing, seed=3)
    second = seat_round(players, sizes=[4], standing=standing, sit_outs_so_far={13: 1}, seed=3)

    assert first.sit_outs == (13,)
    assert second.sit_outs == (12,)


def test_without_standings_the_sit_out_is_drawn_from_the_seed() -> None:
    outs = {seat_round(range(13), sizes=[4], seed=s).sit_outs for s in range(12)}

    assert len(outs) > 1
    assert seat_round(range(13), sizes=[4], seed=5) == seat_round(range(13), sizes=[4], seed=5)


# --- Every player once, at allowed sizes; determinism ------------------------------------


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[int], list[int], int, Meetings, int]:
    sizes = sorted(draw(st.sets(st.integers(2, 5), min_size=1, max_size=3)))
    prefer = draw(st.sampled_from(sizes))
    players = list(range(draw(st.integers(sizes[0], 36))))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    meetings = Meetings.none(players)
    for _ in range(draw(st.integers(0, 4))):  # a random history of random tables
        perm = rng.permutation(players).tolist()
        split = table_sizes(len(players), sizes, prefer)
        tables, at = [], 0
        for size in split.tables:
            tables.append(perm[at : at + size])
            at += size
        meetings = meetings.after(tables)
    return players, sizes, prefer, meetings, draw(st.integers(0, 10_000))


@SLOW
@given(field=fields(), method=st.sampled_from(["balanced", "swiss"]))
def test_every_active_player_is_seated_once_at_allowed_sizes(
    field: tuple[list[int], list[int], int, Meetings, int], method: str
) -> None:
    players, sizes, prefer, meetings, seed = field
    standing = players[::-1] if method == "swiss" else None

    seating = seat_round(
        players, meetings, sizes=sizes, prefer=prefer, method=method, standing=standing, seed=seed
    )

    split = table_sizes(len(players), sizes, prefer)
    seated = seating.seated
    assert len(seated) == len(set(seated)) == split.seated
    assert set(seated) | set(seating.sit_outs) == set(players)
    assert not set(seated) & set(seating.sit_outs)
    assert sorted(len(t.players) for t in seating.tables) == sorted(split.tables)
    assert all(t.players[0] == t.first_dealer for t in seating.tables)


@SLOW
@given(field=fields(), method=st.sampled_from(["balanced", "swiss"]))
def test_same_seed_same_round(
    field: tuple[list[int], list[int], int, Meetings, int], method: str
) -> None:
    players, sizes, prefer, meetings, seed = field

    def once() -> RoundSeating:
        return seat_round(players, meetings, sizes=sizes, prefer=prefer, method=method, seed=seed)

    assert once() == once()


@pytest.mark.parametrize("method", ["balanced", "swiss", "plan"])
def test_same_seed_same_plan(method: str) -> None:
    def once(seed: int) -> Plan:
        return plan_rounds(range(1, 17), 4, sizes=[3, 4], method=method, seed=seed)

    first, again, other = once(11), once(11), once(12)

    assert first == again
    assert first.rounds != other.rounds


@pytest.mark.parametrize(("players", "sizes", "rounds"), [(13, [4], 3), (14, [3, 4, 5], 3)])
def test_plan_seats_every_active_player_once_each_round(
    players: int, sizes: list[int], rounds: int
) -> None:
    plan = plan_rounds(range(players), rounds, sizes=sizes, method="plan", seed=1)

    split = table_sizes(players, sizes)
    for seated in plan.rounds:
        assert sorted(seated.seated + seated.sit_outs) == list(range(players))
        assert split_of(seated) == split


@pytest.mark.parametrize("players", [60, 200])
def test_large_fields_seat_everyone_once_without_repeats(players: int) -> None:
    plan = plan_rounds(range(players), 4, sizes=[3, 4, 5], method="balanced", seed=2)

    for seated in plan.rounds:
        assert sorted(seated.seated) == list(range(players))
    assert plan.excess == 0


def test_players_missing_from_the_meetings_have_met_nobody() -> None:
    meetings = Meetings.from_pairs({("A", "B"): 2, ("C", "D"): 1, ("gone", "A"): 1})

    seating = seat_round(["A", "B", "C", "D", "E", "F"], meetings, sizes=[2], seed=0)

    pairs = {frozenset(t.players) for t in seating.tables}
    assert frozenset("AB") not in pairs and frozenset("CD") not in pairs


# --- Repeats ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("as_mapping", [False, True])
def test_tonk_heads_up_third_round_is_exactly_a_d_and_b_c(seed: int, as_mapping: bool) -> None:
    history = [[("A", "B"), ("C", "D")], [("A", "C"), ("B", "D")]]
    meetings = Meetings.from_rounds(history)
    source = meetings.pairs() if as_mapping else meetings

    third = seat_round(["A", "B", "C", "D"], source, sizes=[2], seed=seed)

    assert {frozenset(t.players) for t in third.tables} == {frozenset("AD"), frozenset("BC")}


def test_a_pair_that_met_twice_is_seated_again_after_pairs_that_met_once() -> None:
    # every pairing of A-D repeats; A-B and C-D have met twice, the rest once
    meetings = Meetings.from_pairs(
        {("A", "B"): 2, ("C", "D"): 2, ("A", "C"): 1, ("B", "D"): 1, ("A", "D"): 1, ("B", "C"): 1}
    )

    for seed in range(6):
        seating = seat_round("ABCD", meetings, sizes=[2], seed=seed)
        assert all(meetings.count(*t.players) == 1 for t in seating.tables)


def test_balanced_leaves_no_repeat_while_half_the_pairs_are_unused() -> None:
    # 40 players in fours for 6 rounds seat 360 pairs, fewer than 780 / 2
    plan = plan_rounds(range(40), 6, sizes=[4], method="balanced", seed=0)

    assert plan.pairs == 360
    assert plan.excess == 0
    assert max(pair_counts(list(plan.rounds)).values()) == 1


@pytest.mark.parametrize(
    ("players", "size", "rounds"),
    [(16, 4, 5), (9, 3, 4), (15, 3, 7)],
    ids=["AG(2,4)", "AG(2,3)", "Kirkman"],
)
def test_plan_finds_the_known_repeat_free_design(players: int, size: int, rounds: int) -> None:
    plan = plan_rounds(range(players), rounds, sizes=[size], method="plan", seed=0)

    assert plan.excess == 0
    met = pair_counts(list(plan.rounds))
    # a resolvable design: every pair of players meets exactly once
    assert len(met) == players * (players - 1) // 2
    assert set(met.values()) == {1}
    assert all(len(t.players) == size for r in plan.rounds for t in r.tables)


def test_plan_ties_or_beats_balanced_on_thirteen_at_three_to_four() -> None:
    balanced = plan_rounds(range(13), 6, sizes=[3, 4], method="balanced", seed=4)
    planned = plan_rounds(range(13), 6, sizes=[3, 4], method="plan", seed=4)

    assert planned.excess <= balanced.excess
    assert planned.excess <= 1.1 * planned.bound + 4


# --- Fairness and dealers -----------------------------------------------------------------


@settings(SLOW, max_examples=15)
@given(
    players=st.integers(7, 26),
    sizes=st.sampled_from([(2, 3), (3, 4), (3, 4, 5)]),
    method=st.sampled_from(["balanced", "swiss", "plan"]),
    seed=st.integers(0, 1000),
)
def test_opponents_faced_spread_stays_within_two_with_mixed_sizes(
    players: int, sizes: tuple[int, ...], method: str, seed: int
) -> None:
    plan = plan_rounds(range(players), 5, sizes=sizes, method=method, seed=seed)

    for r in range(1, 6):  # after every round, not only the last
        assert opponent_spread(plan.rounds[:r], range(players)) <= 2


def test_players_who_faced_the_most_opponents_take_the_smaller_tables() -> None:
    # 7 players sit 4 + 3. Against X, Y, Z (not playing) A has faced 3 opponents, B 2, C 1,
    # D to G none; nobody playing has met, so nothing but fairness moves anyone.
    pairs = {("A", x): 1 for x in "XYZ"} | {("B", x): 1 for x in "XY"} | {("C", "Z"): 1}
    meetings = Meetings.from_pairs(pairs, "ABCDEFG")

    seating = seat_round("ABCDEFG", meetings, sizes=[3, 4], seed=0)

    small = next(t for t in seating.tables if len(t.players) == 3)
    assert set(small.players) == {"A", "B", "C"}


def test_first_dealer_has_the_fewest_first_dealer_turns_at_the_table() -> None:
    dealt = {p: p % 3 for p in range(16)}

    seating = seat_round(range(16), sizes=[4], dealer_counts=dealt, seed=9)

    for table in seating.tables:
        assert table.players[0] == table.first_dealer
        assert dealt[table.first_dealer] == min(dealt[p] for p in table.players)


@pytest.mark.parametrize(
    ("players", "sizes", "rounds", "method"),
    [(16, [4], 8, "plan"), (13, [4], 6, "balanced"), (7, [2, 3], 5, "swiss")],
)
def test_first_dealer_turns_are_balanced_over_a_plan(
    players: int, sizes: list[int], rounds: int, method: str
) -> None:
    plan = plan_rounds(range(players), rounds, sizes=sizes, method=method, seed=0)

    turns = Counter(t.first_dealer for r in plan.rounds for t in r.tables)
    tables = sum(len(r.tables) for r in plan.rounds)
    assert sum(turns.values()) == tables
    assert max(turns.values()) == -(-tables // players)  # ceil
    assert max(turns.values()) - min(turns[p] for p in range(players)) <= 1
    assert all(t.players[0] == t.first_dealer for r in plan.rounds for t in r.tables)


def test_table_lists_its_first_dealer_first() -> None:
    with pytest.raises(SeatingError):
        Table(("A", "B"), "B")
    with pytest.raises(SeatingError):
        Table(("A",), "A")


# --- Swiss ----------------------------------------------------------------------------------


def test_swiss_seats_the_top_of_the_standings_together() -> None:
    standing = list(range(1, 17))

    seating = seat_round(range(1, 17), sizes=[4], method="swiss", standing=standing, seed=0)

    assert [sorted(t.players) for t in seating.tables] == [
        [1, 2, 3, 4],
        [5, 6, 7, 8],
        [9, 10, 11, 12],
        [13, 14, 15, 16],
    ]


def test_swiss_moves_a_player_one_table_to_avoid_a_repeat() -> None:
    standing = list(range(1, 13))
    meetings = Meetings.from_pairs({(1, 2): 1}, standing)

    seating = seat_round(standing, meetings, sizes=[4], method="swiss", standing=standing, seed=0)

    home = {p: (p - 1) // 4 for p in standing}
    where = {p: i for i, t in enumerate(seating.tables) for p in t.players}
    assert where[1] != where[2]
    assert all(abs(where[p] - home[p]) <= 1 for p in standing)
    assert sum(where[p] != home[p] for p in standing) == 2


# --- Meetings, measures and the bound -------------------------------------------------------


def test_meetings_count_pairs_from_rounds_and_pairs_alike() -> None:
    rounds = [[("A", "B", "C"), ("D", "E")], [("A", "B"), ("C", "D", "E")]]

    from_rounds = Meetings.from_rounds(rounds)
    from_pairs = Meetings.from_pairs(from_rounds.pairs(), "ABCDE")

    assert from_rounds.count("A", "B") == 2
    assert from_rounds.count("B", "A") == 2
    assert from_rounds.count("A", "E") == 0
    assert from_rounds.count("A", "nobody") == 0
    assert from_pairs.pairs() == from_rounds.pairs()
    assert list(from_rounds.faced) == [3, 3, 4, 3, 3]  # A, B, C, D, E
    with pytest.raises(SeatingError):
        Meetings.from_pairs({("A", "A"): 1})
    with pytest.raises(SeatingError):
        Meetings.from_rounds([[("A", "B"), ("B", "C")]])


def test_excess_counts_meetings_beyond_each_pairs_first() -> None:
    def r(*tables: tuple[str, ...]) -> RoundSeating:
        return RoundSeating(tuple(Table(t, t[0]) for t in tables))

    rounds = [r(("A", "B"), ("C", "D")), r(("A", "B"), ("C", "D")), r(("A", "B"), ("C", "D"))]

    assert pairs_seated(rounds) == 6
    assert excess(rounds) == 4  # A-B and C-D met 3 times: 2 beyond the first each
    assert opponents_faced(rounds) == Counter({"A": 3, "B": 3, "C": 3, "D": 3})


def test_lower_bound_counts_the_pairs_beyond_all_possible_pairs() -> None:
    # 12 players in threes: 12 pairs a round, 66 pairs in all; 6 rounds seat 72
    assert lower_bound(12, [Split((3, 3, 3, 3), 0)] * 6) == 6
    assert lower_bound(2000, [table_sizes(2000, [4])] * 10) == 0


def test_lower_bound_uses_how_one_rounds_tables_spread_over_the_next() -> None:
    # 8 players at two tables of 4: each next-round table takes 2 + 2 from the last round's
    # tables, so each round after the first repeats at least 2 + 2 = 4 pairs (12 - 28 < 0)
    assert lower_bound(8, [Split((4, 4), 0)] * 2) == 4
    # 13 at tables of 5, 4, 4: the spread bound (4 a round) is below the pair bound here
    assert lower_bound(13, [Split((5, 4, 4), 0)] * 6) == 132 - 78


@settings(SLOW, max_examples=25)
@given(
    players=st.integers(4, 14),
    sizes=st.sampled_from([(2,), (3,), (4,), (2, 3), (3, 4), (5,), (3, 4, 5)]),
    rounds=st.integers(1, 5),
    seed=st.integers(0, 10_000),
)
def test_no_schedule_beats_the_lower_bound(
    players: int, sizes: tuple[int, ...], rounds: int, seed: int
) -> None:
    if players < min(sizes):
        return
    split = table_sizes(players, sizes)
    rng = np.random.default_rng(seed)
    random_rounds = []
    for _ in range(rounds):
        perm = rng.permutation(players).tolist()
        tables, at = [], 0
        for size in split.tables:
            tables.append(Table(tuple(perm[at : at + size]), perm[at]))
            at += size
        random_rounds.append(RoundSeating(tuple(tables), tuple(perm[at:])))
    planned = plan_rounds(range(players), rounds, sizes=sizes, method="plan", seed=seed)

    bound = lower_bound(players, [split] * rounds)
    assert excess(random_rounds) >= bound
    assert planned.excess >= bound
    assert planned.bound == bound


def test_seating_imports_without_django() -> None:
    code = (
        "import sys, tournaments.seating; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr


def test_same_seed_same_plan_in_another_process_with_string_ids() -> None:
    code = (
        "from tournaments.seating import plan_rounds\n"
        "ids = [f'player-{i}' for i in range(14)]\n"
        "for method in ('balanced', 'swiss', 'plan'):\n"
        "    plan = plan_rounds(ids, 3, sizes=[3, 4], method=method, seed=5)\n"
        "    print([[t.players for t in r.tables] for r in plan.rounds])\n"
    )

    def run(hash_seed: str) -> str:
        env = {"PYTHONHASHSEED": hash_seed, "PATH": ""}
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run("1") == run("2")
