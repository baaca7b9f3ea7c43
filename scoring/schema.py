"""OpenAPI description of the table-key authentication (drf-spectacular extension)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class TableKeyScheme(OpenApiAuthenticationExtension):
    """``Authorization: Table <key>``: a table device's private key to its one game."""

    target_class = "scoring.api_auth.TableKeyAuthentication"
    name = "tableKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "The game's private table key, as `Table <key>`.",
        }
