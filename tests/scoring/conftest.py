"""Fixtures of the scoring tests: a club member with an API client, and helpers."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring.models import Game, Hand, ScoreLine, Seat
from tests.factories import MembershipFactory

_keys = itertools.count(1)


def new_key() -> str:
    """A fresh idempotency key."""
    return f"key-{next(_keys)}"


@pytest.fixture
def member() -> Any:
    return MembershipFactory()


@pytest.fixture
def api(member: Any) -> APIClient:
    """An API client signed in as a member of a club."""
    client = APIClient()
    client.force_authenticate(member.user)
    return client


def db_counts() -> dict[str, int]:
    """How many rows the scorekeeping tables hold."""
    return {m.__name__: m.objects.count() for m in (Game, Seat, Hand, ScoreLine)}
