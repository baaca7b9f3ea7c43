"""Project-wide views that belong to no app."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ops import health


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The health check for load balancers and monitors (``ops.health.report``): 200 when
    every check passes, 503 when one fails; the body names each check with its status and
    reason: ``{"status", "failing", "checks": {name: {"status", "reason"}}}``."""
    report = health.report()
    return JsonResponse(report.as_json(), status=200 if report.ok else 503)
