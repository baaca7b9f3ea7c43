"""The public tournament pages: standings that poll with an ETag (304 while nothing changed),
rounds shown only once published, players' histories, the big screen, times in the
tournament's time zone."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from ops import l10n
from scoring import services as scoring_services
from tests.factories import UserFactory
from tournaments import services
from tournaments.models import Club, Membership, Player, Round, Tournament

pytestmark = pytest.mark.django_db

NAMES = ["Ana", "Ben", "Cyd", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida"]


@pytest.fixture
def tournament() -> Tournament:
    """A Rook tournament for nine players (three tables of three), nothing seated yet."""
    director = UserFactory()
    club = Club.objects.create(name="Riverside")
    Membership.objects.create(club=club, user=director, role=Membership.Role.DIRECTOR)
    created, _ = services.tournament_create(
        club=club,
        created_by=director,
        name="Winter Rook",
        kind="rook",
        rounds=3,
        sizes=[3],
        time_zone="Asia/Kolkata",
        minutes_per_round=45,
    )
    for name in NAMES:
        services.registration_add(
            tournament=created, player=Player.objects.create(club=club, name=name)
        )
    return created


def seated(tournament: Tournament) -> Round:
    rnd, _ = services.round_seat(tournament=tournament)
    # The seating task runs after commit; a test's transaction never commits, so run it here.
    rnd = services.round_seating_compute(round_id=rnd.pk)
    assert rnd.state == Round.State.SEATED
    return rnd


def time_called_round(table: Any, holds: dict[str, str]) -> dict[str, object]:
    names = [name for name, _seat in table.game.seating]
    return {"round": 1, "dealer": names[0], "out": None, "held": {n: holds[n] for n in names}}


def enter_round_1(rnd: Round, on_commit: Any) -> None:
    """Every table calls time: everyone holds R1 (5 points), Ana holds R10 (10). The
    game-changed callbacks run as after a commit (the round completes, the version moves)."""
    with on_commit(execute=True):
        for table in rnd.tables.select_related("game"):
            holds = {n: ("R10" if n == "Ana" else "R1") for n in NAMES}
            scoring_services.hand_record(game=table.game, entry=time_called_round(table, holds))


def url(name: str, *args: object) -> str:
    return reverse(f"tournaments:{name}", args=args)


def test_a_seated_but_unpublished_round_is_a_404_without_names(
    client: Client, tournament: Tournament
) -> None:
    seated(tournament)

    unpublished = client.get(url("round", tournament.pk, 1))
    missing = client.get(url("round", tournament.pk, 2))

    assert unpublished.status_code == missing.status_code == 404
    body = unpublished.content.decode()
    assert not any(name in body for name in NAMES)
    assert body == missing.content.decode()  # a missing round and an unpublished one alike
    standings = client.get(url("standings", tournament.pk)).content.decode()
    assert url("round", tournament.pk, 1) not in standings


def test_a_published_round_shows_its_tables_in_seat_order_with_the_first_dealer(
    client: Client, tournament: Tournament
) -> None:
    rnd = seated(tournament)
    services.round_publish(round=rnd)

    page = client.get(url("round", tournament.pk, 1)).content.decode()

    for table in rnd.tables.select_related("game"):
        names = [name for name, _seat in table.game.seating]
        positions = [page.index(f">{name}") for name in names]
        assert positions == sorted(positions)  # seat order
        assert f'{names[0]} <span class="muted">(first dealer)</span>' in page
    assert "Round 1: 2 sets, 12 cards dealt" in page


def test_the_standings_fragment_answers_304_while_nothing_changed_and_200_after_a_result(
    client: Client, tournament: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    rnd = seated(tournament)
    services.round_publish(round=rnd)
    first = client.get(url("standings-fragment", tournament.pk))
    assert first.status_code == 200
    etag = first["ETag"]
    assert "no-cache" in first["Cache-Control"]

    again = client.get(url("standings-fragment", tournament.pk), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""

    enter_round_1(rnd, django_capture_on_commit_callbacks)
    changed = client.get(url("standings-fragment", tournament.pk), HTTP_IF_NONE_MATCH=etag)

    assert changed.status_code == 200
    assert changed["ETag"] != etag
    body = changed.content.decode()
    # Ana holds R10 (10 points): last of nine; the others share first place at 5.
    assert body.count(">1=</td>") == 8
    assert ">9</td>" in body


def test_the_standings_page_explains_the_tie_breaks_and_polls(
    client: Client, tournament: Tournament
) -> None:
    page = client.get(url("standings", tournament.pk)).content.decode()

    assert "Rounds out" in page and "Best round" in page
    assert "Lowest total wins." in page
    assert re.search(
        f'hx-get="{url("standings-fragment", tournament.pk)}\\?v=[0-9a-f]{{32}}"', page
    )
    assert 'hx-trigger="every 5s"' in page


def test_a_players_history_names_tables_opponents_and_scores(
    client: Client, tournament: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    rnd = seated(tournament)
    services.round_publish(round=rnd)
    enter_round_1(rnd, django_capture_on_commit_callbacks)
    ana = tournament.registrations.get(player__name="Ana")
    table = rnd.tables.get(seats__registration=ana)
    opponents = [n for n, _seat in table.game.seating if n != "Ana"]

    page = client.get(url("player", tournament.pk, ana.pk)).content.decode()

    assert f"Table {table.number}: {', '.join(opponents)}" in page
    assert ">10<" in page  # her round score (R10)


def test_round_times_show_in_the_tournaments_time_zone(
    client: Client, tournament: Tournament
) -> None:
    rnd = seated(tournament)
    services.round_publish(round=rnd)
    deadline = datetime(2026, 11, 29, 14, 0, tzinfo=UTC)
    Round.objects.filter(pk=rnd.pk).update(deadline=deadline)

    page = client.get(url("standings", tournament.pk)).content.decode()

    assert "19:30" in page  # 14:00 UTC is 19:30 in Kolkata
    assert "(Kolkata)" in page  # the zone by its place, as on the dashboard (issue 15)
    assert "Asia/Kolkata" not in page
    bengali = client.get(url("standings", tournament.pk), HTTP_ACCEPT_LANGUAGE="bn")
    assert f"({l10n.zone_place('Asia/Kolkata', language='bn')})" in bengali.content.decode()
    translation.deactivate()


def test_a_complete_rounds_clock_says_no_end_time(client: Client, tournament: Tournament) -> None:
    rnd = seated(tournament)
    services.round_publish(round=rnd)
    Round.objects.filter(pk=rnd.pk).update(
        deadline=datetime(2026, 11, 29, 14, 0, tzinfo=UTC), state=Round.State.COMPLETE
    )

    page = client.get(url("standings", tournament.pk)).content.decode()

    assert 'id="clock"' in page and "Complete" in page
    assert "ends at" not in page and "19:30" not in page


def test_the_big_screen_shows_the_standings_and_the_clock(
    client: Client, tournament: Tournament
) -> None:
    rnd = seated(tournament)
    services.round_publish(round=rnd)
    services.tick(now=timezone.now() + timedelta(hours=1))

    page = client.get(url("screen", tournament.pk)).content.decode()

    assert "time called" in page
    assert page.count('data-registration="') == len(NAMES)


def test_a_poll_naming_the_version_it_shows_gets_204_until_the_standings_change(
    client: Client, tournament: Tournament, django_capture_on_commit_callbacks: Any
) -> None:
    def shown_on(page: str) -> str:
        match = re.search(r"\?v=([0-9a-f]{32})", page)
        assert match
        return match.group(1)

    rnd = seated(tournament)
    services.round_publish(round=rnd)
    shown = shown_on(client.get(url("standings", tournament.pk)).content.decode())
    fragment = url("standings-fragment", tournament.pk)

    assert client.get(fragment, {"v": shown}).status_code == 204  # htmx leaves the page be
    enter_round_1(rnd, django_capture_on_commit_callbacks)
    changed = client.get(fragment, {"v": shown})

    assert changed.status_code == 200
    assert "time called" not in changed.content.decode()
    now = shown_on(changed.content.decode())
    assert now != shown
    assert changed["ETag"] == f'"{now}"'


def test_registering_while_a_round_is_seated_flags_it_to_be_seated_again(
    tournament: Tournament,
) -> None:
    rnd = seated(tournament)
    late = Player.objects.create(club=tournament.club, name="Jo")

    registration = services.registration_add(tournament=tournament, player=late)

    rnd.refresh_from_db()
    assert (registration.from_round, rnd.superseded) == (1, True)


def test_a_waiting_table_game_is_hidden_from_club_members_until_published(
    tournament: Tournament,
) -> None:
    from scoring.selectors import games_visible_to

    member = UserFactory()
    Membership.objects.create(club=tournament.club, user=member)
    rnd = seated(tournament)
    assert not games_visible_to(member).exists()

    services.round_publish(round=rnd)

    assert games_visible_to(member).count() == rnd.tables.count()


def test_an_unknown_or_vague_time_zone_is_refused(tournament: Tournament) -> None:
    from tournaments.errors import TournamentError

    with pytest.raises(TournamentError) as caught:
        services.tournament_create(
            club=tournament.club,
            created_by=tournament.created_by,
            name="Vague",
            kind="rook",
            time_zone="localtime",
        )
    assert caught.value.code == "bad_time_zone"
