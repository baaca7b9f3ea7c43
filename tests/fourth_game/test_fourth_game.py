"""The acceptance line of issue 11: a fourth game, defined only under ``tests/`` (a rules
object, an adapter and one template partial), is started on the start-a-game page, played on
the table page and through the API, played as a two-round tournament through the tournaments
services and ranked in the standings, with no change anywhere else."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from scoring import games
from scoring.models import Game, Seat
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tests.fourth_game.adapter import TallyAdapter
from tournaments import selectors, services
from tournaments.models import Membership, Round, Table, TableSeat, Tournament

NEW = "/games/new/"
#: Each player's points in every hand of the tournament: Dee beats everyone, Ana no one.
POINTS = {"Ana": 10, "Ben": 20, "Cyd": 30, "Dee": 40}


def test_the_fourth_game_is_registered_only_for_its_test(tally: TallyAdapter) -> None:
    assert games.adapter_for("tally") is tally
    assert [a.name for a in games.all_adapters()] == ["tonk", "rook", "bluke", "tally"]
    assert ("tally", "Tally") in [(k, str(v)) for k, v in games.choices()]
    assert ("tally", "Tally") in [(k, str(v)) for k, v in Game._meta.get_field("kind").choices]


def test_without_the_fixture_there_is_no_fourth_game() -> None:
    assert [a.name for a in games.all_adapters()] == ["tonk", "rook", "bluke"]


@pytest.mark.django_db
def test_fourth_game_started_on_the_start_page_and_a_hand_entered_on_the_table_page(
    tally: TallyAdapter, client: Client
) -> None:
    membership = MembershipFactory()
    client.force_login(membership.user)
    page = client.get(NEW).content.decode()
    assert 'value="tally"' in page
    assert "Tally, 2–4 players" in page

    response = client.post(
        NEW,
        {
            "kind": "tally",
            "club": membership.club.pk,
            "player_1": "Ana",
            "player_2": "Ben",
            "player_3": "Cyd",
            "idempotency_key": "start-tally",
        },
    )

    game = Game.objects.get()
    assert response.status_code == 303
    assert (game.kind, game.get_kind_display(), game.rules_version) == ("tally", "Tally", "tally/1")
    table = client.get(reverse("scoring:table", kwargs={"key": game.table_key}))
    assert table.status_code == 200
    assert 'name="points_2"' in table.content.decode()  # the game's own partial

    response = client.post(
        reverse("scoring:hand-new", kwargs={"key": game.table_key}),
        {
            "idempotency_key": "hand-1",
            "after": 0,
            "dealer": 0,
            "points_0": 7,
            "points_1": 12,
            "points_2": 3,
        },
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:table", kwargs={"key": game.table_key})
    game.refresh_from_db()
    assert game.totals == {"Ana": 7, "Ben": 12, "Cyd": 3}
    hand = game.hands.get()
    assert hand.entry == {"dealer": "Ana", "points": {"Ana": 7, "Ben": 12, "Cyd": 3}}
    sheet = client.get(reverse("scoring:table", kwargs={"key": game.table_key})).content.decode()
    assert "12 top" in sheet  # the adapter's hand summary on the sheet

    refused = client.post(
        reverse("scoring:hand-new", kwargs={"key": game.table_key}),
        {
            "idempotency_key": "hand-2",
            "after": 1,
            "dealer": 1,
            "points_0": 7,
            "points_1": 101,
            "points_2": 3,
        },
    )
    assert refused.status_code == 422
    assert game.hands.count() == 1


@pytest.mark.django_db
def test_fourth_game_started_and_played_through_the_api(tally: TallyAdapter) -> None:
    api = APIClient()
    api.force_authenticate(MembershipFactory().user)

    started = api.post(
        "/api/v1/games/",
        {"game": "tally", "players": [{"name": "Ana"}, {"name": "Ben"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="api-start",
    )
    assert started.status_code == 201, started.content
    game_id = started.json()["id"]
    assert started.json()["game"] == "tally"

    recorded = api.post(
        f"/api/v1/games/{game_id}/hands/",
        {"number": 1, "dealer": "Ben", "points": {"Ana": 40, "Ben": 15}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="api-hand-1",
    )
    assert recorded.status_code == 201, recorded.content
    refused = api.post(
        f"/api/v1/games/{game_id}/hands/",
        {"number": 2, "dealer": "Ana", "points": {"Ana": 40}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="api-hand-2",
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["player"] == "Ben"

    game = api.get(f"/api/v1/games/{game_id}/").json()
    assert game["results"]["totals"] == {"Ana": 40, "Ben": 15}
    assert game["results"]["ranking"] == [["Ana"], ["Ben"]]
    assert api.get(f"/api/v1/games/{game_id}/settle-up/").status_code == 409  # no stakes


def _play(rnd: Round, keys: Any) -> None:
    """Publish a round and enter at every table each hand it plays: every player reports
    their :data:`POINTS`."""
    from scoring import services as scoring

    services.round_publish(round=rnd)
    for table in rnd.tables.select_related("game").order_by("number"):
        names = list(Seat.objects.filter(game_id=table.game_id).values_list("name", flat=True))
        for index in range(rnd.tournament.hands_per_round):
            scoring.hand_record(
                game=table.game,
                entry={
                    "dealer": names[index % len(names)],
                    "points": {n: POINTS[n] for n in names},
                },
                idempotency_key=next(keys),
            )


@pytest.mark.django_db(transaction=True)
def test_fourth_game_tournament_of_two_rounds_is_ranked_in_the_standings(
    tally: TallyAdapter, client: Client
) -> None:
    club = ClubFactory(name="Tally Club")
    director = MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user
    players = [PlayerFactory(club=club, name=name) for name in POINTS]
    tournament, created = services.tournament_create(
        club=club, created_by=director, name="Tally night", kind="tally", rounds=2
    )
    assert created
    assert (tournament.sizes, tournament.prefer, tournament.hands_per_round) == ([2, 3, 4], 2, 2)
    for player in players:
        services.registration_add(tournament=tournament, player=player)
    keys = iter(f"t-{i}" for i in range(100))

    for number in (1, 2):
        rnd, seated = services.round_seat(tournament=tournament)
        assert seated
        rnd.refresh_from_db()
        assert (rnd.number, rnd.state) == (number, Round.State.SEATED)
        assert rnd.tables.count() == 2  # two tables of two
        assert {g.kind for g in Game.objects.filter(tournament_table__round=rnd)} == {"tally"}
        _play(rnd, keys)
        rnd.refresh_from_db()
        assert rnd.state == Round.State.COMPLETE
        assert set(rnd.tables.values_list("state", flat=True)) == {Table.State.REPORTED}
        assert services.round_close(round=rnd).state == Round.State.COMPLETE
        tournament.refresh_from_db()
    # Balanced seating: nobody meets the same opponent twice.
    meetings = [
        frozenset(
            TableSeat.objects.filter(table=t).values_list("registration__player__name", flat=True)
        )
        for t in Table.objects.filter(round__tournament=tournament)
    ]
    assert len(set(meetings)) == 4

    standings = selectors.standings(Tournament.objects.get(pk=tournament.pk))
    rows = {row.name: row for row in standings.rows}
    assert [(row.label, row.name) for row in standings.rows] == [
        ("1", "Dee"),
        ("2", "Cyd"),
        ("3", "Ben"),
        ("4", "Ana"),
    ]
    # Totals: 2 rounds x 2 hands x their points; round scores 2 x their points.
    assert {name: row.total for name, row in rows.items()} == {
        "Ana": 40,
        "Ben": 80,
        "Cyd": 120,
        "Dee": 160,
    }
    assert [str(c.title) for c in standings.tiebreaks] == ["Hands won", "Best round"]
    # Hands won: Dee wins all 4 of hers, Ana none; the 8 hands have 8 winners.
    assert rows["Dee"].tiebreaks == (4, 80)
    assert rows["Ana"].tiebreaks == (0, 20)
    assert rows["Ben"].tiebreaks[1] == 40 and rows["Cyd"].tiebreaks[1] == 60
    assert rows["Ben"].tiebreaks[0] + rows["Cyd"].tiebreaks[0] == 4
    assert all(row.games == 2 for row in standings.rows)

    # The director's and the public pages show it, from the adapter.
    client.force_login(director)
    new = client.get(reverse("tournaments:new", kwargs={"club_id": club.pk}))
    assert "Tally, 2–4 a table" in new.content.decode()
    args = {"tournament_id": tournament.pk, "number": 2}
    cards = client.get(reverse("tournaments:cards", kwargs=args)).content.decode()
    assert "2 hands." in " ".join(cards.split())  # the default "what to play" partial
    manage = client.get(reverse("tournaments:manage", kwargs={"tournament_id": tournament.pk}))
    assert manage.status_code == 200
    page = client.get(reverse("tournaments:standings", kwargs={"tournament_id": tournament.pk}))
    text = " ".join(page.content.decode().split())
    assert "Hands won" in text and "Highest total wins." in text
    assert "2 hands" in client.get(reverse("tournaments:round", kwargs=args)).content.decode()
