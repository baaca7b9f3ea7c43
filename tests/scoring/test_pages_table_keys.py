"""Who sees a game's table link on the pages a signed-in member reaches (issue 12): a table's
key lets its holder choose any seat, so a member holds it only for a game they may act at as
more than a reader (``scoring.selectors.games_keyed_for``): a club director, a casual game's
creator, a player seated at the game. "My games" leads anyone else to a tournament table's
public round page, and to another member's casual game nowhere; a crawl of every page a member
reaches finds no other table's key in any HTML."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from scoring import selectors
from scoring import services as scoring
from scoring.models import Game, Seat
from scoring.services import SeatSpec
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tournaments import services as tournaments
from tournaments.models import Club, Membership, Round, TableSeat, Tournament

pytestmark = pytest.mark.django_db

HREF = re.compile(r'href="([^"]*)"')
ROW = re.compile(r'<li class="game-row">(.*?)</li>', re.S)


@dataclass
class Night:
    club: Club
    tournament: Tournament
    round: Round
    director: Any
    seated: Any  # a member whose club player sits at table ``mine``
    member: Any  # a member who plays nowhere
    mine: Game  # the seated member's table
    others: list[Game]  # the round's other tables
    own: Game  # a casual game the seated member started
    with_me: Game  # another member's casual game where the seated member's player sits
    theirs: Game  # another member's casual game


@pytest.fixture
def night() -> Night:
    """Round 1 of a Tonk tournament (three tables of two) published; three casual games."""
    club = ClubFactory(name="Riverside")
    director = MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user
    seated = MembershipFactory(club=club).user
    member = MembershipFactory(club=club).user
    starter = MembershipFactory(club=club).user
    players = [PlayerFactory(club=club, name="Ana", user=seated)] + [
        PlayerFactory(club=club, name=name) for name in ("Ben", "Cy", "Dee", "Eve", "Fay")
    ]
    tournament, _ = tournaments.tournament_create(
        club=club,
        created_by=director,
        name="Friday Tonk",
        kind="tonk",
        rounds=2,
        sizes=[2],
        hands_per_round=1,
    )
    for player in players:
        tournaments.registration_add(tournament=tournament, player=player)
    rnd, _ = tournaments.round_seat(tournament=tournament)
    rnd = tournaments.round_seating_compute(round_id=rnd.pk)
    tournaments.round_publish(round=rnd)
    mine = TableSeat.objects.get(round=rnd, registration__player=players[0]).table.game
    others = [t.game for t in rnd.tables.select_related("game").exclude(game=mine)]
    ana = SeatSpec("Ana", players[0].pk)  # the seated member's club player
    own, _ = scoring.game_start(
        kind="rook", players=[ana, "Gus", "Hal"], club=club, created_by=seated
    )
    with_me, _ = scoring.game_start(
        kind="tonk", players=[ana, "Ben"], club=club, created_by=starter
    )
    theirs, _ = scoring.game_start(
        kind="tonk", players=["Cy", "Dee"], club=club, created_by=starter
    )
    assert Seat.objects.filter(game=with_me, player__user=seated).exists()
    return Night(
        club, tournament, rnd, director, seated, member, mine, others, own, with_me, theirs
    )


def table_url(game: Game) -> str:
    return reverse("scoring:table", kwargs={"key": game.table_key})


def round_url(night: Night, game: Game) -> str:
    number = game.tournament_table.number  # type: ignore[attr-defined]
    return f"/tournaments/{night.tournament.pk}/rounds/1/#table-{number}"


def rows(client: Client) -> dict[str, list[str]]:
    """Each row of "My games": its players (as listed) → the links in it."""
    page = client.get("/games/").content.decode()
    out = {}
    for row in ROW.findall(page):
        who = re.search(r'<span class="who">(.*?)</span>', row, re.S)
        assert who is not None
        out[who.group(1)] = HREF.findall(row)
    return out


def who(game: Game) -> str:
    return ", ".join(name for name, _seat in game.seating)


def keys_of(game: Game) -> set[str]:
    """Every private key of a game: its table key and its seats' keys."""
    return {game.table_key, *Seat.objects.filter(game=game).values_list("seat_key", flat=True)}


# --- the helper -----------------------------------------------------------------------------------


def test_the_keys_a_viewer_may_hold_are_a_directors_a_creators_and_a_seated_players(
    night: Night,
) -> None:
    games = [night.mine, *night.others, night.own, night.with_me, night.theirs]

    assert selectors.games_keyed_for(night.seated, games) == {
        night.mine.pk,
        night.own.pk,
        night.with_me.pk,
    }
    assert selectors.games_keyed_for(night.member, games) == set()
    assert selectors.games_keyed_for(night.director, games) == {g.pk for g in games}
    assert selectors.games_keyed_for(MembershipFactory().user, games) == set()
    assert selectors.games_keyed_for(UserFactory(), []) == set()


def test_the_helper_asks_once_per_club_and_kind_of_game_whatever_the_number_of_games(
    night: Night, django_assert_max_num_queries: Any
) -> None:
    games = list(Game.objects.filter(club=night.club))
    assert len(games) == 6

    # The seats; the club's directors, once for its tables and once for its casual games.
    with django_assert_max_num_queries(3):
        assert selectors.games_keyed_for(night.member, games) == set()


# --- my games -------------------------------------------------------------------------------------


def test_my_games_links_a_seated_member_to_their_table_and_to_the_public_round_for_others(
    client: Client, night: Night
) -> None:
    client.force_login(night.seated)

    links = rows(client)

    assert links[who(night.mine)] == [table_url(night.mine)]
    for game in night.others:
        assert links[who(game)] == [round_url(night, game)]
    assert links[who(night.own)] == [table_url(night.own)]
    assert links[who(night.with_me)] == [table_url(night.with_me)]
    assert links[who(night.theirs)] == []  # another member's casual game: listed, no link
    page = client.get("/games/").content.decode()
    assert page.count("public results") == len(night.others)


def test_my_games_gives_a_member_who_plays_nowhere_no_table_link(
    client: Client, night: Night
) -> None:
    client.force_login(night.member)

    links = rows(client)

    for game in (night.mine, *night.others):
        assert links[who(game)] == [round_url(night, game)]
    for game in (night.own, night.with_me, night.theirs):
        assert links[who(game)] == []
    # The public page the row leads to exists, at that table.
    response = client.get(round_url(night, night.others[0]).partition("#")[0])
    assert response.status_code == 200
    assert 'id="table-' in response.content.decode()


def test_my_games_links_a_director_to_every_table(client: Client, night: Night) -> None:
    client.force_login(night.director)

    links = rows(client)

    for game in (night.mine, *night.others, night.own, night.with_me, night.theirs):
        assert links[who(game)] == [table_url(game)]


# --- every page a member reaches ------------------------------------------------------------------

#: Links a crawl does not follow: signing out, the admin, the API and its docs, static files.
SKIP = ("/accounts/logout/", "/admin/", "/api/", "/static/", "/jsi18n/")


def crawl(client: Client, seeds: list[str], limit: int = 120) -> dict[str, str]:
    """Every page reachable from ``seeds`` by GET links on the site: path → HTML."""
    seen: dict[str, str] = {}
    queue = list(seeds)
    while queue and len(seen) < limit:
        url = queue.pop(0).partition("#")[0]
        if not url or url in seen:
            continue
        response = client.get(url, follow=True)
        body = response.content.decode(errors="replace")
        seen[url] = body
        if "html" not in response.get("Content-Type", ""):
            continue
        for href in HREF.findall(body):
            href = href.replace("&amp;", "&")
            if href.startswith("/") and not href.startswith(SKIP) and href not in seen:
                queue.append(href)
    assert len(seen) < limit, "the crawl stopped early"
    return seen


def seeds(night: Night) -> list[str]:
    tournament = night.tournament.pk
    return [
        "/",
        "/games/",
        f"/tournaments/{tournament}/",
        f"/tournaments/{tournament}/screen/",
        f"/tournaments/{tournament}/standings/",
        f"/tournaments/{tournament}/rounds/1/",
        *[
            f"/tournaments/{tournament}/players/{r}/"
            for r in night.tournament.registrations.values_list("pk", flat=True)
        ],
        f"/clubs/{night.club.pk}/tournaments/",  # the directors' page: refused
        f"/tournaments/{tournament}/manage/",
    ]


@pytest.mark.parametrize("viewer", ["seated", "member"])
def test_no_page_a_member_reaches_shows_a_key_of_a_table_they_do_not_sit_at(
    client: Client, night: Night, viewer: str
) -> None:
    user = getattr(night, viewer)
    client.force_login(user)
    table = night.others[0]
    first, second = (name for name, _seat in table.seating)
    hand = {"dealer": first, "end": "knock", "by": second, "held": {first: "KH", second: "AS"}}
    scoring.hand_record(game=table, entry=hand)  # a score on the public pages

    pages = crawl(client, seeds(night))

    allowed = {night.mine, night.own, night.with_me} if viewer == "seated" else set()
    forbidden = {
        key
        for game in (night.mine, *night.others, night.own, night.with_me, night.theirs)
        if game not in allowed
        for key in keys_of(game)
    }
    if viewer == "seated":  # at their tournament table: its other seats' links stay hidden
        forbidden |= set(
            Seat.objects.filter(game=night.mine)
            .exclude(player__user=user)
            .values_list("seat_key", flat=True)
        )
    leaks = {url: key for url, body in pages.items() for key in forbidden if key in body}
    assert leaks == {}
    # The crawl reached the public pages and, for the seated member, their own table.
    assert f"/tournaments/{night.tournament.pk}/rounds/1/" in pages
    assert sum("/players/" in url for url in pages) == 6
    assert (table_url(night.mine) in pages) is (viewer == "seated")
