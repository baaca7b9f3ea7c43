"""Project-wide views that belong to no app."""

from typing import Any
from urllib.parse import quote

from django import forms
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from ops import health, idempotency, languages
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


class LanguageForm(idempotency.KeyedForm):
    """The switcher's post (``templates/base.html``): ``language`` (a code, read by
    :func:`ops.languages.language_choose`), ``next`` (the page to come back to) and the
    device's ``idempotency_key`` (checked by ``clean_key``; a replay is harmless: choosing a
    language is idempotent)."""

    language = forms.CharField(required=False, strip=False)
    next = forms.CharField(required=False, strip=False)
    idempotency_key = idempotency.KeyField()


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """``POST /i18n/setlang/`` (name ``set_language``): choose the language
    (:func:`ops.languages.language_choose`: the profile of a signed-in user), set the cookie
    for a year and go back to ``next`` when it is a safe address on this site, else home (303).
    An unknown language, or a damaged key: 400 with the reason, nothing stored."""
    form = LanguageForm(request.POST)
    message: Any = None
    if not form.is_valid():  # a damaged key; or a text no field takes (a NUL character)
        errors = form.non_field_errors()
        message = errors[0] if errors else languages.LanguageRefused(None).message
    else:
        try:
            code = languages.language_choose(
                user=request.user, language=form.cleaned_data["language"]
            )
        except languages.LanguageRefused as exc:
            message = exc.message
    if message is not None:
        return render(request, "language_refused.html", {"message": message}, status=400)
    if request.user.is_authenticated:
        request.session[languages.SESSION_KEY] = code
    target = form.cleaned_data["next"]
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("home")
    response = HttpResponseRedirect(target, status=303)
    languages.set_cookie(response, code)
    return response


@never_cache
@require_GET
def language_prefix(request: HttpRequest, code: str, rest: str) -> HttpResponse:
    """``GET /<code>/<page>``, a language's code before a page's
    address (``/bn/tournaments/4/``): the page in that language, by a redirect (302) to
    ``/<page>?lang=<code>`` with the rest of the query string kept, which sets the cookie
    (:class:`ops.languages.LanguageMiddleware`). Always a page of this site: leading
    slashes are dropped (``/bn//elsewhere.example/`` is not another host)."""
    query = request.GET.copy()
    query[languages.QUERY_PARAMETER] = code
    path = quote(rest.lstrip("/\\"), safe="/")
    return HttpResponseRedirect(f"/{path}?{query.urlencode()}")
