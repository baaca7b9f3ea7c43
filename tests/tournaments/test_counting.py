"""One truth on every page (issue 24): with confirmation required and a table holding a
confirmed, a disputed and a provisional hand, every page and the API count the same hands
(the confirmed ones, ``scoring.selectors.counting_hands``): the table page's totals,
"Leading" and settle-up, the public round page, the standings page, each player's page, the
big screen and the standings API; a player with no result yet has no total anywhere ("—",
null). And a table's state follows its hands both ways when a director voids or restores
after its round completed.

These tests commit for real (``transaction=True``): the scoring seam and the standings
refresh run after commit, as in production (Celery eager, as in the embedded mode).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from scoring import selectors as scoring_selectors
from scoring import services as scoring
from scoring.models import Hand, ScoreLine
from scoring.permissions import Actor
from tests.tournaments.test_services_tournaments import create, register, seat, tables
from tests.tournaments.test_services_trust import confirm_as, enter_as, seat_ids
from tournaments import services
from tournaments.models import Player, Registration, Round, Table, TableSeat, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def _number(text: str) -> int | None:
    """A figure as a page shows it (``"-1"``, ``"−1"``), or None for "—"."""
    text = text.strip()
    if text in ("—", "–", ""):
        return None
    return int(Fraction(text.replace("−", "-")))


def _html(response: Any) -> str:
    assert response.status_code == 200, response.status_code
    return str(response.content.decode())


def table_page(client: Client, table: Table) -> tuple[dict[str, int | None], list[str], str]:
    """The table page: its totals row by player, who leads, and its whole text."""
    html = _html(client.get(reverse("scoring:table", kwargs={"key": table.game.table_key})))
    totals = {
        name: _number(value) for name, value in re.findall(r'data-player="([^"]+)">([^<]*)', html)
    }
    leading = re.search(r'<p id="leader">Leading(?:, tied)?: ([^<]*)</p>', html)
    return totals, leading.group(1).split(", ") if leading else [], html


def settle_up(html: str) -> dict[str, int | None]:
    """The table page's settle-up: each player's net in stake units."""
    settle = html[html.index('id="settle"') : html.index("</table>", html.index('id="settle"'))]
    return {
        name: _number(value)
        for name, value in re.findall(r'<th scope="row">([^<]+)</th><td[^>]*>([^<]*)</td>', settle)
    }


def round_page(client: Client, tournament: Tournament, number: int) -> dict[str, int | None]:
    """The public round page: each seated player's score."""
    html = _html(client.get(reverse("tournaments:round", args=(tournament.pk, number))))
    return {
        name.strip(): _number(value)
        for name, value in re.findall(
            r'<th scope="row" class="name">([^<]+)(?:<span.*?)?</th>\s*<td>([^<]*)</td>', html, re.S
        )
    }


def standings_html(html: str) -> dict[str, int | None]:
    """The standings fragment (standings page, big screen): each player's total."""
    rows = re.findall(r'<tr data-registration="\d+"[^>]*>(.*?)</tr>', html, re.S)
    out = {}
    for row in rows:
        name = re.search(r"<a [^>]*>([^<]+)</a>", row)
        total = re.search(r"</th>\s*<td[^>]*>([^<]*)</td>", row, re.S)
        assert name is not None and total is not None
        out[name.group(1)] = _number(total.group(1))
    return out


def player_total(client: Client, tournament: Tournament, registration: Registration) -> int | None:
    html = _html(client.get(reverse("tournaments:player", args=(tournament.pk, registration.pk))))
    found = re.search(r"<dt>Total</dt><dd[^>]*>([^<]*)</dd>", html)
    assert found is not None
    return _number(found.group(1))


@dataclass
class Evening:
    tournament: Tournament
    round: Round
    disputed: Table  # hand 1 confirmed, hand 2 disputed, hand 3 provisional
    confirmed: Table  # hand 1 confirmed, nothing else yet
    unconfirmed: Table  # one provisional hand: no result yet


def evening(
    club: Any, director: Any, make_players: Callable[[int], list[Player]], kind: str
) -> Evening:
    size = 2 if kind == "tonk" else 3
    tournament = create(
        club, director, kind, rounds=2, hands_per_round=3, sizes=[size], confirmation="one_other"
    )
    register(tournament, make_players(3 * size))
    rnd = seat(tournament)
    services.round_publish(round=rnd, by=director)
    first, second, third = tables(rnd)
    rng = random.Random(24)
    confirm_as(first, 1, enter_as(first, 0, rng, 0))
    enter_as(first, 0, rng, 1)
    scoring.hand_dispute(
        game=first.game, number=2, by=Actor(seat_id=seat_ids(first)[1]), reason="A card misread"
    )
    enter_as(first, 1, rng, 2)  # provisional
    confirm_as(second, 1, enter_as(second, 0, rng, 0))
    enter_as(third, 0, rng, 0)
    return Evening(tournament, rnd, first, second, third)


def counted(table: Table) -> dict[str, int]:
    """What counts at ``table``, summed straight from its confirmed hands' score lines."""
    totals: dict[str, int] = {}
    for name, points in ScoreLine.objects.filter(
        game_id=table.game_id, hand__state=Hand.State.CURRENT, hand__status="confirmed"
    ).values_list("seat__name", "points"):
        totals[name] = totals.get(name, 0) + points
    return totals


@pytest.mark.parametrize("kind", ["tonk", "bluke"])
def test_every_page_and_the_standings_api_count_the_same_hands(
    club: Any,
    director: Any,
    make_players: Callable[[int], list[Player]],
    kind: str,
) -> None:
    night = evening(club, director, make_players, kind)
    tournament = Tournament.objects.get(pk=night.tournament.pk)
    first, second, third = night.disputed, night.confirmed, night.unconfirmed
    statuses = list(
        first.game.hands.filter(state="current").order_by("number").values_list("status", flat=True)
    )
    assert statuses == ["confirmed", "disputed", "provisional"]
    expected: dict[str, int | None] = {**counted(first), **counted(second)}
    for sitter in TableSeat.objects.filter(table=third).select_related("registration__player"):
        expected[sitter.registration.player.name] = None  # no result yet
    assert len(expected) == (9 if kind == "bluke" else 6)
    # The disputed and provisional hands would change the figures if they were counted.
    every_current = scoring_selectors.game_totals(first.game)
    assert every_current != counted(first)

    public = Client()
    api = APIClient()
    api.force_authenticate(director)

    # The table pages: totals, "Leading" and (Tonk) settle-up over the confirmed hand only.
    for table in (first, second):
        totals, leading, html = table_page(public, table)
        assert totals == counted(table)
        best = max(counted(table).values())
        assert sorted(leading) == sorted(n for n, v in counted(table).items() if v == best)
        if kind == "tonk":
            assert settle_up(html) == counted(table)
    totals, leading, html = table_page(public, first)
    assert html.count("not counted yet") == 2
    none_yet, leading, html = table_page(public, third)
    assert set(none_yet.values()) == {None} and len(none_yet) == len(counted(first))
    assert leading == [] and html.count("not counted yet") == 1

    # The game's results in the API and its JSON and CSV score sheets: the same hands.
    for table in (first, second, third):
        game = api.get(f"/api/v1/games/{table.game_id}/").json()
        assert game["results"]["totals"] == (
            counted(table) or dict.fromkeys(none_yet, 0)  # nothing counts yet
        )
        sheet = api.get(f"/api/v1/games/{table.game_id}/scoresheet/").json()
        assert len(sheet["hands"]) == (1 if table != third else 0)
        lines = api.get(f"/api/v1/games/{table.game_id}/scoresheet.csv").content.decode()
        assert len(lines.strip().splitlines()) == 1 + len(counted(table))

    # The round page, the standings page, the big screen, each player's page, the API.
    assert round_page(public, tournament, 1) == expected
    standings_page = _html(public.get(reverse("tournaments:standings", args=(tournament.pk,))))
    assert standings_html(standings_page) == expected
    screen = _html(public.get(reverse("tournaments:screen", args=(tournament.pk,))))
    assert standings_html(screen) == expected
    for registration in Registration.objects.filter(tournament=tournament).select_related("player"):
        assert player_total(public, tournament, registration) == expected[registration.player.name]
    body = api.get(f"/api/v1/tournaments/{tournament.pk}/standings/").json()
    assert {
        row["name"]: None if row["total"] is None else int(Fraction(row["total"]))
        for row in body["rows"]
    } == expected
    for row in body["rows"]:
        if expected[row["name"]] is None:
            assert (row["ranked"], row["total_decimal"]) == (False, None)
            assert row["tiebreaks"] == [None] * len(body["tiebreaks"])

    # A provisional or disputed hand is shown as such wherever it is shown.
    round_html = _html(public.get(reverse("tournaments:round", args=(tournament.pk, 1))))
    section = round_html[round_html.index('id="table-1"') : round_html.index('id="table-2"')]
    assert "Disputed" in section and "1 hand waits for confirmation" in section
    assert "not counted yet" in section
    confirmed_only = round_html[round_html.index('id="table-2"') : round_html.index('id="table-3"')]
    assert "not counted yet" not in confirmed_only
    waiting = round_html[round_html.index('id="table-3"') :]
    assert "1 hand waits for confirmation" in waiting and "Disputed" not in waiting
    marks = {row["name"]: row["in_play"] for row in body["rows"]}
    first_names = set(counted(first))
    # The table holds a disputed hand (and a provisional one): it is marked disputed, as the
    # round page marks it, not merely provisional.
    assert {marks[n] for n in first_names} == {"disputed"}
    one = Registration.objects.get(tournament=tournament, player__name=sorted(first_names)[0])
    player_html = _html(public.get(reverse("tournaments:player", args=(tournament.pk, one.pk))))
    assert '<span class="mark disputed">disputed</span>' in player_html


def test_a_void_and_a_restore_after_the_round_completed_move_the_tables_state_both_ways(
    club: Any, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=1, sizes=[2])
    register(tournament, make_players(4))
    rnd = seat(tournament)
    services.round_publish(round=rnd, by=director)
    first, second = tables(rnd)
    rng = random.Random(5)
    confirm_as(first, 1, enter_as(first, 0, rng))
    confirm_as(second, 1, enter_as(second, 0, rng))
    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    web = Client()
    web.force_login(director)
    api = APIClient()
    api.force_authenticate(director)

    def states() -> tuple[list[str], list[str], str]:
        """The tables' states as stored, as the round API gives them, and the dashboard's
        card of table 1 (its state and progress, in words)."""
        stored = list(rnd.tables.order_by("number").values_list("state", flat=True))
        answer = api.get(f"/api/v1/tournaments/{tournament.pk}/rounds/1/").json()
        grid = _html(web.get(reverse("tournaments:grid", args=(tournament.pk, 1))))
        card = grid[grid.index('id="table-1"') : grid.index('id="table-2"')]
        words = " ".join(re.sub(r"<[^>]+>", " ", card).split())
        return stored, [t["state"] for t in answer["tables"]], words

    assert states()[:2] == (["reported", "reported"], ["reported", "reported"])

    scoring.hand_void(game=first.game, number=1, by=Actor(user=director), reason="Misdeal")

    stored, answered, card = states()
    assert stored == answered == ["not_played", "reported"]
    assert "Not played" in card and "0 of 1 hand entered" in card and "Reported" not in card
    assert scoring_selectors.counting_hands(first.game) == []
    rows = api.get(f"/api/v1/tournaments/{tournament.pk}/standings/").json()["rows"]
    first_names = {s.name for s in first.game.seats.all()}
    assert all(r["rounds"]["1"]["missed"] for r in rows if r["name"] in first_names)

    scoring.hand_restore(game=first.game, number=1, by=Actor(user=director), reason="It stood")

    stored, answered, card = states()
    assert stored == answered == ["reported", "reported"]
    assert "Reported" in card and "1 of 1 hand entered" in card
    rows = api.get(f"/api/v1/tournaments/{tournament.pk}/standings/").json()["rows"]
    assert not any(r["rounds"]["1"]["missed"] for r in rows)


def test_a_void_and_a_restore_in_a_round_in_play_move_a_reported_table_back_and_forth(
    club: Any, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    tournament = create(club, director, "tonk", rounds=2, hands_per_round=1, sizes=[2])
    register(tournament, make_players(4))
    rnd = seat(tournament)
    services.round_publish(round=rnd, by=director)
    first, _second = tables(rnd)
    confirm_as(first, 1, enter_as(first, 0, random.Random(6)))

    def state() -> str:
        return str(Table.objects.get(pk=first.pk).state)

    assert state() == Table.State.REPORTED
    scoring.hand_void(game=first.game, number=1, by=Actor(user=director), reason="Misdeal")
    assert state() == Table.State.SEATED
    scoring.hand_restore(game=first.game, number=1, by=Actor(user=director), reason="It stood")
    assert state() == Table.State.REPORTED
    rnd.refresh_from_db()
    assert rnd.state == Round.State.PLAYING
