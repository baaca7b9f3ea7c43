"""The OpenAPI schema describes every scorekeeping endpoint, without warnings; every answer
and every refused input is documented (the schema fuzzer's part: tests/config/
test_api_schemathesis.py)."""

import io
import json
from typing import Any

import jsonschema
import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

from scoring import games


def test_schema_validates_and_lists_the_endpoints() -> None:
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    schema = yaml.safe_load(out.getvalue())
    assert set(schema["paths"]) >= {
        "/api/v1/games/",
        "/api/v1/games/{game_id}/",
        "/api/v1/games/{game_id}/finish/",
        "/api/v1/games/{game_id}/settle-up/",
        "/api/v1/games/{game_id}/hands/",
        "/api/v1/games/{game_id}/hands/{number}/",
        "/api/v1/games/{game_id}/scoresheet/",
        "/api/v1/games/{game_id}/scoresheet.csv",
        "/api/v1/scoresheets/",
        "/api/v1/games/{game_id}/hands/{number}/confirm/",
        "/api/v1/games/{game_id}/hands/{number}/dispute/",
        "/api/v1/games/{game_id}/hands/{number}/resolve/",
        "/api/v1/games/{game_id}/hands/{number}/restore/",
        "/api/v1/games/{game_id}/audit/",
    }
    assert {"tableKey", "seatKey"} <= set(schema["components"]["securitySchemes"])


# --- one source for each shape (issue 11) -------------------------------------------------------

METHODS = ("get", "post", "put", "patch", "delete")


def schema_json() -> dict[str, Any]:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    return json.loads(out.getvalue())


def ref_name(response: dict[str, Any]) -> str:
    return response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]


def test_every_operation_documents_its_error_answers() -> None:
    schema = schema_json()
    operations = [
        (path, method, op)
        for path, item in schema["paths"].items()
        if path.startswith("/api/v1/")
        for method, op in item.items()
        if method in METHODS
    ]
    assert (
        len(operations) == 33
    )  # 27 + confirm, dispute, resolve, restore, game audit, tournament audit (issue 12)
    for path, method, op in operations:
        codes = set(op["responses"])
        assert {"401", "403", "404"} <= codes, (method, path)
        if method != "get" and method != "delete":
            assert {"400", "409"} & codes, (method, path)
        if "requestBody" in op:
            assert {"400", "415"} <= codes, (method, path)
        for code in codes - {"200", "201", "202"}:
            assert ref_name(op["responses"][code]) in {
                "Error",
                "Conflict",
                "Refusal",
                "NotFoundOrNoSuchHand",
            }, (method, path, code)
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]
    assert {"code", "message"} <= set(schema["components"]["schemas"]["ErrorObjectOut"]["required"])


def test_the_games_list_is_documented_as_the_paginator_pages_it() -> None:
    schema = schema_json()
    ok = schema["paths"]["/api/v1/games/"]["get"]["responses"]["200"]
    paged = schema["components"]["schemas"][ref_name(ok)]
    assert paged["type"] == "object"
    assert set(paged["properties"]) == {"count", "next", "previous", "results"}
    assert paged["properties"]["results"]["items"]["$ref"].endswith("/GameSummaryOut")


def shapes(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The object shapes a schema allows: itself, or each of its ``anyOf``/``oneOf``."""
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [shape for member in schema[key] for shape in shapes(member)]
    return [schema]


def test_inputs_the_server_refuses_are_forbidden_by_the_schema() -> None:
    components = schema_json()["components"]["schemas"]
    for strict in (
        "GameStart",
        "SeatInput",
        "TournamentIn",
        "RegistrationIn",
        "SubstituteIn",
        "DisputeIn",
        "ResolutionIn",
        "RestoreIn",
        "Hand",
        "ScoreSheet",
    ):
        for shape in shapes(components[strict]):
            assert shape["additionalProperties"] is False, strict
    hand = components["Correction"]["properties"]["hand"]
    assert "#/components/schemas/Hand" in json.dumps(hand)
    hand_shapes = shapes(components["Hand"])
    assert hand_shapes and all(h["type"] == "object" and not h.get("nullable") for h in hand_shapes)
    # One shape per registered game: the game's name is its own.
    assert sorted(s["properties"]["game"]["enum"][0] for s in shapes(components["GameStart"])) == (
        sorted(games.names())
    )


def test_a_hand_of_each_game_is_one_of_its_games_shapes() -> None:
    """Each game's example hands fit the schema's ``Hand`` and only their own game's shape."""
    components = schema_json()["components"]["schemas"]
    titled = {s["title"]: s for s in components["Hand"]["anyOf"]}
    hands = {
        "Tonk hand": {"dealer": "Ben", "end": "knock", "by": "Ana", "held": {"Ana": "AS 2D"}},
        "Toonerville Rook hand": {"round": 1, "dealer": "Ana", "out": None, "held": {"Ana": []}},
        "Bluke hand": {"hand": 1, "dealer": "Ana", "trump": "none", "bids": {}, "tricks": {}},
    }
    for title, hand in hands.items():
        fits = [
            t
            for t, shape in titled.items()
            if any(
                jsonschema.Draft7Validator(nullable_as_null(v)).is_valid(hand)
                for v in shapes(shape)
            )
        ]
        assert fits == [title]
    # A Tonk knock without the player who knocked fits no shape.
    knock = {"dealer": "Ben", "end": "knock", "held": {"Ana": "AS 2D"}}
    assert not any(
        jsonschema.Draft7Validator(nullable_as_null(v)).is_valid(knock)
        for v in shapes(components["Hand"])
    )


def nullable_as_null(schema: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema (``nullable`` as a ``null`` type)."""
    if isinstance(schema, list):
        return [nullable_as_null(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: nullable_as_null(v) for k, v in schema.items() if k != "nullable"}
    if schema.get("nullable"):
        out["type"] = [out["type"], "null"]
        out["enum"] = (
            [*out["enum"], None] if "enum" in out and None not in out["enum"] else (out.get("enum"))
        )
        if out["enum"] is None:
            del out["enum"]
    return out


@pytest.mark.django_db
def test_an_extra_key_and_a_null_hand_are_refused_as_the_schema_says(api: APIClient) -> None:
    extra = api.post(
        "/api/v1/games/",
        {"game": "tonk", "players": [{"name": "Ana"}, {"name": "Ben"}], "colour": "red"},
        format="json",
    )
    assert (extra.status_code, extra.json()["error"]["fields"]) == (
        400,
        {"colour": ["Unknown key."]},
    )
    game_id = api.post(
        "/api/v1/games/",
        {"game": "tonk", "players": [{"name": "Ana"}, {"name": "Ben"}]},
        format="json",
    ).json()["id"]
    null = api.put(
        f"/api/v1/games/{game_id}/hands/1/", {"revision": 1, "hand": None}, format="json"
    )
    assert (null.status_code, null.json()["error"]["code"]) == (400, "bad_format")
    assert "hand" in null.json()["error"]["fields"]


@pytest.mark.django_db
def test_an_address_under_the_api_that_is_no_endpoint_is_a_json_404(api: APIClient) -> None:
    for method in ("get", "post", "delete"):
        response = getattr(api, method)("/api/v1/games/not-a-number/")
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert response.json() == {"detail": "Not found."}


@pytest.mark.django_db
def test_page_size_must_be_a_positive_integer(api: APIClient) -> None:
    for bad in ("0", "-1", "ten", "null"):
        response = api.get(f"/api/v1/games/?page_size={bad}")
        assert response.status_code == 400, bad
        assert response.json()["error"]["code"] == "bad_format"
        assert "page_size" in response.json()["error"]["fields"]
    assert api.get("/api/v1/games/?page_size=500").status_code == 200  # counts as 200
    assert api.get("/api/v1/games/?page=9").status_code == 404


@pytest.mark.django_db
def test_an_endpoint_without_its_final_slash_is_still_redirected(api: APIClient) -> None:
    response = api.get("/api/v1/games?page=2")
    assert (response.status_code, response["Location"]) == (301, "/api/v1/games/?page=2")


@pytest.mark.django_db
def test_a_page_that_does_not_exist_is_404(api: APIClient) -> None:
    game = {"game": "tonk", "players": [{"name": "A"}, {"name": "B"}]}
    assert api.post("/api/v1/games/", game, format="json").status_code == 201
    assert [api.get(f"/api/v1/games/?page={p}").status_code for p in ("1", "last")] == [200, 200]
    assert [api.get(f"/api/v1/games/?page={p}").status_code for p in ("", "0", "x", "2")] == [
        404
    ] * 4


def test_every_key_an_error_or_conflict_body_carries_is_declared() -> None:
    """The error and conflict objects say what each refusal carries for a client to recover
    (the keys the services give: ``scoring.errors``, ``tournaments.errors``)."""
    components = schema_json()["components"]["schemas"]
    error = set(components["ErrorObjectOut"]["properties"])
    conflict = set(components["ConflictObjectOut"]["properties"])
    assert {
        "code",
        "message",
        "hand",
        "number",
        "player",
        "cards",
        "detail",
        "fields",
        "field",
    } <= error
    assert {
        "code",
        "message",
        "number",
        "current_revision",
        "latest",
        "limit",
        "game",
        "round",
        "field",
    } <= conflict
