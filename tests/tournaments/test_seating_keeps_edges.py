"""Issue 24 through every entry point that takes its rules: the API (409 with a code naming
them, and the field that confirms) and the director's dashboard (a confirmation step listing
them, keeping what was typed, that sends the same request again): what seating a round again
keeps of its substitutes, and one person, one table at a time."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from html.parser import HTMLParser
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.factories import PlayerFactory
from tournaments import services
from tournaments.models import AuditEntry, Club, Player, Registration, Round, TableSeat, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_eager")]

Capture = Callable[..., AbstractContextManager[list[Callable[[], None]]]]


class ConfirmForm(HTMLParser):
    """The confirmation step's form (``id="confirm"``): its action and what a browser sends
    (every input, in order, repeated names kept), with the reason typed."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.action = ""
        self.fields: list[tuple[str, str]] = []
        self.reason_required = False
        self._in = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._in = a.get("id") == "confirm"
            if self._in:
                self.action = a["action"]
        if self._in and tag == "input" and a.get("name"):
            self.fields.append((a["name"], a.get("value", "")))
            if a["name"] == "reason":
                self.reason_required = "required" in a

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in = False

    def data(self, reason: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name, value in self.fields:
            out.setdefault(name, []).append(reason if name == "reason" else value)
        return out


@pytest.fixture
def run(django_capture_on_commit_callbacks: Capture) -> Callable[..., Any]:
    def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return fn(*args, **kwargs)

    return call


@pytest.fixture
def web(director: Any) -> Client:
    client = Client()
    client.force_login(director)
    return client


def tonk(club: Club, director: Any, name: str) -> Tournament:
    tournament, _created = services.tournament_create(
        club=club, created_by=director, name=name, kind="tonk", rounds=3, sizes=[3]
    )
    return tournament


def seated(run: Callable[..., Any], tournament: Tournament) -> Round:
    rnd, _created = run(services.round_seat, tournament=tournament)
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    return rnd


def registered(tournament: Tournament, players: list[Player]) -> list[Registration]:
    return [services.registration_add(tournament=tournament, player=p) for p in players]


@pytest.fixture
def pairs(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], run: Callable[..., Any]
) -> tuple[Round, list[Registration]]:
    """Round 1 of "Open Pairs" in play, six seated."""
    tournament = tonk(club, director, "Open Pairs")
    regs = registered(tournament, make_players(6))
    rnd = seated(run, tournament)
    services.round_publish(round=rnd)
    return rnd, regs


@pytest.fixture
def dropping(
    club: Club, director: Any, make_players: Callable[[int], list[Player]], run: Callable[..., Any]
) -> tuple[Round, Registration, int]:
    """A seated round whose substitute's player withdrew: seating it again drops the
    substitute (the round, the registration, its table)."""
    tournament = tonk(club, director, "Thursday Tonk")
    regs = registered(tournament, make_players(7))
    rnd = seated(run, tournament)
    seat = TableSeat.objects.filter(round=rnd).select_related("table").order_by("id").first()
    absent = next(r for r in regs if r.pk == seat.registration_id)
    services.substitute_set(round=rnd, registration=absent, substitute="Sam Stand-in")
    services.registration_withdraw(registration=absent)
    return rnd, absent, seat.table.number


def l10n_number(n: int) -> str:
    """``n`` in Bengali digits."""
    return str(n).translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯"))


def elsewhere_of(rnd: Round, registration: Registration) -> dict[str, Any]:
    seat = TableSeat.objects.select_related("table").get(round=rnd, registration=registration)
    return {
        "name": registration.player.name,
        "tournament": "Open Pairs",
        "tournament_id": rnd.tournament_id,
        "round": 1,
        "table": seat.table.number,
    }


# --- the API ----------------------------------------------------------------------------------


def test_api_regenerate_answers_409_naming_the_substitutes_it_drops_until_confirmed(
    director_api: APIClient, dropping: tuple[Round, Registration, int], run: Callable[..., Any]
) -> None:
    rnd, absent, table = dropping
    url = reverse("tournaments-api:round-regenerate", args=[rnd.tournament_id, 1])

    refused = run(director_api.post, url, format="json")

    assert refused.status_code == 409
    conflict = refused.json()["conflict"]
    assert (conflict["code"], conflict["round"]) == ("substitutes_dropped", 1)
    assert conflict["substitutes"] == [
        {
            "registration": absent.pk,
            "player": absent.player.name,
            "substitute": "Sam Stand-in",
            "table": table,
        }
    ]
    assert TableSeat.objects.filter(round=rnd, substitute="Sam Stand-in").exists()

    done = run(director_api.post, url, {"drop_substitutes": True}, format="json")

    assert done.status_code == 200 and done.json()["state"] == "planned"  # the task after commit
    rnd.refresh_from_db()
    assert rnd.state == Round.State.SEATED
    assert not TableSeat.objects.filter(round=rnd).exclude(substitute="").exists()
    steps = director_api.get(
        reverse("tournaments-api:audit", args=[rnd.tournament_id]), {"round": 1}
    ).json()
    dropped = [s for s in steps if s["action"] == "drop_substitute"]
    assert [(s["table"], s["details"]["substitute"]) for s in dropped] == [(table, "Sam Stand-in")]


def test_api_register_seat_and_substitute_refuse_someone_seated_elsewhere_until_confirmed(
    club: Club,
    director: Any,
    director_api: APIClient,
    make_players: Callable[[int], list[Player]],
    pairs: tuple[Round, list[Registration]],
    run: Callable[..., Any],
) -> None:
    rnd, regs = pairs
    ladder = tonk(club, director, "Ladder")
    api = "tournaments-api:"
    register = reverse(api + "registrations", args=[ladder.pk])

    refused = director_api.post(register, {"player": regs[0].player_id}, format="json")
    assert refused.status_code == 409
    body = refused.json()["conflict"]
    assert body["code"] == "seated_elsewhere"
    assert {k: body[k] for k in ("name", "tournament", "tournament_id", "round", "table")} == (
        elsewhere_of(rnd, regs[0])
    )
    assert body["elsewhere"] == [elsewhere_of(rnd, regs[0])]
    no_reason = director_api.post(
        register, {"player": regs[0].player_id, "confirm_elsewhere": True}, format="json"
    )
    assert no_reason.status_code == 400
    assert no_reason.json()["error"]["code"] == "reason_needed"
    assert not ladder.registrations.exists()
    done = director_api.post(
        register,
        {"player": regs[0].player_id, "confirm_elsewhere": True, "reason": "after the pairs"},
        format="json",
    )
    assert done.status_code == 201

    for player in make_players(5):
        director_api.post(register, {"player": player.pk}, format="json")
    rounds = reverse(api + "rounds", args=[ladder.pk])
    refused_seat = run(director_api.post, rounds, format="json")
    assert refused_seat.status_code == 409
    assert refused_seat.json()["conflict"]["code"] == "seated_elsewhere"
    assert not ladder.round_set.exists()
    seat = run(
        director_api.post,
        rounds,
        {"confirm_elsewhere": True, "reason": "she leaves the pairs"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="seat-ladder-1",
    )
    assert seat.status_code == 202
    assert Round.objects.get(tournament=ladder).state == Round.State.SEATED

    mine = Registration.objects.filter(tournament=ladder).exclude(player=regs[0].player).first()
    subs = reverse(api + "substitutes", args=[ladder.pk, 1])
    busy = regs[1].player.name
    refused_sub = director_api.post(
        subs, {"registration": mine.pk, "substitute": busy}, format="json"
    )
    assert refused_sub.status_code == 409
    assert refused_sub.json()["conflict"]["table"] == elsewhere_of(rnd, regs[1])["table"]
    sub = director_api.post(
        subs,
        {"registration": mine.pk, "substitute": busy, "confirm_elsewhere": True, "reason": "x"},
        format="json",
    )
    assert sub.status_code == 200
    assert TableSeat.objects.get(round__tournament=ladder, registration=mine).substitute == busy


# --- the dashboard ----------------------------------------------------------------------------


def test_page_regenerate_asks_first_listing_the_substitutes_then_drops_them(
    web: Client, dropping: tuple[Round, Registration, int], run: Callable[..., Any]
) -> None:
    rnd, absent, table = dropping
    url = reverse("tournaments:regenerate", args=[rnd.tournament_id, 1])

    asked = run(web.post, url, {"reason": "Ana went home"})

    assert asked.status_code == 409
    page = " ".join(asked.content.decode().split())
    assert f"Sam Stand-in for {absent.player.name} (table {table})" in page
    form = ConfirmForm(asked.content.decode())
    assert form.action == url and not form.reason_required
    assert ("drop_substitutes", "1") in form.fields
    assert ("reason", "Ana went home") in form.fields  # what was typed
    assert TableSeat.objects.filter(round=rnd, substitute="Sam Stand-in").exists()

    done = run(web.post, form.action, form.data("Ana went home"))

    assert done.status_code == 303
    (dropped,) = AuditEntry.objects.filter(action=AuditEntry.Action.DROP_SUBSTITUTE)
    assert (dropped.reason, dropped.details["substitute"]) == ("Ana went home", "Sam Stand-in")
    assert not TableSeat.objects.filter(round=rnd).exclude(substitute="").exists()
    audit = web.get(reverse("tournaments:audit", args=[rnd.tournament_id]))
    assert f"Dropped a substitute: Sam Stand-in for {absent.player.name}" in audit.content.decode()


def test_page_register_asks_first_keeping_the_names_typed_then_registers_with_the_reason(
    club: Club,
    director: Any,
    web: Client,
    pairs: tuple[Round, list[Registration]],
    run: Callable[..., Any],
) -> None:
    rnd, regs = pairs
    ladder = tonk(club, director, "Ladder")
    newcomer = PlayerFactory(club=club, name="Quin Roe")
    url = reverse("tournaments:register", args=[ladder.pk])
    typed = f"{regs[0].player.name.lower()}\nBrand New"

    asked = web.post(url, {"players": [newcomer.pk, regs[5].player_id], "names": typed})

    assert asked.status_code == 409
    page = " ".join(asked.content.decode().split())
    for reg in (regs[0], regs[5]):  # every one named at once
        where = elsewhere_of(rnd, reg)
        assert f"{where['name']}: table {where['table']} of Open Pairs, round 1" in page
    form = ConfirmForm(asked.content.decode())
    assert form.reason_required and form.action == url
    assert ("names", typed) in form.fields
    assert {v for k, v in form.fields if k == "players"} == {
        str(newcomer.pk),
        str(regs[5].player_id),
    }
    assert not ladder.registrations.exists()
    assert not Player.objects.filter(name="Brand New").exists()

    # Sent without the reason (the browser asks for it; a script may not): asked again.
    again = web.post(form.action, form.data(""))
    assert again.status_code == 400
    assert "give the reason for seating someone" in again.content.decode()
    form = ConfirmForm(again.content.decode())
    assert ("names", typed) in form.fields and ("confirm_elsewhere", "1") in form.fields
    assert not ladder.registrations.exists()

    done = run(web.post, form.action, form.data("plays after the pairs"))

    assert done.status_code == 303
    names = set(ladder.registrations.values_list("player__name", flat=True))
    assert names == {regs[0].player.name, regs[5].player.name, "Quin Roe", "Brand New"}
    confirmed = [
        e
        for e in ladder.audit.filter(action=AuditEntry.Action.REGISTER)
        if e.details.get("elsewhere")
    ]
    assert {e.details["player"] for e in confirmed} == {regs[0].player.name, regs[5].player.name}
    assert {e.reason for e in confirmed} == {"plays after the pairs"}
    audit = web.get(reverse("tournaments:audit", args=[ladder.pk])).content.decode()
    assert "confirmed while seated elsewhere" in audit


def test_page_seat_asks_first_with_a_new_idempotency_key_then_seats(
    club: Club,
    director: Any,
    web: Client,
    make_players: Callable[[int], list[Player]],
    pairs: tuple[Round, list[Registration]],
    run: Callable[..., Any],
) -> None:
    _rnd, regs = pairs
    ladder = tonk(club, director, "Ladder")
    Registration.objects.create(tournament=ladder, player=regs[2].player)
    registered(ladder, make_players(5))
    url = reverse("tournaments:seat", args=[ladder.pk])

    asked = run(web.post, url, {"idempotency_key": "first-tap"})

    assert asked.status_code == 409 and not ladder.round_set.exists()
    form = ConfirmForm(asked.content.decode())
    keys = [v for k, v in form.fields if k == "idempotency_key"]
    assert len(keys) == 1 and keys[0] not in ("", "first-tap")

    done = run(web.post, form.action, form.data("only two hands"))

    assert done.status_code == 303
    assert ladder.round_set.get().state == Round.State.SEATED
    assert ladder.audit.get(action=AuditEntry.Action.SEAT).reason == "only two hands"


def test_page_substitute_asks_first_keeping_the_seat_and_name_then_sets_it(
    club: Club,
    director: Any,
    web: Client,
    make_players: Callable[[int], list[Player]],
    pairs: tuple[Round, list[Registration]],
    run: Callable[..., Any],
) -> None:
    rnd, regs = pairs
    ladder = tonk(club, director, "Ladder")
    mine = registered(ladder, make_players(6))
    seated(run, ladder)
    url = reverse("tournaments:substitute", args=[ladder.pk, 1])
    busy = regs[4].player.name

    asked = web.post(url, {"registration": mine[0].pk, "substitute": busy})

    assert asked.status_code == 409
    form = ConfirmForm(asked.content.decode())
    assert ("registration", str(mine[0].pk)) in form.fields
    assert ("substitute", busy) in form.fields
    where = elsewhere_of(rnd, regs[4])
    assert f"{busy}: table {where['table']} of Open Pairs" in asked.content.decode()

    done = web.post(form.action, form.data("a hand short"))

    assert done.status_code == 303
    assert TableSeat.objects.get(round__tournament=ladder, registration=mine[0]).substitute == busy


def test_the_confirmation_step_speaks_the_directors_language(
    club: Club,
    director: Any,
    pairs: tuple[Round, list[Registration]],
) -> None:
    rnd, regs = pairs
    ladder = tonk(club, director, "Ladder")
    client = Client(HTTP_ACCEPT_LANGUAGE="bn")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "bn"
    client.force_login(director)

    asked = client.post(
        reverse("tournaments:register", args=[ladder.pk]), {"players": [regs[0].player_id]}
    )

    assert asked.status_code == 409
    page = " ".join(asked.content.decode().split())
    table = l10n_number(elsewhere_of(rnd, regs[0])["table"])
    name = regs[0].player.name
    assert f"{name} সেই সময়ে Open Pairs-এর টেবিল {table}-এ" in page
    assert f"{name}: Open Pairs-এর টেবিল {table}, রাউন্ড ১" in page
    for words in ("তবুও তাঁদের বসান", "বাতিল", "কারণ (আবশ্যক)"):
        assert words in page
    for english in ("Seat them anyway", "Cancel", "already sits", "Reason"):
        assert english not in page
