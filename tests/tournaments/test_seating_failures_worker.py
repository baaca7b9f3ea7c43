"""A seating that fails in a real worker (issue 13, services: PostgreSQL, Redis and a real
Celery worker): the round shows ``failed`` with its reason in the API, the impossible retry is
refused at the request, and a retry after a late entry is seated by the worker, once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from tests.services import WorkerProcess
from tests.tournaments.test_api_tournaments import wait_for
from tournaments import services
from tournaments.models import AuditEntry, Club, Player, Registration, Round


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_seating_failed_in_the_worker_is_seen_then_retried(
    celery_with_worker: WorkerProcess,
    club: Club,
    director: Any,
    director_api: APIClient,
    make_players: Callable[[int], list[Player]],
) -> None:
    tournament, _created = services.tournament_create(
        club=club, created_by=director, name="Five", kind="rook", rounds=3, sizes=[5]
    )
    registrations = [
        services.registration_add(tournament=tournament, player=p) for p in make_players(5)
    ]
    rounds = f"/api/v1/tournaments/{tournament.pk}/rounds/"
    # The seating is asked for, and a player leaves in the same moment, behind the services'
    # back (a concurrent request): only the worker's own check can see it.
    with transaction.atomic():
        services.round_seat(tournament=tournament, by=director)
        Registration.objects.filter(pk=registrations[0].pk).update(withdrawn_after=0)

    failed = wait_for(
        "round 1 failed",
        lambda: (body := director_api.get(f"{rounds}1/").json())["state"] == "failed" and body,
        celery_with_worker,
    )
    assert failed["failure"] == {
        "code": "too_few_players",
        "message": "4 players cannot fill a table: the smallest table seats 5",
    }
    assert failed["tables"] == []

    refused = director_api.post(rounds, HTTP_IDEMPOTENCY_KEY="retry-1")
    assert refused.status_code == 409
    assert refused.json()["conflict"]["code"] == "too_few_players"
    assert Round.objects.get(tournament=tournament).state == Round.State.FAILED

    (late,) = make_players(1)
    entered = director_api.post(
        f"/api/v1/tournaments/{tournament.pk}/registrations/", {"player": late.pk}, format="json"
    )
    assert (entered.status_code, entered.json()["from_round"]) == (201, 1)
    retried = director_api.post(rounds, HTTP_IDEMPOTENCY_KEY="retry-2")
    assert retried.status_code == 202
    assert (retried.json()["state"], retried.json()["failure"]) in (
        ("planned", None),
        ("seated", None),
    )
    seated = wait_for(
        "round 1 seated",
        lambda: (body := director_api.get(f"{rounds}1/").json())["state"] == "seated" and body,
        celery_with_worker,
    )
    names = sorted(s["player"] for s in seated["tables"][0]["seats"])
    assert late.name in names and registrations[0].player.name not in names and len(names) == 5
    again = director_api.post(rounds, HTTP_IDEMPOTENCY_KEY="retry-2")  # seated: the same round
    assert (again.status_code, again.json()["state"]) == (202, "seated")
    retries = AuditEntry.objects.filter(tournament=tournament, details__retry=True)
    assert list(retries.values_list("details__idempotency_key", flat=True)) == ["retry-2"]
