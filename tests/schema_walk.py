"""Reading request bodies out of the OpenAPI schema, for the sweeps over the API's fields: a
body may be one object or one object per game (``anyOf`` of each game's shape, issue 24), and
a sweep wants the top-level fields of every alternative."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def body_properties(
    schema: Mapping[str, Any], components: Mapping[str, Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every top-level ``(name, property schema)`` of a request body ``schema``: its own
    ``properties`` and those of each ``anyOf``/``oneOf``/``allOf`` alternative, references
    followed (a field of several alternatives comes once per alternative)."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    yield from schema.get("properties", {}).items()
    for combinator in ("anyOf", "oneOf", "allOf"):
        for alternative in schema.get(combinator, []):
            yield from body_properties(alternative, components)
