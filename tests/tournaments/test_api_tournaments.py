"""The tournaments API (issue 6): whole tournaments played through it with a real ``celery
worker`` on Redis and PostgreSQL (``services``), the standings checked after every round against
an independent computation (``tests.tournaments.play``); and who may change a tournament: its
club's directors only, every other caller refused with nothing changed."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.urls import URLPattern, get_resolver, reverse
from django.utils import timezone
from rest_framework.test import APIClient

from ops import tasks as ops_tasks
from scoring import services as scoring_services
from scoring.models import Game, Hand, Seat
from scoring.permissions import Actor
from tests.factories import MembershipFactory
from tests.hands import numbered
from tests.services import WorkerProcess
from tests.tournaments.play import (
    Entered,
    HandResult,
    PlayedTable,
    Record,
    bluke_hand,
    bluke_hand_of,
    comparable,
    expected_standings,
    rook_round,
    tonk_hand,
)
from tournaments import services
from tournaments.models import (
    AuditEntry,
    Club,
    Membership,
    Player,
    Registration,
    Round,
    TableSeat,
    Tournament,
)

WAIT_SECONDS = 30


# --- driving a tournament through the API ---------------------------------------------------------


def wait_for(what: str, check: Callable[[], Any], worker: WorkerProcess | None = None) -> Any:
    """Poll ``check()`` until it returns something truthy; fail after :data:`WAIT_SECONDS`."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            log = worker.log()[-4000:] if worker is not None else ""
            pytest.fail(f"{what}: still not so after {WAIT_SECONDS} s\n{log}")
        time.sleep(0.05)


@dataclass
class Director:
    """A director playing one tournament through the API, noting everything entered."""

    api: APIClient
    worker: WorkerProcess
    tournament: dict[str, Any]
    record: Record
    rng: random.Random
    registrations: dict[str, int] = field(default_factory=dict)  # name → registration id

    @property
    def url(self) -> str:
        return f"/api/v1/tournaments/{self.tournament['id']}"

    def register(self, player: Player, *, from_round: int = 1) -> int:
        response = self.api.post(f"{self.url}/registrations/", {"player": player.pk}, format="json")
        assert response.status_code == 201, response.content
        body = response.json()
        assert (body["name"], body["from_round"], body["withdrawn"]) == (
            player.name,
            from_round,
            False,
        )
        self.registrations[player.name] = body["id"]
        self.record.players[body["id"]] = Entered(body["id"], player.name, from_round)
        return body["id"]

    def withdraw(self, name: str, *, after: int) -> None:
        registration = self.registrations[name]
        response = self.api.post(f"{self.url}/registrations/{registration}/withdraw/")
        assert response.status_code == 200, response.content
        assert (response.json()["withdrawn"], response.json()["withdrawn_after"]) == (True, after)
        self.record.players[registration].withdrawn_after = after

    def round(self, number: int) -> dict[str, Any]:
        response = self.api.get(f"{self.url}/rounds/{number}/")
        assert response.status_code == 200, response.content
        return response.json()

    def seat(self, number: int) -> dict[str, Any]:
        """Ask for the next round (202) and wait until the worker has seated it."""
        response = self.api.post(f"{self.url}/rounds/")
        assert response.status_code == 202, response.content
        assert response.json()["number"] == number
        assert response["Location"].endswith(f"/rounds/{number}/")
        body = wait_for(
            f"round {number} seated",
            lambda: (b := self.round(number))["state"] == "seated" and b,
            self.worker,
        )
        seated = [s["registration"] for t in body["tables"] for s in t["seats"]]
        active = {
            reg
            for reg, entered in self.record.players.items()
            if entered.from_round <= number and entered.withdrawn_after is None
        }
        assert sorted(seated) == sorted(active)  # everyone active sits once; no sit-outs here
        assert body["sit_outs"] == []
        for table in body["tables"]:
            assert table["first_dealer"] == table["seats"][0]["player"]
            assert table["game"] and table["table_key"]
        return body

    def publish(self, number: int) -> dict[str, Any]:
        response = self.api.post(f"{self.url}/rounds/{number}/publish/")
        assert response.status_code == 200, response.content
        assert response.json()["state"] == "published"
        return response.json()

    def substitute(self, number: int, name: str, substitute: str) -> dict[str, Any]:
        response = self.api.post(
            f"{self.url}/rounds/{number}/substitutes/",
            {"registration": self.registrations[name], "substitute": substitute},
            format="json",
        )
        assert response.status_code == 200, response.content
        return response.json()

    def play_table(self, number: int, table: dict[str, Any], *, nobody_out: bool = False) -> None:
        """Enter every hand the table takes, through the scoring API with its first seat's key
        (a table key alone only reads); the second seat's phone confirms each (the tournament's
        default: one other player confirms)."""
        kind = self.record.kind
        hands = self.tournament["hands_per_round"]
        device, other = APIClient(), APIClient()
        seat, second = Seat.objects.filter(game_id=table["game"]).order_by("position")[:2]
        device.credentials(HTTP_AUTHORIZATION=f"Seat {seat.seat_key}")
        other.credentials(HTTP_AUTHORIZATION=f"Seat {second.seat_key}")
        names = [s["substitute"] or s["player"] for s in table["seats"]]
        played = PlayedTable(
            number,
            {
                (s["substitute"] or s["player"]): None if s["substitute"] else s["registration"]
                for s in table["seats"]
            },
        )
        for index in range(hands):
            dealer = names[index % len(names)]
            if kind == "rook":
                entry = rook_round(self.rng, names, number, dealer, nobody_out=nobody_out)
            elif kind == "bluke":
                entry = bluke_hand(self.rng, names, bluke_hand_of(number, index, hands), dealer)
            else:
                entry = tonk_hand(self.rng, names, dealer)
            response = device.post(
                f"/api/v1/games/{table['game']}/hands/",
                numbered(entry, index + 1),
                format="json",
                HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
            )
            assert response.status_code == 201, (entry, response.content)
            body = response.json()
            assert (body["entered_via"], body["entered_seat"]["name"]) == ("seat", seat.name)
            assert body["status"] == "provisional"
            confirmed = other.post(
                f"/api/v1/games/{table['game']}/hands/{body['number']}/confirm/",
                HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
            )
            assert (confirmed.status_code, confirmed.json()["status"]) == (200, "confirmed")
            played.hands.append(HandResult.of(kind, entry, body["scores"]))
        self.record.tables.append(played)

    def play_round(
        self,
        number: int,
        *,
        substitutes: dict[str, str] | None = None,
        time_called: bool = False,
        unplayed_tables: int = 0,
    ) -> None:
        """Seat, publish and play round ``number``; check that it completes and the standings.

        ``substitutes``: registered name → who plays their seat. ``time_called``: the round's
        deadline passes (moved through the ORM), the tick runs in the worker and every table
        enters its round with nobody out (Rook). ``unplayed_tables``: the last tables enter
        nothing and the director closes the round.
        """
        body = self.seat(number)
        for name, substitute in (substitutes or {}).items():
            body = self.substitute(number, name, substitute)
        self.publish(number)
        if time_called:
            Round.objects.filter(tournament_id=self.tournament["id"], number=number).update(
                deadline=timezone.now() - timedelta(minutes=1)
            )
            ops_tasks.tick.delay()
            wait_for(
                f"time called on round {number}",
                lambda: self.round(number)["time_called"],
                self.worker,
            )
        playing = body["tables"][: len(body["tables"]) - unplayed_tables]
        for table in playing:
            self.play_table(number, table, nobody_out=time_called)
        if unplayed_tables:
            assert self.round(number)["state"] == "playing"
            response = self.api.post(f"{self.url}/rounds/{number}/close/")
            assert response.status_code == 200, response.content
        done = wait_for(
            f"round {number} complete",
            lambda: (b := self.round(number))["state"] == "complete" and b,
            self.worker,
        )
        states = [t["state"] for t in done["tables"]]
        assert states == ["reported"] * len(playing) + ["not_played"] * unplayed_tables
        self.record.rounds_complete = number
        self.check_standings()

    def standings(self) -> dict[str, Any]:
        response = self.api.get(f"{self.url}/standings/")
        assert response.status_code == 200, response.content
        return response.json()

    def check_standings(self, *, basis: str = "total") -> list[dict[str, Any]]:
        rows = self.standings()["rows"]
        assert comparable(rows) == expected_standings(
            self.record, basis=basis, missed=self.tournament["missed_round_score"]
        )
        return rows

    def check_placement_standings(self) -> None:
        """The same results, ranked on the placement basis (set through the ORM)."""
        Tournament.objects.filter(pk=self.tournament["id"]).update(basis="placement")
        body = self.standings()
        assert body["basis"] == "placement"
        assert comparable(body["rows"]) == expected_standings(
            self.record, basis="placement", missed=self.tournament["missed_round_score"]
        )


def start(
    api: APIClient,
    worker: WorkerProcess,
    club: Club,
    players: list[Player],
    *,
    seed: int,
    **settings: Any,
) -> Director:
    """Create a tournament through the API, register ``players``, and check the standings
    before any round: everyone shares first place."""
    response = api.post(
        "/api/v1/tournaments/",
        {"club": club.pk, "name": f"{settings['game']} evening", "seed": seed, **settings},
        format="json",
        HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
    )
    assert response.status_code == 201, response.content
    tournament = response.json()
    director = Director(api, worker, tournament, Record(settings["game"]), random.Random(seed))
    for player in players:
        director.register(player)
    rows = director.check_standings()
    # Before any score nobody is ranked (never "1=" on 0): every player listed, unranked.
    assert {(r["place"], r["ranked"]) for r in rows} == {("", False)}
    return director


def assert_worker_ran(worker: WorkerProcess, *names: str) -> None:
    log = worker.log()
    for name in names:
        assert f"Task {name}[" in log and "succeeded" in log, name


def finish(director: Director) -> list[dict[str, Any]]:
    """The final ranking: every round complete, the standings refreshed by the worker, the rows
    equal to the independent computation."""
    tournament_id = director.tournament["id"]
    rounds = director.tournament["rounds"]
    assert director.api.get(director.url + "/").json()["rounds_complete"] == rounds
    wait_for(
        "standings refreshed by the worker",
        lambda: (
            (t := Tournament.objects.get(pk=tournament_id)).standings_version == t.results_version
        ),
        director.worker,
    )
    rows = director.check_standings()
    places = [int(r["place"].rstrip("=")) for r in rows]
    assert places == sorted(places) and places[0] == 1
    response = director.api.post(director.url + "/rounds/")
    assert response.status_code == 409
    assert response.json()["conflict"]["code"] == "all_seated"
    return rows


# --- whole tournaments (real worker, Redis, PostgreSQL) -------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_rook_13_players_11_rounds_withdrawal_latecomer_and_time_called(
    celery_with_worker: WorkerProcess,
    club: Club,
    director_api: APIClient,
    make_players: Callable[[int], list[Player]],
) -> None:
    players = make_players(13)
    latecomer, leaver = players[12], players[3]
    director = start(
        director_api,
        celery_with_worker,
        club,
        players[:12],
        seed=13,
        game="rook",
        sizes=[3, 4, 5],
        minutes_per_round=45,
    )
    assert (director.tournament["rounds"], director.tournament["prefer"]) == (11, 4)

    for number in range(1, 12):
        if number == 3:
            director.register(latecomer, from_round=3)
            director.check_standings()
        if number == 5:
            director.withdraw(leaver.name, after=4)
            director.check_standings()
        director.play_round(number, time_called=number == 6)
        sizes = sorted(len(t["seats"]) for t in director.round(number)["tables"])
        assert sizes == ([4, 4, 5] if number in (3, 4) else [4, 4, 4])

    rows = finish(director)
    leaver_row = next(r for r in rows if r["name"] == leaver.name)
    assert leaver_row["withdrawn"] is True
    assert [leaver_row["rounds"][str(r)]["missed"] for r in range(1, 12)] == [False] * 4 + [
        True
    ] * 7
    late_row = next(r for r in rows if r["name"] == latecomer.name)
    assert [late_row["rounds"][str(r)]["missed"] for r in (1, 2, 3)] == [True, True, False]
    assert not TableSeat.objects.filter(
        registration_id=director.registrations[leaver.name], round__number__gt=4
    ).exists()
    # Round 6: time called, nobody out at any table.
    round6 = Round.objects.get(tournament_id=director.tournament["id"], number=6)
    assert round6.time_called_at is not None
    outs = Hand.objects.filter(game__tournament_table__round=round6).values_list(
        "record_text", flat=True
    )
    assert len(outs) == 3 and all('"out": null' in text for text in outs)
    assert Round.objects.filter(time_called_at__isnull=False).count() == 1
    assert_worker_ran(celery_with_worker, "tournaments.tasks.round_seat", "ops.tasks.tick")
    assert_worker_ran(celery_with_worker, "tournaments.tasks.standings_refresh")
    director.check_placement_standings()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_bluke_10_players_5_rounds_of_5_hands(
    celery_with_worker: WorkerProcess,
    club: Club,
    director_api: APIClient,
    make_players: Callable[[int], list[Player]],
) -> None:
    director = start(
        director_api,
        celery_with_worker,
        club,
        make_players(10),
        seed=10,
        game="bluke",
        rounds=5,
        hands_per_round=5,
    )
    assert (director.tournament["sizes"], director.tournament["prefer"]) == ([3, 4], 4)

    for number in range(1, 6):
        director.play_round(number)
        assert sorted(len(t["seats"]) for t in director.round(number)["tables"]) == [3, 3, 4]
        # Round r's tables played hands 5(r − 1) + 1 to 5r.
        sequences = set(
            Hand.objects.filter(
                game__tournament_table__round__tournament_id=director.tournament["id"],
                game__tournament_table__round__number=number,
            ).values_list("sequence", flat=True)
        )
        assert sequences == set(range(5 * number - 4, 5 * number + 1))

    finish(director)
    director.check_placement_standings()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_tonk_7_players_4_rounds_with_a_substitute_and_a_closed_round(
    celery_with_worker: WorkerProcess,
    club: Club,
    director_api: APIClient,
    make_players: Callable[[int], list[Player]],
) -> None:
    players = make_players(7)
    director = start(
        director_api,
        celery_with_worker,
        club,
        players,
        seed=7,
        game="tonk",
        rounds=4,
        hands_per_round=3,
        stake="0.25",
        currency="USD",
    )
    assert (director.tournament["sizes"], director.tournament["prefer"]) == ([2, 3], 3)
    absent = players[2].name

    director.play_round(1)
    director.play_round(2, substitutes={absent: "Sam Standin"})
    director.play_round(3, unplayed_tables=1)
    director.play_round(4)
    for number in range(1, 5):
        assert sorted(len(t["seats"]) for t in director.round(number)["tables"]) == [2, 2, 3]

    rows = finish(director)
    absent_row = next(r for r in rows if r["name"] == absent)
    assert absent_row["rounds"]["2"]["missed"] is True
    assert "Sam Standin" not in {r["name"] for r in rows}
    assert Game.objects.filter(seats__name="Sam Standin", seats__player=None).count() == 1
    assert sum(r["rounds"]["3"]["missed"] for r in rows) in (2, 3)  # the unplayed table
    director.check_placement_standings()


# --- who may change a tournament ------------------------------------------------------------------


def mutating_patterns() -> list[URLPattern]:
    """Every route of ``tournaments.urls`` that accepts POST (so a new one is checked too)."""
    return [
        p
        for p in get_resolver("tournaments.urls").url_patterns
        if hasattr(p.callback, "view_class") and hasattr(p.callback.view_class, "post")
    ]


def reading_patterns() -> list[URLPattern]:
    return [
        p
        for p in get_resolver("tournaments.urls").url_patterns
        if hasattr(p.callback, "view_class") and hasattr(p.callback.view_class, "get")
    ]


@dataclass
class Scene:
    club: Club
    tournament: Tournament
    registration: Registration
    spare: Player


@pytest.fixture
def scene(
    club: Club,
    director: Any,
    make_players: Callable[[int], list[Player]],
    django_capture_on_commit_callbacks: Any,
) -> Scene:
    """A tournament of ``club`` with four players registered and round 1 seated, and a club
    player not registered."""
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="Open", kind="tonk", rounds=3
    )
    players = make_players(5)
    registrations = [
        services.registration_add(tournament=tournament, player=p) for p in players[:4]
    ]
    with django_capture_on_commit_callbacks(execute=True):
        services.round_seat(tournament=tournament)
    assert tournament.round_set.get().state == Round.State.SEATED
    return Scene(club, tournament, registrations[0], players[4])


BODIES: dict[str, Callable[[Scene], Any]] = {
    "tournaments": lambda s: {"club": s.club.pk, "name": "Raid", "game": "tonk", "rounds": 2},
    "registrations": lambda s: {"player": s.spare.pk},
    "substitutes": lambda s: {"registration": s.registration.pk, "substitute": "Mallory"},
}


def url_of(pattern: URLPattern, scene: Scene) -> str:
    values = {
        "tournament_id": scene.tournament.pk,
        "registration_id": scene.registration.pk,
        "number": 1,
    }
    return reverse(
        f"tournaments-api:{pattern.name}",
        kwargs={k: values[k] for k in pattern.pattern.converters},
    )


def snapshot(scene: Scene) -> tuple[Any, ...]:
    rnd = scene.tournament.round_set.get()
    return (
        Tournament.objects.count(),
        list(Registration.objects.values_list("pk", "withdrawn_after")),
        (rnd.state, rnd.published_at, rnd.superseded),
        list(TableSeat.objects.values_list("pk", "registration_id", "substitute")),
        sorted(Game.objects.values_list("pk", "state")),
    )


def client_of(user: Any) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_the_table_of_mutating_urls_is_not_empty() -> None:
    assert {p.name for p in mutating_patterns()} == {
        "tournaments",
        "registrations",
        "withdraw",
        "rounds",
        "round-publish",
        "round-close",
        "round-regenerate",
        "substitutes",
    }


@pytest.mark.django_db
@pytest.mark.parametrize("pattern", mutating_patterns(), ids=lambda p: p.name)
@pytest.mark.parametrize("caller", ["director of another club", "club member", "anonymous"])
def test_only_the_clubs_directors_change_a_tournament(
    scene: Scene, member: Any, other_director: Any, pattern: URLPattern, caller: str
) -> None:
    user = {"director of another club": other_director, "club member": member, "anonymous": None}[
        caller
    ]
    body = BODIES.get(pattern.name, lambda s: None)(scene)
    before = snapshot(scene)

    response = client_of(user).post(url_of(pattern, scene), body, format="json")

    if caller == "anonymous":
        assert response.status_code in (401, 403), response.content
    elif caller == "club member" and pattern.name == "tournaments":
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "not_director"
    else:
        assert response.status_code == 404, response.content
    assert snapshot(scene) == before


@pytest.mark.django_db
@pytest.mark.parametrize("pattern", reading_patterns(), ids=lambda p: p.name)
def test_another_clubs_director_cannot_read_a_tournament(
    scene: Scene, other_director: Any, pattern: URLPattern
) -> None:
    response = client_of(other_director).get(url_of(pattern, scene))
    if pattern.name == "tournaments":
        assert response.status_code == 200
        assert response.json() == []
    else:
        assert response.status_code == 404
        # The same words as every API 404: no model named, nothing to tell a prober apart.
        assert response.json() == {"detail": "Not found."}


@pytest.mark.django_db
def test_the_director_gets_table_keys_and_members_only_published_rounds(
    scene: Scene, member: Any, director_api: APIClient
) -> None:
    url = f"/api/v1/tournaments/{scene.tournament.pk}/rounds/1/"
    tables = director_api.get(url).json()["tables"]
    assert tables and all(t["table_key"] and t["game"] for t in tables)
    listed = f"/api/v1/tournaments/{scene.tournament.pk}/rounds/"
    assert client_of(member).get(url).status_code == 404  # seated, not published
    assert client_of(member).get(listed).json() == []
    assert [r["state"] for r in director_api.get(listed).json()] == ["seated"]
    services.round_publish(round=scene.tournament.round_set.get())
    assert [r["state"] for r in client_of(member).get(listed).json()] == ["published"]
    shown = client_of(member).get(url).json()["tables"]
    assert [len(t["seats"]) for t in shown] == [len(t["seats"]) for t in tables]
    assert not any("table_key" in t or "game" in t for t in shown)


@pytest.mark.django_db
def test_refused_requests_answer_a_clear_error_and_change_nothing(
    scene: Scene, director_api: APIClient
) -> None:
    created = director_api.post(
        "/api/v1/tournaments/",
        {"club": scene.club.pk, "name": "Bad", "game": "bluke", "rounds": 2, "sizes": [3, 5]},
        format="json",
    )
    assert created.status_code == 400
    assert (created.json()["error"]["code"], created.json()["error"]["field"]) == (
        "bad_sizes",
        "sizes",
    )
    twice = director_api.post(
        f"/api/v1/tournaments/{scene.tournament.pk}/registrations/",
        {"player": scene.registration.player_id},
        format="json",
    )
    # The tournament's state refuses it (the player is registered): 409, as every state refusal.
    assert (twice.status_code, twice.json()["conflict"]["code"]) == (409, "already_registered")
    stranger = MembershipFactory(role=Membership.Role.DIRECTOR).club.players.create(name="Zoe")
    other = director_api.post(
        f"/api/v1/tournaments/{scene.tournament.pk}/registrations/",
        {"player": stranger.pk},
        format="json",
    )
    assert (other.status_code, other.json()["error"]["code"]) == (400, "other_club")
    assert Tournament.objects.count() == 1
    assert scene.tournament.registrations.count() == 4


@pytest.mark.django_db
def test_closing_a_round_with_a_hand_not_confirmed_answers_409_and_changes_nothing(
    scene: Scene, director_api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    rnd = scene.tournament.round_set.get()
    services.round_publish(round=rnd)
    table = rnd.tables.select_related("game").order_by("number").first()
    assert table is not None
    seats = list(Seat.objects.filter(game_id=table.game_id).order_by("position"))
    names = [s.name for s in seats]
    with django_capture_on_commit_callbacks(execute=True):
        hand, _created = scoring_services.hand_record(
            game=table.game,
            entry=tonk_hand(random.Random(3), names, names[0]),
            by=Actor(seat_id=seats[0].pk),
        )
    assert hand.status == Hand.Status.PROVISIONAL
    audit = list(AuditEntry.objects.values_list("pk", flat=True))
    before = snapshot(scene)
    close = f"/api/v1/tournaments/{scene.tournament.pk}/rounds/1/close/"

    refused = director_api.post(close)

    assert refused.status_code == 409
    assert refused.json() == {
        "conflict": {
            "code": "unconfirmed",
            "message": f"round 1 cannot close: table {table.number} has hands that are not "
            "confirmed; confirm or resolve them first (a director may confirm a hand, with a "
            "reason, on the table's hand page)",
            "round": 1,
            "tables": [table.number],
        }
    }
    assert snapshot(scene) == before
    assert list(AuditEntry.objects.values_list("pk", flat=True)) == audit

    with django_capture_on_commit_callbacks(execute=True):
        scoring_services.hand_confirm(
            game=table.game, number=hand.number, by=Actor(seat_id=seats[1].pk)
        )
        closed = director_api.post(close)

    assert closed.status_code == 200
    assert closed.json()["state"] == "complete"
    assert list(AuditEntry.objects.exclude(pk__in=audit).values_list("action", flat=True)) == [
        "close",
        "complete",
    ]
