"""Which language a request gets, and a player's choice of one (issue 15, "Choosing the
language").

**The rule** (:func:`language_for`), first that names a language we have wins:

1. ``?lang=<code>`` on the request: that response, and the cookie is set from it
   (:class:`LanguageMiddleware`), so a link shared with ``?lang=bn`` opens in Bengali;
2. the language cookie (``settings.LANGUAGE_COOKIE_NAME``), set by the switcher;
3. the signed-in user's profile (:class:`ops.models.Profile`), so a choice follows the player
   to another browser (read at sign-in into the session: no query per request);
4. the hint of the page's view (:func:`hinted`): a tournament's public pages, table cards and
   big screen are in the tournament's language, when it has one;
5. the browser's ``Accept-Language``, read by Django's parser; a regional tag falls back to its
   language (``bn-BD`` → ``bn``, ``fil-PH`` → ``fil``) and Tagalog (``tl``), what browsers send
   for Filipino, is Filipino;
6. English (``settings.LANGUAGE_CODE``).

The switcher (``templates/base.html``, :func:`switcher`) posts to :func:`language_choose`'s
view (``/i18n/setlang/``): cookie for a year, and the profile of a signed-in user.

Plumbing: imports no app of the project (``ops`` sits below them); an app marks its views with
:func:`hinted`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.conf.locale import LANG_INFO
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext_lazy as _
from django.utils.translation.trans_real import parse_accept_lang_header
from django.views.i18n import JavaScriptCatalog

from ops.idempotency import new_key
from ops.language_list import choices as choices  # re-exported: forms and serializers
from ops.language_list import codes as codes  # re-exported: the apps read the codes here
from ops.models import Profile

#: The query parameter that picks the language of one response (and sets the cookie).
QUERY_PARAMETER = "lang"
#: Browser tags that name one of our languages under another code: Tagalog is what browsers
#: send for Filipino.
ALIASES: Mapping[str, str] = {"tl": "fil"}
#: How long the language cookie lasts, in seconds (a year) unless the settings say otherwise.
COOKIE_AGE = 365 * 24 * 60 * 60
#: The session key of a signed-in user's chosen language (:func:`profile_language`).
SESSION_KEY = "_language"
#: The attribute of a view function that holds its language hint (:func:`hinted`).
HINT_ATTRIBUTE = "language_hint"


class LanguageRefused(ValueError):
    """A language code that is none of ``settings.LANGUAGES``: ``message`` says so, to people."""

    def __init__(self, code: object) -> None:
        self.code = code
        self.message = _("There is no such language here: choose one from the list.")
        super().__init__(str(self.message))


@dataclass(frozen=True)
class Choice:
    """The language of a request: ``code`` (one of ``settings.LANGUAGES``) and ``source``,
    which step of the rule chose it: ``query``, ``cookie``, ``profile``, ``hint``, ``browser``
    or ``default``."""

    code: str
    source: str


def local_names() -> list[tuple[str, str]]:
    """Each language with its own name, as the switcher lists them (``("bn", "বাংলা")``):
    ``name_local`` of Django's ``LANG_INFO`` (the settings add Filipino and Assamese)."""
    return [(code, str(LANG_INFO[code]["name_local"])) for code in codes()]


def supported(tag: object) -> str | None:
    """The code of ours that the language tag ``tag`` names exactly (``"bn"``; letter case
    aside), else None. For a value a person or a link gave (``?lang=``, the cookie, the
    switcher): ``bn-BD`` or ``xx`` are no choice of ours."""
    if not isinstance(tag, str):
        return None
    text = tag.strip().lower()
    return text if text in codes() else None


def from_browser_tag(tag: str) -> str | None:
    """The code of ours a browser's language tag falls back to, else None: ``bn-BD`` → ``bn``,
    ``fil-PH`` → ``fil``, ``tl`` (Tagalog) → ``fil``, ``de`` → None. The regional fallback is
    Django's (``get_supported_language_variant``)."""
    text = tag.strip().lower()
    primary = text.split("-", 1)[0]
    if primary in ALIASES:
        text = ALIASES[primary]
    try:
        code = translation.get_supported_language_variant(text)
    except LookupError:
        return None
    return code if code in codes() else None


def from_accept_language(header: str) -> str | None:
    """The first of our languages in an ``Accept-Language`` header, by the browser's weights
    (Django's ``parse_accept_lang_header``); None when it names none of them (or is
    malformed)."""
    for tag, _quality in parse_accept_lang_header(header):
        if tag == "*":
            break
        code = from_browser_tag(tag)
        if code is not None:
            return code
    return None


def stored_language(user: Any) -> str | None:
    """The language stored in the profile of ``user`` (signed in), else None (anonymous, no
    profile, none chosen, or a code no longer ours). One query."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    stored = Profile.objects.filter(user=user).values_list("language", flat=True).first()
    return supported(stored)


def profile_to_session(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """Receiver of ``user_logged_in``: keep the user's chosen language in the session
    (:data:`SESSION_KEY`; "" for none), so that a request reads no profile."""
    if request is not None and hasattr(request, "session"):
        request.session[SESSION_KEY] = stored_language(user) or ""


def profile_language(request: HttpRequest) -> str | None:
    """The signed-in user's chosen language, as kept in the session at sign-in
    (:func:`profile_to_session`) or by the switcher; a session signed in before that was kept
    reads the profile once (:func:`stored_language`) and keeps it. None: anonymous, or none
    chosen."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not hasattr(request, "session"):
        return None
    if SESSION_KEY not in request.session:
        request.session[SESSION_KEY] = stored_language(user) or ""
    return supported(request.session[SESSION_KEY])


def view_hint(request: HttpRequest) -> str | None:
    """The language the view of ``request``'s path asks for (:func:`hinted`), else None. The
    path is resolved as the URL conf will resolve it; an unknown path has no hint."""
    try:
        match = resolve(request.path_info, getattr(request, "urlconf", None))
    except Resolver404:
        return None
    lookup = getattr(match.func, HINT_ATTRIBUTE, None)
    if lookup is None:
        return None
    return supported(lookup(match.kwargs))


def language_for(request: HttpRequest) -> Choice:
    """The language of ``request``, by the module's rule (query, cookie, profile, the view's
    hint, Accept-Language, English). Reads the database only for a step it reaches, and for
    the profile only once a session (:func:`profile_language`)."""
    query = supported(request.GET.get(QUERY_PARAMETER))
    if query is not None:
        return Choice(query, "query")
    cookie = supported(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))
    if cookie is not None:
        return Choice(cookie, "cookie")
    profile = profile_language(request)
    if profile is not None:
        return Choice(profile, "profile")
    hint = view_hint(request)
    if hint is not None:
        return Choice(hint, "hint")
    browser = from_accept_language(request.META.get("HTTP_ACCEPT_LANGUAGE", ""))
    if browser is not None:
        return Choice(browser, "browser")
    return Choice(settings.LANGUAGE_CODE, "default")


View = TypeVar("View", bound=Callable[..., Any])


def hinted(lookup: Callable[[Mapping[str, Any]], str | None]) -> Callable[[View], View]:
    """Mark a view with the language its page asks for when the visitor chose none:
    ``lookup(url_kwargs)`` answers a code (or "" / None: no hint). Read by
    :func:`language_for` through the URL conf, before the view runs; a wrapping decorator
    that uses ``functools.wraps`` keeps the mark."""

    def mark(view: View) -> View:
        setattr(view, HINT_ATTRIBUTE, lookup)
        return view

    return mark


def set_cookie(response: HttpResponseBase, code: str) -> None:
    """Set the language cookie of ``response`` to ``code`` for a year (the cookie settings
    of ``settings.LANGUAGE_COOKIE_*``)."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE or COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


@transaction.atomic
def language_choose(*, user: Any, language: object) -> str:
    """A player chooses a language: the code to set in the cookie, and for a signed-in
    ``user`` the choice stored in their profile (created on the first choice). One
    transaction. Choosing again the same language changes nothing (idempotent).

    Args:
        user: the request's user (anonymous: nothing stored).
        language: the code as sent (``"bn"``); exactly one of ``settings.LANGUAGES``.

    Raises:
        LanguageRefused: any other value; nothing is stored.
    """
    code = supported(language)
    if code is None or code != language:
        raise LanguageRefused(language)
    if user is not None and getattr(user, "is_authenticated", False):
        Profile.objects.update_or_create(user=user, defaults={"language": code})
    return code


def next_path(request: HttpRequest) -> str:
    """The page to come back to after choosing: ``request``'s path with its query string,
    ``lang`` left out (the new choice must win over it)."""
    query = request.GET.copy()
    query.pop(QUERY_PARAMETER, None)
    text = query.urlencode()
    return request.path + ("?" + text if text else "")


def switcher(request: HttpRequest) -> dict[str, Any]:
    """Context processor: the switcher of ``base.html`` (``language_switcher``): the
    languages by their own names, the page to come back to, a fresh idempotency key."""
    return {
        "language_switcher": {
            "options": local_names(),
            "next": next_path(request),
            "key": new_key(),
        }
    }


class LanguageMiddleware(LocaleMiddleware):
    """Django's ``LocaleMiddleware`` with the project's rule (:func:`language_for`) in place
    of Django's: activates the request's language (``request.LANGUAGE_CODE``,
    ``request.language_choice``), sets the cookie when ``?lang=`` chose it, and adds
    ``Vary: Accept-Language, Cookie`` and ``Content-Language`` to every response. Placed
    after the authentication middleware (the profile needs the user)."""

    def process_request(self, request: HttpRequest) -> None:
        choice = language_for(request)
        translation.activate(choice.code)
        request.LANGUAGE_CODE = translation.get_language()
        request.language_choice = choice  # type: ignore[attr-defined]

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        response = super().process_response(request, response)
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        choice: Choice | None = getattr(request, "language_choice", None)
        if choice is None or choice.source != "query":
            return response
        if request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != choice.code:
            set_cookie(response, choice.code)
        return response


class PageCatalog(JavaScriptCatalog):
    """The page script's catalogue, ``/jsi18n/<code>/``, in the language its address names:
    each page asks for the one of its own language (``templates/base.html``), whatever chose
    it (a tournament's language, the cookie, the browser), so the script's words are always
    the page's. A code that is none of ours is a 404."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        code = supported(kwargs.pop("code", None))
        if code is None:
            raise Http404("no such language")
        with translation.override(code):
            response = super().get(request, *args, **kwargs)
        response["Content-Language"] = code
        return response
