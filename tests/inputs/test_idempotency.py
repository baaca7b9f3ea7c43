"""Idempotency keys (issue 14, row 5): every endpoint and page form that takes a key ties it
to the request (method, resource, body) and to the caller, by one rule (``ops.idempotency``).

Through every API operation that documents an ``Idempotency-Key`` header (found in the OpenAPI
schema: an operation that takes the header and has no case below fails the test), and through
every page form that carries an ``idempotency_key`` field:

- a retry (same key, same body) answers as the first request did and stores nothing more;
- the same key with another body, or on another resource, is 409 ``idempotency_key_reused``,
  nothing stored;
- a key over 255 characters, empty, or holding a space, a control character or non-ASCII, is
  400 ``bad_format`` naming the header (a page: the form refused), nothing stored;
- another caller's same key never replays the first caller's answer: a write of their own
  (games, imports, tournaments, round seatings: the key is the user's), or 409 within a game;
- a user's creates share one space of keys, and so do a game's hands and their steps: the
  key of one on another is 409, nothing stored; a round's seat request replays even after the
  round was played;
- a page form sent with a refused key says so (400) and comes back with a fresh key that
  works.
"""

from __future__ import annotations

import copy
import html
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django import forms
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from ops import idempotency
from scoring import services
from scoring.models import Game, Hand
from tests.factories import MembershipFactory, PlayerFactory, sit
from tests.hands import next_number, numbered
from tests.inputs.conftest import nothing_stored
from tests.scoring.sheets import TONK_KNOCK_HAND, TONK_KNOCK_SHEET
from tests.scoring.test_pages_games import Page
from tests.shared_data import kept_for_the_module, without_cookies
from tournaments import services as tournament_services
from tournaments.models import Membership, Round, Tournament

pytestmark = pytest.mark.django_db

KEY = "retry-me-01"
HEADER = idempotency.HEADER
#: Hands of a Tonk game of Ana and Ben (the second: Ben wins).
HAND_A = TONK_KNOCK_HAND
HAND_B = {"dealer": "Ana", "end": "knock", "by": "Ben", "held": {"Ana": "KH QH", "Ben": "AS"}}
HAND_C = {"dealer": "Ben", "end": "knock", "by": "Ana", "held": {"Ana": "2S", "Ben": "KD QD"}}

#: Keys the rule refuses, each for its own reason.
BAD_KEYS = {
    "too long": "k" * (idempotency.MAX_LENGTH + 1),
    "a space inside": "two words",
    "a control character": "key\x01one",
    "a tab inside": "key\tone",
    "non-ASCII": "clé-1",
    "a zero-width space": "key\u200bone",
    "a trailing tab": "x\t",
    "a DEL": "a\x7f",
    "one accent": "ké",
}
#: And in a header: one sent empty, one with spaces around it (a key is taken exactly as sent).
BAD_HEADERS = {**BAD_KEYS, "empty": "", "spaces around": " key-1 "}


def api(user: Any = None, authorization: str | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    if authorization:
        client.credentials(HTTP_AUTHORIZATION=authorization)
    return client


class World:
    """A club with two directors (not seated), a casual Tonk game of Ana and Ben that needs
    one other seat's confirmation, with two hands entered by Ana, a second game, and two
    tournaments with a failed round 1 each."""

    def __init__(self) -> None:
        self.director = MembershipFactory(role=Membership.Role.DIRECTOR)
        self.club = self.director.club
        self.director2 = MembershipFactory(club=self.club, role=Membership.Role.DIRECTOR)
        self.d1 = api(self.director.user)
        self.d2 = api(self.director2.user)
        self.game = self._game()
        self.other_game = self._game()
        ana, ben = self.game.seats.order_by("position")
        self.ana = api(authorization=f"Seat {ana.seat_key}")
        self.ben = api(authorization=f"Seat {ben.seat_key}")
        for number, hand in enumerate((HAND_A, HAND_B), 1):
            answer = self.ana.post(
                self.hands(), numbered(hand, number), format="json", HTTP_IDEMPOTENCY_KEY=new()
            )
            assert answer.status_code == 201, answer.content
        players = [PlayerFactory(club=self.club) for _ in range(4)]
        self.tournaments = [self._failed_tournament(players, n) for n in (1, 2)]

    def _game(self) -> Game:
        game, _ = services.game_start(
            kind="tonk",
            players=["Ana", "Ben"],
            club=self.club,
            created_by=self.director.user,
            confirmation=Game.Confirmation.ONE_OTHER,
        )
        return game

    def _failed_tournament(self, players: list[Any], n: int) -> Tournament:
        tournament, _ = tournament_services.tournament_create(
            club=self.club, created_by=self.director.user, name=f"Cup {n}", kind="tonk", rounds=3
        )
        for player in players:
            tournament_services.registration_add(tournament=tournament, player=player)
        Round.objects.create(
            tournament=tournament,
            number=1,
            state=Round.State.FAILED,
            failure={"code": "too_few_players", "template": "it failed", "params": {}},
        )
        return tournament

    def hands(self, game: Game | None = None, tail: str = "") -> str:
        return f"/api/v1/games/{(game or self.game).pk}/hands/{tail}"

    def dispute(self, number: int) -> None:
        url = self.hands(tail=f"{number}/dispute/")
        assert self.ben.post(url, {"reason": "no"}, format="json").status_code == 200

    def void(self, number: int) -> None:
        assert self.d1.delete(self.hands(tail=f"{number}/?reason=x")).status_code == 200


_serial = iter(range(10**6))


def new() -> str:
    return f"fresh-{next(_serial)}"


@dataclass(frozen=True)
class Case:
    """One operation that takes a key: ``send(world, key, variant, caller)`` makes the request
    (``variant``: ``first``, ``other_body``, ``other_path``; ``caller``: ``first``, ``second``).
    ``prepare`` readies the world. ``created``: the first answer's status. ``second_caller``:
    what another caller's same key gets: ``"independent"`` (its own write) or ``409``."""

    send: Callable[[World, str, str, str], Any]
    created: int
    second_caller: str | int
    prepare: Callable[[World], None] = lambda w: None
    has_other_body: bool = True
    has_other_path: bool = True


def _games(w: World, key: str, variant: str, caller: str) -> Any:
    client = w.d1 if caller == "first" else w.d2
    if variant == "other_path":  # the same key, to import a sheet
        return _scoresheets(w, key, "first", caller)
    names = ["Ana", "Ben"] if variant == "first" else ["Cy", "Dee"]
    body = {"game": "tonk", "players": [{"name": n} for n in names]}
    return client.post("/api/v1/games/", body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def _scoresheets(w: World, key: str, variant: str, caller: str) -> Any:
    client = w.d1 if caller == "first" else w.d2
    if variant == "other_path":  # the same key, to start a game
        return _games(w, key, "first", caller)
    sheet = copy.deepcopy(TONK_KNOCK_SHEET)
    if variant == "other_body":
        sheet["hands"] = [HAND_B]
    return client.post("/api/v1/scoresheets/", sheet, format="json", HTTP_IDEMPOTENCY_KEY=key)


def _hand_new(w: World, key: str, variant: str, caller: str) -> Any:
    client = w.ana if caller == "first" else w.ben
    if variant == "other_path":  # the same key, to correct hand 1
        body = {"revision": 1, "hand": HAND_C}
        return client.put(w.hands(tail="1/"), body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    hand = numbered(HAND_C if variant == "first" else HAND_A, 3)  # after Ana's two
    return client.post(w.hands(), hand, format="json", HTTP_IDEMPOTENCY_KEY=key)


def _hand_correct(w: World, key: str, variant: str, caller: str) -> Any:
    client = w.ana if caller == "first" else w.ben
    number = 2 if variant == "other_path" else 1
    hand = HAND_C if variant != "other_body" else HAND_B
    body = {"revision": 1, "hand": hand}
    return client.put(w.hands(tail=f"{number}/"), body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def _hand_void(w: World, key: str, variant: str, caller: str) -> Any:
    client = w.d1 if caller == "first" else w.d2
    number = 2 if variant == "other_path" else 1
    reason = "other" if variant == "other_body" else "typo"
    return client.delete(w.hands(tail=f"{number}/?reason={reason}"), HTTP_IDEMPOTENCY_KEY=key)


def _step(action: str, who: tuple[str, str]) -> Callable[[World, str, str, str], Any]:
    def send(w: World, key: str, variant: str, caller: str) -> Any:
        client = getattr(w, who[0] if caller == "first" else who[1])
        number = 2 if variant == "other_path" else 1
        body: dict[str, Any] = {"reason": "checked" if variant != "other_body" else "other"}
        if action == "resolve":
            body["action"] = "confirm"
        url = w.hands(tail=f"{number}/{action}/")
        return client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key)

    return send


def _disputed(w: World) -> None:
    w.dispute(1)
    w.dispute(2)


def _voided(w: World) -> None:
    w.void(2)  # Tonk: any hand may be voided, and restored
    w.void(1)


def _tournaments(w: World, key: str, variant: str, caller: str) -> Any:
    client = w.d1 if caller == "first" else w.d2
    name = "Open" if variant == "first" else "Another open"
    body = {"club": w.club.pk, "name": name, "game": "tonk", "rounds": 3}
    return client.post("/api/v1/tournaments/", body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def _round_retry(w: World, key: str, variant: str, caller: str) -> Any:
    client = w.d1 if caller == "first" else w.d2
    tournament = w.tournaments[1 if variant == "other_path" or caller == "second" else 0]
    return client.post(f"/api/v1/tournaments/{tournament.pk}/rounds/", HTTP_IDEMPOTENCY_KEY=key)


#: Every API operation that takes an ``Idempotency-Key``, by (method, path in the schema).
API_CASES: dict[tuple[str, str], Case] = {
    ("POST", "/api/v1/games/"): Case(_games, 201, "independent"),
    ("POST", "/api/v1/scoresheets/"): Case(_scoresheets, 201, "independent"),
    ("POST", "/api/v1/games/{game_id}/hands/"): Case(_hand_new, 201, 409),
    ("PUT", "/api/v1/games/{game_id}/hands/{number}/"): Case(_hand_correct, 200, 409),
    ("DELETE", "/api/v1/games/{game_id}/hands/{number}/"): Case(_hand_void, 200, 409),
    ("POST", "/api/v1/games/{game_id}/hands/{number}/confirm/"): Case(
        _step("confirm", ("ben", "d2")), 200, 409
    ),
    ("POST", "/api/v1/games/{game_id}/hands/{number}/dispute/"): Case(
        _step("dispute", ("ben", "ana")), 200, 409
    ),
    ("POST", "/api/v1/games/{game_id}/hands/{number}/resolve/"): Case(
        _step("resolve", ("d1", "d2")), 200, 409, prepare=_disputed
    ),
    ("POST", "/api/v1/games/{game_id}/hands/{number}/restore/"): Case(
        _step("restore", ("d1", "d2")), 200, 409, prepare=_voided
    ),
    ("POST", "/api/v1/tournaments/"): Case(_tournaments, 201, "independent", has_other_path=False),
    ("POST", "/api/v1/tournaments/{tournament_id}/rounds/"): Case(
        _round_retry, 202, "independent", has_other_body=False
    ),
}


def _operations_taking_the_key() -> set[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            parameters = operation.get("parameters", []) if isinstance(operation, dict) else []
            if any(
                p.get("in") == "header" and p.get("name") == "Idempotency-Key" for p in parameters
            ):
                found.add((method.upper(), path))
    return found


def test_every_operation_taking_the_key_is_covered_and_documents_the_one_rule() -> None:
    assert _operations_taking_the_key() == set(API_CASES)
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for method, path in API_CASES:
        (header,) = [
            p
            for p in schema["paths"][path][method.lower()]["parameters"]
            if p.get("name") == "Idempotency-Key"
        ]
        assert header["schema"]["maxLength"] == 255
        assert header["schema"]["pattern"] == idempotency.PATTERN
        assert header["description"].startswith(idempotency.DESCRIPTION)


@pytest.fixture(scope="module")
def shared_world(django_db_setup: None, django_db_blocker: Any) -> Iterator[World]:
    """One world for the module's tests (built once per test process): each test's changes are
    rolled back after it (``tests.shared_data``)."""
    with kept_for_the_module(django_db_blocker, World) as world:
        yield world


@pytest.fixture
def world(shared_world: World) -> World:
    return without_cookies(shared_world)


CASES = pytest.mark.parametrize(("case_id"), [f"{m} {p}" for m, p in API_CASES])


def _case(case_id: str) -> Case:
    method, path = case_id.split(" ", 1)
    return API_CASES[(method, path)]


def _comparable(body: Any) -> Any:
    return body


@CASES
def test_a_retry_answers_as_the_first_request_and_stores_nothing_more(
    world: World, case_id: str
) -> None:
    case = _case(case_id)
    case.prepare(world)
    first = case.send(world, KEY, "first", "first")
    assert first.status_code == case.created, first.content
    with nothing_stored():
        again = case.send(world, KEY, "first", "first")
    expected = 200 if case.created == 201 else case.created  # a replay creates nothing
    assert again.status_code == expected, again.content
    assert again.json() == first.json()


@CASES
def test_the_same_key_with_another_body_is_refused(world: World, case_id: str) -> None:
    case = _case(case_id)
    if not case.has_other_body:
        pytest.skip("the operation takes no body")
    case.prepare(world)
    assert case.send(world, KEY, "first", "first").status_code == case.created
    with nothing_stored():
        refused = case.send(world, KEY, "other_body", "first")
    assert refused.status_code == 409, refused.content
    assert refused.json()["conflict"]["code"] == "idempotency_key_reused"


@CASES
def test_the_same_key_on_another_resource_is_refused(world: World, case_id: str) -> None:
    case = _case(case_id)
    if not case.has_other_path:
        pytest.skip("the operation writes one kind of resource only")
    case.prepare(world)
    assert case.send(world, KEY, "first", "first").status_code == case.created
    with nothing_stored():
        refused = case.send(world, KEY, "other_path", "first")
    assert refused.status_code == 409, refused.content
    assert refused.json()["conflict"]["code"] == "idempotency_key_reused"


@CASES
@pytest.mark.parametrize("why", list(BAD_HEADERS))
def test_a_key_the_rule_refuses_is_bad_format_naming_the_header(
    world: World, case_id: str, why: str
) -> None:
    case = _case(case_id)
    case.prepare(world)
    with nothing_stored():
        refused = case.send(world, BAD_HEADERS[why], "first", "first")
    assert refused.status_code == 400, refused.content
    error = refused.json()["error"]
    assert error["code"] == "bad_format"
    assert list(error["fields"]) == ["Idempotency-Key"]


@CASES
def test_a_key_is_never_cut(world: World, case_id: str) -> None:
    """255 characters are a key; the same 255 and one more are no key (not its first 255)."""
    case = _case(case_id)
    case.prepare(world)
    longest = "k" * idempotency.MAX_LENGTH
    assert case.send(world, longest, "first", "first").status_code == case.created
    with nothing_stored():
        refused = case.send(world, longest + "k", "first", "first")
    assert refused.status_code == 400


@CASES
def test_another_callers_same_key_never_replays_the_first_answer(
    world: World, case_id: str
) -> None:
    case = _case(case_id)
    case.prepare(world)
    first = case.send(world, KEY, "first", "first")
    assert first.status_code == case.created
    if case.second_caller == "independent":
        theirs = case.send(world, KEY, "first", "second")
        assert theirs.status_code == case.created, theirs.content
        assert theirs.json() != first.json()
    else:
        with nothing_stored():
            theirs = case.send(world, KEY, "first", "second")
        assert theirs.status_code == 409, theirs.content
        assert theirs.json()["conflict"]["code"] == "idempotency_key_reused"


#: The API operations of a game's hands that write a hand revision, and those that write a
#: step of a hand (a void, a confirmation…): every game path under ``hands`` is one of them.
HAND_WRITES = [
    ("POST", "/api/v1/games/{game_id}/hands/"),
    ("PUT", "/api/v1/games/{game_id}/hands/{number}/"),
]
STEP_WRITES = [k for k in API_CASES if "/hands/" in k[1] and k not in HAND_WRITES]


def test_every_write_of_a_games_hands_is_a_hand_or_a_step() -> None:
    in_a_game = {k for k in _operations_taking_the_key() if k[1].startswith("/api/v1/games/{")}
    assert in_a_game == set(HAND_WRITES) | set(STEP_WRITES)
    assert len(STEP_WRITES) == 5


@pytest.mark.parametrize("step", [f"{m} {p}" for m, p in STEP_WRITES])
@pytest.mark.parametrize("hand", [f"{m} {p}" for m, p in HAND_WRITES])
@pytest.mark.parametrize("order", ["step first", "hand first"])
def test_a_games_hands_and_steps_share_one_space_of_keys(
    world: World, step: str, hand: str, order: str
) -> None:
    """A key a step of a hand took is refused for a hand's entry or correction, and the
    other way round: 409, nothing stored."""
    first, then = (_case(step), _case(hand))[:: 1 if order == "step first" else -1]
    if order == "step first":
        _case(step).prepare(world)
    answer = first.send(world, KEY, "first", "first")
    assert answer.status_code == first.created, answer.content
    if order == "hand first":
        _case(step).prepare(world)
    with nothing_stored():
        refused = then.send(world, KEY, "first", "first")
    assert refused.status_code == 409, refused.content
    assert refused.json()["conflict"]["code"] == "idempotency_key_reused"


def test_a_hands_key_costs_the_hot_path_no_statement(world: World) -> None:
    """Recording a new hand under a key (looked for on hands and steps alike) runs as many
    statements as recording one without a key."""
    counts = []
    for key, hand in ((None, HAND_C), ("hot-1", HAND_A)):
        with CaptureQueriesContext(connection) as ran:
            services.hand_record(game=world.game, entry=hand, idempotency_key=key)
        counts.append(len(ran.captured_queries))
    assert counts[0] == counts[1], counts


#: The creates: every operation taking a key outside a game's hands. A user's keys are one
#: space across them (``ops.idempotency.refuse_if_held_elsewhere``).
CREATES = sorted(k for k in API_CASES if k not in HAND_WRITES and k not in STEP_WRITES)


def test_the_creates_are_every_operation_outside_a_games_hands() -> None:
    outside = {k for k in _operations_taking_the_key() if not k[1].startswith("/api/v1/games/{")}
    assert set(CREATES) == outside
    assert len(CREATES) == 4


@pytest.mark.parametrize("second", [f"{m} {p}" for m, p in CREATES])
@pytest.mark.parametrize("first", [f"{m} {p}" for m, p in CREATES])
def test_a_users_create_keys_are_one_space(world: World, first: str, second: str) -> None:
    """The user's key of one create (a game, an import, a tournament, a round's seating) on
    another create is 409 ``idempotency_key_reused``, nothing stored; a key of another user
    is theirs."""
    if first == second:
        pytest.skip("the same create: a retry, or another body (the tests above)")
    answer = _case(first).send(world, KEY, "first", "first")
    assert answer.status_code == _case(first).created, answer.content
    with nothing_stored():
        refused = _case(second).send(world, KEY, "first", "first")
    assert refused.status_code == 409, refused.content
    assert refused.json()["conflict"]["code"] == "idempotency_key_reused"
    theirs = _case(second).send(world, KEY, "first", "second")
    assert theirs.status_code == _case(second).created, theirs.content


def _round_cycle(w: World, tournament: Tournament, key: str) -> Any:
    url = f"/api/v1/tournaments/{tournament.pk}/rounds/"
    return w.d1.post(url, HTTP_IDEMPOTENCY_KEY=key)


def _play_out(w: World, tournament: Tournament, number: int) -> None:
    """Publish round ``number``, enter a hand at every table, close it."""
    rnd = Round.objects.get(tournament=tournament, number=number)
    assert rnd.state == Round.State.SEATED, (rnd.state, rnd.failure)
    tournament_services.round_publish(round=rnd, by=w.director.user)
    for table in rnd.tables.all():
        names = [name for name, _seat in table.game.seating]
        high = iter(["KD QD", "KH QH", "KC QC"])
        held = {n: "2S" if n == names[1] else next(high) for n in names}
        services.hand_record(
            game=table.game,
            entry={"dealer": names[0], "end": "knock", "by": names[1], "held": held},
        )
    tournament_services.round_close(round=Round.objects.get(pk=rnd.pk), by=w.director.user)


def test_a_seat_request_is_replayed_after_its_round_is_played(
    world: World, django_capture_on_commit_callbacks: Any
) -> None:
    """The seat request's key stays with it: the same request after round 1 was seated,
    played and closed answers with round 1 as it is now (202), seats no round 2; the key on
    another tournament or with another reason is 409."""
    tournament = world.tournaments[0]
    Round.objects.filter(tournament=tournament).delete()
    with django_capture_on_commit_callbacks(execute=True):  # the seating task runs
        first = _round_cycle(world, tournament, "R1")
    assert (first.status_code, first.json()["number"]) == (202, 1), first.content
    _play_out(world, tournament, 1)
    with nothing_stored():
        again = _round_cycle(world, tournament, "R1")
    assert (again.status_code, again.json()["number"]) == (202, 1), again.content
    assert again.json()["state"] == "complete"
    assert tournament.round_set.count() == 1
    with nothing_stored():
        refused = _round_cycle(world, world.tournaments[1], "R1")
    assert refused.status_code == 409, refused.content
    assert refused.json()["conflict"]["code"] == "idempotency_key_reused"
    assert _round_cycle(world, tournament, "R2").json()["number"] == 2


def test_the_dashboards_seat_form_sends_a_key_and_a_double_send_seats_once(
    world: World, django_capture_on_commit_callbacks: Any
) -> None:
    tournament = world.tournaments[0]
    Round.objects.filter(tournament=tournament).delete()
    client = _browser(world)
    dashboard = reverse("tournaments:manage", args=[tournament.pk])
    page = client.get(dashboard).content.decode()
    form = re.search(r'<form[^>]*action="([^"]*/manage/seat/)"[^>]*>(.*?)</form>', page, re.S)
    assert form is not None
    (key,) = _keys_shown(form.group(2))
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            sent = client.post(form.group(1), {"idempotency_key": key})
        assert sent.status_code in (302, 303)
    _play_out(world, tournament, 1)
    with nothing_stored():
        assert client.post(form.group(1), {"idempotency_key": key}).status_code in (302, 303)
        other = client.post(form.group(1), {"idempotency_key": key, "reason": "another"})
    assert other.status_code in (302, 303)  # refused: back to the dashboard, which says why
    assert tournament.round_set.count() == 1


# --- the rule itself -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        (None, None),
        ("", None),
        ("abc-DEF_1.2:3~!", "abc-DEF_1.2:3~!"),
        (uuid.UUID(int=7).hex, uuid.UUID(int=7).hex),
        ("k" * 255, "k" * 255),
    ],
)
def test_the_rule_reads_keys(raw: str | None, key: str | None) -> None:
    assert idempotency.clean_key(raw) == key


@pytest.mark.parametrize(
    "raw", [*BAD_HEADERS.values(), "a\nb", "a\x7fb", "é", "\u202ekey", " \t", "key\n"]
)
def test_the_rule_refuses(raw: str) -> None:
    with pytest.raises(idempotency.KeyRefused):
        idempotency.clean_key(raw, blank=False)


def test_a_required_key_must_be_there() -> None:
    with pytest.raises(idempotency.KeyRefused):
        idempotency.clean_key("", required=True)
    with pytest.raises(idempotency.KeyRefused):
        idempotency.clean_key(None, required=True)


def test_the_fingerprint_is_the_method_the_resource_the_body_and_the_caller() -> None:
    base = idempotency.fingerprint("POST", "games", {"a": 1, "b": [1, 2]})
    assert base == idempotency.fingerprint("post", "games", {"b": [1, 2], "a": 1})
    others = [
        idempotency.fingerprint("PUT", "games", {"a": 1, "b": [1, 2]}),
        idempotency.fingerprint("POST", "games/1", {"a": 1, "b": [1, 2]}),
        idempotency.fingerprint("POST", "games", {"a": 1, "b": [2, 1]}),
        idempotency.fingerprint("POST", "games", {"a": 1, "b": [1, 2]}, caller="x"),
    ]
    assert len({base, *others}) == 5


# --- page forms ---------------------------------------------------------------------------------


def _all_forms() -> set[type[forms.BaseForm]]:
    # Every module that defines a form, imported here: a test process may reach this test
    # before any request has imported the URL conf's views (pytest-xdist, or this test alone).
    import config.views  # noqa: F401
    import scoring.forms
    import scoring.pages_trust  # noqa: F401
    import tournaments.forms  # noqa: F401

    found: set[type[forms.BaseForm]] = set()
    stack: list[type[forms.BaseForm]] = [forms.Form]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    return found


def test_every_form_with_a_key_reads_it_by_the_one_rule() -> None:
    with_key = [f for f in _all_forms() if "idempotency_key" in f.base_fields]
    assert len(with_key) >= 5
    for form_class in with_key:
        assert isinstance(form_class.base_fields["idempotency_key"], idempotency.KeyField), (
            form_class
        )
        # ...and answers a refused key the one way (a message, a fresh key, 400).
        assert issubclass(form_class, idempotency.KeyedForm), form_class
    # Every form with a key (and every subclass: the entry forms of each game) has its pages
    # in the tests below.
    named = {f.__name__ for f in with_key} - {
        f.__name__ for f in with_key for base in f.__mro__[1:] if base.__name__ in FORM_PAGES
    }
    assert named == set(FORM_PAGES)


#: Templates that write a hidden ``idempotency_key`` input by hand, and the form (or view)
#: whose field reads it. A template that gains one must be added here.
HAND_WRITTEN_KEYS = {
    "scoring/_voided.html": "scoring.pages_trust.ReasonForm (restore)",
    "scoring/_hand_actions.html": "scoring.pages_trust.ReasonForm (confirm)",
    "scoring/_void_form.html": "scoring.pages_trust.ReasonForm (void)",
    "scoring/_hand_trust.html": "scoring.pages_trust.ReasonForm (confirm, resolve, restore)",
    "scoring/_seat_buttons.html": "scoring.pages_trust.SeatChoiceForm",
    "scoring/seat_links.html": "links_rotate (naturally once: the key is not read)",
    "tournaments/_seat_again.html": "tournaments.pages_director.seat (clean_key)",
    "tournaments/_grid.html": "tournaments.pages_director.seat (clean_key)",
    "tournaments/confirm.html": "tournaments.pages_director.seat (clean_key), confirmed",
    "base.html": "config.views.LanguageForm (the language switcher)",
}


def test_every_hand_written_key_field_is_known() -> None:
    root = Path(settings.BASE_DIR) / "templates"
    found = {
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        if re.search(r'name="idempotency_key"', path.read_text())
    }
    assert found == set(HAND_WRITTEN_KEYS)


@dataclass(frozen=True)
class PageCase:
    """A page form with a key: ``post(world, client, key, variant)`` (``first`` or
    ``other_body``), from ``client(world)``, once ``prepare(world)`` readied it."""

    post: Callable[[World, Client, str, str], Any]
    client: Callable[[World], Client]
    prepare: Callable[[World], None] = lambda w: None


def _browser(w: World, seat: int | None = None) -> Client:
    client = Client()
    client.force_login(w.director.user)
    if seat is not None:
        sit(client, w.game, seat)
    return client


def _form_as_shown(c: Client, url: str, **changes: object) -> dict[str, str]:
    """What a browser submits from the page's form at ``url``, after ``changes``."""
    shown = Page(c.get(url).content.decode(), action=url).fields
    return {**shown, **{k: str(v) for k, v in changes.items()}}


def _page_game_new(w: World, c: Client, key: str, variant: str) -> Any:
    names = ("Ana", "Ben") if variant == "first" else ("Cy", "Dee")
    url = reverse("scoring:game-new")
    data = _form_as_shown(
        c, url, game="tonk", idempotency_key=key, player_1=names[0], player_2=names[1]
    )
    return c.post(url, data)


def _page_hand_new(w: World, c: Client, key: str, variant: str) -> Any:
    by = 0 if variant == "first" else 1
    data = {"idempotency_key": key, "dealer": 0, "end": "knock", "by": by}
    data |= {"held_0": "2S", "held_1": "KD QD", "after": next_number(w.game) - 1}
    return c.post(reverse("scoring:hand-new", kwargs={"key": w.game.table_key}), data)


def _page_confirm(w: World, c: Client, key: str, variant: str) -> Any:
    url = reverse("scoring:hand-confirm", kwargs={"key": w.game.table_key, "number": 1})
    reason = "" if variant == "first" else "other"
    return c.post(url, {"idempotency_key": key, "reason": reason})


def _page_step(action: str) -> Callable[[World, Client, str, str], Any]:
    def post(w: World, c: Client, key: str, variant: str) -> Any:
        url = reverse(f"scoring:hand-{action}", kwargs={"key": w.game.table_key, "number": 1})
        data = {"idempotency_key": key, "reason": "checked" if variant == "first" else "other"}
        if action == "resolve":
            data["action"] = "confirm"
        return c.post(url, data)

    return post


def _page_correct(w: World, c: Client, key: str, variant: str) -> Any:
    url = reverse("scoring:hand-edit", kwargs={"key": w.game.table_key, "number": 1})
    by = 0 if variant == "first" else 1
    data = {"idempotency_key": key, "revision": 1, "dealer": 0, "end": "knock", "by": by}
    return c.post(url, data | {"held_0": "2S", "held_1": "KD QD"})


def _page_tournament_new(w: World, c: Client, key: str, variant: str) -> Any:
    url = reverse("tournaments:new", args=[w.club.pk])
    name = "Open" if variant == "first" else "Another"
    data = _form_as_shown(c, url, idempotency_key=key, name=name, kind="tonk", tonk__rounds=3)
    return c.post(url, data)


def _page_round_retry(w: World, c: Client, key: str, variant: str) -> Any:
    tournament = w.tournaments[0]
    reason = "" if variant == "first" else "other"
    url = reverse("tournaments:seat", args=[tournament.pk])
    return c.post(url, {"idempotency_key": key, "reason": reason})


def _page_seat_choose(w: World, c: Client, key: str, variant: str) -> Any:
    ana = w.other_game.seats.get(position=0)  # a game no seat has acted in yet
    url = reverse("scoring:seat-choose", kwargs={"key": w.other_game.table_key})
    seat = ana.pk if variant == "first" else ""  # another body: forget the seat chosen
    return c.post(url, {"idempotency_key": key, "seat": seat})


def _page_language(w: World, c: Client, key: str, variant: str) -> Any:
    language = "bn" if variant == "first" else "ta"  # idempotent: another body is another choice
    return c.post(reverse("set_language"), {"idempotency_key": key, "language": language})


PAGE_CASES = {
    "game new": PageCase(_page_game_new, lambda w: _browser(w)),
    "hand new": PageCase(_page_hand_new, lambda w: _browser(w, 0)),
    "hand confirm": PageCase(_page_confirm, lambda w: _browser(w, 1)),
    "hand correct": PageCase(_page_correct, lambda w: _browser(w, 0)),
    "hand dispute": PageCase(_page_step("dispute"), lambda w: _browser(w, 1)),
    "hand void": PageCase(_page_step("void"), lambda w: _browser(w)),
    "hand resolve": PageCase(_page_step("resolve"), lambda w: _browser(w), lambda w: w.dispute(1)),
    "hand restore": PageCase(_page_step("restore"), lambda w: _browser(w), lambda w: w.void(1)),
    "tournament new": PageCase(_page_tournament_new, lambda w: _browser(w)),
    "round retry": PageCase(_page_round_retry, lambda w: _browser(w)),
    "seat choose": PageCase(_page_seat_choose, lambda w: Client()),
    "language choose": PageCase(_page_language, lambda w: Client()),
}
#: The page cases of each form with a :class:`ops.idempotency.KeyField` (every one has some).
FORM_PAGES = {
    "GameStartForm": ["game new"],
    "EntryForm": ["hand new", "hand correct"],
    "ReasonForm": ["hand confirm", "hand dispute", "hand void", "hand resolve", "hand restore"],
    "TournamentForm": ["tournament new"],
    "SeatChoiceForm": ["seat choose"],
    "LanguageForm": ["language choose"],
}
KEYED_FORM_PAGES = [page for pages in FORM_PAGES.values() for page in pages]
PAGES = pytest.mark.parametrize("form_page", list(PAGE_CASES))


@PAGES
@pytest.mark.parametrize("why", list(BAD_KEYS))
def test_a_page_refuses_a_key_the_rule_refuses(world: World, form_page: str, why: str) -> None:
    case = PAGE_CASES[form_page]
    case.prepare(world)
    client = case.client(world)
    with nothing_stored():
        refused = case.post(world, client, BAD_KEYS[why], "first")
    # Refused: the form comes back (a page shows its form again rather than an error page).
    assert refused.status_code == idempotency.REFUSED_STATUS, refused.status_code


def _keys_shown(page: str) -> list[str]:
    return re.findall(r'name="idempotency_key"[^>]*?value="([^"]*)"', page) + re.findall(
        r'value="([^"]*)"[^>]*?name="idempotency_key"', page
    )


@pytest.mark.parametrize("form_page", KEYED_FORM_PAGES)
@pytest.mark.parametrize("why", list(BAD_KEYS))
def test_a_refused_key_is_said_and_replaced_so_sending_again_works(
    world: World, form_page: str, why: str
) -> None:
    """A form sent with a key the rule refuses says so, shows the form with a fresh key
    (400, nothing stored), and the form sent again with it is written."""
    case = PAGE_CASES[form_page]
    case.prepare(world)
    client = case.client(world)
    with nothing_stored():
        refused = case.post(world, client, BAD_KEYS[why], "first")
    page = refused.content.decode()
    assert refused.status_code == 400, refused.status_code
    assert str(idempotency.KeyedForm.DAMAGED) in html.unescape(page)
    shown = {html.unescape(k) for k in _keys_shown(page)}
    assert shown, "the form comes back with its key"
    assert BAD_KEYS[why] not in shown
    for fresh in shown:
        assert idempotency.clean_key(fresh, required=True) == fresh
    again = case.post(world, client, shown.pop(), "first")
    assert again.status_code in (302, 303), again.status_code


@PAGES
def test_a_page_retry_writes_once_and_another_body_writes_nothing(
    world: World, form_page: str
) -> None:
    case = PAGE_CASES[form_page]
    case.prepare(world)
    client = case.client(world)
    first = case.post(world, client, KEY, "first")
    assert first.status_code in (302, 303), (first.status_code, first.content[:2000])
    with nothing_stored():
        again = case.post(world, client, KEY, "first")
        assert again.status_code in (302, 303)
        other = case.post(world, client, KEY, "other_body")
    # Refused, nothing written: the form again with the refusal, or back to where it was.
    assert other.status_code in (200, 302, 303, 409, 422), other.status_code


def test_a_hand_retried_from_the_page_records_one_hand(world: World) -> None:
    client = _browser(world, 0)
    before = Hand.objects.filter(game=world.game).count()
    for _ in range(2):
        _page_hand_new(world, client, KEY, "first")
    assert Hand.objects.filter(game=world.game).count() == before + 1
