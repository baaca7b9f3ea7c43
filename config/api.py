"""The API's exception handler for the whole project: scoring's errors (rule errors 400,
conflicts 409) and the tournaments' (refused requests 400, state conflicts 409); the API's
answer to an address it does not have."""

from typing import Any

from django.conf import settings
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponsePermanentRedirect,
    JsonResponse,
)
from django.urls import Resolver404, resolve
from django.utils import translation
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView
from rest_framework import exceptions
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


@csrf_exempt  # a 404 for every method; it changes nothing
def not_found(request: HttpRequest) -> HttpResponse:
    """Any other address under ``/api/v1/`` (a path parameter that is not a number, a path no
    endpoint has): 404 with DRF's ``{"detail"}`` body, as the API's own 404s, not a page. An
    endpoint's address without its final slash is still redirected to it (``APPEND_SLASH``, as
    ``CommonMiddleware`` does where no route matches)."""
    path = request.path_info
    if settings.APPEND_SLASH and not path.endswith("/"):
        try:
            match = resolve(path + "/")
        except Resolver404:
            match = None
        if match is not None and match.url_name != "api-not-found":
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    return JsonResponse({"detail": str(exceptions.NotFound.default_detail)}, status=404)


class SchemaView(SpectacularAPIView):
    """The OpenAPI schema, always in English: one document for every caller (its descriptions
    are English; without this its choice labels would follow the caller's language, or
    drf-spectacular's own ``?lang=``)."""

    def _get_schema_response(self, request: Any) -> Response:
        with translation.override("en"):
            return super()._get_schema_response(request)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        with translation.override("en"):
            response = super().dispatch(request, *args, **kwargs)
            if isinstance(response, Response):
                response.render()  # its lazy texts, in English
        response["Content-Language"] = "en"
        return response
