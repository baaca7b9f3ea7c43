"""One hand, once (issue 24): two seats sending the same hand, each with its own idempotency key,
record it once, through the API and through the table page, for every game; the other answer
is 409 ``hand_not_next`` with nothing saved. A hand sent again later under a new key is refused
unless it says it is the next hand.

Each phone reads the sheet (the API's hands, the page's form) before either sends, as two
phones at a table do; the sends then reach the service one after the other, which is what the
game's row lock makes of two sends at once (on SQLite the database takes one writer at a time).
The same races with the two sends released together in two threads, on PostgreSQL's real row
locks, are at the end (services tests).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from scoring import services
from scoring.errors import HandNotNext
from scoring.models import Game, Hand, ScoreLine
from tests.factories import UserFactory, sit
from tests.hands import numbered
from tests.scoring.conftest import new_key
from tests.scoring.test_api_schema import schema_json
from tests.scoring.test_entry_points_same_record import HANDS, PLAYERS
from tests.scoring.test_pages_table import (
    CAUGHT_KNOCK,
    CY_TONKS_OUT,
    form,
    parse,
    post_hand,
    tonk_game,
    url,
    value_of,
)
from tests.services import at_once

TABLES = 50
KINDS = ("tonk", "rook", "bluke")

#: A send prepared from what the phone read: it returns (status, the answer's body or page).
Send = Callable[[], tuple[int, Any]]


def tables(kind: str, n: int = TABLES) -> list[Game]:
    return [services.game_start(kind=kind, players=PLAYERS)[0] for _ in range(n)]


def api_phone(game: Game, position: int) -> Send:
    """Seat ``position``'s phone reads the game's hands, then sends the first hand of the
    game's kind as the next one, with a key of its own."""
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Seat {game.seats.get(position=position).seat_key}")
    seen = api.get(f"/api/v1/games/{game.pk}/hands/").json()
    body = numbered(HANDS[game.kind][0][1], len(seen) + 1)
    key = new_key()

    def send() -> tuple[int, Any]:
        response = api.post(
            f"/api/v1/games/{game.pk}/hands/", body, format="json", HTTP_IDEMPOTENCY_KEY=key
        )
        return response.status_code, response.json()

    return send


def page_phone(game: Game, position: int) -> Send:
    """Seat ``position``'s phone opens the table page, then types the first hand of the game's
    kind into the form it was shown and sends it."""
    client = Client()
    sit(client, game, position)
    shown = parse(client.get(url("table", game)))
    data = {k: str(v) for k, v in HANDS[game.kind][0][0].items()}
    data |= {name: value_of(shown, name) for name in ("idempotency_key", "after")}

    def send() -> tuple[int, Any]:
        response = client.post(url("hand-new", game), data)
        return response.status_code, response

    return send


PHONES = {"api": api_phone, "page": page_phone}
RECORDED = {"api": 201, "page": 302}


def assert_one_hand_per_table(
    games: list[Game], answers: list[list[tuple[int, Any]]], via: str
) -> None:
    statuses = Counter(status for pair in answers for status, _body in pair)
    assert statuses == {RECORDED[via]: len(games), 409: len(games)}
    for game, pair in zip(games, answers, strict=True):
        assert sorted(status for status, _ in pair) == sorted([RECORDED[via], 409])
        assert Hand.objects.filter(game=game).count() == 1
        assert ScoreLine.objects.filter(game=game).count() == len(PLAYERS)
        game.refresh_from_db()
        assert (game.last_number, game.current_hands) == (1, 1)
        assert game.totals == services.game_totals_rebuild(game=game)
        refused = next(body for status, body in pair if status == 409)
        if via == "api":
            conflict = refused["conflict"]
            assert (conflict["code"], conflict["number"], conflict["next"]) == (
                "hand_not_next",
                1,
                2,
            )
            assert [hand["number"] for hand in conflict["hands"]] == [1]
        else:
            page = parse(refused)
            assert "Another phone entered a hand meanwhile" in page.text()
            # What was typed stays; the form now follows the hand that arrived (shown on the
            # sheet): sending it again means "another hand".
            assert value_of(page, "after") == "1"
            typed = HANDS[game.kind][0][0]
            for name in [k for k in typed if k.startswith(("held_", "melds_", "bid_", "tricks_"))]:
                assert value_of(page, name) == str(typed[name])
            assert page.find("tr", id="hand-1") is not None
            assert "Entered meanwhile: " in page.text()


@pytest.mark.django_db
@pytest.mark.parametrize("via", sorted(PHONES))
@pytest.mark.parametrize("kind", KINDS)
def test_two_seats_sending_the_same_hand_record_it_once(kind: str, via: str) -> None:
    games = tables(kind)
    answers = []
    for game in games:
        first, second = PHONES[via](game, 0), PHONES[via](game, 1)  # both read the sheet
        answers.append([first(), second()])
    assert_one_hand_per_table(games, answers, via)


@pytest.mark.django_db
def test_a_tonk_hand_sent_again_later_is_refused_unless_it_says_it_is_the_next() -> None:
    (game,) = tables("tonk", 1)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Seat {game.seats.get(position=0).seat_key}")
    hand = HANDS["tonk"][0][1]

    def send(number: int | None, key: str) -> Any:
        body = hand if number is None else numbered(hand, number)
        url_ = f"/api/v1/games/{game.pk}/hands/"
        return api.post(url_, body, format="json", HTTP_IDEMPOTENCY_KEY=key)

    first_key = new_key()
    assert send(1, first_key).status_code == 201
    again = send(1, new_key())  # the same hand, later, under a new key
    assert again.status_code == 409
    assert again.json()["conflict"]["code"] == "hand_not_next"
    missing = send(None, new_key())  # a client that does not say which hand it is
    assert missing.status_code == 428
    assert missing.json()["conflict"]["code"] == "hand_number_required"
    assert Hand.objects.filter(game=game).count() == 1
    # A retry of the first request still answers as it did, whatever the number says now.
    retry = send(1, first_key)
    assert (retry.status_code, retry.json()["number"]) == (200, 1)
    assert send(None, first_key).status_code == 200
    # Said to be the next hand (a second deal that ended the same way), it is recorded.
    deliberate = send(2, new_key())
    assert (deliberate.status_code, deliberate.json()["number"]) == (201, 2)
    assert Hand.objects.filter(game=game).count() == 2


@pytest.mark.django_db
def test_a_second_copy_of_a_rook_round_is_a_conflict_not_a_rule_error() -> None:
    (game,) = tables("rook", 1)
    first, second = api_phone(game, 0), api_phone(game, 1)
    assert first()[0] == 201
    status, body = second()
    assert status == 409
    assert body["conflict"]["code"] == "hand_not_next"
    assert Hand.objects.filter(game=game).count() == 1


@pytest.mark.django_db
def test_the_service_checks_the_number_under_the_lock_and_a_replay_comes_first() -> None:
    (game,) = tables("tonk", 1)
    hand = HANDS["tonk"][0][1]
    recorded, created = services.hand_record(game=game, entry=hand, number=1, idempotency_key="k")
    assert (recorded.number, created) == (1, True)
    replay, created = services.hand_record(game=game, entry=hand, number=1, idempotency_key="k")
    assert (replay.pk, created) == (recorded.pk, False)
    with pytest.raises(HandNotNext) as refused:
        services.hand_record(game=game, entry=hand, number=1, idempotency_key="other")
    assert refused.value.details == {"number": 1, "next": 2, "last_number": 1}
    assert Hand.objects.filter(game=game).count() == 1


# --- the same, released together on PostgreSQL's row locks (services tests) --------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("via", sorted(PHONES))
@pytest.mark.parametrize("kind", KINDS)
def test_two_seats_sending_the_same_hand_at_once_record_it_once(kind: str, via: str) -> None:
    games = tables(kind)
    answers = []
    for game in games:
        phones = [PHONES[via](game, 0), PHONES[via](game, 1)]
        pair = at_once(2, lambda i, phones=phones: phones[i]())
        assert not any(isinstance(answer, BaseException) for answer in pair), pair
        answers.append(pair)
    assert_one_hand_per_table(games, answers, via)


# --- the import and the schema -----------------------------------------------------------------


@pytest.mark.django_db
def test_an_imported_hand_whose_number_is_not_its_place_is_409_and_nothing_is_stored() -> None:
    user = UserFactory()
    api = APIClient()
    api.force_authenticate(user)
    hands = [hand for _data, hand in HANDS["rook"]]
    sheet = {"format": "tabletally.scoresheet/1", "game": "rook", "players": PLAYERS}

    skipped = api.post(
        "/api/v1/scoresheets/",
        {**sheet, "hands": [numbered(hands[0], 1), numbered(hands[1], 3)]},
        format="json",
    )
    assert skipped.status_code == 409
    conflict = skipped.json()["conflict"]
    assert (conflict["code"], conflict["number"], conflict["next"]) == ("hand_not_next", 3, 2)
    # A sheet's numbers are checked against their places: nothing was "entered meanwhile".
    assert conflict["message"] == "hand 3 is not the next one: the next is hand 2"
    typed = api.post(
        "/api/v1/scoresheets/", {**sheet, "hands": [{**hands[0], "number": "1"}]}, format="json"
    )
    assert typed.status_code == 400
    assert (typed.json()["error"]["code"], typed.json()["error"]["hand"]) == ("bad_format", 1)
    zero = api.post(
        "/api/v1/scoresheets/", {**sheet, "hands": [{**hands[0], "number": 0}]}, format="json"
    )
    assert zero.status_code == 400
    assert zero.json()["error"]["message"] == "'number' must be a whole number of at least 1"
    assert not Game.objects.filter(created_by=user).exists()
    kept = api.post(
        "/api/v1/scoresheets/",
        {**sheet, "hands": [numbered(hands[0], 1), numbered(hands[1], 2)]},
        format="json",
    )
    assert kept.status_code == 201
    stored = Hand.objects.filter(game_id=kept.json()["id"]).order_by("number")
    assert [(h.number, h.entry) for h in stored] == [(1, hands[0]), (2, hands[1])]


def test_the_schema_requires_the_number_and_documents_409_and_428() -> None:
    post = schema_json()["paths"]["/api/v1/games/{game_id}/hands/"]["post"]
    schema = schema_json()
    body = post["requestBody"]["content"]["application/json"]["schema"]
    shapes = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]["anyOf"]
    variants = [v for shape in shapes for v in shape.get("oneOf", [shape])]
    assert len(shapes) == 3  # one per game: its hand shape plus the number
    assert all("number" in v["required"] for v in variants)
    assert all(v["properties"]["number"]["minimum"] == 1 for v in variants)
    assert {"409", "428"} <= set(post["responses"])
    assert "hand_number_required" in post["responses"]["428"]["description"]
    assert "hand_not_next" in post["responses"]["409"]["description"]


@pytest.mark.django_db
def test_a_page_form_that_does_not_say_which_hand_it_follows_saves_nothing(
    client: Client,
) -> None:
    """A page cached before the form said which hand it follows, or a script: which hand it
    is cannot be told, so it is refused like a hand entered meanwhile (409, nothing saved); the
    cards typed stay, and the form now follows the sheet as it is, to be sent again."""
    game = sit(client, tonk_game())
    assert post_hand(client, game, dict(CAUGHT_KNOCK)).status_code == 302
    before = (Hand.objects.filter(game=game).count(), Game.objects.get(pk=game.pk).version)

    response = client.post(url("hand-new", game), form(**CY_TONKS_OUT))

    assert response.status_code == 409
    assert (Hand.objects.filter(game=game).count(), Game.objects.get(pk=game.pk).version) == before
    doc = parse(response)
    assert "did not say which hand it follows" in response.content.decode()
    assert value_of(doc, "after") == "1"  # it follows the sheet as it is now
    assert value_of(doc, "held_1") == "9S 9D"  # the cards typed stay
