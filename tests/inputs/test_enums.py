"""Issue 14, row 8: the score-sheet format's enumerated fields are read exactly as the format
says, by one reader (``tonkrules.choices.one_of``), through every entry point that takes them:
the rules engine and ``manage.py scoresheet`` (one function, ``scoring.scoresheet_cli.answer``),
the API's score-sheet import, its hand entry (``end``, ``trump``) and its game and tournament
starts (``game``, the house rules). Anything else is ``bad_format`` naming the field, and nothing
is stored.

The house-rule options with fixed values are discovered from the games' options, so an option
added later is tried too.
"""

from __future__ import annotations

import copy
import json
from dataclasses import fields
from enum import Enum
from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring.games.bluke import BlukeEntryForm
from scoring.games.tonk import TonkEntryForm
from scoring.scoresheet_cli import answer
from tests.factories import MembershipFactory
from tests.hands import numbered
from tonkrules import all_games, find_game
from tournaments.models import Membership

TONK = {
    "format": "tabletally.scoresheet/1",
    "game": "tonk",
    "players": ["Ana", "Ben"],
    "hands": [
        {"dealer": "Ben", "end": "knock", "by": "Ana", "held": {"Ana": "AS 2D", "Ben": "KH QH"}}
    ],
}
BLUKE = {
    "format": "tabletally.scoresheet/1",
    "game": "bluke",
    "players": ["Ana", "Ben"],
    "hands": [
        {
            "hand": 1,
            "dealer": "Ben",
            "trump": "H",
            "bids": {"Ana": 6, "Ben": 5},
            "tricks": {"Ana": 8, "Ben": 5},
        }
    ],
}
ROOK = {
    "format": "tabletally.scoresheet/1",
    "game": "rook",
    "players": ["P1", "P2", "P3"],
    "hands": [
        {
            "round": 1,
            "dealer": "P1",
            "out": "P1",
            "melds": {"P1": [["R7", "Y7", "G7"], ["B11", "B11", "R11"]]},
            "held": {"P2": ["B13"], "P3": ["Y4", "G8"]},
        }
    ],
}
SHEETS = {"tonk": TONK, "bluke": BLUKE, "rook": ROOK}


def option_fields() -> list[tuple[str, str, str]]:
    """(game, option, a value) for every house-rule option with a fixed set of values."""
    found = []
    for game in all_games():
        if game.name not in SHEETS:
            continue
        for f in fields(game.options_type):
            if isinstance(f.default, Enum):
                found.append((game.name, f.name, str(f.default.value)))
    return found


OPTIONS = option_fields()

# (field id, game, path into the sheet, a valid value, case-insensitive?)
FIELDS: list[tuple[str, str, tuple[Any, ...], str, bool]] = [
    ("format", "tonk", ("format",), "tabletally.scoresheet/1", False),
    ("game", "tonk", ("game",), "tonk", False),
    ("end", "tonk", ("hands", 0, "end"), "knock", False),
    ("trump", "bluke", ("hands", 0, "trump"), "H", True),
    *[(f"{g}.{o}", g, ("options", o), v, False) for g, o, v in OPTIONS],
]


def look_alike(value: str) -> str:
    """The value with its first letter swapped for one that looks the same (Cyrillic or full
    width)."""
    swaps = {
        "a": "\u0430",
        "c": "\u0441",
        "e": "\u0435",
        "o": "\u043e",
        "p": "\u0440",
        "s": "\u0455",
        "x": "\u0445",
        "H": "\u041d",
        "k": "\u03ba",
        "t": "\uff54",
        "n": "\u0578",
        "d": "\u0501",
        "b": "\u044c",
    }
    for i, ch in enumerate(value):
        if ch in swaps:
            return value[:i] + swaps[ch] + value[i + 1 :]
    raise AssertionError(f"no look-alike for {value!r}")


def other_case(value: str) -> str:
    return value.swapcase()


def variants(value: str, any_case: bool) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = [
        ("leading space", " " + value),
        ("trailing space", value + " "),
        ("no-break space", value + "\u00a0"),
        ("tab", "\t" + value),
        ("look-alike", look_alike(value)),
        ("empty", ""),
        ("list", [value]),
        ("number", 1),
        ("null", None),
        ("zero-width space", value + "\u200b"),
    ]
    if not any_case:
        out.append(("other case", other_case(value)))
    else:
        out.append(("long s / Kelvin", value.replace("S", "\u017f").replace("H", "\u210b")))
    return out


CASES = [
    pytest.param(game, path, bad, id=f"{fid}-{vid}")
    for fid, game, path, value, any_case in FIELDS
    for vid, bad in variants(value, any_case)
    if not (fid == "trump" and vid == "long s / Kelvin" and bad == value)
]


def sheet_with(game: str, path: tuple[Any, ...], value: object) -> dict[str, Any]:
    sheet = copy.deepcopy(SHEETS[game])
    target: Any = sheet
    for step in path[:-1]:
        target = target.setdefault(step, {}) if isinstance(step, str) else target[step]
    target[path[-1]] = value
    return sheet


def test_every_enumerated_field_is_listed() -> None:
    assert {o for _, o, _ in OPTIONS} >= {
        "caught_low_bonus",
        "stock_tie",
        "contract_mode",
        "bluke_lead_rule",
    }
    assert len(CASES) >= 8 * 10


@pytest.mark.parametrize(("game", "path", "bad"), CASES)
def test_the_engine_and_the_command_refuse(game: str, path: tuple[Any, ...], bad: object) -> None:
    status, obj = answer("check", json.dumps(sheet_with(game, path, bad)).encode())
    assert status == 2, obj
    error = obj["error"]
    assert error["code"] == "bad_format"  # type: ignore[index]
    assert repr(path[-1]) in error["message"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("game", "path", "value"),
    [(g, p, v) for _, g, p, v, _ in FIELDS]
    + [("bluke", ("hands", 0, "trump"), v) for v in ("h", "NONE", "None", "none", "s", "C")],
)
def test_the_allowed_values_are_read(game: str, path: tuple[Any, ...], value: str) -> None:
    status, obj = answer("check", json.dumps(sheet_with(game, path, value)).encode())
    assert (status, obj.get("ok")) == (0, True), obj


@pytest.fixture
def director(db: Any) -> Any:
    membership = MembershipFactory(role=Membership.Role.DIRECTOR)
    api = APIClient()
    api.force_authenticate(membership.user)
    return api, membership.club


def refused(response: Any, field: object, code: str = "bad_format") -> None:
    """400, ``code``, the field named: in the one reader's sentence, or (a value the API's
    serializer refuses before, not a string) under ``fields``."""
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    if field in error.get("fields", {}):
        assert error["code"] == "bad_format"
        return
    assert error["code"] == code
    assert repr(field) in error["message"]


@pytest.mark.parametrize(("game", "path", "bad"), CASES)
def test_the_api_sheet_import_refuses(
    director: Any, unchanged_rows: Any, game: str, path: tuple[Any, ...], bad: object
) -> None:
    api, _ = director
    with unchanged_rows():
        response = api.post("/api/v1/scoresheets/", sheet_with(game, path, bad), format="json")
    refused(response, path[-1])


HAND_CASES = [c for c in CASES if c.values[1][0] == "hands"]
START_CASES = [c for c in CASES if c.values[1][0] in ("game", "options")]


@pytest.mark.parametrize(("game", "path", "bad"), HAND_CASES)
def test_the_api_hand_entry_refuses(
    director: Any, unchanged_rows: Any, game: str, path: tuple[Any, ...], bad: object
) -> None:
    api, _ = director
    sheet = SHEETS[game]
    start = api.post(
        "/api/v1/games/",
        {"game": game, "players": [{"name": n} for n in sheet["players"]]},
        format="json",
    )
    assert start.status_code == 201, start.content
    hand = sheet_with(game, path, bad)["hands"][0]
    with unchanged_rows():
        response = api.post(
            f"/api/v1/games/{start.json()['id']}/hands/",
            numbered(hand, 1),
            format="json",
            HTTP_IDEMPOTENCY_KEY="enum",
        )
    refused(response, path[-1])


@pytest.mark.parametrize(("game", "path", "bad"), START_CASES)
def test_the_api_game_start_refuses(
    director: Any, unchanged_rows: Any, game: str, path: tuple[Any, ...], bad: object
) -> None:
    api, _ = director
    sheet = sheet_with(game, path, bad)
    body: dict[str, Any] = {
        "game": sheet["game"],
        "players": [{"name": n} for n in sheet["players"]],
    }
    if "options" in sheet:
        body["options"] = sheet["options"]
    with unchanged_rows():
        response = api.post("/api/v1/games/", body, format="json")
    refused(response, path[-1])


@pytest.mark.parametrize(("game", "path", "bad"), START_CASES)
def test_the_api_tournament_start_refuses(
    director: Any, unchanged_rows: Any, game: str, path: tuple[Any, ...], bad: object
) -> None:
    api, club = director
    sheet = sheet_with(game, path, bad)
    body: dict[str, Any] = {"club": club.pk, "name": "Open", "game": sheet["game"], "rounds": 2}
    if "options" in sheet:
        body["options"] = sheet["options"]
    with unchanged_rows():
        response = api.post("/api/v1/tournaments/", body, format="json")
    # The tournaments' catalogue names a refused game or house rule bad_options; the sentence
    # is the one reader's.
    refused(response, path[-1], code="bad_options")


# --- the API's own fixed-value fields: read exactly, as the format's are ----------------------

#: Every text field of an API request body that takes one of fixed values, with one allowed
#: value: (operation, field, value).
API_FIXED = [
    ("tournaments", "method", "swiss"),
    ("tournaments", "basis", "total"),
    ("tournaments", "confirmation", "none"),
    ("tournaments", "missed_round_score", "worst"),
    ("tournaments", "time_zone", "America/Chicago"),
    ("games", "confirmation", "none"),
]


def _api_fixed_body(operation: str, club: Any, field: str, value: object) -> dict[str, Any]:
    if operation == "tournaments":
        return {"club": club.pk, "name": "Open", "game": "tonk", "rounds": 2, field: value}
    players = [{"name": n} for n in ("Ana", "Ben", "Cy")]
    return {"game": "tonk", "players": players, field: value}


@pytest.mark.parametrize(("operation", "field", "value"), API_FIXED)
@pytest.mark.parametrize("spoil", [" {}", "{} ", "\t{}", "{}\n", "\u00a0{}", "{}\u200b"], ids=repr)
def test_the_api_reads_its_fixed_values_exactly(
    director: Any, unchanged_rows: Any, operation: str, field: str, value: str, spoil: str
) -> None:
    api, club = director
    with unchanged_rows():
        response = api.post(
            f"/api/v1/{operation}/",
            _api_fixed_body(operation, club, field, spoil.format(value)),
            format="json",
        )
    assert response.status_code == 400, response.content


@pytest.mark.parametrize(("operation", "field", "value"), API_FIXED)
def test_the_api_takes_its_fixed_values_as_written(
    director: Any, operation: str, field: str, value: str
) -> None:
    api, club = director
    response = api.post(
        f"/api/v1/{operation}/", _api_fixed_body(operation, club, field, value), format="json"
    )
    assert response.status_code == 201, response.content


# --- the table pages' entry forms: trump and end are offered as choices, taken exactly --------


@pytest.mark.parametrize(("game", "path", "bad"), HAND_CASES)
def test_the_page_entry_forms_refuse(game: str, path: tuple[Any, ...], bad: object) -> None:
    if bad is None or isinstance(bad, list):
        return  # a form's field is text: a list or null cannot be posted
    names = ["Ana", "Ben"]
    fields: dict[str, object]
    if game == "tonk":
        form_class: Any = TonkEntryForm
        fields = {"dealer": 1, "end": bad, "by": 0, "held_0": "AS 2D", "held_1": "KH QH"}
    else:
        form_class = BlukeEntryForm
        fields = {
            "hand": 1,
            "dealer": 1,
            "trump": bad,
            "bid_0": 6,
            "bid_1": 5,
            "tricks_0": 8,
            "tricks_1": 5,
        }
    data = {"idempotency_key": "k1", **{k: str(v) for k, v in fields.items()}}
    form = form_class(data, names=names, options=find_game(game).options(None))
    assert not form.is_valid()
    assert path[-1] in form.errors
