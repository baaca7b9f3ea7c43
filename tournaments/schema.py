"""OpenAPI (drf-spectacular) of the tournaments API's request bodies: what the services accept,
per registered game, made when the schema is made (``SPECTACULAR_SETTINGS``'s postprocessing
hooks)."""

from __future__ import annotations

import copy
from typing import Any

from scoring import games
from scoring.models import Game
from scoring.schema import CURRENCY, STAKE, options_schema
from tournaments.localtime import zone_names
from tournaments.models import Tournament

#: The largest seed (``tournaments.services.tournament_create``).
MAX_SEED = 2**31 - 1
#: The longest round, in minutes.
MAX_MINUTES_PER_ROUND = 24 * 60


def tournament_body(common: dict[str, Any]) -> dict[str, Any]:
    """A new tournament: one shape per registered game, from the serializer's own properties
    (``common``) narrowed to what ``tournaments.services.tournament_create`` accepts: the
    fixed values as their choices, the numbers in their ranges, the game's table sizes,
    rounds, hands per round and options; a stake and a currency only for a game played for
    stakes. What depends on several values at once (``prefer`` one of ``sizes``, a start
    time the zone skips) stays the service's check (400 with its code)."""
    properties = copy.deepcopy(common["properties"])
    choices = {
        "method": Tournament.Method.values,
        "missed_round_score": Tournament.Missed.values,
        "basis": Tournament.Basis.values,
        "confirmation": Game.Confirmation.values,
        "time_zone": sorted(zone_names()),
    }
    for key, values in choices.items():
        properties[key] = {**properties.get(key, {}), "type": "string", "enum": list(values)}
    properties["seed"] = {"type": "integer", "minimum": 0, "maximum": MAX_SEED}
    properties["minutes_per_round"] = {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_MINUTES_PER_ROUND,
        "nullable": True,
    }
    shapes = []
    for name in games.names():
        rules = games.adapter_for(name).rules
        own = copy.deepcopy(properties)
        own["game"] = {"type": "string", "enum": [rules.name]}
        own["options"] = options_schema(rules)
        own["rounds"] = {"type": "integer", "minimum": 1, "maximum": rules.max_rounds}
        own["hands_per_round"] = {
            "type": "integer",
            "minimum": 1,
            "maximum": rules.max_hands_per_round,
        }
        size = {"type": "integer", "minimum": rules.min_players, "maximum": rules.max_players}
        own["sizes"] = {"type": "array", "items": size, "minItems": 1}
        own["prefer"] = dict(size)
        if rules.lower_wins:  # a missed round scoring zero would be an advantage
            own["missed_round_score"]["enum"] = [
                v for v in Tournament.Missed.values if v != Tournament.Missed.ZERO
            ]
        if rules.has_stakes:
            own["stake"], own["currency"] = dict(STAKE), dict(CURRENCY)
        else:
            own.pop("stake", None)
            own.pop("currency", None)
        required = list(common.get("required", []))
        if rules.default_rounds is None:  # the director must say how many
            required.append("rounds")
        shapes.append(
            {
                **{k: v for k, v in common.items() if k not in ("properties", "description")},
                "title": f"A {rules.title} tournament",
                "properties": own,
                "required": required,
            }
        )
    return {"anyOf": shapes, "description": common.get("description", "")}


def document_tournament_body(
    result: dict[str, Any], generator: Any, **kwargs: Any
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: ``TournamentIn`` per game (:func:`tournament_body`)."""
    schemas = result.get("components", {}).get("schemas", {})
    if "TournamentIn" in schemas:
        schemas["TournamentIn"] = tournament_body(schemas["TournamentIn"])
    return result
