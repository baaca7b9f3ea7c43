"""The API of trust at the table (issue 12): a seat key enters and confirms, a dispute needs a
reason, a director resolves, a void carries its reason and shows who and why until restored,
each hand says its status and who entered it, the audit lists every step for those who may
read it, and keys are shown to directors and a casual game's creator only."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring import services
from scoring.models import Game, HandEvent
from tests.factories import MembershipFactory
from tests.hands import next_number, numbered
from tests.scoring.conftest import new_key
from tests.scoring.sheets import TONK_KNOCK_HAND as HAND
from tournaments.models import Membership

pytestmark = pytest.mark.django_db

BEN_WINS = {"dealer": "Ana", "end": "knock", "by": "Ben", "held": {"Ana": "KH QH", "Ben": "AS"}}


def client(authorization: str | None = None, user: Any = None) -> APIClient:
    api = APIClient()
    if authorization:
        api.credentials(HTTP_AUTHORIZATION=authorization)
    if user is not None:
        api.force_authenticate(user)
    return api


@pytest.fixture
def world() -> dict[str, Any]:
    """A casual Tonk game of a club that needs one other seat's confirmation: its creator,
    the club's director, a member not seated, and a client per seat key."""
    director = MembershipFactory(role=Membership.Role.DIRECTOR)
    creator = MembershipFactory(club=director.club).user
    game, _ = services.game_start(
        kind="tonk",
        players=["Ana", "Ben"],
        club=director.club,
        created_by=creator,
        confirmation=Game.Confirmation.ONE_OTHER,
    )
    ana, ben = game.seats.order_by("position")
    return {
        "game": game,
        "ana": client(f"Seat {ana.seat_key}"),
        "ben": client(f"Seat {ben.seat_key}"),
        "director": client(user=director.user),
        "creator": client(user=creator),
        "member": client(user=MembershipFactory(club=director.club).user),
        "stranger": client(user=MembershipFactory().user),
        "link": client(f"Table {game.table_key}"),
        "seats": (ana, ben),
    }


def hands_url(game: Game, tail: str = "") -> str:
    return f"/api/v1/games/{game.pk}/hands/{tail}"


def enter(world: dict[str, Any], who: str = "ana", hand: Any = HAND) -> Any:
    body = numbered(hand, next_number(world["game"]))
    return world[who].post(
        hands_url(world["game"]), body, format="json", HTTP_IDEMPOTENCY_KEY=new_key()
    )


def test_a_seat_key_enters_a_provisional_hand_that_says_who_entered_it(
    world: dict[str, Any],
) -> None:
    answer = enter(world)
    assert answer.status_code == 201
    body = answer.json()
    assert (body["status"], body["entered_via"], body["entered_by"], body["reason"]) == (
        "provisional",
        "seat",
        None,
        "",
    )
    assert body["entered_seat"] == {"seat": 1, "name": "Ana", "player": None}
    game = world["director"].get(f"/api/v1/games/{world['game'].pk}/").json()
    assert game["confirmation"] == "one_other"
    assert [(h["number"], h["status"], h["entered_seat"]["name"]) for h in game["hands"]] == [
        (1, "provisional", "Ana")
    ]


def test_another_seat_confirms_and_the_seat_that_entered_it_may_not(
    world: dict[str, Any],
) -> None:
    enter(world)
    own = world["ana"].post(hands_url(world["game"], "1/confirm/"))
    assert own.status_code == 403
    assert "another player" in own.json()["detail"]
    ok = world["ben"].post(hands_url(world["game"], "1/confirm/"), HTTP_IDEMPOTENCY_KEY="c1")
    assert (ok.status_code, ok.json()["status"]) == (200, "confirmed")
    again = world["ben"].post(hands_url(world["game"], "1/confirm/"), HTTP_IDEMPOTENCY_KEY="c1")
    assert (again.status_code, again.json()["status"]) == (200, "confirmed")


def test_confirming_a_hand_that_does_not_exist_is_404(world: dict[str, Any]) -> None:
    answer = world["ben"].post(hands_url(world["game"], "7/confirm/"))
    assert answer.status_code == 404
    assert answer.json()["conflict"]["code"] == "no_such_hand"


def test_a_dispute_needs_a_reason_and_then_shows_disputed(world: dict[str, Any]) -> None:
    enter(world)
    url = hands_url(world["game"], "1/dispute/")
    missing = world["ben"].post(url, {}, format="json")
    assert (missing.status_code, missing.json()["error"]["code"]) == (400, "bad_format")
    blank = world["ben"].post(url, {"reason": "  "}, format="json")
    assert (blank.status_code, blank.json()["conflict"]["code"]) == (409, "reason_required")
    extra = world["ben"].post(url, {"reason": "x", "why": "y"}, format="json")
    assert extra.status_code == 400
    ok = world["ben"].post(url, {"reason": "I held AS"}, format="json")
    assert (ok.status_code, ok.json()["status"]) == (200, "disputed")
    confirm = world["ben"].post(hands_url(world["game"], "1/confirm/"))
    assert (confirm.status_code, confirm.json()["conflict"]["code"]) == (409, "hand_disputed")
    # Not a seat: the creator may not dispute.
    creator = world["creator"].post(url, {"reason": "no"}, format="json")
    assert creator.status_code == 403


def test_only_a_director_resolves_and_a_correction_comes_confirmed(
    world: dict[str, Any],
) -> None:
    enter(world)
    world["ben"].post(hands_url(world["game"], "1/dispute/"), {"reason": "no"}, format="json")
    url = hands_url(world["game"], "1/resolve/")
    body = {"action": "correct", "reason": "Ben went out", "hand": BEN_WINS}
    for who in ("ana", "ben", "creator", "member"):
        assert world[who].post(url, body, format="json").status_code == 403, who
    no_hand = world["director"].post(url, {"action": "correct", "reason": "x"}, format="json")
    assert (no_hand.status_code, list(no_hand.json()["error"]["fields"])) == (400, ["hand"])
    bad_action = world["director"].post(url, {"action": "shrug", "reason": "x"}, format="json")
    assert bad_action.status_code == 400
    ok = world["director"].post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="r1")
    assert ok.status_code == 200
    assert (ok.json()["revision"], ok.json()["status"], ok.json()["reason"]) == (
        2,
        "confirmed",
        "Ben went out",
    )
    retry = world["director"].post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="r1")
    assert retry.json()["revision"] == 2


def test_a_void_takes_its_reason_from_the_query_shows_who_and_why_and_restores(
    world: dict[str, Any],
) -> None:
    enter(world)
    game = world["game"]
    long = world["ben"].delete(hands_url(game, "1/") + "?reason=" + "x" * 501)
    assert long.status_code == 400
    voided = world["ben"].delete(hands_url(game, "1/") + "?reason=a%20misdeal")
    assert (voided.status_code, voided.json()["state"]) == (200, "voided")
    history = world["member"].get(hands_url(game, "1/")).json()
    assert history["void"]["reason"] == "a misdeal"
    assert history["void"]["seat"] == {"seat": 2, "name": "Ben", "player": None}
    assert history["void"]["user"] is None
    assert [r["state"] for r in history["revisions"]] == ["voided"]
    restored = world["ana"].post(
        hands_url(game, "1/restore/"), {"reason": "dealt right"}, format="json"
    )
    assert (restored.status_code, restored.json()["state"]) == (200, "current")
    again = world["ana"].post(hands_url(game, "1/restore/"))  # no body, already counts
    assert (again.status_code, again.json()["state"]) == (200, "current")
    assert world["member"].get(hands_url(game, "1/")).json()["void"] is None


def test_the_audit_lists_every_step_with_who_and_why(world: dict[str, Any]) -> None:
    enter(world)
    game = world["game"]
    world["ben"].post(hands_url(game, "1/confirm/"))
    assert world["ben"].delete(hands_url(game, "1/") + "?reason=mine").status_code == 403
    world["director"].delete(hands_url(game, "1/") + "?reason=twice")  # confirmed: a director's
    world["director"].post(hands_url(game, "1/restore/"), {"reason": "once"}, format="json")
    audit = world["director"].get(f"/api/v1/games/{game.pk}/audit/")
    assert audit.status_code == 200
    steps = [(s["action"], s["seat"], s["user"], s["reason"]) for s in audit.json()]
    director = world["director"].handler._force_user.username
    assert steps == [
        ("enter", "Ana", None, ""),
        ("confirm", "Ben", None, ""),
        ("void", None, director, "twice"),
        ("restore", None, director, "once"),
    ]


@pytest.mark.parametrize(
    ("who", "answer"),
    [
        ("director", 200),
        ("creator", 200),
        ("ana", 200),
        ("member", 403),
        ("link", 403),
        ("stranger", 404),
    ],
)
def test_who_reads_a_casual_games_audit(world: dict[str, Any], who: str, answer: int) -> None:
    assert world[who].get(f"/api/v1/games/{world['game'].pk}/audit/").status_code == answer


def test_a_tournament_tables_audit_is_the_directors_alone(world: dict[str, Any]) -> None:
    game = world["game"]
    Game.objects.filter(pk=game.pk).update(directed=True)
    assert world["director"].get(f"/api/v1/games/{game.pk}/audit/").status_code == 200
    for who in ("ana", "creator", "member", "link"):
        assert world[who].get(f"/api/v1/games/{game.pk}/audit/").status_code == 403, who


def test_keys_are_shown_to_the_director_and_the_creator_and_never_listed(
    world: dict[str, Any],
) -> None:
    game = world["game"]
    seat_keys = {s.seat_key for s in world["seats"]}
    for who in ("director", "creator"):
        body = world[who].get(f"/api/v1/games/{game.pk}/").json()
        assert body["table_key"] == game.table_key
        assert {p["seat_key"] for p in body["players"]} == seat_keys
    for who in ("member", "ana", "link"):
        text = world[who].get(f"/api/v1/games/{game.pk}/").content.decode()
        assert game.table_key not in text and not any(k in text for k in seat_keys), who
    for who in ("director", "creator", "member"):
        listing = world[who].get("/api/v1/games/").content.decode()
        assert str(game.pk) in listing
        assert game.table_key not in listing and not any(k in listing for k in seat_keys)


def test_a_tournament_tables_keys_are_not_shown_to_its_clubs_members(
    world: dict[str, Any],
) -> None:
    game = world["game"]
    Game.objects.filter(pk=game.pk).update(directed=True)
    creator = world["creator"].get(f"/api/v1/games/{game.pk}/").json()
    assert "table_key" not in creator
    assert all("seat_key" not in p for p in creator["players"])
    director = world["director"].get(f"/api/v1/games/{game.pk}/").json()
    assert director["table_key"] == game.table_key
    listing = world["member"].get("/api/v1/games/").json()["results"]
    assert [g["id"] for g in listing] == [game.pk]
    assert set(listing[0]) == {"id", "game", "players", "club", "state", "created_at", "totals"}


def test_a_game_starts_with_the_confirmation_asked_for(api: APIClient) -> None:
    body = {"game": "tonk", "players": [{"name": "Ana"}, {"name": "Ben"}]}
    started = api.post("/api/v1/games/", {**body, "confirmation": "all"}, format="json")
    assert (started.status_code, started.json()["confirmation"]) == (201, "all")
    assert started.json()["directed"] is False
    default = api.post("/api/v1/games/", body, format="json")
    assert default.json()["confirmation"] == "none"
    bad = api.post("/api/v1/games/", {**body, "confirmation": "maybe"}, format="json")
    assert (bad.status_code, list(bad.json()["error"]["fields"])) == (400, ["confirmation"])


def test_a_step_on_a_revision_corrected_meanwhile_is_409_with_nothing_changed(
    world: dict[str, Any],
) -> None:
    """One hand, once (issue 24): confirm, dispute, restore and void may say the revision they
    act on; one no longer current is 409 ``stale_revision`` with the current one."""
    enter(world)
    game = world["game"]
    corrected = world["ana"].put(
        hands_url(game, "1/"), {"revision": 1, "hand": HAND}, format="json"
    )
    assert (corrected.status_code, corrected.json()["revision"]) == (200, 2)
    before = (HandEvent.objects.filter(game=game).count(), Game.objects.get(pk=game.pk).version)

    for tail, body in (("confirm/", {"revision": 1}), ("dispute/", {"revision": 1, "reason": "x"})):
        answer = world["ben"].post(hands_url(game, f"1/{tail}"), body, format="json")
        assert answer.status_code == 409, tail
        conflict = answer.json()["conflict"]
        assert (conflict["code"], conflict["current_revision"]) == ("stale_revision", 2)
    void = world["director"].delete(hands_url(game, "1/") + "?reason=x&revision=1")
    assert (void.status_code, void.json()["conflict"]["code"]) == (409, "stale_revision")
    assert world["director"].delete(hands_url(game, "1/") + "?revision=0").status_code == 400
    after = (HandEvent.objects.filter(game=game).count(), Game.objects.get(pk=game.pk).version)
    assert after == before
    ok = world["ben"].post(hands_url(game, "1/confirm/"), {"revision": 2}, format="json")
    assert (ok.status_code, ok.json()["status"]) == (200, "confirmed")
