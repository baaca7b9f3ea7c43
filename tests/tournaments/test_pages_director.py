"""The director's dashboard (issue 7): the club's tournaments, creating one with every option,
registering players (club players, new names, a pasted list), late entries and withdrawals,
seating, publishing and closing rounds, the live grid and its clock, substitutes, regenerating
a superseded seating, the printable table cards; and that nobody but the club's directors
reaches any of it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, reverse
from django.utils import timezone, translation

from ops import l10n
from scoring import services as scoring_services
from scoring.games import bluke as bluke_games
from scoring.models import Game
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tonkrules.rook import CONTRACTS
from tournaments import page_urls, pages_audit, pages_director, services
from tournaments.models import (
    AuditEntry,
    Club,
    Membership,
    Player,
    Registration,
    Round,
    SitOut,
    Table,
    TableSeat,
    Tournament,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_eager")]

NAMES = ("Ana", "Ben", "Cyd", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida")

Capture = Callable[..., AbstractContextManager[list[Callable[[], None]]]]


# --- helpers ----------------------------------------------------------------------------------


class Page(HTMLParser):
    """The form controls of a page: what a browser submits from the form posting to
    ``action``, every control with its id, and the ids that have a label; the text of every
    element with an id."""

    VOID = frozenset({"input", "meta", "link", "br", "img", "hr", "path", "rect"})

    def __init__(self, text: str, action: str | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.action = action
        self.fields: dict[str, list[str]] = {}
        self.controls: list[dict[str, str]] = []
        self.label_for: set[str] = set()
        self.text_of: dict[str, str] = {}
        self._open: list[str | None] = []
        self._labels = 0
        self._in_form = False
        self._select: str | None = None
        self._select_first: str | None = None
        self._select_chosen = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._in_form = a.get("action") == self.action
        if tag == "label":
            self._labels += 1
            if a.get("for"):
                self.label_for.add(a["for"])
        if tag in ("input", "select", "textarea"):
            self.controls.append({**a, "tag": tag, "wrapped": "1" if self._labels else ""})
        if self._in_form:
            self._submit(tag, a)
        if tag not in self.VOID:
            self._open.append(a.get("id"))
            if a.get("id"):
                self.text_of.setdefault(a["id"], "")

    def _submit(self, tag: str, a: dict[str, str]) -> None:
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.setdefault(name, []).append(a.get("value", "on"))
            elif kind != "submit":
                self.fields[name] = [a.get("value", "")]
        elif tag == "textarea" and name:
            self.fields[name] = [""]
        elif tag == "select":
            self._select, self._select_first, self._select_chosen = name, None, False
        elif tag == "option" and self._select:
            if self._select_first is None:
                self._select_first = a.get("value", "")
                self.fields[self._select] = [self._select_first]
            if "selected" in a and not self._select_chosen:
                self.fields[self._select] = [a.get("value", "")]
                self._select_chosen = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self._labels -= 1
        if tag == "form":
            self._in_form = False
        if tag == "select":
            self._select = None
        if tag not in self.VOID and self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for element_id in self._open:
            if element_id:
                self.text_of[element_id] += data

    def unlabelled(self) -> list[dict[str, str]]:
        """Visible controls without a label (``<label for>``, a wrapping label, or
        ``aria-label``)."""
        return [
            c
            for c in self.controls
            if c.get("type") not in ("hidden", "submit")
            and not c.get("wrapped")
            and c.get("id") not in self.label_for
            and not c.get("aria-label")
        ]

    def data(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in self.fields.items()}


def text(response: Any) -> str:
    return response.content.decode()


def plain(response: Any) -> str:
    """The page's text, tags dropped and white space collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", text(response)).split())


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


@pytest.fixture
def club() -> Club:
    club = ClubFactory(name="Riverside Card Club")
    for name in NAMES:
        PlayerFactory(club=club, name=name)
    return club


@pytest.fixture
def director(club: Club) -> Any:
    return MembershipFactory(club=club, role=Membership.Role.DIRECTOR).user


@pytest.fixture
def web(director: Any) -> Client:
    client = Client()
    client.force_login(director)
    return client


@pytest.fixture
def act(web: Client, django_capture_on_commit_callbacks: Capture) -> Callable[..., Any]:
    """POST as the director, running what the services enqueue after commit (the eager
    seating task), and follow the redirect back to the dashboard."""

    def post(url: str, data: dict[str, Any] | None = None, *, follow: bool = True) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            response = web.post(url, data or {})
        if follow and response.status_code == 303:
            return web.get(response["Location"])
        return response

    return post


def make_tournament(club: Club, director: Any, **kwargs: Any) -> Tournament:
    arguments: dict[str, Any] = {"kind": "rook", "name": "Spring Rook night"} | kwargs
    tournament, _created = services.tournament_create(club=club, created_by=director, **arguments)
    return tournament


def register_all(tournament: Tournament, names: tuple[str, ...] = NAMES) -> list[Registration]:
    players = Player.objects.filter(club=tournament.club, name__in=names).order_by("name")
    return [services.registration_add(tournament=tournament, player=p) for p in players]


def url(name: str, *args: Any) -> str:
    return reverse(f"tournaments:{name}", args=args)


@pytest.fixture
def rook(club: Club, director: Any) -> Tournament:
    """A Rook tournament of nine players, nothing seated yet."""
    tournament = make_tournament(club, director, minutes_per_round=30)
    register_all(tournament)
    return tournament


def seat_round(tournament: Tournament, capture: Capture) -> Round:
    with capture(execute=True):
        rnd, _created = services.round_seat(tournament=tournament)
    rnd.refresh_from_db()
    return rnd


# --- the club's tournaments -------------------------------------------------------------------


def test_club_page_lists_tournaments_with_rounds_complete_and_links(
    web: Client, club: Club, director: Any
) -> None:
    first = make_tournament(club, director, name="Rook night")
    second = make_tournament(club, director, kind="tonk", name="Tonk Tuesday", rounds=4)
    Tournament.objects.filter(pk=first.pk).update(rounds_complete=3)

    response = web.get(url("club", club.pk))

    assert response.status_code == 200
    page = plain(response)
    assert "Rook night" in page and "Tonk Tuesday" in page
    assert "3 of 11 rounds complete" in page and "0 of 4 rounds complete" in page
    one = make_tournament(club, director, kind="tonk", name="One round", rounds=1)
    assert "0 of 1 round complete" in plain(web.get(url("club", club.pk)))
    tamil = plain(web.get(url("club", club.pk), HTTP_ACCEPT_LANGUAGE="ta"))
    assert "முடிந்த சுற்று: 0 / 1" in tamil and "முடிந்த சுற்றுகள்: 0 / 4" in tamil
    translation.deactivate()  # the request left Tamil active in this thread
    one.delete()
    body = text(response)
    for tournament in (first, second):
        assert f'href="{url("manage", tournament.pk)}"' in body
        assert f'href="{reverse("tournaments:standings", args=[tournament.pk])}"' in body
    assert f'href="{url("new", club.pk)}"' in body


# --- creating a tournament --------------------------------------------------------------------


def test_new_tournament_page_explains_every_option_and_labels_every_control(
    web: Client, club: Club
) -> None:
    response = web.get(url("new", club.pk))

    assert response.status_code == 200
    page = Page(text(response), url("new", club.pk))
    assert page.unlabelled() == []
    names = {c.get("name") for c in page.controls}
    service_options = {
        "name",
        "kind",
        "stake",
        "currency",
        "method",
        "time_zone",
        "starts_at",
        "minutes_per_round",
        "missed_round_score",
        "basis",
        "seed",
    }
    assert service_options <= names
    for game in ("tonk", "rook", "bluke"):
        for option in ("rounds", "sizes", "prefer"):
            assert f"{game}__{option}" in names
    assert {"tonk__hands_per_round", "bluke__hands_per_round"} <= names
    assert "rook__hands_per_round" not in names  # always one contract round
    # The house rules of each game, as on the start-a-game page.
    assert {"tonk__upcard", "rook__contract_mode", "bluke__allow_zero_bid"} <= names
    # Each option's line with its default.
    words = plain(response)
    for line in (
        "Default: 11.",
        "Default: 2, 3.",
        "Default: 3, 4, 5.",
        "Default: 3, 4.",
        "Default: 25.",
        "Default: 10.",
        "Default: the round's average score",
        "Default: total score",
        "Default: none: no clock",
        "Default: UTC",
        "Default: 0",
    ):
        assert line in words, line
    # Every control of the form explains itself (a help line, or a labelled group's).
    for control in page.controls:
        if control.get("type") in ("hidden", "submit") or control.get("name") in (None, ""):
            continue
        name = control["name"]
        assert f"id_{name}_helptext" in page.text_of, name
    # Per-game defaults: the checkboxes of each game's table sizes and its time zone list.
    assert page.fields["rook__sizes"] == ["3", "4", "5"]
    assert page.fields["tonk__sizes"] == ["2", "3"]
    assert page.fields["bluke__sizes"] == ["3", "4"]
    assert page.fields["rook__prefer"] == ["4"] and page.fields["tonk__prefer"] == ["3"]
    assert page.fields["time_zone"] == ["UTC"]
    assert page.fields["kind"] == ["rook"]
    assert re.fullmatch(r"[0-9a-f]{32}", page.fields["idempotency_key"][0])


def test_creating_a_rook_tournament_with_the_defaults(
    web: Client, club: Club, director: Any
) -> None:
    form = Page(text(web.get(url("new", club.pk))), url("new", club.pk)).data()
    form["name"] = ["Spring Rook night"]

    response = web.post(url("new", club.pk), form)

    tournament = Tournament.objects.get()
    assert response.status_code == 303
    assert response["Location"] == url("manage", tournament.pk)
    assert (tournament.club, tournament.created_by, tournament.name) == (
        club,
        director,
        "Spring Rook night",
    )
    assert (tournament.kind, tournament.round_count, tournament.sizes, tournament.prefer) == (
        "rook",
        11,
        [3, 4, 5],
        4,
    )
    assert (tournament.hands_per_round, tournament.method, tournament.options) == (
        1,
        "balanced",
        {},
    )
    assert (tournament.missed_round_score, tournament.basis, tournament.seed) == (
        "average",
        "total",
        0,
    )
    assert (tournament.time_zone, tournament.starts_at, tournament.minutes_per_round) == (
        "UTC",
        None,
        None,
    )
    # A resubmitted form (the same idempotency key) goes to the same tournament.
    again = web.post(url("new", club.pk), form)
    assert again.status_code == 303 and again["Location"] == url("manage", tournament.pk)
    assert Tournament.objects.count() == 1


def test_creating_a_tonk_tournament_with_every_option(web: Client, club: Club) -> None:
    form = Page(text(web.get(url("new", club.pk))), url("new", club.pk)).data()
    form |= {
        "name": ["Tonk Tuesday"],
        "kind": ["tonk"],
        "tonk__rounds": ["4"],
        "tonk__sizes": ["2", "3"],
        "tonk__prefer": ["2"],
        "tonk__hands_per_round": ["6"],
        "stake": ["0,25"],
        "currency": [""],
        "tonk__upcard": [],  # unticked: differs from the default (on)
        "method": ["swiss"],
        "time_zone": ["Europe/Paris"],
        "starts_at": ["2025-06-01T19:30"],
        "minutes_per_round": ["40"],
        "missed_round_score": ["worst"],
        "basis": ["placement"],
        "seed": ["7"],
    }

    response = web.post(url("new", club.pk), {k: v for k, v in form.items() if v})

    assert response.status_code == 303
    t = Tournament.objects.get()
    assert (t.kind, t.round_count, t.sizes, t.prefer) == ("tonk", 4, [2, 3], 2)
    assert t.hands_per_round == 6
    assert (t.stake, t.currency, t.options) == ("0.25", "USD", {"upcard": False})
    assert (t.method, t.missed_round_score, t.basis, t.seed) == ("swiss", "worst", "placement", 7)
    assert t.time_zone == "Europe/Paris" and t.minutes_per_round == 40
    # The start time was typed in the tournament's zone: 19:30 in Paris is 17:30 UTC.
    assert t.starts_at == timezone.datetime(2025, 6, 1, 17, 30, tzinfo=ZoneInfo("UTC"))
    # The next tournament of the club starts in the same time zone.
    again = Page(text(web.get(url("new", club.pk))), url("new", club.pk))
    assert again.fields["time_zone"] == ["Europe/Paris"]


def _new_form(web: Client, club: Club, **changes: list[str]) -> dict[str, list[str]]:
    form = Page(text(web.get(url("new", club.pk))), url("new", club.pk)).data()
    form["name"] = ["Refused"]
    form.update(changes)
    return form


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        (
            {"kind": ["tonk"], "tonk__rounds": ["3"], "tonk__sizes": ["3", "5"]},
            "tonk__sizes",
            "Tonk is played by 2 to 4 players: tick only those sizes.",
        ),
        (
            {"kind": ["rook"], "rook__sizes": ["2", "3"]},
            "rook__sizes",
            "Toonerville Rook is played by 3 to 5 players",
        ),
        (
            {"kind": ["rook"], "missed_round_score": ["zero"]},
            "missed_round_score",
            "A missed round of Toonerville Rook cannot score zero",
        ),
        (
            {"kind": ["bluke"], "bluke__rounds": [""]},
            "bluke__rounds",
            "Type a whole number of rounds from 1 to 99.",
        ),
        (
            {"kind": ["rook"], "rook__sizes": ["3", "4"], "rook__prefer": ["5"]},
            "rook__prefer",
            "The preferred size must be one of the ticked table sizes.",
        ),
        (
            {"kind": ["tonk"], "tonk__rounds": ["3"], "stake": ["-1"]},
            "stake",
            "Type the stake as an amount such as 0.25",
        ),
    ],
    ids=[
        "tonk-table-of-5",
        "rook-table-of-2",
        "zero-for-rook",
        "bluke-no-rounds",
        "prefer",
        "stake",
    ],
)
def test_refused_options_are_shown_next_to_their_field_and_nothing_is_created(
    web: Client, club: Club, changes: dict[str, list[str]], field: str, words: str
) -> None:
    response = web.post(url("new", club.pk), _new_form(web, club, **changes))

    assert response.status_code == 422
    page = Page(text(response), url("new", club.pk))
    assert words in page.text_of[f"id_{field}_error"]
    assert Tournament.objects.count() == 0
    # The form keeps what was typed.
    assert page.fields["name"] == ["Refused"]


def test_rook_rounds_above_eleven_are_refused_by_the_form(web: Client, club: Club) -> None:
    response = web.post(url("new", club.pk), _new_form(web, club, rook__rounds=["12"]))

    assert response.status_code == 422
    assert "id_rook__rounds_error" in Page(text(response)).text_of
    assert Tournament.objects.count() == 0


# --- registering players ----------------------------------------------------------------------


def test_register_club_players_by_checkbox(act: Callable[..., Any], rook: Tournament) -> None:
    tournament = make_tournament(rook.club, rook.created_by, name="Second")
    ana, ben = Player.objects.filter(club=rook.club, name__in=("Ana", "Ben")).order_by("name")

    response = act(url("register", tournament.pk), {"players": [ana.pk, ben.pk]})

    assert response.status_code == 200
    assert sorted(r.player.name for r in tournament.registrations.all()) == ["Ana", "Ben"]
    assert "Registered 2 players: Ana, Ben." in messages_of(response)
    page = plain(response)
    assert "Ana" in page and "Withdraw Ana" in page
    # Registered players are no longer offered.
    boxes = Page(text(response), url("register", tournament.pk))
    offered = {c["value"] for c in boxes.controls if c.get("name") == "players"}
    assert str(ana.pk) not in offered and str(ben.pk) not in offered


def test_register_new_names_and_a_pasted_list(
    act: Callable[..., Any], club: Club, director: Any
) -> None:
    tournament = make_tournament(club, director)
    cyd = Player.objects.get(club=club, name="Cyd")
    pasted = "  Zoe Quinn \n\nana\nNew Person\nZoe   Quinn\n Dee\n"

    response = act(url("register", tournament.pk), {"names": pasted, "players": [cyd.pk]})

    registered = sorted(r.player.name for r in tournament.registrations.all())
    assert registered == ["Ana", "Cyd", "Dee", "New Person", "Zoe Quinn"]
    # Existing club players were matched (letter case aside); new names became club players.
    assert Player.objects.filter(club=club, name__iexact="ana").count() == 1
    assert Player.objects.filter(club=club, name="Zoe Quinn").exists()
    assert Player.objects.filter(club=club).count() == len(NAMES) + 2
    assert any(m.startswith("Registered 5 players") for m in messages_of(response))
    # Again: all already registered, nothing new.
    again = act(url("register", tournament.pk), {"names": "Zoe Quinn\nAna"})
    assert "Already registered: Zoe Quinn, Ana." in messages_of(again)
    assert tournament.registrations.count() == 5


def test_register_refuses_bad_names_and_an_empty_request(
    act: Callable[..., Any], club: Club, director: Any
) -> None:
    tournament = make_tournament(club, director)

    empty = act(url("register", tournament.pk), {"names": "\n \n"})
    long = act(url("register", tournament.pk), {"names": "Fine\n" + "x" * 81})
    control = act(url("register", tournament.pk), {"names": "Bell\x07Name"})

    assert "Tick a club player or type a name to register." in messages_of(empty)
    assert any("at most 80 characters" in m for m in messages_of(long))
    assert any(
        "invisible or direction-control character, U+0007" in m for m in messages_of(control)
    )
    assert tournament.registrations.count() == 0
    assert not Player.objects.filter(name="Fine").exists()


def test_late_entry_between_rounds_and_withdrawal(
    act: Callable[..., Any], rook: Tournament, django_capture_on_commit_callbacks: Capture
) -> None:
    services.round_publish(round=seat_round(rook, django_capture_on_commit_callbacks))
    ana = rook.registrations.get(player__name="Ana")

    late = act(url("register", rook.pk), {"names": "Latecomer"})
    gone = act(url("withdraw", rook.pk, ana.pk))

    latecomer = rook.registrations.get(player__name="Latecomer")
    assert latecomer.from_round == 2
    assert "Registered Latecomer, from round 2 (a late entry)." in messages_of(late)
    assert "Register late entries (from round 2)" in plain(late)
    ana.refresh_from_db()
    assert ana.withdrawn_after == 1
    assert "Ana is withdrawn." in messages_of(gone)
    assert "withdrawn after round 1" in plain(gone)
    assert "Withdraw Ana" not in plain(gone)


def test_registering_after_every_round_is_seated_is_a_message_not_an_error(
    act: Callable[..., Any], club: Club, director: Any, django_capture_on_commit_callbacks: Capture
) -> None:
    tournament = make_tournament(club, director, rounds=1)
    register_all(tournament)
    services.round_publish(round=seat_round(tournament, django_capture_on_commit_callbacks))

    response = act(url("register", tournament.pk), {"names": "Too Late"})

    assert response.status_code == 200
    assert "Every round is seated: it is too late to enter." in messages_of(response)
    assert not Player.objects.filter(name="Too Late").exists()  # rolled back with it


# --- rounds: seat, publish, close, the grid ---------------------------------------------------


def test_seat_publish_and_close_a_round_through_the_dashboard(
    act: Callable[..., Any], web: Client, rook: Tournament
) -> None:
    before = web.get(url("manage", rook.pk))
    assert "Seat round 1" in plain(before)

    seated = act(url("seat", rook.pk))

    rnd = rook.round_set.get()
    assert rnd.state == Round.State.SEATED  # eager: seated at once
    assert rnd.tables.count() == 2 and TableSeat.objects.filter(round=rnd).count() == 9
    assert "Publish round 1" in plain(seated)
    assert "Seat round 1" not in plain(seated)
    assert Page(text(seated)).unlabelled() == []  # substitutes, registration: all labelled
    # Seating twice gives the same round.
    act(url("seat", rook.pk))
    assert rook.round_set.count() == 1

    published = act(url("publish", rook.pk, 1))

    rnd.refresh_from_db()
    assert rnd.state == Round.State.PUBLISHED and rnd.deadline is not None
    assert "Round 1 is published: the tables may play." in messages_of(published)
    assert "Close round 1" in plain(published)
    assert all(t.game.state == Game.State.IN_PLAY for t in rnd.tables.select_related("game"))

    closed = act(url("close", rook.pk, 1))

    rnd.refresh_from_db()
    assert rnd.state == Round.State.COMPLETE
    assert set(rnd.tables.values_list("state", flat=True)) == {Table.State.NOT_PLAYED}
    assert "Round 1 is closed." in messages_of(closed)
    assert "Seat round 2" in plain(closed)
    rook.refresh_from_db()
    assert rook.rounds_complete == 1


def test_refusals_of_round_actions_are_messages(
    act: Callable[..., Any], club: Club, director: Any, django_capture_on_commit_callbacks: Capture
) -> None:
    tournament = make_tournament(club, director)
    register_all(tournament, NAMES[:2])

    too_few = act(url("seat", tournament.pk))

    assert too_few.status_code == 200
    assert "2 players cannot fill a table: the smallest table seats 3" in messages_of(too_few)
    assert tournament.round_set.count() == 0

    register_all(tournament, NAMES[2:4])
    seat_round(tournament, django_capture_on_commit_callbacks)
    not_published = act(url("close", tournament.pk, 1))
    assert "The round is not published." in messages_of(not_published)
    services.round_publish(round=tournament.round_set.get())
    not_complete = act(url("seat", tournament.pk))
    assert "Round 1 is not complete: close it before seating the next." in messages_of(not_complete)
    missing = act(url("publish", tournament.pk, 5), follow=False)
    assert missing.status_code == 404


def test_htmx_actions_answer_with_a_client_redirect(
    web: Client, rook: Tournament, django_capture_on_commit_callbacks: Capture
) -> None:
    seat_round(rook, django_capture_on_commit_callbacks)

    response = web.post(url("publish", rook.pk, 1), HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert response["HX-Redirect"] == url("manage", rook.pk) + "?round=1"


def _tonk_with_two_tables(
    club: Club, director: Any, capture: Capture, **kwargs: Any
) -> tuple[Tournament, Round]:
    tournament = make_tournament(
        club,
        director,
        kind="tonk",
        name="Tonk Tuesday",
        rounds=3,
        sizes=[2],
        prefer=2,
        hands_per_round=2,
        **kwargs,
    )
    register_all(tournament, NAMES[:4])
    rnd = seat_round(tournament, capture)
    return tournament, rnd


def _knock(game: Game, number: int = 1) -> None:
    """Hand ``number`` of a two-player Tonk table: the first player knocks and wins."""
    a, b = [name for name, _seat in game.seating]
    hand = {"dealer": b, "end": "knock", "by": a, "held": {a: "AS 2D", b: "KH QH"}}
    scoring_services.hand_record(game=game, entry=hand, idempotency_key=f"k-{game.pk}-{number}")


def test_grid_shows_tables_states_first_dealers_progress_and_links(
    web: Client, club: Club, director: Any, django_capture_on_commit_callbacks: Capture
) -> None:
    tournament, rnd = _tonk_with_two_tables(club, director, django_capture_on_commit_callbacks)
    services.round_publish(round=rnd)
    first, second = rnd.tables.select_related("game").order_by("number")
    with django_capture_on_commit_callbacks(execute=True):
        _knock(first.game)

    response = web.get(url("grid", tournament.pk, 1))

    assert response.status_code == 200
    body = text(response)
    assert 'hx-trigger="every 5s"' in body and f'hx-get="{url("grid", tournament.pk, 1)}"' in body
    cards = body.split('<li class="table-card')[1:]
    assert len(cards) == 2
    for table, card in zip((first, second), cards, strict=True):
        words = " ".join(re.sub(r"<[^>]+>", " ", card).split())
        assert f"Table {table.number}" in words
        dealer = table.seats.order_by("position").first().registration.player.name
        assert f"{dealer} deals first" in words
        assert reverse("scoring:table", kwargs={"key": table.game.table_key}) in card
    first_words = " ".join(re.sub(r"<[^>]+>", " ", cards[0]).split())
    second_words = " ".join(re.sub(r"<[^>]+>", " ", cards[1]).split())
    assert "Playing" in first_words and "1 of 2 hands entered" in first_words
    assert "Seated" in second_words and "0 of 2 hands entered" in second_words
    # The first table enters its second and last hand: reported.
    with django_capture_on_commit_callbacks(execute=True):
        _knock(first.game, 2)
    later = plain(web.get(url("grid", tournament.pk, 1)))
    assert "Table 1 Reported" in later and "2 of 2 hands entered" in later


def test_grid_round_clock_in_the_tournament_time_zone_and_time_called(
    web: Client, club: Club, director: Any, django_capture_on_commit_callbacks: Capture
) -> None:
    tournament, rnd = _tonk_with_two_tables(
        club,
        director,
        django_capture_on_commit_callbacks,
        minutes_per_round=30,
        time_zone="America/New_York",
    )
    services.round_publish(round=rnd)
    rnd.refresh_from_db()

    running = plain(web.get(url("grid", tournament.pk, 1)))

    local = timezone.localtime(rnd.deadline, ZoneInfo("America/New_York"))
    assert (
        f"Deadline {l10n.time(local)} (New York)" in running
    )  # 24-hour, CLDR Hm; the zone by its place
    assert re.search(r"(30|29) minutes left", running)
    assert "Time called" not in running

    Round.objects.filter(pk=rnd.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    services.tick()
    called = plain(web.get(url("grid", tournament.pk, 1)))
    assert "Time called" in called and "minutes left" not in called


def test_grid_shows_seating_while_the_task_runs_and_polls(web: Client, rook: Tournament) -> None:
    # Without running the after-commit task the round stays planned: "seating…".
    services.round_seat(tournament=rook)

    response = web.get(url("manage", rook.pk))

    assert "Seating…" in plain(response)
    assert 'hx-trigger="every 5s"' in text(response)
    assert "Publish round 1" not in plain(response)


def test_completed_round_stops_polling(
    act: Callable[..., Any],
    web: Client,
    rook: Tournament,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    seat_round(rook, django_capture_on_commit_callbacks)
    act(url("publish", rook.pk, 1))
    act(url("close", rook.pk, 1))

    response = web.get(url("grid", rook.pk, 1))

    assert "hx-trigger" not in text(response)
    assert "Seat round 2" in plain(response)


def test_superseded_banner_and_regenerate(
    act: Callable[..., Any],
    web: Client,
    club: Club,
    director: Any,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    tournament, rnd = _tonk_with_two_tables(club, director, django_capture_on_commit_callbacks)
    Round.objects.filter(pk=rnd.pk).update(superseded=True)
    old_games = set(rnd.tables.values_list("game_id", flat=True))

    banner = web.get(url("manage", tournament.pk))
    assert "This seating was made on standings that have since changed" in plain(banner)
    assert "Seat round 1 again" in plain(banner)

    again = act(url("regenerate", tournament.pk, 1))

    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED and not rnd.superseded
    assert not old_games & set(rnd.tables.values_list("game_id", flat=True))
    assert "Round 1 is being seated again on the current standings." in messages_of(again)
    assert "This seating was made on standings" not in plain(again)

    # Once a result exists, the service refuses: a message, nothing changes.
    services.round_publish(round=rnd)
    with django_capture_on_commit_callbacks(execute=True):
        _knock(rnd.tables.order_by("number").first().game)
    Round.objects.filter(pk=rnd.pk).update(superseded=True)
    games = set(rnd.tables.values_list("game_id", flat=True))
    refused = act(url("regenerate", tournament.pk, 1))
    assert "The round has results: its seating can no longer change." in " ".join(
        messages_of(refused)
    )
    assert set(rnd.tables.values_list("game_id", flat=True)) == games


# --- substitutes ------------------------------------------------------------------------------


def test_substitute_plays_a_seat(
    act: Callable[..., Any], rook: Tournament, django_capture_on_commit_callbacks: Capture
) -> None:
    rnd = seat_round(rook, django_capture_on_commit_callbacks)
    seat = TableSeat.objects.filter(round=rnd).select_related("registration__player").first()
    name = seat.registration.player.name

    response = act(
        url("substitute", rook.pk, 1),
        {"registration": seat.registration_id, "substitute": "Sam Stand-in"},
    )

    seat.refresh_from_db()
    assert seat.substitute == "Sam Stand-in"
    assert f"Sam Stand-in plays for {name} in round 1." in messages_of(response)
    assert f"Sam Stand-in for {name}" in plain(response)
    game = seat.table.game
    game.refresh_from_db()
    assert "Sam Stand-in" in [n for n, _seat in game.seating]

    # Someone already sitting this round cannot also substitute.
    other = TableSeat.objects.filter(round=rnd).exclude(pk=seat.pk).first()
    taken = other.registration.player.name
    refused = act(
        url("substitute", rook.pk, 1),
        {"registration": seat.registration_id, "substitute": taken},
    )
    assert f"{taken} already sits in this round." in messages_of(refused)
    seat.refresh_from_db()
    assert seat.substitute == "Sam Stand-in"


def test_substitute_form_refuses_a_blank_name_and_a_player_not_seated(
    act: Callable[..., Any], rook: Tournament, django_capture_on_commit_callbacks: Capture
) -> None:
    rnd = seat_round(rook, django_capture_on_commit_callbacks)
    seat = TableSeat.objects.filter(round=rnd).first()

    blank = act(url("substitute", rook.pk, 1), {"registration": seat.registration_id})
    stranger = act(url("substitute", rook.pk, 1), {"registration": 99999, "substitute": "X"})

    assert any("required" in m for m in messages_of(blank))
    assert any("Select a valid choice" in m for m in messages_of(stranger))
    assert not TableSeat.objects.exclude(substitute="").exists()


# --- table cards ------------------------------------------------------------------------------


def test_rook_table_cards_have_every_table_its_qr_code_link_and_contract(
    web: Client, rook: Tournament, django_capture_on_commit_callbacks: Capture
) -> None:
    rnd = seat_round(rook, django_capture_on_commit_callbacks)

    response = web.get(url("cards", rook.pk, 1))

    assert response.status_code == 200
    body = text(response)
    cards = body.split('<article class="tcard"')[1:]
    tables = list(rnd.tables.select_related("game").order_by("number"))
    assert len(cards) == len(tables) == 2
    for table, card in zip(tables, cards, strict=True):
        words = " ".join(re.sub(r"<[^>]+>", " ", card).split())
        link = "http://testserver" + reverse("scoring:table", kwargs={"key": table.game.table_key})
        assert f"Table {table.number}" in words
        assert "<svg" in card and f'href="{link}"' in card and f">{link}</a>" in card
        seats = [s.registration.player.name for s in table.seats.order_by("position")]
        listed = re.findall(r"<li>([^<]+?)(?: <|</li>)", card)
        assert listed == seats  # in seat order
        assert f"First dealer: {seats[0]}" in words
        assert "round 1, contract 2 sets" in words
        assert f"{CONTRACTS[1].cards_dealt} cards dealt to each player" in words
        assert f"{len(seats)} decks" in words
    assert "break-inside: avoid" in body


def test_bluke_and_tonk_cards_say_which_hands_to_play(
    web: Client, club: Club, director: Any, django_capture_on_commit_callbacks: Capture
) -> None:
    bluke = make_tournament(club, director, kind="bluke", name="Bluke", rounds=5, hands_per_round=5)
    # Players of its own: the Tonk tables play at the same time (one person, one table at a time).
    others = tuple(f"Bluke player {i}" for i in range(1, 9))
    for name in others:
        PlayerFactory(club=club, name=name)
    register_all(bluke, others)
    seat_round(bluke, django_capture_on_commit_callbacks)
    tonk, _rnd = _tonk_with_two_tables(
        club, director, django_capture_on_commit_callbacks, stake="0.25", currency="EUR"
    )

    bluke_words = plain(web.get(url("cards", bluke.pk, 1)))
    tonk_words = plain(web.get(url("cards", tonk.pk, 1)))

    assert bluke_words.count("hands 1–5; cards dealt: 13, 12, 11, 10, 9.") == 2
    assert tonk_words.count("2 hands of Tonk; stake €0.25.") == 2


def test_bluke_hands_continue_and_wrap_after_25() -> None:
    assert bluke_games.table_hands(21, 10) == [21, 22, 23, 24, 25, 1, 2, 3, 4, 5]
    assert bluke_games.spans(bluke_games.table_hands(21, 10)) == "21–25, 1–5"
    assert bluke_games.spans(bluke_games.table_hands(6, 5)) == "6–10"
    assert bluke_games.spans([25]) == "25"


# --- who may see and do what ------------------------------------------------------------------

DIRECTOR_MODULES = (pages_director, pages_audit)
DIRECTOR_PATTERNS: list[URLPattern] = [
    p
    for p in page_urls.urlpatterns
    if isinstance(p, URLPattern) and p.callback.__module__ in {m.__name__ for m in DIRECTOR_MODULES}
]


def test_every_dashboard_view_is_guarded() -> None:
    assert len(DIRECTOR_PATTERNS) >= 12
    for pattern in DIRECTOR_PATTERNS:
        assert getattr(pattern.callback, "director_required", False), pattern.name
    # Nothing else in the director's page modules is reachable without the guard.
    views = {
        name
        for module in DIRECTOR_MODULES
        for name, value in vars(module).items()
        if callable(value)
        and getattr(value, "__wrapped__", None) is not None
        and getattr(value, "__module__", None) == module.__name__
    }
    assert views == {p.callback.__name__ for p in DIRECTOR_PATTERNS}


@pytest.fixture
def scene(club: Club, director: Any, django_capture_on_commit_callbacks: Capture) -> dict[str, Any]:
    """The club's Rook tournament, round 1 seated (not published), every player registered."""
    tournament = make_tournament(club, director)
    registrations = register_all(tournament)
    rnd = seat_round(tournament, django_capture_on_commit_callbacks)
    return {"club": club, "tournament": tournament, "registration": registrations[0], "round": rnd}


def _url_of(pattern: URLPattern, scene: dict[str, Any]) -> str:
    values = {
        "club_id": scene["club"].pk,
        "tournament_id": scene["tournament"].pk,
        "registration_id": scene["registration"].pk,
        "number": scene["round"].number,
        "table": 1,
    }
    kwargs = {name: values[name] for name in pattern.pattern.converters}
    return reverse(f"tournaments:{pattern.name}", kwargs=kwargs)


def _data_for(pattern: URLPattern, scene: dict[str, Any]) -> dict[str, Any]:
    """Data that would make the action succeed for a director: a refusal must come from the
    access check, not from bad input."""
    return {
        "new": {
            "name": "Intruder's event",
            "kind": "rook",
            "method": "balanced",
            "time_zone": "UTC",
            "missed_round_score": "average",
            "basis": "total",
            "seed": "0",
        },
        "register": {"names": "Intruder"},
        "substitute": {"registration": scene["registration"].pk, "substitute": "Intruder"},
    }.get(pattern.name or "", {})


def _state() -> dict[str, Any]:
    """Everything a dashboard action could change."""
    return {
        "tournaments": list(Tournament.objects.values_list("pk", "name", "rounds_complete")),
        "players": list(Player.objects.values_list("pk", "name")),
        "registrations": list(Registration.objects.values_list("pk", "withdrawn_after")),
        "rounds": list(Round.objects.values_list("pk", "state", "superseded", "deadline")),
        "tables": list(Table.objects.values_list("pk", "game_id", "state")),
        "seats": list(TableSeat.objects.values_list("pk", "substitute")),
        "sit_outs": SitOut.objects.count(),
        "games": list(Game.objects.values_list("pk", "state", "seating", "table_key")),
        "audit": AuditEntry.objects.count(),
    }


def _ids(pattern: URLPattern) -> str:
    return pattern.name or "?"


@pytest.fixture
def intruder() -> Iterator[Client]:
    """A director of another club."""
    other = MembershipFactory(role=Membership.Role.DIRECTOR)
    client = Client()
    client.force_login(other.user)
    yield client


@pytest.mark.parametrize("pattern", DIRECTOR_PATTERNS, ids=_ids)
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_director_of_another_club_gets_404_on_every_page_and_action(
    pattern: URLPattern,
    method: str,
    scene: dict[str, Any],
    intruder: Client,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    target = _url_of(pattern, scene)
    before = _state()

    with django_capture_on_commit_callbacks(execute=True):
        response = getattr(intruder, method)(target, _data_for(pattern, scene))

    assert response.status_code in (403, 404)
    assert scene["tournament"].name not in text(response)
    assert _state() == before


@pytest.mark.parametrize("pattern", DIRECTOR_PATTERNS, ids=_ids)
@pytest.mark.parametrize("method", ["get", "post"])
def test_anonymous_requests_go_to_sign_in(
    pattern: URLPattern, method: str, scene: dict[str, Any]
) -> None:
    target = _url_of(pattern, scene)
    before = _state()

    response = getattr(Client(), method)(target, _data_for(pattern, scene))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse(settings.LOGIN_URL) + "?next=")
    assert _state() == before


@pytest.mark.parametrize("pattern", DIRECTOR_PATTERNS, ids=_ids)
def test_a_member_who_is_not_a_director_gets_404(
    pattern: URLPattern, scene: dict[str, Any]
) -> None:
    member = MembershipFactory(club=scene["club"], role=Membership.Role.MEMBER).user
    client = Client()
    client.force_login(member)
    before = _state()

    responses = [client.get(_url_of(pattern, scene)), client.post(_url_of(pattern, scene))]

    assert [r.status_code for r in responses] == [404, 404]
    assert _state() == before


def test_the_director_may_not_get_an_action(web: Client, scene: dict[str, Any]) -> None:
    response = web.get(url("publish", scene["tournament"].pk, 1))

    assert response.status_code == 405
    scene["round"].refresh_from_db()
    assert scene["round"].state == Round.State.SEATED


def test_a_signed_in_user_of_no_club_gets_404() -> None:
    club = ClubFactory()
    client = Client()
    client.force_login(UserFactory())

    assert client.get(url("club", club.pk)).status_code == 404
    assert client.get(url("new", club.pk)).status_code == 404
