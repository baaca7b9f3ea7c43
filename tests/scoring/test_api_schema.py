"""The OpenAPI schema describes every scorekeeping endpoint, without warnings."""

import io

import yaml
from django.core.management import call_command


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
    }
    assert "tableKey" in schema["components"]["securitySchemes"]
