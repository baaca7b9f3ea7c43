"""Limits on guessing (issue 14): passwords and private keys are not guessed at leisure.

One rule per thing guessed, used by every way in:

- **Passwords** (the sign-in page, the admin's sign-in): django-axes counts failed sign-ins in
  the database (``AccessAttempt``) and refuses further tries, the right password included, once
  a limit of ``settings.LOGIN_FAILURE_LIMITS`` is reached within ``LOGIN_COOLOFF_MINUTES``: per
  account from one address, per address, per account. :class:`LoginFailureHandler` gives each
  its own limit; :func:`lockout_response` answers 429 with when to try again.
- **Keys** (``Authorization: Token``, ``Table`` and ``Seat`` keys of the API; the table and
  seat links of the pages, ``/t/<key>/``, ``/s/<seat key>/``): an address whose keys were
  refused ``DEFAULT_THROTTLE_RATES["key_guess"]`` times is refused (429) until the window
  passes (:class:`KeyGuessThrottle`, :class:`KeyGuessGuard`, :class:`KeyGuessMiddleware`).

Both know the caller by :func:`client_address`, the one reading of the client's address.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any, cast

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off
from django.conf import settings
from django.db.models import Max, QuerySet, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import ngettext
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication as DrfTokenAuthentication
from rest_framework.authentication import get_authorization_header
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from ops import l10n


def client_address(request: HttpRequest) -> str:
    """The caller's address: ``REMOTE_ADDR``, or behind ``TRUSTED_PROXIES`` proxies (each
    appending the address it saw to ``X-Forwarded-For``, as nginx's
    ``$proxy_add_x_forwarded_for`` does) that many entries from the right of
    ``X-Forwarded-For``, never an entry the client could have written itself. DRF's reading
    (``NUM_PROXIES``), used by the sign-in limits and the API's throttles alike."""
    return str(BaseThrottle().get_ident(cast(Any, request)) or "")


# --- passwords ---------------------------------------------------------------------------------


def _limits() -> list[int]:
    return [limit for _parameters, limit in settings.LOGIN_FAILURE_LIMITS]


class LoginFailureHandler(AxesDatabaseHandler):  # type: ignore[misc]
    """django-axes' database handler with one limit per lockout parameter set.

    ``settings.LOGIN_FAILURE_LIMITS`` pairs each set of ``AXES_LOCKOUT_PARAMETERS`` (in the same
    order) with its own limit: e.g. 5 for one account from one address, 20 for one address.
    Axes compares one count with one limit (``AXES_FAILURE_LIMIT``, the first pair's); here
    each set's count is scaled to that limit, so that a set reaches it exactly when its own
    count reaches its own limit.

    A successful sign-in clears the failures of that account from that address only (axes'
    own reset also clears the whole address's, which would let a guesser with an account of
    their own start again after each of its sign-ins).
    """

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        first = settings.AXES_FAILURE_LIMIT
        worst = 0
        for attempts, limit in zip(
            self.get_user_attempts(request, credentials), _limits(), strict=True
        ):
            count = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            worst = max(worst, count * first // limit)
        return worst

    def reset_user_attempts(
        self, request: HttpRequest, credentials: dict[str, Any] | None = None
    ) -> int:
        first = self.filter_user_attempts(request, credentials)[0]
        count, _ = first.delete()
        return int(count)

    def retry_at(self, request: HttpRequest, credentials: dict[str, Any] | None) -> datetime:
        """When the caller may try again: the cool-off after the latest failure counted by a
        limit that is reached."""
        cool_off = get_cool_off(request) or timedelta(0)
        latest: datetime | None = None
        attempts_list: list[QuerySet[Any]] = self.get_user_attempts(request, credentials)
        for attempts, limit in zip(attempts_list, _limits(), strict=True):
            row = attempts.aggregate(n=Sum("failures_since_start"), last=Max("attempt_time"))
            if (row["n"] or 0) >= limit and row["last"] is not None:
                latest = row["last"] if latest is None else max(latest, row["last"])
        return (latest or timezone.now()) + cool_off


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    """The answer to a sign-in refused for too many failures (axes' ``AXES_LOCKOUT_CALLABLE``):
    429, the page saying in the reader's language why and when to try again, and
    ``Retry-After`` in seconds."""
    retry_at = LoginFailureHandler().retry_at(request, credentials)
    seconds = max(1, math.ceil((retry_at - timezone.now()).total_seconds()))
    minutes = max(1, math.ceil(seconds / 60))
    context = {
        "minutes": minutes,
        "retry_at": retry_at,
        "username": get_client_username(request, credentials) or "",
    }
    response = render(request, "registration/locked_out.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response


# --- keys --------------------------------------------------------------------------------------


class KeyGuessThrottle(SimpleRateThrottle):
    """Refused keys per address (scope ``key_guess``): an address whose keys (token, table key,
    seat key) were refused as often as the rate allows within its window is refused, whatever
    key it sends, until the oldest of those refusals leaves the window.

    State lives in the default cache: with Redis down (the cache ignores its errors) nothing is
    counted and nothing is refused (the limit fails open; the keys themselves are 24 random
    bytes or more). ``timer`` is the clock (tests replace it)."""

    scope = "key_guess"
    num_requests: int
    duration: int

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}

    def refuse_if_blocked(self, request: Any) -> None:
        """Raise ``Throttled`` (429) when the caller's address used up its refusals."""
        self.key = self.get_cache_key(request, None)
        self.now = self.timer()
        self.history = [t for t in self.cache.get(self.key, []) if t > self.now - self.duration]
        if len(self.history) >= self.num_requests:
            wait = self.history[-1] - (self.now - self.duration)
            refusal = exceptions.Throttled(wait=wait)
            # Our sentence alone: DRF's would add its own "Expected available in ..." to it.
            seconds = max(1, math.ceil(wait))
            refusal.detail = exceptions.ErrorDetail(
                l10n.sentence(
                    ngettext(
                        "Too many keys refused from your address: try again in %(seconds)s second.",
                        "Too many keys refused from your address: try again in %(seconds)s "
                        "seconds.",
                        seconds,
                    ),
                    {"seconds": seconds},
                ),
                code=refusal.default_code,
            )
            raise refusal

    def refused(self, request: Any) -> None:
        """Count one refused key for the caller's address (after :meth:`refuse_if_blocked`)."""
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)


class KeyGuessGuard:
    """Mixin for a DRF authentication class that reads ``Authorization: <keyword> <key>``: a
    caller whose address used up its refusals is refused (429) before its key is looked up,
    and each key refused (``AuthenticationFailed``) counts one (:class:`KeyGuessThrottle`)."""

    keyword: str

    def authenticate(self, request: Any) -> Any:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        throttle = KeyGuessThrottle()
        throttle.refuse_if_blocked(request)
        try:
            return super().authenticate(request)  # type: ignore[misc]
        except exceptions.AuthenticationFailed:
            throttle.refused(request)
            raise


class TokenAuthentication(KeyGuessGuard, DrfTokenAuthentication):
    """``Authorization: Token <key>``, a user's API token, with refusals counted against the
    caller's address (:class:`KeyGuessGuard`)."""


#: The names a page's address gives its private key under (``/t/<key>/``, ``/s/<seat_key>/``).
KEY_ARGUMENTS = frozenset({"key", "seat_key"})


class KeyGuessMiddleware:
    """Pages opened by a private key in their address: a 404 from one (no such key) counts a
    refused key against the caller's address, and an address that used up its refusals gets
    a 429 page, whatever key it sends, until the window passes (the same count as the API's,
    :class:`KeyGuessThrottle`)."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response: HttpResponse = self.get_response(request)
        throttle = getattr(request, "key_guess", None)
        if throttle is not None and response.status_code == 404:
            throttle.refused(request)
        return response

    def process_view(
        self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        if not KEY_ARGUMENTS & set(kwargs) or request.path_info.startswith("/api/"):
            return None
        throttle = KeyGuessThrottle()
        try:
            throttle.refuse_if_blocked(request)
        except exceptions.Throttled as exc:
            seconds = max(1, math.ceil(getattr(exc, "wait", None) or 1))
            response = TemplateResponse(
                request, "throttled.html", {"message": exc.detail}, status=429
            )
            response["Retry-After"] = str(seconds)
            return response
        request.key_guess = throttle  # type: ignore[attr-defined]
        return None
