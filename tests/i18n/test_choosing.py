"""Choosing the language (issue 15): which language a request gets (``ops.languages``: ?lang=,
the cookie, the profile, the tournament's language on its pages, Accept-Language, English),
the switcher on every page, ``/i18n/setlang/`` and a tournament's language in the API.

The world is the ETag tests' (``tests/inputs/test_etags.py``): a Rook tournament with a
published round and a hand at a table, so that the sweep of the URL conf reaches every page.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from ops.language_list import codes
from ops.languages import LanguageRefused
from ops.models import Profile
from tests.factories import UserFactory
from tests.inputs import test_etags
from tests.inputs.conftest import nothing_stored
from tests.inputs.test_etags import World, sweep_kwargs, table_phone, url_patterns
from tests.schema_walk import body_properties
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

#: The ETag tests' seeded tournament, as this module's fixture.
world = test_etags.world

#: Our five languages, each with its own name as the switcher lists it.
LOCAL_NAMES = {
    "en": "English",
    "bn": "বাংলা",
    "ta": "தமிழ்",
    "fil": "Filipino",
    "as": "অসমীয়া",
}
YEAR = 365 * 24 * 60 * 60


def html_lang(response: Any) -> str:
    """The ``lang`` of the page's ``<html>`` element."""
    found = re.search(r'<html lang="([^"]*)"', response.content.decode())
    assert found, response.content[:300]
    return found.group(1)


def signed_in(language: str = "") -> tuple[Any, Client]:
    """A user (with a profile of ``language`` when given) and a new browser signed in as them."""
    user = UserFactory()
    if language:
        Profile.objects.create(user=user, language=language)
    client = Client()
    client.force_login(user)
    return user, client


def choose(client: Client, language: str, next: str = "/", key: str = "k-1") -> Any:
    return client.post(
        reverse("set_language"), {"language": language, "next": next, "idempotency_key": key}
    )


# --- each language, each way ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("en-US,en;q=0.9", "en"),
        ("bn-BD,bn;q=0.9,en;q=0.5", "bn"),
        ("ta-IN", "ta"),
        ("fil-PH,fil;q=0.9", "fil"),
        ("tl", "fil"),  # Tagalog: what browsers send for Filipino
        ("as-IN,as;q=0.8", "as"),
        ("de-DE,bn;q=0.5", "bn"),  # the first of ours by weight
        ("de-DE,fr;q=0.5", "en"),  # none of ours: English
    ],
)
def test_the_browsers_language_by_accept_language(header: str, expected: str) -> None:
    response = Client().get("/", HTTP_ACCEPT_LANGUAGE=header)
    assert response.status_code == 200
    assert html_lang(response) == expected
    assert response["Content-Language"] == expected
    vary = {v.strip().lower() for v in response["Vary"].split(",")}
    assert {"accept-language", "cookie"} <= vary


@pytest.mark.parametrize("code", list(LOCAL_NAMES))
def test_lang_in_the_query_chooses_that_response_and_sets_the_cookie(code: str) -> None:
    client = Client()
    response = client.get(f"/?lang={code}", HTTP_ACCEPT_LANGUAGE="ta")
    assert html_lang(response) == code
    cookie = response.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert cookie.value == code
    assert int(cookie["max-age"]) == YEAR
    # A link shared with ?lang= keeps the language on the next page without it.
    assert html_lang(client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="ta")) == code


def test_an_unknown_lang_in_the_query_is_ignored() -> None:
    response = Client().get("/?lang=xx", HTTP_ACCEPT_LANGUAGE="bn")
    assert html_lang(response) == "bn"
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies


@pytest.mark.parametrize("code", list(LOCAL_NAMES))
def test_a_language_code_before_a_pages_address_opens_it_in_that_language(code: str) -> None:
    client = Client()
    response = client.get(f"/{code}/accounts/login/?next=/games/", HTTP_ACCEPT_LANGUAGE="ta")
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next=%2Fgames%2F&lang={code}"
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="ta")
    assert html_lang(page) == code
    assert page.cookies[settings.LANGUAGE_COOKIE_NAME].value == code
    assert html_lang(client.get(f"/{code}/", follow=True)) == code


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/bn//elsewhere.example/", "/elsewhere.example/?lang=bn"),
        ("/bn/\\elsewhere.example/", "/elsewhere.example/?lang=bn"),
        ("/ta/t/a b/", "/t/a%20b/?lang=ta"),
    ],
)
def test_a_language_prefix_stays_on_this_site(path: str, location: str) -> None:
    assert Client().get(path)["Location"] == location


def test_a_prefix_not_a_language_of_ours_is_not_found() -> None:
    assert Client().get("/xx/").status_code == 404
    assert Client().get("/de/accounts/login/").status_code == 404
    assert Client().post("/bn/accounts/login/").status_code == 405


@pytest.mark.parametrize("code", list(LOCAL_NAMES))
def test_the_cookie_chooses(code: str) -> None:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
    assert html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE="ta" if code != "ta" else "bn")) == code


@pytest.mark.parametrize("code", list(LOCAL_NAMES))
def test_the_signed_in_users_profile_chooses(code: str) -> None:
    _user, client = signed_in(code)
    other = "ta" if code != "ta" else "bn"
    assert html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE=other)) == code


def test_precedence_query_cookie_profile_tournament_browser_english(world: World) -> None:
    Tournament.objects.filter(pk=world.tournament.pk).update(language="fil")
    url = reverse("tournaments:standings", args=[world.tournament.pk])
    _user, client = signed_in("ta")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "bn"
    assert html_lang(client.get(url + "?lang=as", HTTP_ACCEPT_LANGUAGE="en")) == "as"
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "bn"  # the ?lang= above set it to as
    assert html_lang(client.get(url, HTTP_ACCEPT_LANGUAGE="en")) == "bn"
    del client.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert html_lang(client.get(url, HTTP_ACCEPT_LANGUAGE="en")) == "ta"
    anonymous = Client()
    assert html_lang(anonymous.get(url, HTTP_ACCEPT_LANGUAGE="bn")) == "fil"
    Tournament.objects.filter(pk=world.tournament.pk).update(language="")
    assert html_lang(anonymous.get(url, HTTP_ACCEPT_LANGUAGE="bn")) == "bn"
    assert html_lang(anonymous.get(url)) == "en"


# --- a tournament's language --------------------------------------------------------------------


def tournament_pages(world: World) -> dict[str, str]:
    t = world.tournament
    registration = t.registrations.order_by("pk").first()
    assert registration is not None
    return {
        "standings": reverse("tournaments:standings", args=[t.pk]),
        "standings-fragment": reverse("tournaments:standings-fragment", args=[t.pk]),
        "screen": reverse("tournaments:screen", args=[t.pk]),
        "round": reverse("tournaments:round", args=[t.pk, 1]),
        "player": reverse("tournaments:player", args=[t.pk, registration.pk]),
        "cards": reverse("tournaments:cards", args=[t.pk, 1]),
    }


def test_a_tournaments_pages_cards_and_screen_are_in_its_language(world: World) -> None:
    Tournament.objects.filter(pk=world.tournament.pk).update(language="ta")
    director = Client()
    director.force_login(world.director)
    for name, url in tournament_pages(world).items():
        client = director if name == "cards" else Client()
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="bn")
        assert response.status_code == 200, name
        assert response["Content-Language"] == "ta", name
        if name != "standings-fragment":  # a fragment has no <html>
            assert html_lang(response) == "ta", name
    # Not the club's other pages, nor the home page: the browser's language there.
    assert html_lang(Client().get("/", HTTP_ACCEPT_LANGUAGE="bn")) == "bn"
    manage = reverse("tournaments:manage", args=[world.tournament.pk])
    assert html_lang(director.get(manage, HTTP_ACCEPT_LANGUAGE="bn")) == "bn"


@pytest.mark.parametrize("how", ["query", "cookie", "profile"])
def test_a_visitors_choice_wins_over_the_tournaments_language(world: World, how: str) -> None:
    Tournament.objects.filter(pk=world.tournament.pk).update(language="ta")
    client = Client()
    query = ""
    if how == "query":
        query = "?lang=as"
    elif how == "cookie":
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "as"
    else:
        _user, client = signed_in("as")
    for name, url in tournament_pages(world).items():
        if name == "cards":
            continue  # the director's
        response = client.get(url + query)
        assert response["Content-Language"] == "as", (how, name)


def test_the_etag_keys_on_the_tournaments_language_and_on_lang(world: World) -> None:
    url = reverse("tournaments:standings-fragment", args=[world.tournament.pk])
    client = Client()
    english = client.get(url)
    assert english.status_code == 200 and "ETag" in english
    Tournament.objects.filter(pk=world.tournament.pk).update(language="ta")
    tamil = client.get(url, HTTP_IF_NONE_MATCH=english["ETag"])
    assert tamil.status_code == 200
    assert tamil["ETag"] != english["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=tamil["ETag"]).status_code == 304
    bengali = Client().get(url + "?lang=bn", HTTP_IF_NONE_MATCH=tamil["ETag"])
    assert bengali.status_code == 200
    assert bengali["ETag"] not in (english["ETag"], tamil["ETag"])


# --- the switcher on every page -------------------------------------------------------------------

SWITCHER = re.compile(
    r'<form class="language" id="language-form" method="post" action="/i18n/setlang/">'
    r"(?P<body>.*?)</form>",
    re.S,
)


def assert_switcher(page: str, active: str, next_path: str) -> None:
    """The switcher's contract (other helpers' browser tests rely on it)."""
    found = SWITCHER.search(page)
    assert found, "no switcher"
    body = found.group("body")
    assert 'name="csrfmiddlewaretoken"' in body
    assert f'<input type="hidden" name="next" value="{html.escape(next_path)}">' in body
    assert re.search(r'<input type="hidden" name="idempotency_key" value="[0-9a-f]{32}">', body)
    assert re.search(r'<label for="language-select">[^<]+</label>', body)
    options = re.findall(
        r'<option value="([^"]+)" lang="([^"]+)"( selected)?>([^<]+)</option>', body
    )
    assert [(value, lang, name) for value, lang, _sel, name in options] == [
        (code, code, name) for code, name in LOCAL_NAMES.items()
    ]
    assert [value for value, _lang, selected, _name in options if selected] == [active]
    assert '<select id="language-select" name="language">' in body
    assert re.search(r'<button type="submit">[^<]+</button>', body)


def test_the_switcher_is_on_every_page_and_html_lang_is_the_language(world: World) -> None:
    """A GET of every page of the URL conf (the admin's and the API's aside), as a superuser,
    the club's director, anonymous and a table's phone, each with the Tamil cookie: every HTML
    page has the switcher (Tamil selected) and ``<html lang="ta">``."""
    values = sweep_kwargs(world)
    checked: set[str] = set()
    director = Client()
    director.force_login(world.director)
    for name, pattern in url_patterns():
        if name.startswith(("admin:", "api", "scoring-api", "tournaments-api")):
            continue
        params = list(pattern.pattern.converters)
        if not set(params) <= set(values):
            continue
        url = reverse(name, kwargs={p: values[p] for p in params})
        for client in (world.admin, director, Client(), table_phone(world)):
            client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ta"
            response = client.get(url + "?x=1&lang=ta")
            if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
                continue
            page = response.content.decode()
            if "<html" not in page:
                continue  # an htmx fragment
            assert html_lang(response) == "ta", name
            assert_switcher(page, "ta", url + "?x=1")
            checked.add(name)
    assert {
        "home",
        "login",
        "scoring:games",
        "scoring:game-new",
        "scoring:table",
        "scoring:audit",
        "tournaments:standings",
        "tournaments:screen",
        "tournaments:round",
        "tournaments:player",
        "tournaments:manage",
        "tournaments:new",
        "tournaments:cards",
    } <= checked, checked


# --- /i18n/setlang/ -------------------------------------------------------------------------


@pytest.mark.parametrize("code", list(LOCAL_NAMES))
def test_choosing_sets_the_cookie_for_a_year_and_goes_back(code: str) -> None:
    client = Client()
    response = choose(client, code, next="/games/?page=2")
    assert response.status_code == 303
    assert response["Location"] == "/games/?page=2"
    cookie = response.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert (cookie.value, int(cookie["max-age"])) == (code, YEAR)
    assert html_lang(client.get("/")) == code
    assert not Profile.objects.exists()  # anonymous: nothing stored but the cookie


@pytest.mark.parametrize("bad", ["xx", "", "BN", " bn", "bn-BD", "tl", "en\x00"])
def test_an_unknown_language_is_refused_and_nothing_stored(bad: str) -> None:
    user, client = signed_in("ta")
    with nothing_stored():
        response = choose(client, bad)
    assert response.status_code == 400
    # Said in the language the player already has (their profile's: Tamil).
    with translation.override("ta"):
        said = str(LanguageRefused(bad).message)
    assert said != "There is no such language here: choose one from the list."
    assert html.escape(said) in response.content.decode()
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert Profile.objects.get(user=user).language == "ta"


def test_a_damaged_key_is_refused_and_nothing_stored() -> None:
    user, client = signed_in()
    response = choose(client, "bn", key="with space")
    assert response.status_code == 400
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert not Profile.objects.filter(user=user).exists()


def test_a_replayed_key_chooses_again_harmlessly() -> None:
    user, client = signed_in()
    assert choose(client, "bn", key="same").status_code == 303
    assert choose(client, "bn", key="same").status_code == 303
    assert Profile.objects.get(user=user).language == "bn"


@pytest.mark.parametrize(
    "unsafe",
    ["https://evil.example/", "//evil.example/", "http://testserver.evil/", "javascript:alert(1)"],
)
def test_an_unsafe_next_goes_home(unsafe: str) -> None:
    response = choose(Client(), "bn", next=unsafe)
    assert response.status_code == 303
    assert response["Location"] == "/"


def test_a_get_is_refused() -> None:
    assert Client().get(reverse("set_language")).status_code == 405


def test_a_signed_in_choice_is_stored_and_follows_the_user_to_another_browser() -> None:
    user, client = signed_in()
    assert choose(client, "as").status_code == 303
    assert Profile.objects.get(user=user).language == "as"
    # The same browser: the session keeps it too (a cookie cleared, the choice stays).
    del client.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE="bn")) == "as"
    other = Client()
    assert html_lang(other.get("/", HTTP_ACCEPT_LANGUAGE="bn")) == "bn"
    other.force_login(user)
    assert html_lang(other.get("/", HTTP_ACCEPT_LANGUAGE="bn")) == "as"
    # Choosing again overwrites the one profile.
    assert choose(other, "fil").status_code == 303
    assert list(Profile.objects.filter(user=user).values_list("language", flat=True)) == ["fil"]


def test_the_switchers_next_leaves_out_lang() -> None:
    page = Client().get("/?a=1&lang=bn&b=%C3%A9").content.decode()
    assert_switcher(page, "bn", "/?a=1&b=%C3%A9")


# --- the tournament's language in the API and on the director's pages --------------------------


def api_director() -> tuple[Any, APIClient]:
    from tests.factories import MembershipFactory
    from tournaments.models import Membership

    membership = MembershipFactory(role=Membership.Role.DIRECTOR)
    api = APIClient()
    api.force_authenticate(membership.user)
    return membership.club, api


@pytest.mark.parametrize("bad", ["xx", "BN", " bn", "bn ", "tl", 5, None, ["bn"]])
def test_the_api_refuses_a_language_not_ours_by_one_of(bad: object) -> None:
    club, api = api_director()
    body = {"club": club.pk, "name": "Open", "game": "tonk", "rounds": 2, "language": bad}
    with nothing_stored():
        response = api.post("/api/v1/tournaments/", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "bad_format"
    if bad is None:  # DRF's own refusal of a null, naming the field
        assert "language" in error["fields"]
        return
    assert error["field"] == "language"
    assert json.dumps(bad) in error["message"]


@pytest.mark.parametrize("code", [*LOCAL_NAMES, ""])
def test_the_api_stores_a_language_of_ours(code: str) -> None:
    club, api = api_director()
    body = {"club": club.pk, "name": "Open", "game": "tonk", "rounds": 2, "language": code}
    response = api.post("/api/v1/tournaments/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["language"] == code
    assert Tournament.objects.get(pk=response.json()["id"]).language == code


def test_the_api_without_a_language_stores_none() -> None:
    club, api = api_director()
    body = {"club": club.pk, "name": "Open", "game": "tonk", "rounds": 2}
    response = api.post("/api/v1/tournaments/", body, format="json")
    assert response.status_code == 201
    assert response.json()["language"] == ""


def _enum_of(schema: dict[str, Any], node: dict[str, Any]) -> set[str]:
    """Every enum value ``node`` allows, following ``$ref``, ``oneOf`` and ``allOf``."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        return _enum_of(schema, schema["components"]["schemas"][name])
    values = set(node.get("enum", []))
    for key in ("oneOf", "anyOf", "allOf"):
        for inner in node.get(key, []):
            values |= _enum_of(schema, inner)
    return values


def test_the_schema_lists_the_languages() -> None:
    schema = Client().get("/api/schema/?format=json").json()
    body = schema["paths"]["/api/v1/tournaments/"]["post"]["requestBody"]
    request = body["content"]["application/json"]["schema"]
    languages = [
        prop
        for field, prop in body_properties(request, schema["components"]["schemas"])
        if field == "language"
    ]
    assert languages  # one per game's shape of a new tournament
    for language in languages:
        assert _enum_of(schema, language) - {None} == {"", *LOCAL_NAMES}
    out = schema["components"]["schemas"]["TournamentOut"]["properties"]["language"]
    assert _enum_of(schema, out) - {None} == {"", *LOCAL_NAMES}


def test_the_new_tournament_page_sets_the_language_and_the_dashboard_shows_it() -> None:
    from tests.factories import MembershipFactory
    from tournaments.models import Membership

    membership = MembershipFactory(role=Membership.Role.DIRECTOR)
    client = Client()
    client.force_login(membership.user)
    url = reverse("tournaments:new", args=[membership.club.pk])
    page = client.get(url).content.decode()
    assert '<option value="bn">বাংলা</option>' in page
    data = {
        "kind": "tonk",
        "name": "Open",
        "method": "balanced",
        "time_zone": "UTC",
        "missed_round_score": "average",
        "basis": "total",
        "confirmation": "one_other",
        "seed": "0",
        "tonk__rounds": "2",
        "language": "as",
        "idempotency_key": "new-1",
    }
    response = client.post(url, data)
    assert response.status_code in (302, 303), response.content.decode()[:3000]
    tournament = Tournament.objects.get(name="Open")
    assert tournament.language == "as"
    dashboard = client.get(reverse("tournaments:manage", args=[tournament.pk])).content.decode()
    assert '<span lang="as">অসমীয়া</span>' in dashboard
    refused = client.post(url, data | {"language": "xx", "idempotency_key": "new-2"})
    assert refused.status_code == 422
    assert Tournament.objects.count() == 1


@pytest.mark.parametrize("code", codes())
def test_the_refusal_pages_switch_by_links_and_read_alike(code: str, settings: Any) -> None:
    # 403 and 404 carry no form (no CSRF token: two refusals of one kind read the same), so
    # their switcher is links to the same address with ?lang=.
    settings.DEBUG = False
    client = Client(HTTP_ACCEPT_LANGUAGE=code)
    first, second = client.get("/no-such-page/"), client.get("/t/no-such-table-link/")
    assert (first.status_code, second.status_code) == (404, 404)
    assert first.content == second.content
    page = first.content.decode()
    assert html_lang(first) == code
    links = re.findall(r'<a href="\?lang=([a-z]+)" lang="\1" hreflang="\1">([^<]+)</a>', page)
    assert links == [(c, name) for c, name in LOCAL_NAMES.items() if c != code]
    assert f'<span lang="{code}" aria-current="true">{LOCAL_NAMES[code]}</span>' in page
    switched = client.get("/no-such-page/?lang=as")
    assert html_lang(switched) == "as"
    assert switched.cookies[settings.LANGUAGE_COOKIE_NAME].value == "as"


# --- the page script's catalogue --------------------------------------------------------------


def script_translation(code: str, msgid: str) -> str:
    """The translation of ``msgid`` in ``locale/<code>/LC_MESSAGES/djangojs.po``."""
    from babel.messages.pofile import read_po

    path = settings.BASE_DIR / "locale" / code / "LC_MESSAGES" / "djangojs.po"
    with path.open("rb") as source:
        message = read_po(source, locale=code)[msgid]
    assert message is not None and message.string, (code, msgid)
    return str(message.string)


def script_src(response: Any) -> str:
    found = re.search(r'<script src="([^"]*/jsi18n/[^"]*)"', response.content.decode())
    assert found is not None
    return found.group(1)


def test_a_page_loads_the_script_catalogue_of_its_own_language(world: World) -> None:
    """A tournament's page in its language (Tamil) for a Bengali browser: the page script's
    words are Tamil too, not the browser's Bengali."""
    Tournament.objects.filter(pk=world.tournament.pk).update(language="ta")
    client = Client()
    page = client.get(
        reverse("tournaments:standings", args=[world.tournament.pk]), HTTP_ACCEPT_LANGUAGE="bn"
    )
    assert html_lang(page) == "ta"
    src = script_src(page)
    assert src == reverse("javascript-catalog", args=["ta"])

    catalogue = client.get(src, HTTP_ACCEPT_LANGUAGE="bn")

    assert catalogue.status_code == 200 and catalogue["Content-Language"] == "ta"
    tamil = script_translation("ta", "Tricks entered: %s of %s")
    assert tamil != "Tricks entered: %s of %s"
    assert json.dumps(tamil) in catalogue.content.decode()  # as the catalogue writes it


@pytest.mark.parametrize("code", codes())
def test_each_languages_script_catalogue_is_its_own(code: str) -> None:
    response = Client().get(reverse("javascript-catalog", args=[code]))
    assert response.status_code == 200
    assert response["Content-Language"] == code
    body = response.content.decode()
    assert "django.gettext = function" in body
    if code != "en":
        assert json.dumps(script_translation(code, "Tricks entered: %s of %s")) in body


def test_a_script_catalogue_of_no_language_of_ours_is_not_found() -> None:
    assert Client().get("/jsi18n/xx/").status_code == 404
    assert Client().get("/jsi18n/").status_code == 404


@pytest.mark.django_db
def test_the_api_schema_is_english_for_every_caller() -> None:
    english = Client().get(reverse("api-schema"), HTTP_ACCEPT_LANGUAGE="en")
    tamil = Client().get(reverse("api-schema"), HTTP_ACCEPT_LANGUAGE="ta")
    assert english.status_code == tamil.status_code == 200
    assert tamil["Content-Language"] == "en"
    assert tamil.content == english.content
    asked = Client().get(reverse("api-schema") + "?lang=ta")  # drf-spectacular's own switch
    assert asked.content == english.content
    with translation.override("ta"):
        total = translation.gettext("Total score")  # a choice's label in the schema
    assert total != "Total score" and total not in tamil.content.decode()
    assert "Total score" in english.content.decode()
