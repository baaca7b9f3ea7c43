"""The table's live poll (issue 14, "Caches and ETags"): its ETag is a digest of the rows the
region is built from and of the viewer (``scoring.live``), so a 304 neither builds the region's
context nor renders it, and still any change to what it shows changes the ETag.

- By construction: the region is rendered under ``CaptureQueriesContext`` for several tables
  and viewers, and every table its SQL reads must be one of the digest's sources (the
  request's session apart: the viewer bits stand for it). A query on a new table fails here.
- A change made in a shell to each source table changes the ETag; a change to another game,
  another user or another club does not.
- Every page that shows the live region (discovered by a sweep of the table link's URLs)
  shows the version its poll answers.
- A 304 renders no template and makes only the digest's queries.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import F
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ops.etags import code_version, source_tables, sql_tables
from scoring import services
from scoring.live import live_sources
from scoring.models import Game, Hand, HandEvent, ScoreLine, Seat
from scoring.permissions import Actor
from scoring.services import SeatSpec
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory, sit
from tests.inputs.test_etags import url_patterns
from tournaments.models import Membership, Player, Round, Table, Tournament

pytestmark = pytest.mark.django_db

#: Read for every request, not for the region: the viewer bits stand for it.
REQUEST_TABLES = {"django_session"}

P3 = ["Ana", "Ben", "Cy"]


def tonk_hand(dealer: str, by: str) -> dict[str, object]:
    return {"dealer": dealer, "end": "tonk_out", "by": by, "held": {}}


@dataclass
class Table3:
    """A Tonk game of three at stakes in a club: Ana is a club player with an account (the
    creator, seated), the director directs the club; hands 1 and 2 entered (by Ana signed
    in, then by Ben's seat), hand 2 confirmed by Cy, hand 3 entered then voided by Ana."""

    game: Game
    ana: Any
    director: Any


def table3() -> Table3:
    club = ClubFactory()
    ana = UserFactory()
    director = UserFactory()
    MembershipFactory(club=club, user=director, role=Membership.Role.DIRECTOR)
    MembershipFactory(club=club, user=ana)
    player = PlayerFactory(club=club, name="Ana", user=ana)
    game, _ = services.game_start(
        kind="tonk",
        players=[SeatSpec("Ana", player.pk), "Ben", "Cy"],
        stake="0.25",
        currency="USD",
        club=club,
        created_by=ana,
    )
    seats = {s.name: s.pk for s in game.seats.all()}
    services.hand_record(game=game, entry=tonk_hand("Ana", "Cy"), by=Actor(user=ana))
    services.hand_record(game=game, entry=tonk_hand("Ben", "Ana"), by=Actor(seat_id=seats["Ben"]))
    services.hand_confirm(game=game, number=2, by=Actor(seat_id=seats["Cy"], device="cy"))
    services.hand_record(game=game, entry=tonk_hand("Cy", "Ben"), by=Actor(user=ana))
    services.hand_void(game=game, number=3, by=Actor(user=ana), reason="dealt twice")
    return Table3(Game.objects.get(pk=game.pk), ana, director)


def tournament_table(game: Game) -> Table:
    tournament = Tournament.objects.create(
        club_id=game.club_id or ClubFactory().pk,
        name="Friday Tonk",
        kind="tonk",
        round_count=4,
        sizes=[3],
        prefer=3,
        hands_per_round=3,
        time_zone="Europe/Paris",
    )
    rnd = Round.objects.create(tournament=tournament, number=1, state=Round.State.PLAYING)
    Game.objects.filter(pk=game.pk).update(directed=True)
    return Table.objects.create(round=rnd, number=1, game=game)


#: The viewers of a table: how a client comes to look at it.
VIEWERS: dict[str, Callable[[Table3], Client]] = {
    "anonymous, no seat": lambda t: Client(),
    "a seat chosen on this device": lambda t: seated(t.game, 1),
    "the creator, signed in": lambda t: signed_in(t.ana),
    "the club's director, signed in": lambda t: signed_in(t.director),
}


def seated(game: Game, position: int, client: Client | None = None) -> Client:
    """``client`` (a new one) with seat ``position`` of ``game`` chosen on it."""
    client = client or Client()
    sit(client, game, position)
    return client


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def live_url(game: Game) -> str:
    return reverse("scoring:live", args=[game.table_key])


def source_tables_for(game: Game, client: Client) -> set[str]:
    user_id = client.session.get("_auth_user_id")
    return source_tables(live_sources(game, int(user_id) if user_id else None))


@pytest.mark.parametrize("tournament", [False, True], ids=["casual", "tournament table"])
@pytest.mark.parametrize("viewer", sorted(VIEWERS))
def test_every_table_the_region_reads_is_a_source_of_its_etag(
    viewer: str, tournament: bool
) -> None:
    t = table3()
    if tournament:
        tournament_table(t.game)
    client = VIEWERS[viewer](t)
    for url in (live_url(t.game), reverse("scoring:table", args=[t.game.table_key])):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        read = sql_tables(q["sql"] for q in queries.captured_queries)
        assert "scoring_hand" in read and "scoring_seat" in read  # the sweep saw the SQL
        missing = read - source_tables_for(t.game, client) - REQUEST_TABLES
        if url != live_url(t.game):
            # The rest of the table page (the tournament's facts, the QR codes) is not polled.
            missing -= {"tournaments_table", "tournaments_round", "tournaments_tournament"}
        assert not missing, f"add these tables to scoring.live's sources: {missing}"


def test_the_sql_tables_are_found_in_joins_and_subqueries() -> None:
    sql = (
        'SELECT "a"."id" FROM "scoring_game" INNER JOIN "scoring_seat" ON (1) '
        'WHERE "a"."id" IN (SELECT U0."id" FROM "tournaments_player" U0) '
        "LEFT OUTER JOIN auth_user ON (1)"
    )
    assert sql_tables([sql]) == {"scoring_game", "scoring_seat", "tournaments_player", "auth_user"}


# --- every change to a source changes the ETag; a change elsewhere does not --------------------


def _flip_a_score_line(t: Table3) -> None:
    line = ScoreLine.objects.filter(game=t.game).order_by("pk").first()
    assert line is not None
    ScoreLine.objects.filter(pk=line.pk).update(went_out=not line.went_out)


#: A shell change to one row of each source table (``db_table``: the change).
SOURCE_CHANGES: dict[str, Callable[[Table3], None]] = {
    "scoring_game": lambda t: Game.objects.filter(pk=t.game.pk).update(stake="0.50"),
    "scoring_seat": lambda t: Seat.objects.filter(game=t.game).update(player=None),
    "scoring_hand": lambda t: Hand.objects.filter(game=t.game, number=1).update(
        status=Hand.Status.DISPUTED
    ),
    "scoring_scoreline": _flip_a_score_line,
    "scoring_handevent": lambda t: HandEvent.objects.filter(game=t.game).update(
        reason="another reason"
    ),
    "auth_user": lambda t: get_user_model().objects.filter(pk=t.ana.pk).update(username="anna"),
    "tournaments_membership": lambda t: Membership.objects.filter(user=t.ana).update(
        role=Membership.Role.DIRECTOR
    ),
    "tournaments_player": lambda t: Player.objects.filter(user=t.ana).update(name="Ana B"),
}


def test_every_source_table_has_a_change_case() -> None:
    t = table3()
    assert set(SOURCE_CHANGES) == source_tables(live_sources(t.game, t.ana.pk))


@pytest.mark.parametrize("table", sorted(SOURCE_CHANGES))
def test_a_shell_change_to_each_source_changes_the_etag(table: str) -> None:
    t = table3()
    client = signed_in(t.ana)
    before = client.get(live_url(t.game))
    assert client.get(live_url(t.game), HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 304

    SOURCE_CHANGES[table](t)
    after = client.get(live_url(t.game), HTTP_IF_NONE_MATCH=before["ETag"])

    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]


#: Changes to rows of the same tables that are not this table's.
UNRELATED: dict[str, Callable[[Table3, Table3], None]] = {
    "another game's hand": lambda t, o: services.hand_record(
        game=o.game, entry=tonk_hand("Ana", "Ben"), by=Actor(user=o.ana)
    ),
    "another game's seat renamed": lambda t, o: (
        Seat.objects.filter(game=o.game).update(name=F("name"))
        or Seat.objects.filter(game=o.game, position=0).update(name="Zed")
    ),
    "another game's state": lambda t, o: Game.objects.filter(pk=o.game.pk).update(
        state=Game.State.FINISHED
    ),
    "another user renamed": lambda t, o: (
        get_user_model().objects.filter(pk=o.ana.pk).update(username="other")
    ),
    "another club's membership": lambda t, o: Membership.objects.filter(user=o.director).update(
        role=Membership.Role.MEMBER
    ),
}


@pytest.mark.parametrize("change", sorted(UNRELATED))
def test_a_change_to_another_table_is_still_a_304(change: str) -> None:
    t, other = table3(), table3()
    client = seated(t.game, 1)
    before = client.get(live_url(t.game))

    UNRELATED[change](t, other)
    after = client.get(live_url(t.game), HTTP_IF_NONE_MATCH=before["ETag"])

    assert after.status_code == 304
    assert after["ETag"] == before["ETag"]


def test_each_viewer_has_its_own_etag() -> None:
    t = table3()
    etags = {name: make(t).get(live_url(t.game))["ETag"] for name, make in VIEWERS.items()}
    assert len(set(etags.values())) == len(VIEWERS), etags
    # Another seat chosen on the same device: another ETag.
    client = seated(t.game, 1)
    first = client.get(live_url(t.game))["ETag"]
    seated(t.game, 2, client)
    assert client.get(live_url(t.game), HTTP_IF_NONE_MATCH=first).status_code == 200


def test_made_director_in_a_shell_shows_the_directors_buttons() -> None:
    t = table3()
    member = UserFactory()
    MembershipFactory(club_id=t.game.club_id, user=member)
    client = signed_in(member)
    before = client.get(live_url(t.game))
    assert "Restore" not in before.content.decode()

    Membership.objects.filter(user=member).update(role=Membership.Role.DIRECTOR)
    after = client.get(live_url(t.game), HTTP_IF_NONE_MATCH=before["ETag"])

    assert after.status_code == 200
    assert "Restore" in after.content.decode()


# --- a 304 is cheap --------------------------------------------------------------------------


def test_a_304_renders_nothing_and_reads_only_the_sources() -> None:
    t = table3()
    tournament_table(t.game)
    client = signed_in(t.director)
    first = client.get(live_url(t.game))
    sources = live_sources(t.game, t.director.pk)

    with CaptureQueriesContext(connection) as queries:
        again = client.get(live_url(t.game), HTTP_IF_NONE_MATCH=first["ETag"])

    assert again.status_code == 304
    assert again.templates == []
    # The session, the user, the game by its key, then one query per source.
    assert len(queries.captured_queries) == 3 + len(sources)
    read = sql_tables(q["sql"] for q in queries.captured_queries)
    assert read <= source_tables(sources) | REQUEST_TABLES


# --- every page that shows the live region shows its poll's version ---------------------------


def test_every_page_showing_the_live_region_shows_the_version_its_poll_answers() -> None:
    t = table3()
    client = seated(t.game, 1)
    etag = client.get(live_url(t.game))["ETag"].strip('"')
    seat = t.game.seats.get(position=1)
    values = {"key": t.game.table_key, "seat_key": seat.seat_key, "number": 1}
    showing = set()
    for name, pattern in url_patterns():
        params = list(pattern.pattern.converters)
        if not params or not set(params) <= set(values):
            continue
        url = reverse(name, kwargs={p: values[p] for p in params})
        if name == "scoring:seat":
            continue  # chooses the seat (a redirect to the table page, swept as such)
        response = client.get(url)
        shown = re.search(
            r'id="live-next"[^>]*data-version="([0-9a-f]+)"', response.content.decode()
        )
        if shown:
            showing.add(name)
            assert shown.group(1) == etag, name
    assert showing >= {"scoring:table", "scoring:sheet", "scoring:live"}


# --- the code version -------------------------------------------------------------------------


def test_a_template_changed_by_a_deploy_is_another_code_version(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("one")
    engine = {"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [tmp_path]}
    try:
        with override_settings(TEMPLATES=[engine]):
            code_version.cache_clear()
            first = code_version()
            (tmp_path / "page.html").write_text("two")
            code_version.cache_clear()
            second = code_version()
    finally:
        code_version.cache_clear()
    assert first != second
    assert code_version() == code_version()  # once per process
