"""The standings rules (issue 6, "Standings" and "Missed rounds"), on small hand-made results:
totals and placement, missed rounds, withdrawn and late players, tie-breaks, shared places;
and a property test against a plain reference implementation of the same rules."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tonkrules.names import name_key
from tournaments.standings import (
    Entry,
    RoundScore,
    SeatRecord,
    StandingRow,
    compute_standings,
    place_label,
    placement_points,
)

ROOT = Path(__file__).resolve().parents[2]

# --- helpers ----------------------------------------------------------------------------------

_seat_ids = iter(range(1, 10**9))


def entries(*names: str) -> list[Entry]:
    """Registrations of ``names``: registration id 10 + i, player id 100 + i."""
    return [Entry(10 + i, 100 + i, name) for i, name in enumerate(names)]


def pid(players: list[Entry], name: str) -> int:
    return next(e.player_id for e in players if e.name == name)


def seat(
    rnd: int,
    game: int,
    player_id: int | None,
    *hands: int,
    went_out: int = 0,
    bids_made: int = 0,
    won: int = 0,
) -> SeatRecord:
    """One seat's result: the points of each of its hands, and the flag counts."""
    return SeatRecord(
        rnd,
        game,
        next(_seat_ids),
        player_id,
        sum(hands),
        max(hands),
        min(hands),
        len(hands),
        went_out,
        bids_made,
        won,
    )


def table(
    rnd: int, game: int, players: list[Entry], points: dict[str | None, int]
) -> list[SeatRecord]:
    """A one-hand table: name → points (``None`` or an unknown name: a substitute)."""
    known = {e.name: e.player_id for e in players}
    return [seat(rnd, game, known.get(name or ""), pts) for name, pts in points.items()]


def run(players: list[Entry], results: list[SeatRecord], **kw: object) -> list[StandingRow]:
    options: dict[str, object] = {"kind": "rook", "basis": "total", "missed": "average"}
    options.update(kw)
    if "rounds_complete" not in options:
        options["rounds_complete"] = max((r.round for r in results), default=0)
    return compute_standings(entries=players, results=results, **options)  # type: ignore[arg-type]


def by_name(rows: list[StandingRow]) -> dict[str, StandingRow]:
    return {row.name: row for row in rows}


def order(rows: list[StandingRow]) -> list[str]:
    return [row.name for row in rows]


def labels(rows: list[StandingRow]) -> list[tuple[str, str]]:
    return [(row.label, row.name) for row in rows]


# --- totals -----------------------------------------------------------------------------------


def test_rook_lowest_total_wins_with_exact_round_scores() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee")
    results = table(1, 1, players, {"Ana": 0, "Ben": 15, "Cyd": 30, "Dee": 45}) + table(
        2, 2, players, {"Ana": 20, "Ben": 0, "Cyd": 10, "Dee": 5}
    )
    rows = run(players, results)

    assert labels(rows) == [("1", "Ben"), ("2", "Ana"), ("3", "Cyd"), ("4", "Dee")]
    ben = rows[0]
    assert ben.total == 15 and isinstance(ben.total, F)
    assert ben.rounds == {1: RoundScore(F(15), False), 2: RoundScore(F(0), False)}
    assert list(ben.rounds) == [1, 2]
    assert (ben.place, ben.shared, ben.registration_id, ben.withdrawn, ben.games) == (
        1,
        False,
        11,
        False,
        2,
    )
    assert [row.total for row in rows] == [15, 20, 40, 50]


def test_bluke_highest_total_wins_summing_the_hands_of_the_round() -> None:
    players = entries("Ana", "Ben", "Cyd")
    a, b, c = (pid(players, n) for n in ("Ana", "Ben", "Cyd"))
    results = [seat(1, 1, a, 62, -50), seat(1, 1, b, 30, 40), seat(1, 1, c, 22, 22)]
    rows = run(players, results, kind="bluke")

    assert order(rows) == ["Ben", "Cyd", "Ana"]
    assert [row.total for row in rows] == [70, 44, 12]
    assert by_name(rows)["Ana"].rounds == {1: RoundScore(F(12), False)}


def test_tonk_highest_net_stake_units_wins() -> None:
    players = entries("Ana", "Ben", "Cyd")
    results = table(1, 1, players, {"Ana": -2, "Ben": 3, "Cyd": -1})
    rows = run(players, results, kind="tonk")

    assert order(rows) == ["Ben", "Cyd", "Ana"]
    assert [row.total for row in rows] == [3, -1, -2]


def test_substitute_seat_counts_for_nobody() -> None:
    players = entries("Ana", "Ben", "Cyd")
    results = table(1, 1, players, {"Ana": 10, "Ben": 20, None: 99, "Stranger": 5})
    rows = run(players, results, kind="bluke", rounds_complete=0)

    assert order(rows) == ["Ben", "Ana", "Cyd"]
    assert [row.total for row in rows] == [20, 10, 0]
    assert by_name(rows)["Cyd"].rounds == {} and by_name(rows)["Cyd"].games == 0


# --- placement --------------------------------------------------------------------------------


def test_placement_points_share_tied_places() -> None:
    assert placement_points([50, 30, 30, 10], lower_wins=False) == [F(1), F(1, 2), F(1, 2), 0]
    assert placement_points([50, 30, 30, 10], lower_wins=True) == [0, F(1, 2), F(1, 2), F(1)]
    assert placement_points([5, 7, 9], lower_wins=False) == [0, F(1, 2), 1]
    assert placement_points([4, 4, 4], lower_wins=False) == [F(1, 2)] * 3
    assert placement_points([1, 2], lower_wins=True) == [1, 0]
    three_tied_first = F(4 + 3 + 2, 4) / 3  # places 1 to 3 of 5, shared
    assert three_tied_first == F(3, 4)
    assert placement_points([3, 3, 1, 3, 0], lower_wins=False) == [F(3, 4)] * 2 + [
        F(1, 4),
        F(3, 4),
        0,
    ]
    assert placement_points([7], lower_wins=False) == [F(1, 2)]
    with pytest.raises(ValueError):
        placement_points([], lower_wins=False)


def test_placement_basis_two_tied_for_second_of_four_get_one_half_each() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee")
    results = table(1, 1, players, {"Ana": 50, "Ben": 30, "Cyd": 30, "Dee": 10})
    rows = run(players, results, kind="bluke", basis="placement")

    assert labels(rows) == [("1", "Ana"), ("2=", "Ben"), ("2=", "Cyd"), ("4", "Dee")]
    assert [row.total for row in rows] == [1, F(1, 2), F(1, 2), 0]
    assert by_name(rows)["Ben"].rounds == {1: RoundScore(F(1, 2), False)}


def test_rook_placement_lowest_points_takes_first_place_and_highest_total_wins() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee")
    results = table(1, 1, players, {"Ana": 50, "Ben": 30, "Cyd": 30, "Dee": 10})
    rows = run(players, results, kind="rook", basis="placement")

    assert order(rows)[0] == "Dee" and order(rows)[-1] == "Ana"
    assert by_name(rows)["Dee"].total == 1 and by_name(rows)["Ana"].total == 0


def test_placement_compares_tables_of_different_sizes_and_substitutes_take_a_place() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee", "Eve", "Fay")
    results = table(1, 1, players, {"Ana": 100, None: 90, "Ben": 50, "Cyd": 10}) + table(
        1, 2, players, {"Dee": 9, "Eve": 7, "Fay": 5}
    )
    rows = run(players, results, kind="tonk", basis="placement")

    totals = {row.name: row.total for row in rows}
    assert totals == {"Ana": 1, "Ben": F(1, 3), "Cyd": 0, "Dee": 1, "Eve": F(1, 2), "Fay": 0}
    assert labels(rows)[:2] == [("1", "Ana"), ("2", "Dee")]  # level; Ana's best round 100 > 9


def test_placement_sums_over_rounds_exactly() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee")
    results = (
        table(1, 1, players, {"Ana": 3, "Ben": 2, "Cyd": 1})  # 1, 1/2, 0
        + table(2, 2, players, {"Ana": 1, "Ben": 2, "Cyd": 3, "Dee": 4})  # 0, 1/3, 2/3, 1
    )
    rows = run(players, results, kind="bluke", basis="placement", missed="zero")

    assert {r.name: r.total for r in rows} == {
        "Ana": 1,
        "Ben": F(5, 6),
        "Cyd": F(2, 3),
        "Dee": 1,
    }
    assert by_name(rows)["Dee"].rounds == {1: RoundScore(F(0), True), 2: RoundScore(F(1), False)}


# --- missed rounds ----------------------------------------------------------------------------


def _missed_round_case() -> tuple[list[Entry], list[SeatRecord]]:
    """Round 1: Ana 10, Ben 12, Cyd 13 and a substitute 100; Dee has no result."""
    players = entries("Ana", "Ben", "Cyd", "Dee")
    return players, table(1, 1, players, {"Ana": 10, "Ben": 12, "Cyd": 13, "Sub": 100})


def test_missed_round_average_is_the_exact_mean_of_registered_players_who_played() -> None:
    players, results = _missed_round_case()
    rows = run(players, results, missed="average")

    dee = by_name(rows)["Dee"]
    assert dee.rounds == {1: RoundScore(F(35, 3), True)}
    assert dee.total == F(35, 3) and dee.games == 0
    assert order(rows) == ["Ana", "Dee", "Ben", "Cyd"]  # 10 < 35/3 < 12 < 13


def test_missed_round_worst_for_rook_totals_is_the_highest_registered_score() -> None:
    players, results = _missed_round_case()
    rows = run(players, results, missed="worst")

    assert by_name(rows)["Dee"].rounds == {1: RoundScore(F(13), True)}  # not the substitute's
    assert labels(rows)[-2:] == [("3", "Cyd"), ("4", "Dee")]  # level; Dee has no best round


def test_missed_round_worst_for_bluke_is_the_lowest_score() -> None:
    players, results = _missed_round_case()
    rows = run(players, results, kind="bluke", missed="worst")

    assert by_name(rows)["Dee"].rounds[1] == RoundScore(F(10), True)


def test_missed_round_zero() -> None:
    players, results = _missed_round_case()
    rows = run(players, results, kind="tonk", missed="zero")

    assert by_name(rows)["Dee"].rounds[1] == RoundScore(F(0), True)
    assert by_name(rows)["Dee"].total == 0


def test_missed_round_zero_is_refused_for_rook_totals_but_not_rook_placement() -> None:
    players, results = _missed_round_case()
    with pytest.raises(ValueError, match="zero"):
        run(players, results, kind="rook", missed="zero")
    rows = run(players, results, kind="rook", basis="placement", missed="zero")
    assert by_name(rows)["Dee"].total == 0


def test_missed_round_on_placement_basis_average_and_worst() -> None:
    players, results = _missed_round_case()  # places: Ana 1, Ben 2/3, Cyd 1/3, Sub 0 (Rook)

    average = by_name(run(players, results, basis="placement", missed="average"))["Dee"]
    worst = by_name(run(players, results, basis="placement", missed="worst"))["Dee"]
    assert average.rounds[1] == RoundScore(F(2, 3), True)  # (1 + 2/3 + 1/3) / 3
    assert worst.rounds[1] == RoundScore(F(1, 3), True)  # the lowest registered: Cyd


def test_missed_rounds_add_up_exactly_over_rounds() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee")
    results = table(1, 1, players, {"Ana": 10, "Ben": 12, "Cyd": 13}) + table(
        2, 2, players, {"Ana": 10, "Ben": 11}
    )
    rows = run(players, results)

    dee = by_name(rows)["Dee"]
    assert dee.rounds == {1: RoundScore(F(35, 3), True), 2: RoundScore(F(21, 2), True)}
    assert dee.total == F(35, 3) + F(21, 2) == F(133, 6)
    cyd = by_name(rows)["Cyd"]
    assert cyd.rounds[2] == RoundScore(F(21, 2), True) and cyd.total == F(47, 2)


def test_withdrawn_player_keeps_results_is_flagged_and_misses_later_rounds() -> None:
    players = [
        Entry(10, 100, "Ana"),
        Entry(11, 101, "Ben"),
        Entry(12, 102, "Cyd", withdrawn_after=1),
    ]
    results = (
        table(1, 1, players, {"Ana": 10, "Ben": 20, "Cyd": 0})
        + table(2, 2, players, {"Ana": 30, "Ben": 10})
        + table(3, 3, players, {"Ana": 5, "Ben": 4})
    )
    rows = run(players, results)

    cyd = by_name(rows)["Cyd"]
    assert cyd.withdrawn and not by_name(rows)["Ana"].withdrawn
    assert cyd.rounds == {
        1: RoundScore(F(0), False),
        2: RoundScore(F(20), True),
        3: RoundScore(F(9, 2), True),
    }
    assert cyd.total == F(49, 2)
    assert labels(rows) == [("1", "Cyd"), ("2", "Ben"), ("3", "Ana")]  # 24.5, 34, 45


def test_late_entry_misses_the_rounds_before_from_round() -> None:
    players = [Entry(10, 100, "Ana"), Entry(11, 101, "Ben"), Entry(12, 102, "Lia", from_round=3)]
    results = (
        table(1, 1, players, {"Ana": 10, "Ben": 20})
        + table(2, 2, players, {"Ana": 7, "Ben": 8})
        + table(3, 3, players, {"Ana": 1, "Ben": 2, "Lia": 3})
    )
    rows = run(players, results, kind="bluke")

    lia = by_name(rows)["Lia"]
    assert lia.rounds == {
        1: RoundScore(F(15), True),
        2: RoundScore(F(15, 2), True),
        3: RoundScore(F(3), False),
    }
    assert lia.total == F(51, 2) and lia.games == 1


def test_unplayed_table_of_a_complete_round_gives_its_players_missed_rounds() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee")
    results = table(1, 1, players, {"Ana": 1, "Ben": 2})  # Cyd and Dee's table: not played
    rows = run(players, results, kind="bluke", rounds_complete=1)

    assert by_name(rows)["Cyd"].rounds == {1: RoundScore(F(3, 2), True)}
    assert by_name(rows)["Dee"].rounds == {1: RoundScore(F(3, 2), True)}


def test_complete_round_nobody_played_scores_zero() -> None:
    players = entries("Ana", "Ben")
    for missed in ("average", "worst"):
        rows = run(players, [], missed=missed, rounds_complete=2)
        assert all(row.rounds == {1: (0, True), 2: (0, True)} for row in rows)
        assert labels(rows) == [("1=", "Ana"), ("1=", "Ben")]


def test_rounds_in_progress_count_results_so_far_and_give_no_missed_round() -> None:
    players = entries("Ana", "Ben", "Cyd")
    results = table(1, 1, players, {"Ana": 10, "Ben": 20, "Cyd": 30}) + table(
        2, 2, players, {"Ana": 5, "Ben": 6}
    )
    rows = run(players, results, rounds_complete=1)

    assert by_name(rows)["Ana"].rounds == {1: (10, False), 2: (5, False)}
    assert by_name(rows)["Cyd"].rounds == {1: (30, False)}
    assert [row.total for row in rows] == [15, 26, 30]


def test_nothing_complete_and_no_results_ranks_nobody() -> None:
    rows = run(entries("Ben", "ana"), [], rounds_complete=0)

    # Nobody has a score: nobody is ranked (no "1=" on 0); listed by name, ignoring case.
    assert labels(rows) == [("", "ana"), ("", "Ben")]
    assert [(row.ranked, row.place) for row in rows] == [(False, 0), (False, 0)]
    assert all(row.total == 0 and row.rounds == {} for row in rows)
    assert rows[0].tiebreaks == (0, None)


# --- tie-breaks and shared places -------------------------------------------------------------


def test_rook_tie_break_rounds_gone_out_then_lowest_single_round() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee")
    a, b, c, d = (p.player_id for p in players)
    results = [
        seat(1, 1, a, 10, went_out=0),
        seat(2, 2, a, 20, went_out=1),  # Ana: 30, out once, best 10
        seat(1, 3, b, 0, went_out=1),
        seat(2, 4, b, 30, went_out=1),  # Ben: 30, out twice, best 0
        seat(1, 5, c, 15, went_out=1),
        seat(2, 6, c, 15, went_out=0),  # Cyd: 30, out once, best 15
        seat(1, 7, d, 29),
        seat(2, 8, d, 0, went_out=1),  # Dee: 29: wins on total
    ]
    rows = run(players, results)

    assert labels(rows) == [("1", "Dee"), ("2", "Ben"), ("3", "Ana"), ("4", "Cyd")]
    assert by_name(rows)["Ben"].tiebreaks == (2, 0)
    assert by_name(rows)["Ana"].tiebreaks == (1, 10)
    assert by_name(rows)["Cyd"].tiebreaks == (1, 15)


def test_bluke_tie_break_bids_made_then_highest_single_hand() -> None:
    players = entries("Ana", "Ben", "Cyd")
    a, b, c = (p.player_id for p in players)
    results = [
        seat(1, 1, a, 50, 10, bids_made=1),  # 60, 1 bid, best hand 50
        seat(1, 1, b, 30, 30, bids_made=2),  # 60, 2 bids, best hand 30
        seat(1, 1, c, 59, 1, bids_made=1),  # 60, 1 bid, best hand 59
    ]
    rows = run(players, results, kind="bluke")

    assert labels(rows) == [("1", "Ben"), ("2", "Cyd"), ("3", "Ana")]
    assert by_name(rows)["Cyd"].tiebreaks == (1, 59)


def test_tonk_tie_break_hands_won_then_highest_single_round() -> None:
    players = entries("Ana", "Ben", "Cyd")
    a, b, c = (p.player_id for p in players)
    results = [
        seat(1, 1, a, 2, 2, won=2),
        seat(2, 2, a, 0, won=0),  # 4, 2 won, best round 4
        seat(1, 3, b, 3, won=1),
        seat(2, 4, b, 1, won=1),  # 4, 2 won, best round 3
        seat(1, 5, c, 4, -1, won=1),
        seat(2, 6, c, 1, won=0),  # 4, 1 won
    ]
    rows = run(players, results, kind="tonk")

    assert labels(rows) == [("1", "Ana"), ("2", "Ben"), ("3", "Cyd")]
    assert by_name(rows)["Ana"].tiebreaks == (2, 4)


def test_tie_breaks_use_points_on_placement_basis() -> None:
    players = entries("Ana", "Ben", "Cyd", "Dee")
    a, b, c, d = (p.player_id for p in players)
    results = [  # two tables, each won by one: Ana and Cyd both score 1, Ben and Dee 0
        seat(1, 1, a, 5, went_out=1),
        seat(1, 1, b, 50),
        seat(1, 2, c, 0, went_out=1),
        seat(1, 2, d, 60),
    ]
    rows = run(players, results, kind="rook", basis="placement")

    assert labels(rows) == [("1", "Cyd"), ("2", "Ana"), ("3", "Ben"), ("4", "Dee")]


def test_players_equal_on_total_and_tie_breaks_share_a_place_shown_with_equals() -> None:
    players = entries("Dee", "Cyd", "Ben", "Ana")
    results = table(1, 1, players, {"Ana": 5, "Ben": 10, "Cyd": 10, "Dee": 20})
    rows = run(players, results)

    assert labels(rows) == [("1", "Ana"), ("2=", "Ben"), ("2=", "Cyd"), ("4", "Dee")]
    assert [(r.place, r.shared) for r in rows] == [(1, False), (2, True), (2, True), (4, False)]
    assert place_label(2, shared=True) == "2=" and place_label(4, shared=False) == "4"


def test_player_without_results_ranks_below_an_equal_player_with_a_best_hand() -> None:
    players = entries("Ana", "Ben")
    results = [seat(1, 1, players[1].player_id, 0), seat(1, 2, None, 3)]
    rows = run(players, results, kind="bluke", rounds_complete=1)

    # Ana's table was not played: a missed round of 0 (the round's average), no best hand.
    assert labels(rows) == [("1", "Ben"), ("2", "Ana")]
    assert rows[1].tiebreaks == (0, None)


@pytest.mark.parametrize("kind", ["rook", "bluke", "tonk"])
def test_a_player_with_no_score_yet_is_listed_unranked_after_those_who_scored(
    kind: str,
) -> None:
    # Round 1 in play: Ana's table reported (Ana lost 5, Ben 0 the other way round), Cyd's
    # and Dee's table has reported nothing: they are not ranked "1=" on 0 above anyone.
    players = [
        Entry(10, 100, "Ana", in_play="reported"),
        Entry(11, 101, "Ben", in_play="reported"),
        Entry(12, 102, "Cyd", in_play="not_reported"),
        Entry(13, 103, "Dee", in_play="provisional"),
    ]
    worse = 5 if kind == "rook" else -5
    results = [seat(1, 1, 100, worse), seat(1, 1, 101, 0)]
    rows = run(players, results, kind=kind, rounds_complete=0)

    assert labels(rows) == [("1", "Ben"), ("2", "Ana"), ("", "Cyd"), ("", "Dee")]
    assert [row.ranked for row in rows] == [True, True, False, False]
    assert [row.in_play for row in rows] == ["reported", "reported", "not_reported", "provisional"]
    assert [(row.not_reported, row.provisional) for row in rows[2:]] == [
        (True, False),
        (False, True),
    ]


def test_the_round_in_play_marks_do_not_change_the_ranking_once_everyone_scored() -> None:
    # Round 2 in play: Ben's table has reported nothing yet; he still ranks on round 1.
    players = [
        Entry(10, 100, "Ana", in_play="provisional"),
        Entry(11, 101, "Ben", in_play="not_reported"),
    ]
    results = [seat(1, 1, 100, 5), seat(1, 1, 101, 9), seat(2, 2, 100, 1)]
    rows = run(players, results, kind="bluke", rounds_complete=1)

    assert labels(rows) == [("1", "Ben"), ("2", "Ana")]
    assert [(row.ranked, row.in_play) for row in rows] == [
        (True, "not_reported"),
        (True, "provisional"),
    ]


# --- errors and purity ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kind": "poker"}, "unknown game"),
        ({"basis": "wins"}, "unknown standings basis"),
        ({"missed": "best"}, "unknown missed round score"),
        ({"rounds_complete": -1}, "0 or more"),
    ],
)
def test_rejects_unknown_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run(entries("Ana"), [], **{"rounds_complete": 0, **options})


def test_rejects_a_player_registered_twice_and_round_zero() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        run([Entry(1, 100, "Ana"), Entry(2, 100, "Ana")], [], rounds_complete=0)
    with pytest.raises(ValueError, match="start at 1"):
        run(entries("Ana"), [seat(0, 1, 100, 5)], rounds_complete=0)


def test_rejects_placement_over_table_sizes_too_varied_to_add_exactly() -> None:
    players = entries("Ana")
    results = [seat(1, size, None, 1) for size in range(2, 31) for _ in range(size)]
    with pytest.raises(ValueError, match="table sizes"):
        run(players, results, kind="bluke", basis="placement")
    assert run(players, results, kind="bluke", basis="total")[0].total == F(0)  # missed: avg 0


def test_accepts_plain_tuples_and_a_generator() -> None:
    players, results = _missed_round_case()
    expected = run(players, results)

    assert run(players, (tuple(r) for r in results), rounds_complete=1) == expected


def test_standings_module_imports_without_django() -> None:
    code = (
        "import sys, tournaments.standings; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


# --- property: the same as a plain statement of the rules -------------------------------------


def reference(
    *,
    kind: str,
    basis: str,
    missed: str,
    entries: list[Entry],
    results: list[SeatRecord],
    rounds_complete: int,
) -> list[tuple[object, ...]]:
    """The rules stated plainly with fractions (no shared cells, no integer keys)."""
    registered = {e.player_id: e for e in entries}
    lower_wins = kind == "rook" and basis == "total"
    raw: dict[int, dict[int, int]] = {p: defaultdict(int) for p in registered}
    for r in results:
        if r.player_id in registered:
            raw[r.player_id][r.round] += r.points
    score: dict[int, dict[int, F]] = {p: defaultdict(F) for p in registered}
    if basis == "placement":
        games: dict[int, list[SeatRecord]] = defaultdict(list)
        for r in results:
            games[r.game_id].append(r)
        for seats in games.values():
            points = placement_points([s.points for s in seats], lower_wins=kind == "rook")
            for s, p in zip(seats, points, strict=True):
                if s.player_id in registered:
                    score[s.player_id][s.round] += p
    else:
        for p, rounds in raw.items():
            for rnd, value in rounds.items():
                score[p][rnd] = F(value)
    missed_value = {}
    for rnd in range(1, rounds_complete + 1):
        played = [score[p][rnd] for p in registered if rnd in score[p]]
        if not played or missed == "zero":
            missed_value[rnd] = F(0)
        elif missed == "average":
            missed_value[rnd] = sum(played, F(0)) / len(played)
        else:
            missed_value[rnd] = max(played) if lower_wins else min(played)
    rows = []
    for p, e in registered.items():
        rounds = sorted(set(score[p]) | set(range(1, rounds_complete + 1)))
        cells = {
            rnd: (score[p][rnd], False) if rnd in score[p] else (missed_value[rnd], True)
            for rnd in rounds
        }
        mine = [r for r in results if r.player_id == p]
        if kind == "rook":
            tiebreaks = (sum(r.went_out for r in mine), min(raw[p].values(), default=None))
        elif kind == "bluke":
            best = max((r.max_points for r in mine), default=None)
            tiebreaks = (sum(r.bids_made for r in mine), best)
        else:
            tiebreaks = (sum(r.won for r in mine), max(raw[p].values(), default=None))
        total = sum((c[0] for c in cells.values()), F(0))
        rows.append((e, total, cells, tiebreaks, len(mine)))

    def unranked(x: tuple[object, ...]) -> bool:
        """No score yet (no round, no result): no place, listed after the ranked."""
        return not x[2] and not x[4]

    def better(x: tuple[object, ...], y: tuple[object, ...]) -> int:
        """-1 when x ranks above y, 1 below, 0 level."""
        if unranked(x) or unranked(y):
            return int(unranked(x)) - int(unranked(y))
        tx, ty = x[1], y[1]
        if tx != ty:
            return (-1 if tx < ty else 1) * (1 if lower_wins else -1)  # type: ignore[operator]
        (fx, bx), (fy, by) = x[3], y[3]  # type: ignore[misc]
        if fx != fy:
            return -1 if fx > fy else 1
        if bx != by:
            if bx is None or by is None:
                return 1 if bx is None else -1
            return (-1 if bx < by else 1) * (1 if kind == "rook" else -1)
        return 0

    def key(x: tuple[object, ...], y: tuple[object, ...]) -> int:
        level = better(x, y)
        if level:
            return level
        ex, ey = x[0], y[0]
        kx = (name_key(ex.name), ex.registration_id)  # type: ignore[attr-defined]
        ky = (name_key(ey.name), ey.registration_id)  # type: ignore[attr-defined]
        return -1 if kx < ky else 1

    ranked = sorted(rows, key=functools.cmp_to_key(key))
    out = []
    for i, row in enumerate(ranked):
        tied_before = i > 0 and better(row, ranked[i - 1]) == 0
        tied_after = i + 1 < len(ranked) and better(row, ranked[i + 1]) == 0
        place = out[-1][0] if tied_before else i + 1
        if unranked(row):
            place, tied_before, tied_after = 0, False, False
        e = row[0]
        out.append(
            (place, tied_before or tied_after, e.registration_id, e.withdrawn, *row[1:])  # type: ignore[attr-defined]
        )
    return out


@st.composite
def tournaments(draw: st.DrawFn) -> dict[str, object]:
    count = draw(st.integers(0, 8))
    names = draw(st.lists(st.sampled_from("ABCDEFGHIJ"), min_size=count, max_size=count))
    players = [
        Entry(
            50 - i,
            100 + i,
            name + str(i % 2),
            withdrawn_after=draw(st.none() | st.integers(0, 3)),
        )
        for i, name in enumerate(names)
    ]
    rounds = draw(st.integers(1, 4))
    results = []
    game = 0
    for rnd in range(1, rounds + 1):
        everyone = st.lists(st.sampled_from(players), unique=True, max_size=count)
        present = draw(everyone) if players else []
        seats = [p.player_id for p in present] + [None, 999][: draw(st.integers(0, 2))]
        seats = draw(st.permutations(seats))
        while seats:
            size = draw(st.integers(1, 5))
            at, seats = seats[:size], seats[size:]
            game += 1
            if draw(st.booleans()) and draw(st.booleans()):
                continue  # a table not played
            hands = draw(st.integers(1, 3))
            for player_id in at:
                points = draw(st.lists(st.integers(-3, 3), min_size=hands, max_size=hands))
                flags = [draw(st.integers(0, hands)) for _ in range(3)]
                results.append(
                    SeatRecord(
                        rnd,
                        game,
                        len(results) + 1,
                        player_id,
                        sum(points),
                        max(points),
                        min(points),
                        hands,
                        *flags,
                    )
                )
    kind = draw(st.sampled_from(["rook", "bluke", "tonk"]))
    basis = draw(st.sampled_from(["total", "placement"]))
    missed = draw(st.sampled_from(["average", "zero", "worst"]))
    return {
        "kind": kind,
        "basis": basis,
        "missed": missed,
        "entries": players,
        "results": results,
        "rounds_complete": draw(st.integers(0, rounds)),
    }


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments())
def test_matches_a_plain_statement_of_the_rules(case: dict[str, object]) -> None:
    assume(not (case["kind"] == "rook" and case["basis"] == "total" and case["missed"] == "zero"))
    rows = compute_standings(**case)  # type: ignore[arg-type]
    got = [
        (
            r.place,
            r.shared,
            r.registration_id,
            r.withdrawn,
            r.total,
            {k: (v.score, v.missed) for k, v in r.rounds.items()},
            r.tiebreaks,
            r.games,
        )
        for r in rows
    ]
    expected = reference(**case)  # type: ignore[arg-type]
    assert got == [
        (place, shared, rid, withdrawn, total, cells, tiebreaks, games)
        for place, shared, rid, withdrawn, total, cells, tiebreaks, games in expected
    ]
    assert all(r.label == place_label(r.place, shared=r.shared) for r in rows if r.ranked)
    assert all(r.label == "" and r.place == 0 for r in rows if not r.ranked)
    for r in rows:
        assert list(r.rounds) == sorted(r.rounds)
        assert all(isinstance(c.score, F) for c in r.rounds.values())
        assert isinstance(r.total, F)
