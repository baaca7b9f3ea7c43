"""What each game's rules object declares for the rest of the project (issue 11): schedule,
who wins, tie-breaks, tournament defaults, stakes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tonkrules import GameRules, TableSizes, all_games, find_game
from tonkrules.games import TIEBREAK_BESTS, TIEBREAK_COUNTS


def test_the_three_games_declare_their_schedule() -> None:
    tonk, rook, bluke = (find_game(n) for n in ("tonk", "rook", "bluke"))
    assert (tonk.schedule_length, rook.schedule_length, bluke.schedule_length) == (None, 11, 25)
    assert (tonk.cards_dealt(1), rook.cards_dealt(1), rook.cards_dealt(11)) == (None, 12, 14)
    assert [bluke.cards_dealt(h) for h in (1, 13, 25)] == [13, 1, 13]
    assert (tonk.schedule_wraps, rook.schedule_wraps, bluke.schedule_wraps) == (False, False, True)


@pytest.mark.parametrize(
    ("name", "round_number", "hands", "start"),
    [
        ("tonk", 3, 10, None),
        ("rook", 7, 1, 7),
        ("bluke", 1, 25, 1),
        ("bluke", 2, 5, 6),
        ("bluke", 6, 5, 1),
        ("bluke", 3, 10, 21),
    ],
)
def test_sequence_start_of_a_tournament_round(
    name: str, round_number: int, hands: int, start: int | None
) -> None:
    assert find_game(name).sequence_start(round_number, hands) == start


def test_who_wins_stakes_and_tournament_defaults() -> None:
    tonk, rook, bluke = (find_game(n) for n in ("tonk", "rook", "bluke"))
    assert [g.lower_wins for g in (tonk, rook, bluke)] == [False, True, False]
    assert [g.has_stakes for g in (tonk, rook, bluke)] == [True, False, False]
    assert [g.table_sizes for g in (tonk, rook, bluke)] == [
        TableSizes((2, 3), 3),
        TableSizes((3, 4, 5), 4),
        TableSizes((3, 4), 4),
    ]
    assert [g.default_hands_per_round for g in (tonk, rook, bluke)] == [10, 1, 25]
    assert [g.max_hands_per_round for g in (tonk, rook, bluke)] == [99, 1, 25]
    assert [g.max_rounds for g in (tonk, rook, bluke)] == [99, 11, 99]
    assert [g.default_rounds for g in (tonk, rook, bluke)] == [None, 11, None]
    assert [g.label for g in (tonk, rook, bluke)] == ["Tonk", "Toonerville Rook", "Bluke"]


def test_tiebreaks_in_order_with_their_direction() -> None:
    declared = {
        g.name: [(t.key, t.source, t.higher_is_better) for t in g.tiebreaks] for g in all_games()
    }
    assert declared["rook"] == [
        ("rounds_out", "went_out", True),
        ("best_round", "best_round", False),
    ]
    assert declared["bluke"] == [("bids_made", "bids_made", True), ("best_hand", "best_hand", True)]
    assert declared["tonk"] == [("hands_won", "won", True), ("best_round", "best_round", True)]
    for game in all_games():
        assert all(t.source in TIEBREAK_COUNTS + TIEBREAK_BESTS for t in game.tiebreaks)
        assert all(t.label and t.explanation for t in game.tiebreaks)


def test_schedule_number_is_the_round_or_hand_of_the_record() -> None:
    rook, bluke = find_game("rook"), find_game("bluke")
    players = ["Ana", "Ben", "Cy"]
    hand = bluke.read_hand(
        {
            "hand": 13,
            "dealer": "Ana",
            "trump": "S",
            "bids": {"Ana": 1, "Ben": 0, "Cy": 0},
            "tricks": {"Ana": 1, "Ben": 0, "Cy": 0},
        },
        players=players,
        options=bluke.options({"allow_zero_bid": True}),
    )
    assert bluke.schedule_number(hand) == 13
    assert isinstance(rook, GameRules)
    assert not hasattr(rook, "hand_number")


def test_the_engine_still_imports_no_django() -> None:
    code = "import sys, tonkrules; print(any(m.startswith('django') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
