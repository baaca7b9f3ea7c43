"""Guessing (issue 14): passwords and keys are not guessed at leisure, at every way in.

- Passwords, on every sign-in page (the site's, the admin's; discovered from the URL conf):
  after 5 wrong passwords for one account from one address every try is refused (429), the
  right password included, until the cool-off has passed; other accounts from that address
  still sign in until the address's own limit (20); one account is refused from everywhere
  after 50. Time is advanced by moving the recorded failures back, never by sleeping.
- Keys, on every API authentication that reads a key (Token, Table, Seat; discovered from the
  API views): after 30 refused keys within a minute an address gets 429 with the JSON error
  body and ``Retry-After``, even with a right key, until the window passes (the throttle's
  clock is frozen and moved by hand).
- Table links' writes: a seat key writing at a table's pace is never throttled; a runaway one
  gets 429 and nothing stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.views import LoginView
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import translation
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from ops.guessing import KEY_ARGUMENTS, KeyGuessGuard, KeyGuessThrottle, client_address
from scoring import services
from scoring.models import Game, Hand
from scoring.throttles import TableLinkWriteThrottle
from tests.hands import next_number, numbered
from tests.scoring.conftest import new_key

pytestmark = pytest.mark.django_db

PASSWORD = "a good passphrase"
#: Every sign-in page, by its address: the one rule (axes) covers each.
SIGN_IN_PAGES = ["/accounts/login/", "/admin/login/"]
HERE, THERE = "10.0.0.1", "10.0.0.2"


# --- discovery ---------------------------------------------------------------------------------


def _patterns(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            yield from _patterns(p, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern), p


def test_every_sign_in_page_is_covered() -> None:
    """A sign-in page added later (a LoginView, or a route named login) fails here until it is
    added to SIGN_IN_PAGES, and so to the tests below."""
    found = set()
    for route, pattern in _patterns(get_resolver()):
        view = getattr(pattern.callback, "view_class", None)
        is_login = (view is not None and issubclass(view, LoginView)) or pattern.name == "login"
        if is_login:
            found.add("/" + route)
    assert found == set(SIGN_IN_PAGES)


def _api_authentications() -> set[type]:
    classes: set[type] = set()
    for route, pattern in _patterns(get_resolver()):
        view = getattr(pattern.callback, "cls", None) or getattr(
            pattern.callback, "view_class", None
        )
        if route.startswith("api/v1/") and view is not None:
            classes.update(getattr(view, "authentication_classes", ()))
    return classes


def test_every_api_authentication_by_key_counts_refused_keys() -> None:
    """Every authentication class of the API that reads a key from ``Authorization`` (it has a
    ``keyword``) is guarded; a new one fails here until it is (and gets a row in KEYS)."""
    keyed = {c for c in _api_authentications() if getattr(c, "keyword", None)}
    assert {c.keyword for c in keyed} == {"Token", "Table", "Seat"} == set(KEYS)
    assert all(issubclass(c, KeyGuessGuard) for c in keyed), keyed


def test_the_configured_limits() -> None:
    assert settings.LOGIN_FAILURE_LIMITS == [
        (["username", "ip_address"], 5),
        (["ip_address"], 20),
        (["username"], 50),
    ]
    assert timedelta(minutes=15) == settings.AXES_COOLOFF_TIME
    assert settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] == {
        "key_guess": "30/min",
        "table_write": "120/min",
    }
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0


# --- passwords ---------------------------------------------------------------------------------


@pytest.fixture
def ana(settings: Any) -> Any:
    # A fast hasher: these tests sign in a few hundred times (the limits do not depend on it).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_user_model().objects.create_user("ben", password=PASSWORD, is_staff=True)
    return get_user_model().objects.create_user("ana", password=PASSWORD, is_staff=True)


def sign_in(login_page: str, username: str, password: str, address: str = HERE) -> Any:
    """A fresh browser posting the page's form; the answer (with ``client``)."""
    client = Client(REMOTE_ADDR=address)
    response = client.post(login_page, {"username": username, "password": password})
    response.client = client
    return response


def signed_in(response: Any) -> bool:
    return "_auth_user_id" in response.client.session


def later(minutes: float) -> None:
    """Move every recorded failure ``minutes`` into the past (time passes)."""
    for attempt in AccessAttempt.objects.all():
        attempt.attempt_time -= timedelta(minutes=minutes)
        attempt.save(update_fields=["attempt_time"])


@pytest.mark.parametrize("login_page", SIGN_IN_PAGES)
def test_after_five_wrong_passwords_even_the_right_one_waits_for_the_cool_off(
    login_page: str, ana: Any
) -> None:
    answers = [sign_in(login_page, "ana", f"guess {n}").status_code for n in range(5)]
    assert answers == [200, 200, 200, 200, 429]

    refused = sign_in(login_page, "ana", PASSWORD)
    assert refused.status_code == 429
    assert not signed_in(refused)
    text = refused.content.decode()
    assert "Too many failed sign-ins" in text
    assert "Try again in 15 minutes" in text
    assert 14 * 60 < int(refused["Retry-After"]) <= 15 * 60

    later(14)
    early = sign_in(login_page, "ana", PASSWORD)
    assert early.status_code == 429
    assert "Try again in 1 minute." in early.content.decode()
    assert not signed_in(early)

    later(1.1)
    right = sign_in(login_page, "ana", PASSWORD)
    assert right.status_code == 302
    assert signed_in(right)


@pytest.mark.parametrize("login_page", SIGN_IN_PAGES)
def test_another_account_from_the_same_address_signs_in_until_the_address_limit(
    login_page: str, ana: Any
) -> None:
    for n in range(5):
        sign_in(login_page, "ana", f"guess {n}")
    assert sign_in(login_page, "ana", PASSWORD).status_code == 429
    assert signed_in(sign_in(login_page, "ben", PASSWORD))  # ben, from the same address

    # 15 more failures from this address, each for an account of its own (under 5 each):
    # 20 in all reaches the address's limit.
    for n in range(15):
        assert sign_in(login_page, f"nobody{n}", "guess").status_code == (429 if n == 14 else 200)
    refused = sign_in(login_page, "ben", PASSWORD)
    assert refused.status_code == 429
    assert not signed_in(refused)
    assert signed_in(sign_in(login_page, "ben", PASSWORD, address=THERE))  # another address


def test_one_account_is_refused_from_everywhere_after_fifty_failures(ana: Any) -> None:
    for n in range(50):
        sign_in("/accounts/login/", "ana", "guess", address=f"10.1.{n // 4}.{n % 4 + 1}")
    refused = sign_in("/accounts/login/", "ana", PASSWORD, address="192.0.2.9")
    assert refused.status_code == 429
    assert not signed_in(refused)
    assert signed_in(sign_in("/accounts/login/", "ben", PASSWORD, address="192.0.2.9"))


def test_a_right_password_clears_that_accounts_failures_from_that_address(ana: Any) -> None:
    for n in range(4):
        sign_in("/accounts/login/", "ana", f"guess {n}")
    assert signed_in(sign_in("/accounts/login/", "ana", PASSWORD))
    answers = [sign_in("/accounts/login/", "ana", f"again {n}").status_code for n in range(4)]
    assert answers == [200, 200, 200, 200]


def test_signing_in_to_ones_own_account_does_not_clear_the_guesses_at_another(
    ana: Any,
) -> None:
    for n in range(4):
        sign_in("/accounts/login/", "ana", f"guess {n}")
    assert signed_in(sign_in("/accounts/login/", "ben", PASSWORD))
    assert sign_in("/accounts/login/", "ana", "guess 5").status_code == 429


def test_the_lock_out_page_goes_through_translation(
    ana: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.utils import translation

    translation.gettext("warm up")  # the translation functions are looked up on first use
    real_gettext, real_ngettext = translation._trans.gettext, translation._trans.ngettext
    monkeypatch.setattr(translation._trans, "gettext", lambda m: f"«{real_gettext(m)}»")
    monkeypatch.setattr(
        translation._trans, "ngettext", lambda s, p, n: f"«{real_ngettext(s, p, n)}»"
    )
    for n in range(5):
        sign_in("/accounts/login/", "ana", f"guess {n}")
    answer = sign_in("/accounts/login/", "ana", PASSWORD)
    assert answer.status_code == 429
    text = answer.content.decode()
    assert "«Too many failed sign-ins»" in text
    assert "«Signing in is paused after too many wrong passwords" in text
    assert "Try again in 15 minutes.»" in text


def test_the_address_is_the_connections_unless_proxies_are_trusted(settings: Any) -> None:
    from django.test import RequestFactory

    request = RequestFactory().get("/", REMOTE_ADDR="127.0.0.1")
    request.META["HTTP_X_FORWARDED_FOR"] = "6.6.6.6, 203.0.113.7"
    assert client_address(request) == "127.0.0.1"  # X-Forwarded-For is the client's to write
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert client_address(request) == "203.0.113.7"  # what the one proxy saw, not "6.6.6.6"


# --- keys --------------------------------------------------------------------------------------


class Clock:
    """The throttles' clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(KeyGuessThrottle, "timer", clock)
    monkeypatch.setattr(TableLinkWriteThrottle, "timer", clock)
    return clock


@pytest.fixture
def game() -> Game:
    owner = get_user_model().objects.create_user("owner", password=PASSWORD)
    game, _ = services.game_start(kind="tonk", players=["Ana", "Ben"], created_by=owner)
    return game


def _right_key(keyword: str, game: Game) -> str:
    if keyword == "Token":
        return str(Token.objects.create(user=game.created_by).key)
    if keyword == "Table":
        return game.table_key
    return game.seats.order_by("position")[0].seat_key


KEYS = ["Token", "Table", "Seat"]


def api(authorization: str, address: str = HERE) -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=authorization)
    return client


@pytest.mark.parametrize("keyword", KEYS)
def test_refused_keys_from_one_address_are_throttled_with_a_json_error(
    keyword: str, game: Game, clock: Clock
) -> None:
    url = f"/api/v1/games/{game.pk}/"
    for n in range(30):
        assert api(f"{keyword} wrong{n}").get(url).status_code == 401
        clock.now += 1

    throttled = api(f"{keyword} wrong-again").get(url)
    assert throttled.status_code == 429
    error = throttled.json()["error"]
    assert error["code"] == "throttled"
    assert error["retry_after"] == 30  # the first refusal leaves the minute in 30 s
    assert throttled["Retry-After"] == "30"
    assert error["message"] == (
        "Too many keys refused from your address: try again in 30 seconds."
    )  # said once: not DRF's "Expected available in ..." after it

    right = f"{keyword} {_right_key(keyword, game)}"
    assert api(right).get(url).status_code == 429  # even the right key, from here
    assert api(right, address=THERE).get(url).status_code == 200  # another address

    clock.now += 30
    assert api(right).get(url).status_code == 200


def test_a_phone_retrying_one_stale_key_under_the_rate_is_answered_401(
    game: Game, clock: Clock
) -> None:
    url = f"/api/v1/games/{game.pk}/"
    for _ in range(60):  # one try every 3 s for three minutes
        assert api("Seat stale").get(url).status_code == 401
        clock.now += 3


# --- table links' writes -----------------------------------------------------------------------

ANA_WINS = {"dealer": "Ben", "end": "knock", "by": "Ana", "held": {"Ana": "AS 2D", "Ben": "KH QH"}}


def _hand(game: Game) -> dict[str, Any]:
    """The next hand: Ana knocks and wins, dealt by whoever deals next."""
    game.refresh_from_db()
    names = ["Ana", "Ben"]
    return {**ANA_WINS, "dealer": names[(game.current_hands + 1) % 2]}


def write(client: APIClient, game: Game) -> Any:
    return client.post(
        f"/api/v1/games/{game.pk}/hands/",
        numbered(_hand(game), next_number(game)),
        format="json",
        HTTP_IDEMPOTENCY_KEY=new_key(),
    )


def test_a_seat_writing_at_a_busy_tables_pace_is_never_throttled(game: Game, clock: Clock) -> None:
    seat = api(f"Seat {_right_key('Seat', game)}")
    for _ in range(40):  # a hand every 5 s (no table plays that fast) for over three minutes
        response = write(seat, game)
        assert response.status_code == 201, response.content
        clock.now += 5
    assert Hand.objects.filter(game=game).count() == 40


def test_a_runaway_seat_key_is_throttled_and_stores_nothing(
    game: Game, clock: Clock, monkeypatch: pytest.MonkeyPatch, unchanged_rows: Any
) -> None:
    monkeypatch.setattr(TableLinkWriteThrottle, "rate", "3/min", raising=False)
    seat = api(f"Seat {_right_key('Seat', game)}")
    for _ in range(3):
        assert write(seat, game).status_code == 201
    with unchanged_rows():
        throttled = write(seat, game)
        assert throttled.status_code == 429
    assert throttled.json()["error"]["code"] == "throttled"
    assert throttled["Retry-After"] == "60"
    assert throttled.json()["error"]["message"] == "Too many requests: try again in 60 seconds."
    bengali = seat.post(
        f"/api/v1/games/{game.pk}/hands/",
        numbered(_hand(game), next_number(game)),
        format="json",
        HTTP_IDEMPOTENCY_KEY=new_key(),
        HTTP_ACCEPT_LANGUAGE="bn",
    )
    translation.deactivate()
    assert bengali.status_code == 429
    said = bengali.json()["error"]["message"]
    assert "৬০" in said and "60" not in said and "Expected" not in said
    other_address = api(f"Seat {_right_key('Seat', game)}", address=THERE)
    assert write(other_address, game).status_code == 201
    assert (
        api(f"Seat {_right_key('Seat', game)}").get(f"/api/v1/games/{game.pk}/").status_code == 200
    )
    clock.now += 60
    assert write(seat, game).status_code == 201


# --- table and seat links of the pages -------------------------------------------------------


def test_every_page_opened_by_a_key_in_its_address_is_guarded() -> None:
    """Every page route naming a key (``<str:key>``, ``<str:seat_key>``...) is counted by the
    middleware: a route with a new name for a key fails here until KEY_ARGUMENTS has it."""
    named = set()
    for route, pattern in _patterns(get_resolver()):
        if route.startswith("api/"):
            continue
        named.update(n for n in pattern.pattern.converters if "key" in n)
    assert named == set(KEY_ARGUMENTS)
    assert "ops.guessing.KeyGuessMiddleware" in settings.MIDDLEWARE


def _link(kind: str, game: Game, key: str | None = None) -> str:
    if kind == "table":
        return f"/t/{key or game.table_key}/"
    return f"/s/{key or game.seats.order_by('position')[0].seat_key}/"


@pytest.mark.parametrize("kind", ["table", "seat"])
def test_guessed_links_from_one_address_are_refused_after_thirty(
    kind: str, game: Game, clock: Clock
) -> None:
    for n in range(30):
        assert Client(REMOTE_ADDR=HERE).get(_link(kind, game, f"guess{n}")).status_code == 404
        clock.now += 1
    refused = Client(REMOTE_ADDR=HERE).get(_link(kind, game, "guess-again"))
    assert refused.status_code == 429
    assert refused["Retry-After"] == "30"
    assert "Too many keys refused from your address" in refused.content.decode()

    right = _link(kind, game)
    assert Client(REMOTE_ADDR=HERE).get(right).status_code == 429  # even the right link
    assert Client(REMOTE_ADDR=THERE).get(right).status_code in (200, 302)
    clock.now += 30
    assert Client(REMOTE_ADDR=HERE).get(right).status_code in (200, 302)


def test_guesses_on_pages_and_the_api_share_one_count(game: Game, clock: Clock) -> None:
    for n in range(15):
        Client(REMOTE_ADDR=HERE).get(f"/t/guess{n}/")
        api(f"Table guess{n}").get(f"/api/v1/games/{game.pk}/")
    assert Client(REMOTE_ADDR=HERE).get(f"/t/{game.table_key}/").status_code == 429
    assert api(f"Table {game.table_key}").get(f"/api/v1/games/{game.pk}/").status_code == 429
