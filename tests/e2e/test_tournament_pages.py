"""A tournament night in three browsers: the director creates a Rook tournament for nine
players, seats and publishes round 1; a player opens a table card's link without signing in
and, as their seat, enters that table's round; the public standings, already open on a third
screen, show it as provisional (and the other tables as not reported) without a reload, and
rank it once another seat of the table confirmed it (issue 12)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from scoring import services as scoring_services
from scoring.models import Game, Seat
from scoring.permissions import Actor
from tournaments.models import Club, Membership, Round, Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PLAYERS = ["Ana", "Ben", "Cyd", "Dee", "Eli", "Fay", "Gus", "Hana", "Ivo"]


def test_a_round_entered_at_a_table_moves_the_open_public_standings(
    live_server: Any, new_page: Callable[[], Page], django_user_model: Any
) -> None:
    director = django_user_model.objects.create_user(username="dora", password="a-long-secret")
    club = Club.objects.create(name="Riverside Rook Club")
    Membership.objects.create(club=club, user=director, role=Membership.Role.DIRECTOR)

    # The director, signed in.
    desk = new_page()
    desk.goto(f"{live_server.url}/accounts/login/")
    desk.get_by_label("Username").fill("dora")
    desk.get_by_label("Password").fill("a-long-secret")
    desk.locator("main form [type=submit]").click()
    desk.goto(f"{live_server.url}/clubs/{club.pk}/tournaments/new/")
    desk.locator("#id_name").fill("Friday Rook")
    desk.locator('input[name="kind"][value="rook"]').check()
    desk.locator("#id_rook__rounds").fill("3")
    desk.locator("#tournament-new [type=submit]").click()
    expect(desk).to_have_url(re.compile(r"/tournaments/\d+/manage/"))
    tournament = Tournament.objects.get(name="Friday Rook")
    assert (tournament.kind, tournament.round_count) == ("rook", 3)

    desk.locator("#id_names").fill("\n".join(PLAYERS))
    desk.get_by_role("button", name="Register").click()
    expect(desk.locator("main")).to_contain_text("Ivo")
    assert tournament.registrations.count() == 9
    desk.get_by_role("button", name="Seat round 1").click()
    desk.get_by_role("button", name="Publish round 1").click()
    expect(desk.locator("main")).to_contain_text("Close round 1")
    rnd = Round.objects.get(tournament=tournament, number=1)
    assert rnd.state == Round.State.PUBLISHED

    # A third screen shows the public standings, before any result.
    wall = new_page()
    wall.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    standings = wall.locator("#standings")
    expect(standings.locator("tbody tr")).to_have_count(9)

    # The table card's link, opened without signing in.
    desk.goto(f"{live_server.url}/tournaments/{tournament.pk}/manage/rounds/1/cards/")
    link = desk.locator("main a[href*='/t/']").first.get_attribute("href")
    assert link is not None
    table = new_page()
    game = Game.objects.get(table_key=link.rstrip("/").rsplit("/", 1)[-1])
    seats = list(Seat.objects.filter(game=game).order_by("position"))
    table.goto(link)
    expect(table.get_by_role("link", name="Sign in")).to_be_visible()
    # The table link alone only reads: the phone taps its seat first, then the form appears.
    expect(table.locator("#entry")).to_have_count(0)
    table.locator("#seat-first button").first.click()
    expect(table.locator("#you-are")).to_be_visible()
    fields = table.locator("[id^=id_held_]")
    count = fields.count()
    table.get_by_label("Nobody: time called").check()
    names = [table.locator(f"label[for=id_held_{i}]").inner_text() for i in range(count)]
    for i in range(count):
        table.locator(f"#id_held_{i}").fill("R10 B14 ROOK" if i == 0 else "R1")
    table.locator("#submit-hand").click()
    expect(table.locator("[role=status]")).to_contain_text("Round 1 recorded")

    # The wall's standings change by themselves: the table's round is provisional (not
    # counted, nobody ranked on it), the other tables not reported.
    first = names[0].rstrip(":").removeprefix("Cards ").removesuffix(" held")
    mine = standings.locator("tbody tr", has_text=first)
    expect(mine).to_contain_text("provisional", timeout=15_000)
    expect(standings.locator("tbody tr[data-in-play=not_reported]")).to_have_count(9 - count)
    expect(standings.locator("tbody tr.unranked")).to_have_count(9)

    # Another seat of the table confirms it: it counts; the first seat holds 45 points, last
    # of the table's players, ranked above the players not reported yet.
    scoring_services.hand_confirm(game=game, number=1, by=Actor(seat_id=seats[1].pk))
    expect(standings.locator("tbody tr.unranked")).to_have_count(9 - count, timeout=15_000)
    expect(mine).to_contain_text("45")
    expect(mine.locator("td").first).to_have_text(str(count))
    expect(standings.locator("tbody tr").nth(count)).to_contain_text("not reported")
    assert wall.url == f"{live_server.url}/tournaments/{tournament.pk}/"
