"""Nothing left in English (issue 15): every page, rendered in the pseudo-locale ``en-xa``
(:mod:`tests.i18n.pseudo`: each string of the catalogue with accented letters, in ``⟦…⟧``),
shows no run of plain ASCII letters except names people typed, card notation, the product
name and the small allow-list below.

The pages are found from the URL conf (:func:`tests.inputs.test_etags.url_patterns`): every
named URL is either swept here (:data:`PAGES`, plus the pages only a request of a kind shows:
a rejected hand, the lock-out, 403, 404, 413, 429) or listed in :data:`NOT_PAGES` with why, so
that a new page fails :func:`test_every_url_of_the_url_conf_is_swept_or_said_not_a_page` until
it is covered. The world is the demo of ``make run`` (:mod:`tournaments.demo`): one game of each
kind with hands entered, and a Rook tournament half-way through.
"""

from __future__ import annotations

import html
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.conf.locale import LANG_INFO
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone, translation
from rest_framework.test import APIClient

from config import django_messages
from scoring import services as scoring
from scoring.games import all_adapters
from scoring.models import Game
from scoring.permissions import Actor
from tests.hands import next_number
from tests.i18n.pseudo import CODE, leaks, msgids, pseudo, write_catalogue
from tests.inputs.test_etags import url_patterns
from tonkrules.errors import DomainError
from tonkrules.messages import Plural, Template
from tournaments import demo
from tournaments import services as tournaments
from tournaments.models import Club, Round, Tournament

pytestmark = pytest.mark.django_db

#: Why the Tonk game's hand 2 was voided, why a hand was disputed and why a player withdrew
#: (typed by people, so never translated).
VOID_REASON = "Mia dealt twice"
DISPUTE_REASON = "Ben held KD"
WITHDRAW_REASON = "Ivo went home"
BOTH_REASON = "Mia plays both"  # registered and seated while at the demo's Rook tables

#: Names people typed in the world of this test: players, the club, the tournament, the demo
#: login.
TYPED = [
    *demo.DEMO_ENTRANTS,
    *demo.DEMO_PLAYERS,
    demo.DEMO_CLUB_NAME,
    demo.DEMO_TOURNAMENT,
    *(f"Demo {kind} Cup" for kind in ("tonk", "bluke")),
    "demo",
    VOID_REASON,
    DISPUTE_REASON,
    WITHDRAW_REASON,
    BOTH_REASON,
]

#: What may stay in plain ASCII letters besides names and card notation, each with why.
ALLOWED = [
    "Tabletally",  # the product's name
    "JSON",  # a file format's name, on the export links
    "CSV",  # likewise
    "QR",  # the code's name, as printed on the table cards
    "USD",  # an ISO 4217 currency code the game's creator typed (the demo's Tonk stake)
    "UTC",  # the time standard a time is given in
]


@dataclass
class World:
    """The demo: its director (who started the games), the three games (the Tonk game's hand 2
    voided), and a tournament of
    each game: the demo's Rook evening half-way through, and a Tonk and a Bluke tournament with
    their first round published."""

    director: Any
    club: Club
    games: dict[str, Game]
    tournaments: dict[str, Tournament]

    def round(self, kind: str) -> Round:
        """The tournament of ``kind``'s latest round that has tables (a failed seating has
        none)."""
        rounds = self.tournaments[kind].round_set.filter(tables__isnull=False).distinct()
        return rounds.order_by("-number")[0]


def first_round_published(club: Club, director: Any, kind: str) -> Tournament:
    """A tournament of ``kind`` for the demo's four players, round 1 seated and published (the
    director confirming that they sit at the demo's Rook tables at the same time)."""
    tournament, _ = tournaments.tournament_create(
        club=club, created_by=director, name=f"Demo {kind} Cup", kind=kind, rounds=2
    )
    both = {"confirm_elsewhere": True, "reason": BOTH_REASON}
    for player in club.players.filter(name__in=demo.DEMO_PLAYERS):
        tournaments.registration_add(tournament=tournament, player=player, **both)
    rnd, _ = tournaments.round_seat(tournament=tournament, **both)
    tournaments.round_publish(round=tournaments.round_seating_compute(round_id=rnd.pk))
    return tournament


@pytest.fixture
def pseudo_locale(tmp_path: Path) -> Iterator[None]:
    """``en-xa`` is a language of the site, with the pseudo catalogue, for one test."""
    write_catalogue(tmp_path)
    LANG_INFO[CODE] = {"bidi": False, "code": CODE, "name": "Pseudo", "name_local": "Pseudo"}
    try:
        with override_settings(
            LANGUAGES=[*settings.LANGUAGES, (CODE, "Pseudo")],
            LOCALE_PATHS=[tmp_path, *settings.LOCALE_PATHS],
        ):
            yield
    finally:
        del LANG_INFO[CODE]
        translation.deactivate()


@pytest.fixture
def world(pseudo_locale: None, django_capture_on_commit_callbacks: Any) -> World:
    with django_capture_on_commit_callbacks(execute=True):
        director, _ = demo.demo_superuser_ensure(username="demo", password="demo")
        club, _ = demo.demo_club_ensure(director=director)
        games = {game.kind: game for game, _ in demo.demo_games_ensure(club=club, user=director)}
        # A voided hand under the sheet (struck through, who voided it and why).
        scoring.hand_void(game=games["tonk"], number=2, by=Actor(user=director), reason=VOID_REASON)
        rook = demo.demo_tournament_ensure(club=club, director=director)
        cups = {
            kind: first_round_published(club, director, kind) for kind in games if kind != "rook"
        }
    return World(director, club, games, {"rook": rook, **cups})


def browser(world: World | None = None) -> Client:
    """A browser reading ``en-xa`` (its Accept-Language and the language cookie), signed in as
    the demo's director when ``world`` is given."""
    client = Client(HTTP_ACCEPT_LANGUAGE=CODE)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = CODE
    if world is not None:
        client.force_login(world.director)
    return client


def check(response: Any, what: str) -> str:
    """The page's text, after asserting it is pseudo-translated and leaks nothing."""
    assert response["Content-Type"].startswith("text/html"), (what, response["Content-Type"])
    html = response.content.decode()
    assert "⟦" in html, f"{what}: nothing translated (is en-xa active?)"
    found = leaks(html, allowed=[*TYPED, *ALLOWED])
    assert found == [], f"{what} ({response.status_code}) shows English:\n" + "\n".join(
        f"  {where}: {text!r}" for where, text in found
    )
    return html


def test_the_pseudo_transform_keeps_placeholders_markup_and_urls() -> None:
    assert pseudo("Seat %(n)d of %(name)s") == "⟦Šéáţ %(n)d óƒ %(name)s⟧"
    assert pseudo('<a href="https://x.org/a">Rules</a> &amp; {count} %s') == (
        '⟦<a href="https://x.org/a">Ŕúĺéš</a> &amp; {count} %s⟧'
    )
    assert pseudo("") == ""


def test_the_leak_finder_sees_text_and_shown_attributes_only() -> None:
    html = (
        '<title>⟦Ţ⟧</title><script>var left = "English";</script><p>Ana ⟦x⟧ KS 10H R5</p>'
        '<button aria-label="Close">⟦x⟧</button><input type="submit" value="Save">'
        '<input type="text" value="Typed"><code>GET</code><select name="language">'
        "<option>English</option></select><select><option>Yes</option></select>"
    )
    assert leaks(html, allowed=["Ana"]) == [
        ("<button> attribute", "Close"),
        ("<input> attribute", "Save"),
        ("<option> text", "Yes"),
    ]


# --- the sweep ----------------------------------------------------------------------------------

#: The named URLs that answer no page of their own, each with why. Their refusals and results
#: are pages swept here (a POST answered with a redirect lands on a swept page; a rejected
#: hand is :func:`test_a_rejected_hand_names_its_rule_error_in_the_pseudo_locale`).
NOT_PAGES: dict[str, str] = {
    "healthz": "JSON for the load balancer",
    "javascript-catalog": "the page script's catalogue (JavaScript)",
    "logout": "POST only: back to the start page",
    "set_language": "POST only (the switcher): back to the page it came from",
    "api-not-found": "the API's JSON 404",
    "api-schema": "the OpenAPI schema (YAML) for developers",
    "api-docs": "Swagger UI, the schema's viewer for developers (its words are Swagger's)",
    "scoring:scoresheet-json": "a file: the score sheet as JSON",
    "scoring:scoresheet-csv": "a file: the score sheet as CSV",
    "scoring:qr": "an image: the table link's QR code",
    "scoring:seat": "redirects to the table page, as that seat",
    "scoring:hand-new": "POST only; a rejected hand is swept by its own test",
    "scoring:hand-void": "POST only; back to the table page",
    "scoring:finish": "POST only; back to the table page",
    "scoring:links-rotate": "POST only; back to the table page",
    "scoring:hand-confirm": "POST only; back to the hand's page",
    "scoring:hand-resolve": "POST only; back to the hand's page",
    "scoring:hand-restore": "POST only; back to the hand's page",
    "tournaments:register": "POST only; back to the dashboard",
    "tournaments:withdraw": "POST only; back to the dashboard",
    "tournaments:seat": "POST only; back to the dashboard",
    "tournaments:publish": "POST only; back to the dashboard",
    "tournaments:close": "POST only; back to the dashboard",
    "tournaments:regenerate": "POST only; back to the dashboard",
    "tournaments:substitute": "POST only; back to the dashboard",
    "tournaments:links": "POST only; back to the dashboard",
}


#: Namespaces of URLs that answer no page of ours: Django's admin (its pages are Django's,
#: in Django's catalogues) and the JSON API (its sentences: the tests of the API below).
NOT_PAGE_NAMESPACES = {"admin", "scoring-api", "tournaments-api"}


def not_a_page(name: str) -> bool:
    return name.split(":")[0] in NOT_PAGE_NAMESPACES or name in NOT_PAGES


def kwargs_for(world: World, kind: str) -> dict[str, object]:
    """A value for each URL parameter, at the demo's game of ``kind`` and its tournament."""
    game = world.games[kind]
    tournament = world.tournaments[kind]
    registration = tournament.registrations.order_by("pk")[0]
    table = world.round(kind).tables.order_by("number")[0]
    return {
        "key": game.table_key,
        "seat_key": game.seats.get(position=1).seat_key,
        "number": 1,
        "club_id": world.club.pk,
        "tournament_id": tournament.pk,
        "registration_id": registration.pk,
        "table": table.number,
        "game_id": game.pk,
    }


@dataclass
class Swept:
    """What the sweep saw: the leaks by page, the URL names that answered a page, and the
    text of every page (for the terms that must be on one)."""

    leaks: dict[str, list[str]]
    names: set[str]
    text: list[str]


def sweep(world: World) -> Swept:
    """GET every URL of the URL conf that may answer a page (not :func:`not_a_page`), at each
    game of the demo and the tournament of that game, as the demo's director, as a phone
    seated by its seat link and as a stranger holding the links; every HTML answer is
    checked."""
    swept = Swept({}, set(), [])
    for kind in world.games:
        values = kwargs_for(world, kind)
        # The director, a phone that took seat 2 by its seat link, a stranger with the link.
        seated = browser()
        assert seated.get(reverse("scoring:seat", args=[values["seat_key"]])).status_code == 302
        clients = (browser(world), seated, browser())
        for name, pattern in url_patterns():
            params = list(pattern.pattern.converters)
            if not_a_page(name):
                continue
            assert set(params) <= set(values), f"{name}: no value for {params}"
            url = reverse(name, kwargs={p: values[p] for p in params})
            for client in clients:
                response = client.get(url)
                if not response.get("Content-Type", "").startswith("text/html"):
                    continue
                if response.status_code in (301, 302):
                    continue  # the page it leads to is swept
                swept.names.add(name)
                record(swept, f"{url} ({response.status_code})", response.content.decode())
    return swept


def record(swept: Swept, what: str, html: str) -> None:
    swept.text.append(html)
    bad = [f"{w}: {t!r}" for w, t in leaks(html, allowed=[*TYPED, *ALLOWED])]
    if "⟦" not in html:
        bad.append("nothing translated (is en-xa active?)")
    if bad:
        swept.leaks[what] = bad


def report(found: dict[str, list[str]]) -> str:
    return "\n".join(
        f"{what}\n" + "\n".join(f"    {b}" for b in bad) for what, bad in found.items()
    )


def test_every_page_shows_nothing_in_english(world: World) -> None:
    swept = sweep(world)
    assert swept.leaks == {}, "English left on these pages:\n" + report(swept.leaks)


def later_states(world: World) -> None:
    """Move the world on to the states the demo does not show, so that one more sweep sees
    their words: a Tonk game where hands wait for confirmation and one is disputed; the Bluke
    game finished; a withdrawn player in the Rook evening; the Tonk cup's round 1 closed with
    no hand (a missed round for every seat) and its round 2's seating failed; the Bluke cup
    played to its end with no hand entered."""
    director = Actor(user=world.director)
    demo_tonk = demo.DEMO_GAMES[0]
    players = {p.name: p for p in world.club.players.filter(name__in=demo_tonk["players"])}
    tonk, _ = scoring.game_start(
        kind="tonk",
        players=[scoring.SeatSpec(name, players[name].pk) for name in demo_tonk["players"]],
        stake=demo_tonk["stake"],
        currency=demo_tonk["currency"],
        club=world.club,
        created_by=world.director,
        confirmation=Game.Confirmation.ONE_OTHER,
    )
    seats = list(tonk.seats.order_by("position"))
    for hand in demo_tonk["hands"][:2]:
        scoring.hand_record(game=tonk, entry=hand, by=Actor(seat_id=seats[0].pk))
    scoring.hand_dispute(game=tonk, number=1, by=Actor(seat_id=seats[1].pk), reason=DISPUTE_REASON)
    world.games["tonk"] = tonk
    scoring.game_finish(game=world.games["bluke"], by=director)

    rook = world.tournaments["rook"]
    ivo = rook.registrations.get(player__name="Ivo")
    tournaments.registration_withdraw(registration=ivo, by=world.director, reason=WITHDRAW_REASON)

    cup = world.tournaments["tonk"]
    tournaments.round_close(round=world.round("tonk"), by=world.director)
    # Round 2's seating was asked for; all but one player left before the worker took it
    # (behind the services' back, as concurrent requests would): the seating fails.
    failed = Round.objects.create(tournament=cup, number=2, seat_asked_at=timezone.now())
    cup.registrations.order_by("pk").exclude(pk=cup.registrations.order_by("pk")[0].pk).update(
        withdrawn_after=1
    )
    tournaments.round_seating_run(round_id=failed.pk)
    failed.refresh_from_db()
    assert failed.state == Round.State.FAILED

    bluke_cup = world.tournaments["bluke"]
    tournaments.round_close(round=world.round("bluke"), by=world.director)
    rnd, _ = tournaments.round_seat(
        tournament=bluke_cup, confirm_elsewhere=True, reason=BOTH_REASON
    )
    tournaments.round_publish(round=tournaments.round_seating_compute(round_id=rnd.pk))
    tournaments.round_close(round=world.round("bluke"), by=world.director)


def test_later_states_show_nothing_in_english(
    world: World, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        later_states(world)
    swept = sweep(world)
    assert swept.leaks == {}, "English left on these pages:\n" + report(swept.leaks)
    text = html.unescape("\n".join(swept.text))
    # The states were seen: each one's words are on a swept page.
    for words in ("Disputed", "withdrawn", "Seating failed", "Retry"):
        assert pseudo(words) in text, words


# --- the pages only a request of a kind shows ---------------------------------------------------


def rook_names(world: World) -> list[str]:
    return [name for name, _seat in world.games["rook"].seating]


def test_a_rejected_hand_names_its_rule_error_in_the_pseudo_locale(world: World) -> None:
    """Round 3 (two runs) with a meld that is no run: the page comes back 422 with the rule
    error's headline and sentence, both through the catalogue."""
    game = world.games["rook"]
    response = browser(world).post(
        reverse("scoring:hand-new", kwargs={"key": game.table_key}),
        {
            "idempotency_key": uuid.uuid4().hex,
            "after": str(next_number(game) - 1),
            "round": "3",
            "dealer": "2",
            "out": "0",
            "melds_0": "R4 Y4 G5\nB1 B2 B3 B4",
            "held_1": "R3",
            "held_2": "G12",
            "held_3": "Y1",
        },
    )
    assert response.status_code == 422
    html = check(response, "a rejected Rook round")
    assert pseudo("Not a legal meld") in html


def test_the_lock_out_page_is_in_the_pseudo_locale(world: World) -> None:
    for n in range(settings.AXES_FAILURE_LIMIT):
        browser().post(reverse("login"), {"username": "demo", "password": f"guess {n}"})
    response = browser().post(reverse("login"), {"username": "demo", "password": "demo"})
    assert response.status_code == 429
    check(response, "the lock-out page")


def test_a_wrong_password_is_refused_in_the_pseudo_locale(world: World) -> None:
    response = browser().post(reverse("login"), {"username": "demo", "password": "guess"})
    assert response.status_code == 200
    html = check(response, "a refused sign-in")
    assert pseudo("Please enter a correct username and password.")[:-1] in html


def test_guessed_links_are_refused_in_the_pseudo_locale(world: World) -> None:
    client = browser()
    for n in range(30):
        assert client.get(f"/t/guess{n}/").status_code == 404
    response = client.get("/t/guess-again/")
    assert response.status_code == 429
    check(response, "the page of too many guessed links")


@pytest.mark.parametrize(
    ("url", "status"),
    [("/no/such/page/", 404), ("/t/no-such-table/", 404)],
)
def test_the_not_found_pages_are_in_the_pseudo_locale(world: World, url: str, status: int) -> None:
    response = browser(world).get(url)
    assert response.status_code == status
    check(response, f"404 at {url}")


def test_a_refused_page_is_in_the_pseudo_locale(world: World) -> None:
    """The audit of a tournament's table to a stranger holding its link: 403."""
    key = world.round("rook").tables.order_by("number")[0].game.table_key
    response = browser().get(reverse("scoring:audit", kwargs={"key": key}))
    assert response.status_code == 403
    check(response, "403")


def test_a_body_too_large_is_in_the_pseudo_locale(world: World) -> None:
    game = world.games["tonk"]
    response = browser(world).post(
        reverse("scoring:hand-new", kwargs={"key": game.table_key}),
        {"held_0": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)},
    )
    assert response.status_code == 413
    check(response, "413")


def test_the_directors_forms_refused_are_in_the_pseudo_locale(world: World) -> None:
    """A new tournament and a new game with nothing filled in: every field's refusal."""
    client = browser(world)
    new_tournament = client.post(reverse("tournaments:new", kwargs={"club_id": world.club.pk}), {})
    assert new_tournament.status_code in (200, 400, 422)
    check(new_tournament, "the new tournament form, refused")
    new_game = client.post(reverse("scoring:game-new"), {})
    assert new_game.status_code in (200, 400, 422)
    check(new_game, "the new game form, refused")


# --- the API's sentences ------------------------------------------------------------------------


def messages_in(body: object) -> list[str]:
    """Every ``message`` string of a JSON body, at any depth (an error object's ``detail`` is
    its stable code, not a sentence)."""
    found: list[str] = []
    if isinstance(body, dict):
        for key, value in body.items():
            if key == "message" and isinstance(value, str):
                found.append(value)
            else:
                found.extend(messages_in(value))
    elif isinstance(body, list):
        for value in body:
            found.extend(messages_in(value))
    return found


def api(world: World) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=CODE)
    client.force_authenticate(world.director)
    return client


def test_the_apis_rule_error_is_in_the_pseudo_locale(world: World) -> None:
    game = world.games["tonk"]
    response = api(world).post(
        f"/api/v1/games/{game.pk}/hands/",
        {
            "number": next_number(game),
            "dealer": "Ana",
            "end": "knock",
            "by": "Ana",
            "held": {"Ana": "AS", "Ben": "AS", "Cyd": "2C"},
        },
        format="json",
        HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
    )
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "too_many_copies"
    messages = messages_in(response.json())
    assert messages and all(m.startswith("⟦") and m.endswith("⟧") for m in messages), messages


def test_the_apis_tournament_refusal_is_in_the_pseudo_locale(world: World) -> None:
    """Seating round 4 while round 3 is being played is refused."""
    response = api(world).post(
        f"/api/v1/tournaments/{world.tournaments['rook'].pk}/rounds/", {}, format="json"
    )
    assert response.status_code in (400, 409), response.content
    messages = messages_in(response.json())
    assert messages and all(m.startswith("⟦") and m.endswith("⟧") for m in messages), messages


# --- every game's words are on a swept page ----------------------------------------------------


def game_terms(world: World) -> dict[str, list[str]]:
    """Each game's words a page must show, in the active language: its name, its house rules'
    names, its tie-breaks' names and its entry form's fixed choices (how a hand ended, who went
    out or time called, trump)."""
    terms: dict[str, list[str]] = {}
    for adapter in all_adapters():
        game = world.games[adapter.name]
        names = [name for name, _seat in game.seating]
        form = adapter.entry_form(names=names, options=adapter.rules.options(game.options))
        choices = [
            str(label)
            for field in form.fields.values()
            for _value, label in getattr(field, "choices", ())
            if any(c.isalpha() for c in str(label)) and not any(n in str(label) for n in names)
        ]
        terms[adapter.name] = [
            adapter.label,
            *(str(label) for label in adapter.option_labels.values()),
            *(translation.gettext(tiebreak.label) for tiebreak in adapter.rules.tiebreaks),
            *choices,
        ]
    return terms


def test_every_games_words_are_on_a_swept_page_in_the_pseudo_locale(world: World) -> None:
    swept = sweep(world)
    text = html.unescape("\n".join(swept.text))
    with translation.override(CODE):
        terms = game_terms(world)
    missing = {kind: [term for term in words if term not in text] for kind, words in terms.items()}
    untranslated = [term for words in terms.values() for term in words if "⟦" not in term]
    assert untranslated == []
    assert {kind: words for kind, words in missing.items() if words} == {}


def test_every_url_of_the_url_conf_is_swept_or_said_not_a_page(world: World) -> None:
    swept = sweep(world)
    names = {
        name for name, _pattern in url_patterns() if name.split(":")[0] not in NOT_PAGE_NAMESPACES
    }
    assert names - swept.names - set(NOT_PAGES) == set()
    assert set(NOT_PAGES) <= names  # no stale entry
    assert swept.names & set(NOT_PAGES) == set()


# --- every error's sentence is in the catalogue ------------------------------------------------


def families() -> dict[str, Mapping[str, Template]]:
    """Every family of domain errors (each subclass of ``DomainError`` declaring its
    ``messages``), by class: the engine's rule errors (``RULE_MESSAGES``, which the scoring
    app's own rule errors join), the score sheet's errors (the rule errors' sentences), the
    scoring conflicts, the tournaments' refusals and the seating's."""
    import scoring.errors  # noqa: F401  (the families register by being imported)
    import tournaments.errors
    import tournaments.seating  # noqa: F401

    found: dict[str, Mapping[str, Template]] = {}
    todo = list(DomainError.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        messages = cls.__dict__.get("messages")
        if messages is not None:
            found[f"{cls.__module__}.{cls.__qualname__}"] = messages
    return found


def test_every_domain_errors_sentence_is_a_msgid_of_the_catalogue() -> None:
    found = families()
    assert {"tonkrules.errors.RuleError", "scoring.errors.ScoringConflict"} <= set(found)
    assert any(name.startswith("tournaments.errors.") for name in found)
    assert any(name.startswith("tournaments.seating") for name in found)
    ids = msgids()
    missing = [
        (family, key, text)
        for family, messages in found.items()
        for key, template in messages.items()
        for text in (template[:2] if isinstance(template, Plural) else (template,))
        if text not in ids
    ]
    assert missing == []


def test_djangos_own_sentences_the_pages_show_are_msgids_of_the_catalogue() -> None:
    ids = msgids()
    texts = [
        text
        for message in (
            *django_messages.FIELD_REFUSALS,
            *django_messages.FILE_SIZES,
            *django_messages.API_REFUSALS,
        )
        for text in (message[:2] if isinstance(message, Plural) else (message,))
    ]
    assert [text for text in texts if text not in ids] == []
