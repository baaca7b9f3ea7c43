"""Concurrent writes on PostgreSQL: retries never double a hand, and two corrections from the
same revision never both apply (services tests: PostgreSQL required)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from scoring import services
from scoring.models import Game, Hand, ScoreLine
from tests.factories import MembershipFactory
from tests.hands import numbered
from tests.scoring.sheets import TONK_KNOCK_HAND as HAND

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

OTHER = {"dealer": "Ben", "end": "knock", "by": "Ben", "held": {"Ana": "KS QD", "Ben": "2C"}}


def at_once(n: int, request: Callable[[int], Any]) -> list[Any]:
    """Run ``request(i)`` in ``n`` threads released together; each thread has its own
    database connection."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = request(i)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def club_game() -> tuple[Game, Any]:
    member = MembershipFactory()  # the game's creator: a write records who made it
    game, _ = services.game_start(
        kind="tonk", players=["Ana", "Ben"], club=member.club, created_by=member.user
    )
    return game, member.user


def test_twenty_concurrent_posts_with_one_key_make_one_hand() -> None:
    game, user = club_game()

    def post(_: int) -> tuple[int, dict[str, Any]]:
        client = APIClient()
        client.force_authenticate(user)
        response = client.post(
            f"/api/v1/games/{game.pk}/hands/",
            numbered(HAND, 1),
            format="json",
            HTTP_IDEMPOTENCY_KEY="same-key",
        )
        return response.status_code, response.json()

    results = at_once(20, post)
    statuses = Counter(status for status, _ in results)
    assert statuses == {201: 1, 200: 19}
    bodies = {(b["number"], b["revision"], tuple(b["scores"].items())) for _, b in results}
    assert bodies == {(1, 1, (("Ana", 1), ("Ben", -1)))}
    assert Hand.objects.filter(game=game).count() == 1
    assert ScoreLine.objects.filter(game=game).count() == 2
    game.refresh_from_db()
    assert game.totals == services.game_totals_rebuild(game=game) == {"Ana": 1, "Ben": -1}


def test_two_corrections_from_one_revision_make_one_revision_and_one_409() -> None:
    game, user = club_game()
    services.hand_record(game=game, entry=HAND)

    def put(i: int) -> tuple[int, dict[str, Any]]:
        client = APIClient()
        client.force_authenticate(user)
        response = client.put(
            f"/api/v1/games/{game.pk}/hands/1/",
            {"revision": 1, "hand": OTHER if i else HAND},
            format="json",
        )
        return response.status_code, response.json()

    results = at_once(2, put)
    assert sorted(status for status, _ in results) == [200, 409]
    conflict = next(body for status, body in results if status == 409)["conflict"]
    assert (conflict["code"], conflict["current_revision"]) == ("stale_revision", 2)
    assert list(Hand.objects.filter(game=game).values_list("revision", "state")) == [
        (1, "superseded"),
        (2, "current"),
    ]
    game.refresh_from_db()
    assert game.totals == services.game_totals_rebuild(game=game)
