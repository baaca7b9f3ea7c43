"""Trust at a tournament table (issue 12, the acceptance test), in four browsers at 360 × 740:
three phones at one table of three, each opened by its seat's private link, and the club's
director signed in. Seat A enters a hand; B and C see it provisional; B confirms it; C disputes
the next one with a reason; the director resolves it with a correction; the table's audit page
lists every step with who, when and why."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from scoring.models import Game, Hand, HandEvent
from tests.e2e.test_table_phone import describe, serious_violations
from tournaments import services
from tournaments.models import Club, Membership, Player, Round

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PLAYERS = ["Ana", "Ben", "Cyd", "Dee", "Eli", "Fay"]


def seated_table(director: Any, club: Club) -> Game:
    """A Tonk tournament of six (one other seat confirms each hand), round 1 seated at two
    tables of three and published; the first table's game."""
    tournament, _created = services.tournament_create(
        club=club,
        created_by=director,
        name="Tonk Tuesday",
        kind="tonk",
        rounds=2,
        hands_per_round=3,
        confirmation="one_other",
    )
    for name in PLAYERS:
        services.registration_add(
            tournament=tournament, player=Player.objects.create(club=club, name=name)
        )
    rnd, _created = services.round_seat(tournament=tournament)
    rnd.refresh_from_db()
    services.round_publish(round=rnd)
    tables = list(Round.objects.get(pk=rnd.pk).tables.select_related("game"))
    assert [len(t.game.seating) for t in tables] == [3, 3]
    game = tables[0].game
    assert (game.directed, game.confirmation) == (True, "one_other")
    return game


def status_of(page: Page, number: int) -> Any:
    return page.locator(f"#hand-{number} .status")


def test_a_table_of_three_confirms_disputes_and_the_director_resolves(
    live_server: Any, new_page: Callable[[], Page], django_user_model: Any, screenshot_dir: Path
) -> None:
    director = django_user_model.objects.create_user(username="dora", password="a-long-secret")
    club = Club.objects.create(name="Riverside Tonk Club")
    Membership.objects.create(club=club, user=director, role=Membership.Role.DIRECTOR)
    game = seated_table(director, club)
    seats = list(game.seats.order_by("position"))
    a_name, b_name, c_name = (s.name for s in seats)

    # Three phones, each opened by its seat's private link (printed on the table card).
    phones = []
    for seat in seats:
        phone = new_page()
        phone.goto(live_server.url + reverse("scoring:seat", kwargs={"seat_key": seat.seat_key}))
        expect(phone.locator("#you-are")).to_contain_text(f"You are {seat.name}")
        phones.append(phone)
    a, b, c = phones

    # A enters hand 1: A tonks out.
    a.get_by_label("Tonk out").check()
    a.locator("#id_by").select_option(label=a_name)
    a.locator("#submit-hand").click()
    expect(a.locator("[role=status]")).to_contain_text("Hand 1 recorded")
    expect(status_of(a, 1)).to_have_text("Provisional")
    hand = Hand.objects.get(game=game, number=1)
    assert (hand.status, hand.entered_seat_id) == ("provisional", seats[0].pk)

    # B and C see it provisional, entered by A, within 5 s and without reloading (the live
    # sheet: each phone polls the table's live region).
    for phone in (b, c):
        expect(status_of(phone, 1)).to_have_text("Provisional", timeout=5_000)
        expect(phone.locator("#hand-1 .who")).to_have_text(f"entered by {a_name}")

    # The public standings (a fifth screen, nobody signed in) show the table's players as
    # provisional and the other table's as not reported, none of them ranked on 0.
    wall = new_page()
    tournament_id = game.tournament_table.round.tournament_id
    wall.goto(live_server.url + reverse("tournaments:standings", args=[tournament_id]))
    rows = wall.locator("#standings tbody tr")
    for seat in seats:
        expect(rows.filter(has_text=seat.name)).to_contain_text("provisional")
    expect(wall.locator("#standings tbody tr[data-in-play=not_reported]")).to_have_count(3)
    expect(wall.locator("#standings tbody tr.unranked")).to_have_count(6)

    # B confirms it.
    b.get_by_role("button", name="Confirm hand 1").click()
    expect(status_of(b, 1)).to_have_text("Confirmed")
    assert Hand.objects.get(game=game, number=1).status == "confirmed"

    # A enters hand 2 (B tonks out); C disputes it with a reason.
    a.get_by_label("Tonk out").check()
    a.locator("#id_by").select_option(label=b_name)
    a.locator("#submit-hand").click()
    expect(a.locator("[role=status]")).to_contain_text("Hand 2 recorded")
    expect(status_of(c, 2)).to_have_text("Provisional", timeout=5_000)
    c.get_by_role("link", name="Dispute hand 2").click()
    c.get_by_label("Reason").fill(f"{c_name} tonked out, not {b_name}")
    c.get_by_role("button", name="Dispute").click()
    expect(status_of(c, 2)).to_have_text("Disputed")
    expect(c.locator("#actions-2")).to_contain_text(f"{c_name} tonked out, not {b_name}")
    expect(status_of(b, 2)).to_have_text("Disputed", timeout=5_000)
    expect(b.get_by_role("button", name="Confirm hand 2")).to_have_count(0)
    b.screenshot(path=screenshot_dir / "trust-table-360x740.png", full_page=True)
    # axe-core on a tournament table's page with a confirmed and a disputed hand, as a seat.
    violations = serious_violations(b)
    assert not violations, describe(violations)

    # The director, signed in, resolves it with a correction.
    desk = new_page()
    desk.goto(f"{live_server.url}/accounts/login/")
    desk.get_by_label("Username").fill("dora")
    desk.get_by_label("Password").fill("a-long-secret")
    desk.locator("main form [type=submit]").click()
    desk.goto(live_server.url + reverse("scoring:hand-edit", args=[game.table_key, 2]))
    expect(desk.locator("#hand-status")).to_have_text("Disputed")
    expect(desk.locator("#resolve")).to_be_visible()
    violations = serious_violations(desk)  # the hand page with the director's resolve form
    assert not violations, describe(violations)
    desk.locator("#id_by").select_option(label=c_name)
    desk.locator("#id_correct_reason").fill(f"Asked the table: {c_name} tonked out")
    desk.locator("#submit-hand").click()
    expect(desk).to_have_url(live_server.url + reverse("scoring:table", args=[game.table_key]))
    expect(status_of(desk, 2)).to_have_text("Confirmed")
    current = Hand.objects.get(game=game, number=2, state="current")
    assert (current.revision, current.status, current.entry["by"]) == (2, "confirmed", c_name)
    expect(status_of(c, 2)).to_have_text("Confirmed", timeout=5_000)

    # The audit lists every step with who, when and why.
    desk.get_by_role("link", name="Audit: every change to this table's hands").click()
    rows = desk.locator("#audit li")
    expect(rows).to_have_count(6)
    steps = [
        [rows.nth(i).locator(f".{part}").inner_text() for part in ("hand", "what", "who", "why")]
        for i in range(6)
    ]
    assert steps == [
        ["hand 1, revision 1", "Entered", a_name, "—"],
        ["hand 1, revision 1", "Confirmed", b_name, "—"],
        ["hand 2, revision 1", "Entered", a_name, "—"],
        ["hand 2, revision 1", "Disputed", c_name, f"{c_name} tonked out, not {b_name}"],
        ["hand 2, revision 2", "Corrected", "dora", f"Asked the table: {c_name} tonked out"],
        [
            "hand 2, revision 2",
            "Resolved: Corrected",
            "dora",
            f"Asked the table: {c_name} tonked out",
        ],
    ]
    desk.screenshot(path=screenshot_dir / "trust-audit-360x740.png", full_page=True)
    for i in range(6):
        assert rows.nth(i).locator("time").get_attribute("datetime")
    assert HandEvent.objects.filter(game=game).count() == 3
    # Another member or a seat may not read it.
    assert a.goto(live_server.url + reverse("scoring:audit", args=[game.table_key])).status == 403
