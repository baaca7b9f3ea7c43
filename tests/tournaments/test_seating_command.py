"""``manage.py seating plan``: parse, seat through tournaments.seating, print (text or JSON)."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tournaments.management.commands.seating import parse_sizes


def run(*args: str) -> str:
    out = StringIO()
    call_command("seating", "plan", *args, stdout=out)
    return out.getvalue()


def run_json(*args: str) -> dict[str, object]:
    return json.loads(run(*args, "--json"))


def test_json_is_one_object_with_the_rounds_sit_outs_e_lb_and_ms() -> None:
    result = run_json("--players", "13", "--sizes", "4", "--rounds", "6", "--seed", "2")

    assert set(result) == {"rounds", "sit_outs", "excess", "bound", "ms_per_round", "proven"}
    assert result["proven"] == [None] * 6  # said by swiss only
    rounds, sit_outs = result["rounds"], result["sit_outs"]
    assert isinstance(rounds, list) and isinstance(sit_outs, list)
    assert len(rounds) == len(sit_outs) == 6
    for tables, out in zip(rounds, sit_outs, strict=True):
        assert [len(t) for t in tables] == [4, 4, 4]
        assert sorted([p for t in tables for p in t] + out) == list(range(1, 14))
    assert len({o[0] for o in sit_outs}) == 6  # six different players sit out
    assert result["bound"] == 108 - 78  # 6 rounds of 18 pairs, 78 pairs in all
    assert isinstance(result["excess"], int) and result["excess"] >= result["bound"]
    ms = result["ms_per_round"]
    assert isinstance(ms, list) and len(ms) == 6 and all(m >= 0 for m in ms)


def test_thirteen_players_at_three_to_four_sit_four_three_three_three() -> None:
    result = run_json("--players", "13", "--sizes", "3-4", "--rounds", "2")

    for tables in result["rounds"]:  # type: ignore[union-attr]
        assert sorted(len(t) for t in tables) == [3, 3, 3, 4]
    assert result["sit_outs"] == [[], []]


def test_plan_finds_the_affine_plane_of_sixteen_players_in_fours() -> None:
    result = run_json("--players", "16", "--sizes", "4", "--rounds", "5", "--method", "plan")

    assert result["excess"] == 0
    assert result["bound"] == 0
    pairs = {
        frozenset((a, b))
        for tables in result["rounds"]  # type: ignore[union-attr]
        for t in tables
        for i, a in enumerate(t)
        for b in t[i + 1 :]
    }
    assert len(pairs) == 120


def test_same_seed_same_plan_from_the_command() -> None:
    args = ("--players", "20", "--sizes", "3-5", "--rounds", "4", "--seed", "9")

    first, again = run_json(*args), run_json(*args)

    assert first["rounds"] == again["rounds"]


def test_text_output_lists_each_round_then_e_and_lb() -> None:
    text = run("--players", "9", "--sizes", "3", "--rounds", "4", "--method", "plan")

    lines = text.splitlines()
    assert [line.split(":")[0] for line in lines[:4]] == [f"Round {r}" for r in range(1, 5)]
    assert "E = 0 meetings beyond the first (LB = 0; 36 pairs seated together)" in text
    assert "ms per round:" in text
    assert "deals first" in lines[-1]


def test_swiss_dry_run_seats_by_player_number() -> None:
    result = run_json("--players", "8", "--sizes", "4", "--rounds", "1", "--method", "swiss")

    assert [sorted(t) for t in result["rounds"][0]] == [[1, 2, 3, 4], [5, 6, 7, 8]]  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "sizes"),
    [("3-5", (3, 4, 5)), ("4", (4,)), ("2,3", (2, 3)), ("2-3,5", (2, 3, 5)), (" 3 - 4 ", (3, 4))],
)
def test_sizes_accept_a_size_a_range_or_a_list(text: str, sizes: tuple[int, ...]) -> None:
    assert parse_sizes(text) == sizes


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--sizes", "3-7"), "tables seat 2 to 5 players, not 6, 7"),
        (("--sizes", "1-3"), "tables seat 2 to 5 players, not 1"),
        (("--sizes", "four"), "give a size (4), a range (3-5) or a list (2,3)"),
        (("--sizes", "5-3"), "give a size (4), a range (3-5) or a list (2,3)"),
        (("--sizes", "3-4", "--prefer", "5"), "--prefer 5 is not one of the sizes [3, 4]"),
        (("--sizes", "3-5", "--players", "2"), "2 players cannot fill a table"),
        (("--sizes", "4", "--players", "0"), "--players 0: at least 1 player"),
        (("--sizes", "4", "--rounds", "0"), "a plan needs at least 1 round, not 0"),
    ],
)
def test_bad_input_is_a_clear_command_error(args: tuple[str, ...], message: str) -> None:
    base = {"--players": "12", "--rounds": "3"}
    given = dict(zip(args[::2], args[1::2], strict=True))
    merged = [x for k, v in (base | given).items() for x in (k, v)]

    with pytest.raises(CommandError, match=re.escape(message)):
        run(*merged)
