"""The API's exception handler for the whole project: scoring's errors (rule errors 400,
conflicts 409) and the tournaments' (refused requests 400, state conflicts 409)."""

from typing import Any

from rest_framework.response import Response

from scoring.api import api_exception_handler
from scoring.messages import error_body
from tournaments.errors import TournamentError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """``{"error": {...}}`` with 400 for a refused request, ``{"conflict": {...}}`` with 409
    for one the state refuses; the rest as ``scoring.api.api_exception_handler``."""
    if isinstance(exc, TournamentError):
        key = "conflict" if exc.status == 409 else "error"
        return Response({key: error_body(exc, exc.to_dict())}, status=exc.status)
    return api_exception_handler(exc, context)
