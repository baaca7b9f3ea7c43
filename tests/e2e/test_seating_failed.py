"""A failed seating on the director's dashboard, in a real browser at 360 px (issue 13): the
round says why its seating failed, axe-core finds no serious or critical violation, and Retry
seats it once the players fit again."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from tests.e2e.test_table_phone import describe, serious_violations
from tournaments import services
from tournaments.models import Club, Membership, Player, Registration, Round

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_failed_seating_shows_its_reason_and_retry_seats_it(
    live_server: Any, page: Page, django_user_model: Any
) -> None:
    director = django_user_model.objects.create_user(username="dora", password="a-long-secret")
    club = Club.objects.create(name="Riverside Rook Club")
    Membership.objects.create(club=club, user=director, role=Membership.Role.DIRECTOR)
    tournament, _created = services.tournament_create(
        club=club, created_by=director, name="Five at five", kind="rook", rounds=3, sizes=[5]
    )
    registrations = [
        services.registration_add(
            tournament=tournament, player=Player.objects.create(club=club, name=name)
        )
        for name in ("Ana", "Ben", "Cyd", "Dee", "Eli")
    ]
    # The seating was asked for; one player left before the worker took it (behind the
    # services' back, as a concurrent request would): the task's own check fails the round.
    rnd = Round.objects.create(tournament=tournament, number=1, seat_asked_at=timezone.now())
    Registration.objects.filter(pk=registrations[0].pk).update(withdrawn_after=0)
    services.round_seating_run(round_id=rnd.pk)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.FAILED

    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("dora")
    page.get_by_label("Password").fill("a-long-secret")
    page.locator("main form [type=submit]").click()
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/manage/")
    panel = page.locator("#round-panel")
    expect(panel.get_by_role("alert")).to_contain_text(
        "Seating failed: 4 players cannot fill a table: the smallest table seats 5"
    )

    violations = serious_violations(page)
    assert not violations, describe(violations)

    # Ana is back: Retry seats the round (the task runs at once in the embedded mode).
    Registration.objects.filter(pk=registrations[0].pk).update(withdrawn_after=None)
    panel.get_by_role("button", name="Retry").click()
    expect(page.locator("main")).to_contain_text("Publish round 1")
    rnd.refresh_from_db()
    assert (rnd.state, rnd.tables.count()) == (Round.State.SEATED, 1)
