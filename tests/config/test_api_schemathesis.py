"""Schemathesis over the whole API schema: every operation of ``/api/schema/`` is called with
generated requests (fitting the schema and not), in-process against the Django WSGI app,
signed in by token as a club director with data to act on (a Tonk game that needs
confirmation, with provisional, disputed and voided hands; a Bluke game; a tournament with a
published round). A fixed seed (``derandomize``) and a bounded
number of examples per operation keep it deterministic and short.

Every check schemathesis has runs (``checks`` "all"): every answer must be documented (no
server error, a status code the operation lists, the content type it lists, a body that fits
its schema); a request the schema forbids must be refused (4xx); and a request the schema
allows must be accepted (``positive_data_acceptance``), unless a rule that depends on the data
refuses it, which a schema cannot say: a name that is not one of the game's players, a card
that is not in its deck, two names that are the same name, a preferred table size that is not
one of the sizes asked for, a start time the time zone skips. Those refusals are 400 with
their rule's code, documented; :func:`rejected_only_by_a_rule` fails any other 400 of a
request the schema allows (its shape, its keys, a length, a pattern, a choice, a range: all
of it is in the schema), and a refusal because of the present state is 409, never 400.

NUL characters are not generated (``allow_x00``): the API's description says that the JSON
reader refuses them anywhere, keys included, which OpenAPI 3.0 cannot say of a key."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings
from rest_framework.authtoken.models import Token

from config.wsgi import application
from scoring import services as scoring
from scoring.permissions import Actor
from scoring.schema import hand_shape_of, with_player_pattern
from tests.factories import MembershipFactory, PlayerFactory
from tests.scoring.sheets import TONK_KNOCK_HAND
from tournaments import services as tournaments
from tournaments.models import Membership

#: Examples per operation: enough to reach each documented answer, small enough for a busy
#: 2-core machine (the whole test in well under two minutes). SCHEMATHESIS_EXAMPLES=500 for a
#: deeper run by hand.
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "40"))

#: What a rule that depends on the data refuses (400, the error object's ``code``): the
#: format's rule codes (``shared/formats/scoresheet.md``, "Errors") and the tournaments'
#: refusals that weigh one value against another or against what is stored. Not here:
#: ``bad_format`` (the shape: the schema says it) and the name rule's refusals (the schema's
#: ``Name`` pattern says them), nor a player count (``minItems``/``maxItems`` per game).
RULE_CODES = frozenset(
    {
        "bad_player",
        "bad_card",
        "too_many_copies",
        "bad_meld",
        "contract_not_met",
        "not_out",
        "bad_total",
        "hand_size",
        "bad_bid",
        "tricks_mismatch",
        "bad_trump",
        "illegal_play",
        "bad_sequence",
        "bad_prefer",  # one of the sizes asked for
        "other_club",  # a player of another club
    }
)
#: ``bad_player`` details that are the shape's, not a rule's: the schema says them.
SHAPE_DETAILS = frozenset({"player_count", "name_invisible", "blank_name", "name_too_long"})
#: Details of ``bad_format`` that depend on the data: a wall time the zone skips or repeats; a
#: stake finer than its currency's minor unit (the schema gives the stake's form and the
#: currency's codes, not how the two go together: ``scoring.money.stake_verify``).
DATA_FORMAT_DETAILS = frozenset({"time_gap", "time_fold", "stake"})


#: Each game's kind by id, for the games of :func:`world`.
GAME_KINDS: dict[int, str] = {}


def as_json_schema(schema: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema (``nullable`` as a ``null`` type)."""
    if isinstance(schema, list):
        return [as_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: as_json_schema(v) for k, v in schema.items() if k != "nullable"}
    if schema.get("nullable"):
        out["type"] = [out["type"], "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


def fits_its_games_shape(case: Any) -> bool:
    """Whether the hand a request carries (a hand write's body, a correction's or a
    resolution's ``hand``) fits the shape of the game its path names, as the schema says that
    game's hands (``scoring.schema.with_player_pattern`` of its ``hand_schema``); True when
    the request carries no hand or names no game of :func:`world`."""
    kind = GAME_KINDS.get((case.path_parameters or {}).get("game_id"))
    if kind is None or "/hands/" not in case.operation.path:
        return True
    body = case.body if isinstance(case.body, dict) else {}
    hand = body if case.operation.path.endswith("/hands/") else body.get("hand", {})
    return bool(hand_validator(kind).is_valid(hand))


@functools.cache
def hand_validator(kind: str) -> Any:
    """A validator of the hands of game ``kind``, as the schema says them."""
    shape = with_player_pattern(dict(hand_shape_of(kind)))
    return jsonschema.Draft7Validator(as_json_schema(shape))


def object_keys(value: object) -> set[str]:
    """Every key of every object in a JSON value."""
    if isinstance(value, dict):
        return set(value).union(*(object_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(object_keys(v) for v in value))
    return set()


#: House rules that make a hand key required (Tonk's ``new_spread`` on a tonk-out under
#: ``double_requires_new_spread``, rules/tonk.md): a sheet's options decide its hands' keys.
KEY_ASKING_OPTIONS = frozenset({"double_requires_new_spread"})


def asks_for_keys(body: object) -> bool:
    """Whether a score sheet's ``options`` turn on a house rule that asks its hands for a key."""
    options = body.get("options") if isinstance(body, dict) else None
    return isinstance(options, dict) and any(options.get(k) is True for k in KEY_ASKING_OPTIONS)


@schemathesis.check
def rejected_only_by_a_rule(ctx: Any, response: Any, case: Any) -> bool | None:
    """A request the schema allows is refused (400) only by a rule that depends on the data
    (:data:`RULE_CODES`), never for its shape."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    error = (response.json() or {}).get("error", {})
    code, detail = error.get("code"), error.get("detail")
    if code in RULE_CODES and detail not in SHAPE_DETAILS:
        return None
    if code == "bad_format" and detail in DATA_FORMAT_DETAILS:
        return None
    if code == "bad_format" and detail == "missing_key" and asks_for_keys(case.body):
        return None  # a key a house rule of the sheet asks for: OpenAPI 3.0 has no if/then
    if code == "bad_format" and not fits_its_games_shape(case):
        return None  # a hand of another game's shape: the game in the path picks the shape
    if detail in SHAPE_DETAILS and error.get("player") in object_keys(case.body):
        return None  # a player named as a key (held, bids): OpenAPI 3.0 cannot say what keys hold
    raise AssertionError(f"A request the schema allows was refused for its shape: {error}")


# The API's OpenAPI schema, read from the app itself (no database needed), with the app as the
# transport: requests run in-process through Django's WSGI handler.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
# Every check; positive_data_acceptance takes the 400 of a data-dependent rule (documented per
# operation), which rejected_only_by_a_rule then tells from a refusal of the shape.
schema.config.checks.update(included_check_names=["all"])
schema.config.checks.positive_data_acceptance.expected_statuses = [
    *schema.config.checks.positive_data_acceptance.expected_statuses,
    "400",
]
schema.config.generation.update(
    max_examples=EXAMPLES,
    deterministic=True,
    with_security_parameters=False,
    allow_x00=False,
)


@pytest.fixture
def world(db: None) -> Iterator[dict[str, Any]]:
    """A director with a token, their club's players, games with hands, a tournament with a
    published round; the ids every path parameter is mapped to. The WSGI handler runs inside
    the test's transaction (Django's test client does the same: no connection closing)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        membership = MembershipFactory(role=Membership.Role.DIRECTOR)
        user, club = membership.user, membership.club
        players = [PlayerFactory(club=club, name=n) for n in ("Ana", "Ben", "Cy", "Dee", "Eve")]
        tonk, _ = scoring.game_start(
            kind="tonk",
            players=[scoring.SeatSpec("Ana", players[0].pk), scoring.SeatSpec("Ben", None)],
            stake="0.25",
            currency="USD",
            club=club,
            created_by=user,
            confirmation="one_other",
        )
        # Hands to confirm, dispute, resolve and restore: two entered from Ana's seat
        # (provisional), one by the director (confirmed), then voided (to be restored).
        ana_seat = Actor(seat_id=tonk.seats.get(position=0).pk)
        for actor in (ana_seat, ana_seat, Actor(user=user)):
            scoring.hand_record(game=tonk, entry=TONK_KNOCK_HAND, by=actor)
        scoring.hand_dispute(game=tonk, number=2, by=ana_seat, reason="Ben held KD")
        scoring.hand_void(game=tonk, number=3, by=Actor(user=user), reason="entered twice")
        GAME_KINDS.update({tonk.pk: "tonk"})
        bluke, _ = scoring.game_start(
            kind="bluke", players=["Ana", "Ben", "Cy"], club=club, created_by=user
        )
        GAME_KINDS.update({bluke.pk: "bluke"})
        tournament, _ = tournaments.tournament_create(
            club=club, created_by=user, name="Open", kind="tonk", rounds=3
        )
        registrations = [
            tournaments.registration_add(tournament=tournament, player=p) for p in players[:4]
        ]
        rnd, _ = tournaments.round_seat(tournament=tournament)
        tournaments.round_seating_compute(round_id=rnd.pk)
        tournaments.round_publish(round=rnd)
        yield {
            "token": Token.objects.create(user=user).key,
            "game_id": [tonk.pk, tonk.pk, bluke.pk],
            "tournament_id": [tournament.pk],
            "registration_id": [r.pk for r in registrations],
            "number": [1, 2, 3],
            "round": [1],
            "club": [club.pk],
            "player": [p.pk for p in reversed(players)],  # Eve, not registered, first
            "registration": [r.pk for r in registrations],
        }
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def aimed(case: Any, world: dict[str, Any]) -> None:
    """Most generated ids are aimed at the data (an id picks an existing one by its value), in
    the path and in the body; one in five is kept as generated, so that 404 answers are
    exercised too."""

    def aim(name: str, value: object) -> object:
        known = world.get(name)
        if known and isinstance(value, int) and not isinstance(value, bool) and value % 5 != 4:
            return known[value % len(known)]
        return value

    rounds = "/rounds/" in case.operation.path
    for name, value in list((case.path_parameters or {}).items()):
        case.path_parameters[name] = aim("round" if rounds and name == "number" else name, value)
    if isinstance(case.body, dict):
        for name in ("club", "player", "registration"):
            if name in case.body:
                case.body[name] = aim(name, case.body[name])


@schema.parametrize()
@settings(
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_documented(case: Any, world: dict[str, Any]) -> None:
    aimed(case, world)
    case.call_and_validate(headers={"Authorization": f"Token {world['token']}"})
