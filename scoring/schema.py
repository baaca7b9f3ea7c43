"""OpenAPI extensions (drf-spectacular): the table-key authentication, input serializers that
refuse keys they do not declare, and a game's name as one of the registered games."""

import copy
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from drf_spectacular.extensions import (
    OpenApiAuthenticationExtension,
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.plumbing import build_basic_type
from drf_spectacular.types import OpenApiTypes

from scoring import games, money
from tonkrules.names import MAX_NAME_LENGTH, is_name
from tonkrules.sheet import FORMAT


class TableKeyScheme(OpenApiAuthenticationExtension):
    """``Authorization: Table <key>``: a table device's private key to read its one game."""

    target_class = "scoring.api_auth.TableKeyAuthentication"
    name = "tableKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "The game's private table key, as `Table <key>`: it reads its "
            "one game (the game, its hands, exports). It changes nothing: every write records "
            "who made it, so a write with a table key alone is refused (403); send a seat's "
            "key instead (`Seat <key>`).",
        }


class SeatKeyScheme(OpenApiAuthenticationExtension):
    """``Authorization: Seat <key>``: a player's private seat key to their one game."""

    target_class = "scoring.api_auth.SeatKeyAuthentication"
    name = "seatKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A seat's private key, as `Seat <key>`: its player's phone. It "
            "reads its one game and writes to it as that seat (enter, correct, void, restore, "
            "confirm, dispute), recorded with the seat and its player.",
        }


class StrictSerializerSchema(OpenApiSerializerExtension):
    """``scoring.api.StrictSerializer`` and its subclasses refuse undeclared keys (400
    ``bad_format``): their schema says ``additionalProperties: false``."""

    target_class = "scoring.api.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        return schema


class GameNameSchema(OpenApiSerializerFieldExtension):
    """A game's name (``scoring.serializers.GameNameField`` and its subclasses): one of the
    games registered in ``scoring.games`` when the schema is made, so a game registered later
    is documented without any change here."""

    target_class = "scoring.serializers.GameNameField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = build_basic_type(OpenApiTypes.STR) or {"type": "string"}
        schema["enum"] = list(games.names())
        return schema


def document_throttling(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every operation may answer 429 (the limits on
    guessing keys and on table links' writes, ``ops.guessing``, ``scoring.throttles``), with
    the error object (``code`` ``throttled``, ``retry_after``) and ``Retry-After``."""
    answer = {
        "description": "Too many keys refused from this address, or too many writes from this "
        "table link: nothing was done; try again after `Retry-After` seconds.",
        "headers": {
            "Retry-After": {
                "schema": {"type": "integer", "minimum": 1},
                "description": "Seconds to wait before trying again.",
            }
        },
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("429", answer)
    return result


# --- request bodies: what the server accepts, from the rules' own declarations ------------------


def _rules() -> list[Any]:
    """The registered games' rules objects, in the registry's order."""
    return [games.adapter_for(name).rules for name in games.names()]


def hand_shape_of(name: str) -> Mapping[str, Any]:
    """The hand shape of game ``name`` (its adapter's ``hand_schema``)."""
    return games.adapter_for(name).hand_schema


def hand_body(
    *, extra: Mapping[str, Any] | None = None, required: Sequence[str] = ()
) -> dict[str, Any]:
    """The JSON Schema of one hand object of the score-sheet format, any game: one of each
    registered game's hand shapes (its adapter's ``hand_schema``: its keys, their types,
    which keys each way of ending needs, no other key). ``extra`` adds properties to every
    shape (``required``: of them, required), for a body that carries more than the hand.
    What depends on the table (its players, the cards, the rules) stays the rules' check:
    400 with the rule's code (``bad_player``, ``bad_card``…)."""
    shapes = []
    for rules in _rules():
        shape = copy.deepcopy(dict(hand_shape_of(rules.name)))
        for variant in shape.get("oneOf", [shape]):
            if extra:
                variant.setdefault("properties", {}).update(copy.deepcopy(dict(extra)))
                variant["required"] = [*variant.get("required", []), *required]
        shape["title"] = f"{rules.title} hand"
        shapes.append(with_player_pattern(shape))
    return {
        "anyOf": shapes,
        "description": "One hand object of the score-sheet format, of the game's shape (its "
        "keys depend on the game and on how the hand ended).",
    }


def with_player_pattern(schema: Any) -> Any:
    """A copy of ``schema`` where each player named in a hand (``x-player``,
    ``scoring.games.base.PLAYER_SCHEMA``) holds only the characters a name may hold
    (:func:`name_characters`; spaces anywhere, as a hand spells the name as in ``players``)."""
    if isinstance(schema, list):
        return [with_player_pattern(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: with_player_pattern(value) for key, value in schema.items()}
    if out.get("x-player"):
        letters, spaces = name_characters()
        out["pattern"] = f"^(?:{letters}|{spaces})*$"
    return out


def resolution_body(common: dict[str, Any], schemas: Mapping[str, Any]) -> dict[str, Any]:
    """A director's resolution (``ResolutionIn``): ``correct`` gives the hand, ``confirm``
    and ``void`` need none; one shape per kind of action, from the serializer's own."""
    action = common["properties"]["action"]
    if "$ref" in action:
        action = schemas[action["$ref"].rsplit("/", 1)[-1]]
    choices = list(action.get("enum") or [])
    if not choices:
        return common
    correct = {
        **common,
        "properties": {**common["properties"], "action": {"type": "string", "enum": ["correct"]}},
        "required": sorted({*common.get("required", []), "hand"}),
    }
    others = {
        **common,
        "properties": {
            **common["properties"],
            "action": {"type": "string", "enum": [c for c in choices if c != "correct"]},
        },
    }
    return {"anyOf": [correct, others], "description": common.get("description", "")}


def options_schema(rules: Any) -> dict[str, Any]:
    """A game's house-rule options object (``tonkrules.Options.json_schema``)."""
    schema = rules.options_type.json_schema()
    schema["description"] = f"{rules.title} house rules; a key left out takes its default."
    return schema


#: A stake and a currency as ``tonkrules.sheet`` reads them.
STAKE = {
    "type": "string",
    "pattern": "^[0-9]+(\\.[0-9]+)?$",
    "maxLength": 32,
    "description": 'The money value of one stake unit, a decimal string (`"0.25"`).',
}


def _any_case(code: str) -> str:
    """A regular expression of ``code`` in any mix of capitals (``[Uu][Ss][Dd]``)."""
    return "".join(f"[{c.upper()}{c.lower()}]" for c in code)


#: An ISO 4217 currency code, in any case (the money rule, ``scoring.money.currency_verify``,
#: takes exactly the codes CLDR knows, through Babel).
CURRENCY = {
    "type": "string",
    "pattern": "^(?:" + "|".join(_any_case(c) for c in sorted(money.currency_codes())) + ")$",
    "description": 'An ISO 4217 currency code (`"USD"`, `"BDT"`, `"JPY"`), in any case; a '
    "stake may not have more decimals than the currency's minor unit (400 otherwise).",
}


def score_sheet_body() -> dict[str, Any]:
    """The JSON Schema of a whole score sheet (``tabletally.scoresheet/1``): one shape per
    registered game (its players' count, its options, a stake and currency where it is
    played for stakes, its hands)."""
    shapes = []
    for rules in _rules():
        properties: dict[str, Any] = {
            "format": {"type": "string", "enum": [FORMAT]},
            "game": {"type": "string", "enum": [rules.name]},
            "players": {
                "type": "array",
                "items": name_schema(MAX_NAME_LENGTH),
                "minItems": rules.min_players,
                "maxItems": rules.max_players,
            },
            "options": options_schema(rules),
            "hands": {
                "type": "array",
                "items": with_player_pattern(dict(hand_shape_of(rules.name))),
            },
        }
        if rules.has_stakes:
            properties |= {"stake": STAKE, "currency": CURRENCY}
        shapes.append(
            {
                "type": "object",
                "title": f"A {rules.title} sheet",
                "properties": properties,
                "required": ["format", "game", "players", "hands"],
                "additionalProperties": False,
            }
        )
    return {
        "anyOf": shapes,
        "description": "A whole score sheet (`tabletally.scoresheet/1`), checked by the rules "
        "engine.",
    }


def game_start_body(*, seat: Mapping[str, Any], confirmation: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a new game: one shape per registered game (its players' count, its
    options, a stake and currency where it is played for stakes). ``seat`` is the schema of
    one seat, ``confirmation`` of who confirms hands."""
    shapes = []
    for rules in _rules():
        properties: dict[str, Any] = {
            "game": {"type": "string", "enum": [rules.name]},
            "players": {
                "type": "array",
                "items": dict(seat),
                "minItems": rules.min_players,
                "maxItems": rules.max_players,
            },
            "options": options_schema(rules),
            "club": {"type": "integer", "nullable": True},
            "confirmation": dict(confirmation),
        }
        if rules.has_stakes:
            properties |= {"stake": STAKE, "currency": CURRENCY}
        shapes.append(
            {
                "type": "object",
                "title": f"A {rules.title} game",
                "properties": properties,
                "required": ["game", "players"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": shapes}


# --- names --------------------------------------------------------------------------------------


def _accepted(low: int, high: int) -> list[tuple[int, int]]:
    """The ranges of code points in ``low..high`` that the name rule accepts between two
    letters, found by asking it (a block at once, halved where it refuses)."""
    text = "".join(chr(c) for c in range(low, high + 1))
    if is_name(f"a{text}a"):
        return [(low, high)]
    if low == high:
        return []
    middle = (low + high) // 2
    return _accepted(low, middle) + _accepted(middle + 1, high)


@cache
def name_characters() -> tuple[str, str]:
    """Two regular-expression character classes (Python and ECMAScript alike): the
    characters a name may hold other than spaces, and the spaces (category ``Zs``, which the
    rule collapses). Made by asking the rule itself (``tonkrules.names.is_name``) about
    every code point, so they follow it; a character whose NFC form is longer than itself is
    left out, so that a name's length as sent bounds its length as stored."""
    ranges: list[tuple[int, int]] = []
    for low, high in _visible_runs():
        for block in range(low, high + 1, 64):
            ranges += _accepted(block, min(block + 63, high))
    letters: list[int] = []
    spaces: list[int] = []
    for low, high in ranges:
        for point in range(low, high + 1):
            char = chr(point)
            if unicodedata.category(char) == "Zs":
                spaces.append(point)
            elif len(unicodedata.normalize("NFC", char)) == 1:
                letters.append(point)
    return _char_class(letters), _char_class(spaces)


#: Categories no name holds whatever the rule's details (controls, format characters,
#: surrogates, private use, unassigned, line and paragraph separators): left out before the
#: rule is asked, which keeps the asking short.
_NEVER = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _visible_runs() -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    start = None
    for point in range(0x110001):
        visible = point <= 0x10FFFF and unicodedata.category(chr(point)) not in _NEVER
        if visible and start is None:
            start = point
        elif not visible and start is not None:
            runs.append((start, point - 1))
            start = None
    return runs


def _char_class(points: Sequence[int]) -> str:
    parts: list[str] = []
    start = previous = None
    for point in [*points, None]:
        if point is not None and previous is not None and point == previous + 1:
            previous = point
            continue
        if start is not None and previous is not None:
            parts.append(
                _escape(start) if start == previous else f"{_escape(start)}-{_escape(previous)}"
            )
        start = previous = point
    return "[" + "".join(parts) + "]"


def _escape(point: int) -> str:
    """A code point in a character class as Python's ``re`` and ECMAScript's (OpenAPI's)
    regular expressions both read it: ``\\uXXXX`` in the Basic Multilingual Plane, the
    character itself beyond it (no escape there is common to both)."""
    return f"\\u{point:04x}" if point <= 0xFFFF else chr(point)


def name_schema(max_length: int) -> dict[str, Any]:
    """A name as the name rule takes it (``tonkrules.names``): at least one visible
    character, no invisible or direction-control one (the characters the rule accepts,
    :func:`name_characters`), at most ``max_length`` characters as sent (the rule counts them
    after collapsing spaces, so this never refuses a name it takes as sent this long)."""
    letters, spaces = name_characters()
    return {
        "type": "string",
        "x-name-rule": True,
        "minLength": 1,
        "maxLength": max_length,
        "pattern": f"^{spaces}*{letters}(?:{spaces}*{letters})*{spaces}*$",
        "description": "A name: NFC-normalised, spaces collapsed, at most "
        f"{max_length} characters; invisible and direction-control characters refused (a "
        "joiner only between two letters of a South Asian script). Compared "
        "case-insensitively.",
    }


class NameFieldSchema(OpenApiSerializerFieldExtension):
    """A name in a request (``scoring.names.NameSerializerField``): :func:`name_schema`, made
    when the schema is made."""

    target_class = "scoring.names.NameSerializerField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return name_schema(int(self.target.name_max_length))


#: A new hand's ``number`` (``POST /api/v1/games/{id}/hands/``, ``scoring.api_hands``): which
#: hand it says it is (issue 24: one hand, once).
HAND_NUMBER: dict[str, Any] = {
    "type": "integer",
    "minimum": 1,
    "description": "Which hand this is: the game's last hand number as the sender saw it, plus "
    "one (1 for the first; a voided number stays used). Under the game's lock a hand that is no "
    "longer next is refused (409 `hand_not_next`, the current hands in `hands`, nothing saved): "
    "two phones sending the same hand record it once. Without it: 428 `hand_number_required`.",
}

#: Request bodies made from the registered games when the schema is made (not when a module
#: is imported), by component name; an operation refers to one as
#: ``{"$ref": "#/components/schemas/<name>"}``. ``GameStart`` replaces the serializer's own.
BODIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "ResolutionIn": lambda schemas: resolution_body(schemas["ResolutionIn"], schemas),
    "Hand": lambda schemas: hand_body(),
    "HandWrite": lambda schemas: hand_body(extra={"number": HAND_NUMBER}, required=("number",)),
    "ScoreSheet": lambda schemas: score_sheet_body(),
    "GameStart": lambda schemas: game_start_body(
        seat={"$ref": "#/components/schemas/SeatInput"},
        confirmation=schemas["GameStart"]["properties"]["confirmation"],
    ),
}


def document_bodies(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the request bodies of :data:`BODIES`, per game."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, make in BODIES.items():
        if name in ("GameStart", "ResolutionIn") and name not in schemas:
            continue
        schemas[name] = make(schemas)
    result["components"]["schemas"] = _names_not_blank(schemas)
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if not isinstance(body, dict):
                continue
            content = body.get("content", {}).get("application/json", {})
            if content.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1] in BODIES:
                body["required"] = True  # a hand, a sheet: nothing is no hand
    return result


def _names_not_blank(schema: Any) -> Any:
    """``schema`` without the blank alternative drf-spectacular gives a name field (it
    allows blank so that the service answers with the name rule's own error): a blank name
    is refused."""
    if isinstance(schema, list):
        return [_names_not_blank(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _names_not_blank(value) for key, value in schema.items()}
    alternatives = out.get("oneOf")
    if isinstance(alternatives, list) and any(a.get("x-name-rule") for a in alternatives):
        (name,) = [a for a in alternatives if a.get("x-name-rule")]
        out.pop("oneOf")
        out = {**name, **out}
    return out
