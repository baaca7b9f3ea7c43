"""Issue 14, rows 1 and 9: JSON that names a key twice (and every other JSON the one strict reader
refuses), and oversized bodies, through every entry point that reads JSON.

The API's write operations are discovered from the OpenAPI schema: each must parse with the one
strict parser and carry the body limit, refuse a body over its limit with the JSON 413, and
refuse a key named twice with 400 ``bad_format``; nothing is stored. The score-sheet command line
(``manage.py scoresheet``) reads through the same reader.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.core.management import call_command
from django.db import models
from django.test import Client, RequestFactory, override_settings
from django.urls import resolve
from rest_framework.test import APIClient

from config.views import bad_request
from scoring.api import BodyLimited
from scoring.api_parser import BodyTooLarge, StrictJSONParser, body_limit
from scoring.api_scoresheets import ScoresheetImportApi
from scoring.models import Game
from scoring.scoresheet_cli import answer
from tests.factories import MembershipFactory, PlayerFactory, UserFactory
from tests.hands import numbered
from tests.scoring.sheets import TONK_KNOCK_HAND, TONK_KNOCK_SHEET
from tonkrules.errors import FormatError
from tonkrules.jsontext import MAX_DEPTH, read_json
from tournaments.models import Membership

ROOT = Path(__file__).resolve().parents[2]
WRITES = ("post", "put", "patch", "delete")

# --- the reader ---------------------------------------------------------------------------------

REFUSED: list[tuple[str, bytes, str]] = [
    ("key twice", b'{"held": {"Di": "AS 2S", "Ana": "3H", "Di": "KD"}}', "not_json.duplicate_key"),
    ("key twice, top", b'{"a": 1, "b": 2, "a": 1}', "not_json.duplicate_key"),
    (
        "key twice in a list",
        b'{"hands": [{}, {"end": "knock", "end": "knock"}]}',
        "not_json.duplicate_key",
    ),
    ("NaN", b'{"a": NaN}', "not_json.constant"),
    ("Infinity", b'{"a": Infinity}', "not_json.constant"),
    ("-Infinity", b"[-Infinity]", "not_json.constant"),
    ("overflowing float", b'{"a": 1e400}', "not_json.constant"),
    ("NUL", b'{"a": "x\\u0000"}', "not_text"),
    ("NUL in a key", b'{"a\\u0000": 1}', "not_text"),
    ("lone surrogate", b'["\\ud800"]', "not_text"),
    ("lone low surrogate in a key", b'{"\\udc00": 1}', "not_text"),
    ("BOM", b"\xef\xbb\xbf{}", "not_json.bom"),
    ("not UTF-8", b'{"a": "\xff"}', "not_json.encoding"),
    ("UTF-16", '{"a": 1}'.encode("utf-16"), "not_json.encoding"),
    ("CESU surrogate bytes", b'["\xed\xa0\x80"]', "not_json.encoding"),
    ("too deep", b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "not_json.nested"),
    ("far too deep", b"[" * 100_000 + b"]" * 100_000, "not_json.nested"),
    ("huge integer", b"[" + b"9" * 5000 + b"]", "not_json"),
    ("not JSON", b"{not json", "not_json"),
    ("trailing text", b"{} {}", "not_json"),
]


@pytest.mark.parametrize(("text", "key"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_the_reader_refuses(text: bytes, key: str) -> None:
    with pytest.raises(FormatError) as caught:
        read_json(text)
    assert caught.value.code == "bad_format"
    assert caught.value.key == key


def test_a_repeated_key_is_named_with_its_path() -> None:
    with pytest.raises(FormatError) as caught:
        read_json(b'{"hands": [{}, {"held": {"Di": "AS", "Ana": "", "Di": "KD"}}]}')
    assert caught.value.params == {"key": "Di", "path": "hands.2.held.Di"}
    assert "'Di'" in caught.value.message and "hands.2.held.Di" in caught.value.message


def test_the_reader_reads_what_is_json() -> None:
    text = '{"a": [1, 2.5, -0.0, true, null, "\u00e9\U0001f0cf"], "b": {"a": 1}}'
    assert read_json(text.encode("utf-8")) == json.loads(text)
    assert type(read_json(text)) is dict  # plain dicts, not the reader's own
    assert read_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    assert read_json('"\\ud83c\\udccf"') == "\U0001f0cf"  # a pair is one character


# --- the API: every write operation, from the schema ----------------------------------------------


def write_operations() -> list[tuple[str, str]]:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    schema = json.loads(out.getvalue())
    return sorted(
        (method, path)
        for path, item in schema["paths"].items()
        if path.startswith("/api/")
        for method in item
        if method in WRITES
    )


OPERATIONS = write_operations()


def test_the_schema_lists_the_write_operations() -> None:
    assert ("post", "/api/v1/games/{game_id}/hands/") in OPERATIONS
    assert ("post", "/api/v1/tournaments/") in OPERATIONS
    assert len(OPERATIONS) >= 18


@pytest.fixture
def world(db: Any) -> dict[str, Any]:
    """A club director with a game (one hand) they created and a tournament with a registration,
    so every path parameter names something real."""
    membership = MembershipFactory(role=Membership.Role.DIRECTOR)
    api = APIClient()
    api.force_authenticate(membership.user)
    game = api.post(
        "/api/v1/games/",
        {"game": "tonk", "players": [{"name": "Ana"}, {"name": "Di"}]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="world-game",
    )
    assert game.status_code == 201, game.content
    game_id = game.json()["id"]
    hand = {**TONK_KNOCK_HAND, "dealer": "Di", "held": {"Ana": "AS 2D", "Di": "KH QH"}}
    made = api.post(
        f"/api/v1/games/{game_id}/hands/",
        numbered(hand, 1),
        format="json",
        HTTP_IDEMPOTENCY_KEY="world-hand",
    )
    assert made.status_code == 201, made.content
    tournament = api.post(
        "/api/v1/tournaments/",
        {"club": membership.club.pk, "name": "Open", "game": "tonk", "rounds": 2},
        format="json",
    )
    assert tournament.status_code == 201, tournament.content
    t_id = tournament.json()["id"]
    player = PlayerFactory(club=membership.club)
    reg = api.post(
        f"/api/v1/tournaments/{t_id}/registrations/", {"player": player.pk}, format="json"
    )
    assert reg.status_code == 201, reg.content
    ids = {
        "game_id": game_id,
        "number": 1,
        "tournament_id": t_id,
        "registration_id": reg.json()["id"],
    }
    return {"api": api, "ids": ids, "club": membership.club.pk}


def address(path: str, ids: dict[str, Any]) -> str:
    for name, value in ids.items():
        path = path.replace("{" + name + "}", str(value))
    assert "{" not in path, f"a path parameter the test does not know: {path}"
    return path


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_every_write_operation_reads_json_with_the_strict_parser(method: str, path: str) -> None:
    match = resolve(
        address(path, {p: 1 for p in ("game_id", "number", "tournament_id", "registration_id")})
    )
    view = match.func.view_class  # type: ignore[attr-defined]
    assert issubclass(view, BodyLimited), f"{view.__name__} does not carry the body limit"
    assert tuple(view.parser_classes) == (StrictJSONParser,), view.__name__


def repeated_key_body(path: str) -> bytes:
    if path == "/api/v1/scoresheets/":
        return json.dumps(TONK_KNOCK_SHEET)[:-1].encode() + b', "game": "tonk"}'
    if path.endswith("/hands/") or path.endswith("/hands/{number}/"):
        return (
            b'{"dealer": "Di", "end": "knock", "by": "Ana",'
            b' "held": {"Di": "AS 2S", "Ana": "3H 4H", "Di": "KD"}}'
        )
    return b'{"reason": "one", "name": "Ana", "reason": "two"}'


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_a_key_named_twice_is_refused_everywhere(
    world: dict[str, Any], unchanged_rows: Any, method: str, path: str
) -> None:
    with unchanged_rows():
        response = world["api"].generic(
            method.upper(),
            address(path, world["ids"]),
            repeated_key_body(path),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="dup",
        )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error.get("detail")) == ("bad_format", "not_json"), error
    assert (
        ("'Di'" in error["message"])
        or ("'reason'" in error["message"])
        or ("'game'" in error["message"])
    )


def test_the_issue_example_names_di_and_stores_nothing(
    world: dict[str, Any], unchanged_rows: Any
) -> None:
    game_id = world["ids"]["game_id"]
    with unchanged_rows():
        response = world["api"].post(
            f"/api/v1/games/{game_id}/hands/",
            b'{"number": 2, "dealer": "Ana", "end": "knock", "by": "Ana", '
            b'"held": {"Di": "AS 2S", "Ana": "3H 4H", "Di": "KD"}}',
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="issue-14",
        )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_format"
    assert "'Di'" in error["message"] and "held.Di" in error["message"]
    assert Game.objects.get(pk=game_id).hands.count() == 1


def oversized(limit: int) -> bytes:
    return b'{"reason": "' + b"x" * limit + b'"}'


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_a_body_over_the_limit_is_the_json_413_everywhere(
    world: dict[str, Any], unchanged_rows: Any, method: str, path: str
) -> None:
    url = address(path, world["ids"])
    limit = body_limit(resolve(url).func.view_class)  # type: ignore[attr-defined]
    with unchanged_rows():
        response = world["api"].generic(
            method.upper(),
            url,
            oversized(limit),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="big",
        )
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert (error["code"], error["detail"], error["limit"]) == ("bad_format", "too_large", limit)


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_a_chunked_body_is_refused_with_411_everywhere(
    world: dict[str, Any], unchanged_rows: Any, method: str, path: str
) -> None:
    """A body without a length (chunked) would be read as empty and the write would lose it:
    refused with the JSON 411 before anything is done."""
    url = address(path, world["ids"])
    with unchanged_rows():
        response = world["api"].generic(
            method.upper(),
            url,
            b'{"reason": "checked the cards"}',
            content_type="application/json",
            CONTENT_LENGTH="",
            HTTP_TRANSFER_ENCODING="chunked",
            HTTP_IDEMPOTENCY_KEY="chunked",
        )
    assert response.status_code == 411
    error = response.json()["error"]
    assert (error["code"], error["detail"]) == ("bad_format", "length_required")


def test_a_read_s_body_is_not_limited(world: dict[str, Any]) -> None:
    """A GET's body is never read: a large ``Content-Length`` on a read is answered as the
    read (the schema documents no 413 on reads)."""
    url = f"/api/v1/games/{world['ids']['game_id']}/"
    response = world["api"].generic("GET", url, b"", CONTENT_LENGTH=str(10 * 1024 * 1024))
    assert response.status_code == 200


def test_the_limits_are_the_documented_ones() -> None:
    assert body_limit(None) == 64 * 1024
    assert body_limit(ScoresheetImportApi()) == 1024 * 1024


def test_ten_megabytes_to_a_hand_is_the_json_413(
    world: dict[str, Any], unchanged_rows: Any
) -> None:
    with unchanged_rows():
        response = world["api"].post(
            f"/api/v1/games/{world['ids']['game_id']}/hands/",
            b" " * (10 * 1024 * 1024) + b"{}",
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="ten",
        )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "bad_format"


def test_a_body_longer_than_its_content_length_is_not_read_past_it(
    world: dict[str, Any], unchanged_rows: Any
) -> None:
    body = json.dumps({"dealer": "Di", "end": "knock"}).encode() + b" " * 200_000
    with unchanged_rows():
        response = world["api"].generic(
            "POST",
            f"/api/v1/games/{world['ids']['game_id']}/hands/",
            body,
            content_type="application/json",
            CONTENT_LENGTH="20",
            HTTP_IDEMPOTENCY_KEY="lie",
        )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_format"


class CountingStream(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked = 0

    def read(self, size: int | None = -1) -> bytes:
        self.asked = size if size is not None else -1
        return super().read(size)


def test_the_parser_reads_one_byte_past_the_limit_and_no_more() -> None:
    stream = CountingStream(b"[" + b"1," * 1_000_000 + b"1]")
    with pytest.raises(BodyTooLarge):
        StrictJSONParser().parse(stream, "application/json", {"view": None})
    assert stream.asked == 64 * 1024 + 1
    assert stream.tell() == 64 * 1024 + 1


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_django_s_own_ceiling_answers_413_too(client: Client, db: Any) -> None:
    page = client.post("/accounts/login/", {"username": "x" * 2000, "password": "y"})
    assert page.status_code == 413
    assert "Too much sent" in page.content.decode()
    request = RequestFactory().post("/api/v1/games/", b"x" * 2000, content_type="application/json")
    api = bad_request(request, RequestDataTooBig())
    assert api.status_code == 413
    assert json.loads(api.content)["error"] == {
        "code": "bad_format",
        "detail": "too_large",
        "message": "The request body is larger than 1000 bytes, this endpoint's limit.",
        "limit": 1000,
    }
    other = bad_request(request, SuspiciousOperation())
    assert other.status_code == 400


# --- the score-sheet command line -----------------------------------------------------------------


def test_the_command_refuses_a_key_named_twice(tmp_path: Path) -> None:
    sheet = json.dumps(TONK_KNOCK_SHEET).replace('"by": "Ana"', '"by": "Ana", "by": "Ben"')
    path = tmp_path / "sheet.json"
    path.write_text(sheet, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "manage.py", "scoresheet", "score", str(path)],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert (error["code"], error["hand"]) == ("bad_format", 1)
    assert "'by'" in error["message"] and "hands.1.by" in error["message"]


@pytest.mark.parametrize(("text", "key"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_the_command_refuses_what_the_reader_refuses(text: bytes, key: str) -> None:
    for action in ("score", "check", "canonical"):
        status, obj = answer(action, text)
        assert status == 2
        assert obj["error"]["code"] == "bad_format"  # type: ignore[index]


# --- no other way in: every JSON reader of the project is known --------------------------------

#: Where the project's own code calls ``json.load``/``json.loads``, and why that is not outside
#: input. A new site fails this test until it reads through ``tonkrules.jsontext.read_json``
#: (or is shown here to read only what the project itself stored).
KNOWN_JSON_READS = {
    "tonkrules/jsontext.py": "the one strict reader itself",
    "scoring/models.py": "a hand's entry and record, stored by the services as they wrote them",
    "scoring/selectors.py": "the stored records of a game's hands, for the export",
}


def test_every_json_read_of_the_project_is_the_strict_reader_or_of_stored_text() -> None:
    sites = set()
    for package in ("tonkrules", "scoring", "tournaments", "ops", "config"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if "json.load" in text or "loads(" in text or "JSONDecoder" in text:
                sites.add(path.relative_to(ROOT).as_posix())
    assert sites == set(KNOWN_JSON_READS)


@pytest.mark.django_db
def test_the_admin_edits_no_json() -> None:
    """The admin is no way round the reader: no JSON field of a registered model is editable
    there (added or changed)."""
    request = RequestFactory().get("/admin/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    for model, model_admin in admin.site._registry.items():
        json_fields = [f.name for f in model._meta.get_fields() if isinstance(f, models.JSONField)]
        if not json_fields:
            continue
        writable = model_admin.has_add_permission(request) or model_admin.has_change_permission(
            request
        )
        if writable:
            editable = set(json_fields) - set(model_admin.get_readonly_fields(request))
            editable -= set(model_admin.get_exclude(request) or ())
            assert not editable, f"{model.__name__}: JSON editable in the admin: {editable}"
