"""Project-wide views that belong to no app."""

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


def database_is_up() -> bool:
    """Answer whether the default database runs a trivial query."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError:
        return False


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Report liveness for load balancers: 200 when the database answers, 503 when not."""
    database = database_is_up()
    return JsonResponse(
        {"status": "ok" if database else "error", "database": database},
        status=200 if database else 503,
    )
