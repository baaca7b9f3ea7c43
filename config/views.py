"""Project-wide views that belong to no app."""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ops import health
from scoring.api_parser import BodyTooLarge, too_large_body


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The health check for load balancers and monitors (``ops.health.report``): 200 when
    every check passes, 503 when one fails; the body names each check with its status and
    reason: ``{"status", "failing", "checks": {name: {"status", "reason"}}}``."""
    report = health.report()
    return JsonResponse(report.as_json(), status=200 if report.ok else 503)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The project's ``handler400``. A body over Django's ceiling
    (``DATA_UPLOAD_MAX_MEMORY_SIZE``, raised wherever a middleware or view reads the body) is
    413: under ``/api/`` the API's error object (``bad_format``, detail ``too_large``), on a
    page a short page saying so. Every other bad request as Django answers it."""
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if request.path_info.startswith("/api/"):
            return JsonResponse(too_large_body(BodyTooLarge(limit)), status=413)
        return render(request, "413.html", {"limit": limit}, status=413)
    return defaults.bad_request(request, exception)
