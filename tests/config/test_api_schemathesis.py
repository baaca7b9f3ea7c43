"""Schemathesis over the whole API schema: every operation of ``/api/schema/`` is called with
generated requests (fitting the schema and not), in-process against the Django WSGI app,
signed in by token as a club director with data to act on (a Tonk game that needs
confirmation, with provisional, disputed and voided hands; a Bluke game; a tournament with a
published round). A fixed seed (``derandomize``) and a bounded
number of examples per operation keep it deterministic and short.

Every answer must be documented: no server error, a status code the operation lists, the
content type it lists, a body that fits its schema; a request the schema forbids must be
refused (4xx)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from scoring import services as scoring
from scoring.permissions import Actor
from tests.factories import MembershipFactory, PlayerFactory
from tests.scoring.sheets import TONK_KNOCK_HAND
from tournaments import services as tournaments
from tournaments.models import Membership

#: Examples per operation: enough to reach each documented answer, small enough for a busy
#: 2-core machine (the whole test in well under two minutes). SCHEMATHESIS_EXAMPLES=500 for a
#: deeper run by hand.
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "40"))

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


# The API's OpenAPI schema, read from the app itself (no database needed), with the app as the
# transport: requests run in-process through Django's WSGI handler.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
schema.config.checks.update(included_check_names=["all"])
schema.config.generation.update(
    max_examples=EXAMPLES,
    deterministic=True,
    with_security_parameters=False,
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
        bluke, _ = scoring.game_start(
            kind="bluke", players=["Ana", "Ben", "Cy"], club=club, created_by=user
        )
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
    case.call_and_validate(headers={"Authorization": f"Token {world['token']}"}, checks=None)
