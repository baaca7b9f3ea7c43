"""Recording a hand costs a fixed, small number of queries, however long the game."""

from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from scoring import services
from tests.hands import numbered
from tests.scoring.conftest import new_key

pytestmark = pytest.mark.django_db

HAND = {"dealer": "Cy", "end": "knock", "by": "Ana", "held": {"Ana": "AS", "Ben": "KH", "Cy": "QH"}}


@pytest.mark.parametrize("hands_before", [0, 30])
def test_recording_a_hand_by_seat_key_takes_a_fixed_number_of_queries(
    hands_before: int, django_assert_max_num_queries: Any
) -> None:
    game, _ = services.game_start(kind="tonk", players=["Ana", "Ben", "Cy"])
    for _ in range(hands_before):
        services.hand_record(game=game, entry=HAND)
    device = APIClient()
    device.credentials(HTTP_AUTHORIZATION=f"Seat {game.seats.get(position=0).seat_key}")
    # seat key; savepoint (the test's own transaction around it); the game's row, locked;
    # the hand (unless its idempotency key is taken), its lines and the game's totals in one
    # statement on PostgreSQL, three elsewhere; release. The seat the answer names as the one
    # who entered it is the seat the key authenticated: not read again.
    writes = 1 if connection.vendor == "postgresql" else 3
    with django_assert_max_num_queries(4 + writes):
        response = device.post(
            f"/api/v1/games/{game.pk}/hands/",
            numbered(HAND, hands_before + 1),
            format="json",
            HTTP_IDEMPOTENCY_KEY=new_key(),
        )
    assert response.status_code == 201
    assert response.json()["number"] == hands_before + 1
    assert response.json()["entered_seat"] == {"seat": 1, "name": "Ana", "player": None}
