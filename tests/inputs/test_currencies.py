"""Currencies are ISO 4217 (issue 24): one money rule (``scoring.money.stake_verify``) at every
entry point that takes a stake and a currency, and amounts written in CLDR's currency format of
each language.

Each entry point is tried with a currency that is no currency (``ZZZ``: refused, naming it), a
stake finer than the currency's minor unit (0.25 JPY: the yen has none; 0.125 USD: two
digits), and stakes that fit (0.25 USD, 0.125 KWD, 150 JPY, a code typed in lower case). The
last tests find the entry points (form fields, API request fields, the admin), so that one
added later without the rule fails here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from ops import l10n
from scoring.models import Game
from scoring.money import currency_digits, stake_verify
from scoring.scoresheet_cli import answer
from tests.factories import ClubFactory, MembershipFactory
from tests.hands import numbered
from tests.schema_walk import body_properties
from tests.scoring.test_pages_games import Page, start_form
from tonkrules.errors import FormatError
from tournaments.models import Membership, Tournament

pytestmark = pytest.mark.django_db

#: (stake, currency) refused, and what the error must name.
REFUSED = {
    "not-a-currency": ("1", "ZZZ", ["ZZZ", "ISO 4217"]),
    "not-a-currency-lower-case": ("1", "zzz", ["ZZZ"]),
    "yen-has-no-minor-unit": ("0.25", "JPY", ["JPY", "0.25"]),
    "dollar-has-two-digits": ("0.125", "USD", ["USD", "2", "0.125"]),
    "dinar-has-three-digits": ("0.0625", "KWD", ["KWD", "3"]),
    "trailing-zero-is-a-decimal-too": ("0.250", "USD", ["USD", "0.250"]),
    # ISO 4217 codes that are no money a stake is paid in: no minor unit
    "gold-has-no-minor-unit": ("1", "XAU", ["XAU", "ISO 4217"]),
    "no-currency-code": ("1", "XXX", ["XXX"]),
    # ISO 4217's minor unit, where CLDR's cash digits differ (CLDR: 0 for the dinar)
    "iraqi-dinar-has-three-digits": ("0.0625", "IQD", ["IQD", "3"]),
}

#: (stake, currency) accepted, and the currency stored.
ACCEPTED = {
    "quarter-dollar": ("0.25", "USD", "USD"),
    "dinar-to-the-fils": ("0.125", "KWD", "KWD"),
    "whole-yen": ("150", "JPY", "JPY"),
    "taka-in-lower-case": ("0.5", "bdt", "BDT"),
    "rupee": ("1.75", "INR", "INR"),
    "peso": ("2", "PHP", "PHP"),
    # ISO 4217 gives these two decimals where CLDR writes none (cash): the standard decides
    "forint-to-the-filler": ("0.50", "HUF", "HUF"),
    "rupiah-to-the-sen": ("0.5", "IDR", "IDR"),
    "colombian-peso-to-the-centavo": ("0.5", "COP", "COP"),
    "iraqi-dinar-to-the-fils": ("0.125", "IQD", "IQD"),
}


def ids(mapping: dict[str, Any]) -> list[str]:
    return list(mapping)


@pytest.fixture
def member() -> Any:
    club = ClubFactory(name="Riverside")
    return MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user


@pytest.fixture
def api(member: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(member)
    return client


@pytest.fixture
def web(member: Any) -> Client:
    client = Client()
    client.force_login(member)
    return client


#: An entry point: (api, web, club, stake, currency) -> (stored (stake, currency) or None,
#: the error's text).
Entry = Callable[[APIClient, Client, Any, str, str], tuple[tuple[str, str] | None, str]]


def _api_error(response: Any) -> str:
    body = response.json()
    return json.dumps(body, ensure_ascii=False) + str(body.get("error", {}).get("message", ""))


def _game_api(api: APIClient, web: Client, club: Any, stake: str, currency: str) -> Any:
    response = api.post(
        "/api/v1/games/",
        {
            "game": "tonk",
            "players": [{"name": "Ana"}, {"name": "Ben"}],
            "stake": stake,
            "currency": currency,
        },
        format="json",
    )
    if response.status_code == 201:
        game = Game.objects.get(pk=response.json()["id"])
        return (game.stake, game.currency), ""
    assert response.status_code == 400, response.content
    return None, _api_error(response)


def _game_page(api: APIClient, web: Client, club: Any, stake: str, currency: str) -> Any:
    data = start_form(
        web, kind="tonk", player_1="Ana", player_2="Ben", stake=stake, currency=currency
    )
    response = web.post("/games/new/", data)
    if response.status_code in (302, 303):
        game = Game.objects.latest("id")
        return (game.stake, game.currency), ""
    assert response.status_code in (200, 422)
    return None, Page(response.content.decode()).text("id_stake_error") + Page(
        response.content.decode()
    ).text("id_currency_error")


def _sheet(stake: str, currency: str) -> dict[str, Any]:
    return {
        "format": "tabletally.scoresheet/1",
        "game": "tonk",
        "players": ["Ana", "Ben"],
        "stake": stake,
        "currency": currency,
        "hands": [],
    }


def _game_import(api: APIClient, web: Client, club: Any, stake: str, currency: str) -> Any:
    response = api.post("/api/v1/scoresheets/", _sheet(stake, currency), format="json")
    if response.status_code == 201:
        game = Game.objects.latest("id")
        return (game.stake, game.currency), ""
    assert response.status_code == 400, response.content
    return None, _api_error(response)


def _cli(api: APIClient, web: Client, club: Any, stake: str, currency: str) -> Any:
    status, out = answer("canonical", json.dumps(_sheet(stake, currency)).encode())
    if status == 0:
        return (out["stake"], out["currency"]), ""
    return None, json.dumps(out, ensure_ascii=False)


def _tournament_api(api: APIClient, web: Client, club: Any, stake: str, currency: str) -> Any:
    response = api.post(
        "/api/v1/tournaments/",
        {
            "club": club.pk,
            "name": "Spring",
            "game": "tonk",
            "rounds": 3,
            "stake": stake,
            "currency": currency,
        },
        format="json",
    )
    if response.status_code == 201:
        tournament = Tournament.objects.get(pk=response.json()["id"])
        return (tournament.stake, tournament.currency), ""
    assert response.status_code == 400, response.content
    return None, _api_error(response)


def _tournament_page(api: APIClient, web: Client, club: Any, stake: str, currency: str) -> Any:
    url = f"/clubs/{club.pk}/tournaments/new/"
    fields = Page(web.get(url).content.decode(), action=url).fields
    data = {**fields, "kind": "tonk", "tonk__rounds": "3", "name": "Spring"}
    response = web.post(url, {**data, "stake": stake, "currency": currency})
    if response.status_code in (302, 303):
        tournament = Tournament.objects.latest("id")
        return (tournament.stake, tournament.currency), ""
    page = Page(response.content.decode())
    return None, page.text("id_stake_error") + page.text("id_currency_error")


#: Every entry point that takes a stake and a currency (the CLI stores nothing: it checks).
ENTRIES: dict[str, Entry] = {
    "api-games": _game_api,
    "page-new-game": _game_page,
    "api-scoresheet-import": _game_import,
    "cli-scoresheet": _cli,
    "api-tournaments": _tournament_api,
    "page-new-tournament": _tournament_page,
}


@pytest.mark.parametrize("example", REFUSED.values(), ids=ids(REFUSED))
@pytest.mark.parametrize("entry", ENTRIES.values(), ids=ids(ENTRIES))
def test_a_currency_or_stake_the_rule_refuses_is_refused_naming_them(
    entry: Entry,
    example: tuple[str, str, list[str]],
    api: APIClient,
    web: Client,
    member: Any,
    unchanged_rows: Any,
) -> None:
    stake, currency, named = example
    club = member.clubs.get()
    with unchanged_rows():
        stored, error = entry(api, web, club, stake, currency)
    assert stored is None
    for word in named:
        assert word in error, (word, error)


@pytest.mark.parametrize("example", ACCEPTED.values(), ids=ids(ACCEPTED))
@pytest.mark.parametrize("entry", ENTRIES.values(), ids=ids(ENTRIES))
def test_a_stake_within_the_currencys_minor_unit_is_stored(
    entry: Entry, example: tuple[str, str, str], api: APIClient, web: Client, member: Any
) -> None:
    stake, currency, stored_currency = example
    stored, error = entry(api, web, member.clubs.get(), stake, currency)
    assert stored == (stake, stored_currency), error


def test_the_page_shows_the_refusal_beside_the_currency_in_the_pages_language(
    web: Client,
) -> None:
    data = start_form(web, kind="tonk", player_1="Ana", player_2="Ben", stake="1", currency="ZZZ")
    response = web.post("/games/new/", data, HTTP_ACCEPT_LANGUAGE="bn")
    page = Page(response.content.decode())
    assert page.text("id_currency_error") == (
        "ZZZ কোনো মুদ্রার কোড নয়: USD, BDT, INR বা PHP-এর মতো একটি ISO 4217 কোড লিখুন"
    )
    data = start_form(
        web, kind="tonk", player_1="Ana", player_2="Ben", stake="0.25", currency="JPY"
    )
    response = web.post("/games/new/", data, HTTP_ACCEPT_LANGUAGE="fil")
    assert Page(response.content.decode()).text("id_stake_error") == (
        "walang mas maliit na yunit ang JPY: buong numero ang pusta sa JPY, hindi 0.25"
    )


def test_the_rule_itself() -> None:
    assert stake_verify(stake="0.25", currency="usd") == ("0.25", "USD")
    assert stake_verify(stake=None, currency=None) == ("", "")
    assert stake_verify(stake="0.125", currency=None) == ("0.125", "")  # no currency to check
    assert [currency_digits(c) for c in ("USD", "JPY", "KWD", "BDT", "INR", "PHP")] == [
        2,
        0,
        3,
        2,
        2,
        2,
    ]
    refusals = {
        ("1", "ZZZ"): ("currency.unknown", "currency"),
        ("1", "US"): ("currency", "currency"),
        ("0.25", "JPY"): ("stake.places_none", "stake"),
        ("0.125", "USD"): ("stake.places", "stake"),
        ("1" * 33, "USD"): ("stake.length", "stake"),
        ("-1", "USD"): ("stake", "stake"),
    }
    for (stake, currency), (key, detail) in refusals.items():
        with pytest.raises(FormatError) as info:
            stake_verify(stake=stake, currency=currency)
        assert (info.value.key, info.value.detail) == (key, detail)
    with pytest.raises(FormatError) as info:
        stake_verify(stake="0.125", currency="USD")
    assert info.value.message == (
        "a stake in USD has at most 2 decimal places (the currency's minor unit), not 0.125"
    )


# --- amounts in CLDR's currency format of each language --------------------------------------


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ["-$2.25", "BDT1.50", "¥150", "KWD0.125", "₹0.75", "₱0.75"]),
        ("bn", ["-২.২৫US$", "১.৫০৳", "১৫০JP¥", "০.১২৫KWD", "০.৭৫₹", "০.৭৫PHP"]),
        (
            "as",
            [
                "-US$\u00a0২.২৫",
                "BDT\u00a0১.৫০",
                "JP¥\u00a0১৫০",
                "KWD\u00a0০.১২৫",
                "₹\u00a0০.৭৫",
                "PHP\u00a0০.৭৫",
            ],
        ),
        (
            "ta",
            [
                "-$\u00a02.25",
                "BDT\u00a01.50",
                "¥\u00a0150",
                "KWD\u00a00.125",
                "₹\u00a00.75",
                "PHP\u00a00.75",
            ],
        ),
        ("fil", ["-$2.25", "BDT1.50", "¥150", "KWD0.125", "₹0.75", "₱0.75"]),
    ],
)
def test_amounts_are_written_in_cldrs_currency_format(language: str, expected: list[str]) -> None:
    amounts = [
        ("-2.25", "USD"),
        ("1.5", "BDT"),
        ("150", "JPY"),
        ("0.125", "KWD"),
        ("0.75", "INR"),
        ("0.75", "PHP"),
    ]
    got = [l10n.money(Decimal(a), c, language=language) for a, c in amounts]  # \u00a0: CLDR's
    assert got == expected
    assert l10n.money("1.50", "", language=language) == l10n.number("1.50", language=language)


def test_amounts_take_iso_4217s_minor_unit_where_cldr_writes_fewer_decimals() -> None:
    """CLDR writes the forint and the rupiah without decimals (cash); a stake of 0.50 HUF is
    the standard's, and is written as it is, never rounded to a whole forint."""
    assert l10n.money(Decimal("0.5"), "HUF", language="en") == "HUF0.50"
    assert l10n.money(Decimal("-1.25"), "IDR", language="en") == "-IDR1.25"
    assert l10n.money(Decimal("150"), "JPY", language="en") == "¥150"


def _tonk_with_stake(api: APIClient, stake: str, currency: str) -> int:
    game_id = api.post(
        "/api/v1/games/",
        {
            "game": "tonk",
            "players": [{"name": "Ana"}, {"name": "Ben"}],
            "stake": stake,
            "currency": currency,
        },
        format="json",
    ).json()["id"]
    hand = {"dealer": "Ben", "end": "knock", "by": "Ana", "held": {"Ana": "AS 2D", "Ben": "KH QH"}}
    response = api.post(
        f"/api/v1/games/{game_id}/hands/", numbered(hand), format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert response.status_code == 201, response.content
    return int(game_id)


@pytest.mark.parametrize(
    ("language", "stake", "pays"),
    [
        ("en", "One stake unit is ¥150.", "Ben pays Ana ¥150"),
        ("bn", "বাজির এক একক = ১৫০JP¥।", "Ben Ana-কে দেবেন ১৫০JP¥"),
        ("as", "এক বাজি-একক হৈছে JP¥ ১৫০।", "Ben য়ে Ana ক JP¥ ১৫০ দিয়ে"),
        ("ta", "ஒரு பந்தய அலகு ¥ 150.", "Ben, Ana-க்கு ¥ 150 செலுத்துவார்"),
        ("fil", "Ang isang yunit ng pusta ay ¥150.", "Magbabayad si Ben kay Ana ng ¥150"),
    ],
)
def test_settle_up_writes_the_stake_and_payments_in_the_languages_currency_format(
    api: APIClient, web: Client, language: str, stake: str, pays: str
) -> None:
    game_id = _tonk_with_stake(api, "150", "JPY")
    game = Game.objects.get(pk=game_id)
    page = web.get(f"/t/{game.table_key}/settle-up/", HTTP_ACCEPT_LANGUAGE=language)
    text = " ".join(page.content.decode().split())
    assert stake in text
    assert pays in text


# --- every entry point of a stake or currency is found ----------------------------------------

MONEY_FIELDS = ("stake", "currency")


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def test_every_form_taking_a_stake_or_currency_is_tried() -> None:
    """The project's forms with a stake or currency field are the pages tried above; the
    admin takes neither (a game's and a tournament's money is set when they are made)."""
    found = {
        form.__name__
        for form in _subclasses(forms.BaseForm)
        if form.__module__.split(".")[0] in ("scoring", "tournaments", "ops")
        and set(MONEY_FIELDS) & set(form.base_fields)  # type: ignore[attr-defined]
    }
    assert found == {"GameStartForm", "TournamentForm"}
    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(is_staff=True, is_superuser=True)
    editable = {
        f"{model._meta.label}.{name}"
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label in ("scoring", "tournaments", "ops")
        and (model_admin.has_add_permission(request) or model_admin.has_change_permission(request))
        for name in model_admin.get_form(request).base_fields
        if name in MONEY_FIELDS
    }
    assert editable == set()


#: Every request field of the API that takes a stake or a currency: each is tried above.
API_MONEY_FIELDS = {
    ("post", "/api/v1/games/", "stake"),
    ("post", "/api/v1/games/", "currency"),
    ("post", "/api/v1/tournaments/", "stake"),
    ("post", "/api/v1/tournaments/", "currency"),
    # the score-sheet import's sheet (tried through the import above)
    ("post", "/api/v1/scoresheets/", "stake"),
    ("post", "/api/v1/scoresheets/", "currency"),
}


def test_every_api_field_of_a_stake_or_currency_is_tried() -> None:
    """Every request body that names a stake or a currency (the score-sheet import's sheet too)
    is one of :data:`API_MONEY_FIELDS`, each tried above."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    found = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if not body:
                continue
            found |= {
                (method, path, p)
                for p, _prop in body_properties(body["schema"], components)
                if p in MONEY_FIELDS
            }
    assert found == API_MONEY_FIELDS
