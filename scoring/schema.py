"""OpenAPI extensions (drf-spectacular): the table-key authentication, input serializers that
refuse keys they do not declare, and a game's name as one of the registered games."""

from typing import Any

from drf_spectacular.extensions import (
    OpenApiAuthenticationExtension,
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.plumbing import build_basic_type
from drf_spectacular.types import OpenApiTypes

from scoring import games


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
