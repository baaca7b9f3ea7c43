"""Fixtures of the tournaments tests: a club with a director and players, an API client signed
in as the director, and a director of another club."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tournaments.models import Club, Membership, Player

NAMES = (
    "Ana Bell",
    "Ben Cole",
    "Cyd Diaz",
    "Dee Egan",
    "Eli Ford",
    "Fay Gray",
    "Gus Hale",
    "Hal Ivy",
    "Ida Jones",
    "Jo King",
    "Kit Lund",
    "Lou Moss",
    "Max Nash",
    "Ned Orr",
    "Ona Park",
    "Pip Quinn",
)


@pytest.fixture
def club() -> Club:
    return ClubFactory(name="Thursday Club")


@pytest.fixture
def director(club: Club) -> Any:
    """A user who directs ``club``'s tournaments."""
    return MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user


@pytest.fixture
def member(club: Club) -> Any:
    """A plain member of ``club``: sees its tournaments, runs none."""
    return MembershipFactory(club=club, role=Membership.Role.MEMBER).user


@pytest.fixture
def make_players(club: Club) -> Callable[[int], list[Player]]:
    """``make_players(n)``: n players of ``club``, named from :data:`NAMES` (then numbered)."""

    def make(n: int) -> list[Player]:
        start = club.players.count()
        return [
            PlayerFactory(club=club, name=NAMES[i] if i < len(NAMES) else f"Player {i + 1}")
            for i in range(start, start + n)
        ]

    return make


@pytest.fixture
def director_api(director: Any) -> APIClient:
    """An API client signed in as ``club``'s director."""
    client = APIClient()
    client.force_authenticate(director)
    return client


@pytest.fixture
def other_director() -> Any:
    """The director of another club."""
    return MembershipFactory(role=Membership.Role.DIRECTOR).user
