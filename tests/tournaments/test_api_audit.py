"""``GET /api/v1/tournaments/{id}/audit/`` (issue 12): the tournament's audit merged with its
tables' hand trails, for the club's directors only; and the confirmation option through the
API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring import services as scoring
from scoring.models import Seat
from scoring.permissions import Actor
from tests.factories import MembershipFactory
from tests.tournaments.test_api_tournaments import client_of
from tournaments import services
from tournaments.models import Club, Membership, Player, Round, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    django_capture_on_commit_callbacks: Any,
) -> Tournament:
    """A Tonk tournament of one table of two, round 1 published; seat 1 entered hand 1, seat
    2 disputed it."""
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="Open", kind="tonk", rounds=2, sizes=[2]
    )
    for player in make_players(2):
        services.registration_add(tournament=tournament, player=player, by=director)
    with django_capture_on_commit_callbacks(execute=True):
        rnd, _ = services.round_seat(tournament=tournament, by=director, reason="Start")
    rnd = Round.objects.get(pk=rnd.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.round_publish(round=rnd, by=director)
        table = rnd.tables.select_related("game").get()
        a, b = Seat.objects.filter(game_id=table.game_id).order_by("position")
        hand = {
            "dealer": b.name,
            "end": "knock",
            "by": a.name,
            "held": {a.name: "AS 2D", b.name: "KH QH"},
        }
        scoring.hand_record(game=table.game, entry=hand, by=Actor(seat_id=a.pk))
        scoring.hand_dispute(game=table.game, number=1, by=Actor(seat_id=b.pk), reason="Not so")
    return tournament


def test_directors_get_every_step_oldest_first_with_who_and_why(
    played: Tournament, director: Any
) -> None:
    response = client_of(director).get(f"/api/v1/tournaments/{played.pk}/audit/")

    assert response.status_code == 200, response.content
    steps = response.json()
    seats = list(Seat.objects.filter(game__tournament_table__round__tournament=played))
    first, second = sorted(seats, key=lambda s: s.position)
    user = director.get_username()
    assert [(s["kind"], s["action"], s["round"], s["table"], s["who"]) for s in steps] == [
        ("tournament", "create", None, None, {"user": user, "seat": None, "player": None}),
        ("tournament", "register", 1, None, {"user": user, "seat": None, "player": None}),
        ("tournament", "register", 1, None, {"user": user, "seat": None, "player": None}),
        ("tournament", "seat", 1, None, {"user": user, "seat": None, "player": None}),
        ("tournament", "publish", 1, None, {"user": user, "seat": None, "player": None}),
        ("hand", "enter", 1, 1, {"user": None, "seat": first.name, "player": first.player_id}),
        ("hand", "dispute", 1, 1, {"user": None, "seat": second.name, "player": second.player_id}),
    ]
    assert steps[3]["reason"] == "Start"
    assert steps[-1]["reason"] == "Not so"
    assert (steps[-1]["hand"], steps[-1]["revision"]) == (1, 1)
    assert steps[-1]["game"] == first.game_id
    assert [s["at"] for s in steps] == sorted(s["at"] for s in steps)


def test_filtered_by_round_and_table(played: Tournament, director: Any) -> None:
    api = client_of(director)
    base = f"/api/v1/tournaments/{played.pk}/audit/"

    table = api.get(base, {"round": 1, "table": 1}).json()
    later = api.get(base, {"round": 2}).json()
    bad = api.get(base, {"round": "one"})

    assert [s["action"] for s in table] == ["enter", "dispute"]
    assert later == []
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "bad_format"
    assert bad.json()["error"]["fields"] == {"round": ["A whole number."]}


@pytest.mark.parametrize("caller", ["club member", "director of another club", "anonymous"])
def test_only_the_clubs_directors_read_the_audit(
    played: Tournament, member: Any, caller: str, club: Club
) -> None:
    user = {
        "club member": member,
        "director of another club": MembershipFactory(role=Membership.Role.DIRECTOR).user,
        "anonymous": None,
    }[caller]

    response = client_of(user).get(f"/api/v1/tournaments/{played.pk}/audit/")

    expected = {"club member": (403,), "director of another club": (404,), "anonymous": (401, 403)}
    assert response.status_code in expected[caller]
    assert "Not so" not in response.content.decode()


def test_the_confirmation_option_through_the_api(club: Club, director: Any) -> None:
    api: APIClient = client_of(director)
    body = {"club": club.pk, "name": "Open", "game": "tonk", "rounds": 2}

    default = api.post("/api/v1/tournaments/", body, format="json")
    chosen = api.post("/api/v1/tournaments/", body | {"confirmation": "director"}, format="json")
    refused = api.post("/api/v1/tournaments/", body | {"confirmation": "anyone"}, format="json")

    assert default.status_code == 201 and default.json()["confirmation"] == "one_other"
    assert chosen.status_code == 201 and chosen.json()["confirmation"] == "director"
    assert Tournament.objects.get(pk=chosen.json()["id"]).confirmation == "director"
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "bad_confirmation"
