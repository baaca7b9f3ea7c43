"""Caches and ETags (issue 14): every ETag covers everything its response shows.

The endpoints that answer an ETag are discovered by a sweep of the URL conf over a seeded
tournament (a published round, a hand at a table): each must be one of :data:`ENDPOINTS`, so
that one added later fails here until it is covered. Each endpoint is then tried with every
kind of change to what it may show (:data:`CHANGES`), made through the services, the Django
admin's change view or the ORM behind everyone's back (a data migration, ``manage.py shell``):

- a change it shows: a 200 with a new ETag and the new value in the body;
- a change it does not show: the ETag is still answered with a 304 (and the same body);
- whatever the change: the ETag changed exactly when the body changed.

And: no change, a 304 (and the standings' htmx poll a 204); another language, another ETag and
``Vary: Accept-Language``; no response anywhere says it may be stored by a shared cache.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from ops.etags import VOLATILE_INPUTS
from scoring import services as scoring
from scoring.models import Game, Hand, Seat
from scoring.permissions import Actor
from tests.factories import UserFactory
from tournaments import selectors
from tournaments import services as tournaments
from tournaments.models import Club, Membership, Player, Round, Table, TableSeat, Tournament

pytestmark = pytest.mark.django_db

NAMES = ["Ana", "Ben", "Cyd", "Dee", "Eve", "Fay"]


@dataclass
class World:
    """A Rook tournament of six (two tables of three), round 1 published, a hand entered at
    table 1 (provisional: one other seat must confirm it) and none at table 2."""

    tournament: Tournament
    round: Round
    table: Table
    other: Table
    director: Any
    admin: Client

    @property
    def game(self) -> Game:
        return Game.objects.get(pk=self.table.game_id)

    def seat(self, position: int, table: Table | None = None) -> Seat:
        game_id = (table or self.table).game_id
        return Seat.objects.get(game_id=game_id, position=position)


def time_called(table: Table, holds: dict[str, str]) -> dict[str, object]:
    names = [name for name, _seat in Game.objects.get(pk=table.game_id).seating]
    return {"round": 1, "dealer": names[0], "out": None, "held": {n: holds[n] for n in names}}


@pytest.fixture
def world(django_capture_on_commit_callbacks: Any) -> World:
    director = UserFactory()
    club = Club.objects.create(name="Riverside")
    Membership.objects.create(club=club, user=director, role=Membership.Role.DIRECTOR)
    tournament, _ = tournaments.tournament_create(
        club=club,
        created_by=director,
        name="Winter Rook",
        kind="rook",
        rounds=3,
        sizes=[3],
        time_zone="Asia/Kolkata",
        minutes_per_round=45,
    )
    for name in NAMES:
        tournaments.registration_add(
            tournament=tournament, player=Player.objects.create(club=club, name=name)
        )
    rnd, _ = tournaments.round_seat(tournament=tournament)
    rnd = tournaments.round_seating_compute(round_id=rnd.pk)
    tournaments.round_publish(round=rnd)
    table, other = rnd.tables.order_by("number")
    with django_capture_on_commit_callbacks(execute=True):
        scoring.hand_record(
            game=table.game,
            entry=time_called(table, {n: "R1" for n in NAMES}),
            by=Actor(seat_id=Seat.objects.get(game_id=table.game_id, position=0).pk),
        )
    admin = Client()
    admin.force_login(get_user_model().objects.create_superuser("root", "r@example.org", "pw"))
    tournament.refresh_from_db()
    return World(tournament, rnd, table, other, director, admin)


# --- the endpoints that answer an ETag -----------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """An endpoint that answers an ETag: its URL for a world, the client that asks."""

    url: Callable[[World], str]
    client: Callable[[World], Client]


def table_phone(world: World) -> Client:
    """A phone at table 1 that chose seat 2 (the third seat: it may confirm the hand)."""
    client = Client()
    seat = world.seat(2)
    assert client.get(reverse("scoring:seat", args=[seat.seat_key])).status_code in (200, 302)
    return client


ENDPOINTS: dict[str, Endpoint] = {
    "tournaments:standings-fragment": Endpoint(
        url=lambda w: reverse("tournaments:standings-fragment", args=[w.tournament.pk]),
        client=lambda w: Client(),
    ),
    "scoring:live": Endpoint(
        url=lambda w: reverse("scoring:live", args=[w.game.table_key]),
        client=table_phone,
    ),
}


def sweep_kwargs(world: World) -> dict[str, object]:
    """A value for each URL parameter of the URL conf, from the seeded world."""
    registration = world.tournament.registrations.order_by("pk").first()
    assert registration is not None
    return {
        "key": world.game.table_key,
        "seat_key": world.seat(1).seat_key,
        "number": 1,
        "club_id": world.tournament.club_id,
        "tournament_id": world.tournament.pk,
        "registration_id": registration.pk,
        "table": world.table.number,
        "game_id": world.table.game_id,
    }


def url_patterns() -> list[tuple[str, URLPattern]]:
    """Every named URL of the URL conf (with its namespace), the admin's included."""
    found: list[tuple[str, URLPattern]] = []

    def walk(patterns: list[Any], namespace: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                inner = ":".join(x for x in (namespace, p.namespace or "") if x)
                walk(p.url_patterns, inner)
            elif p.name:
                found.append((f"{namespace}:{p.name}" if namespace else p.name, p))

    walk(get_resolver().url_patterns, "")
    return found


def test_every_endpoint_that_answers_an_etag_is_covered(world: World) -> None:
    """A GET of every URL of the URL conf, signed in as a superuser (the director's club too)
    and anonymous: the ones answering an ETag are exactly :data:`ENDPOINTS`; none answers a
    ``Last-Modified`` or lets a shared cache keep it."""
    values = sweep_kwargs(world)
    answering: set[str] = set()
    swept = 0
    anonymous = Client()
    for name, pattern in url_patterns():
        params = list(pattern.pattern.converters)
        if not set(params) <= set(values):
            continue  # the admin's object views (object_id) and the like
        try:
            url = reverse(name, kwargs={p: values[p] for p in params})
        except Exception:
            continue
        for client in (world.admin, anonymous, table_phone(world)):
            response = client.get(url)
            swept += 1
            assert "Last-Modified" not in response, name
            control = response.get("Cache-Control", "")
            assert "public" not in control and "s-maxage" not in control, (name, control)
            if response.has_header("ETag"):
                answering.add(name)
                assert "private" in control and "no-cache" in control, (name, control)
                vary = {v.strip().lower() for v in response.get("Vary", "").split(",")}
                assert {"accept-language", "cookie"} <= vary, (name, vary)
    assert swept > 150  # the sweep reached the URL conf, the admin's lists included
    assert answering == set(ENDPOINTS)


# --- the changes ----------------------------------------------------------------------------------


def admin_change(world: World, obj: Any, **changes: object) -> None:
    """Change ``obj`` through the Django admin's change view (its form, as a superuser)."""
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    page = world.admin.get(url)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data: dict[str, Any] = {}

    def put(prefix: str, bound_form: Any) -> None:
        for name in bound_form.fields:
            value = bound_form[name].value()
            data[f"{prefix}{name}"] = "" if value is None else value

    put("", form)
    data.update({k: str(v) for k, v in changes.items()})
    for inline_formset in page.context["inline_admin_formsets"]:
        formset = inline_formset.formset
        put(f"{formset.prefix}-", formset.management_form)
        for i, inline in enumerate(formset.forms):
            put(f"{formset.prefix}-{i}-", inline)
    response = world.admin.post(url, data)
    assert response.status_code == 302, (
        response.context["adminform"].form.errors,
        [f.formset.errors for f in response.context["inline_admin_formsets"]],
        data,
    )


def registration_of(world: World, name: str) -> Any:
    return world.tournament.registrations.get(player__name=name)


def table_player(world: World, position: int) -> str:
    return world.seat(position).name


def rename_player_in_admin(world: World) -> str:
    player = registration_of(world, table_player(world, 1)).player
    admin_change(world, player, name="Zoë Admin")
    return "Zoë Admin"


def rename_player_in_shell(world: World) -> str:
    Player.objects.filter(pk=registration_of(world, table_player(world, 1)).player_id).update(
        name="Yann Shell"
    )
    return "Yann Shell"


def rename_club_in_admin(world: World) -> str:
    admin_change(world, world.tournament.club, name="Lakeside Club")
    return "Lakeside Club"


def rename_tournament(world: World) -> str:
    Tournament.objects.filter(pk=world.tournament.pk).update(name="Spring Rook")
    return "Spring Rook"


def rename_seat(world: World) -> str:
    # A seat's name as a data migration would change it: the seat and the game's seating.
    game = world.game
    seat = world.seat(1)
    game.seating = [("Xena Seat" if n == seat.name else n, s) for n, s in game.seating]
    game.save(update_fields=["seating"])
    Seat.objects.filter(pk=seat.pk).update(name="Xena Seat")
    return "Xena Seat"


def new_hand(world: World, on_commit: Any) -> str:
    with on_commit(execute=True):
        scoring.hand_record(
            game=world.other.game,
            entry=time_called(world.other, {n: "R13" for n in NAMES}),
            by=Actor(seat_id=world.seat(0, world.other).pk),
        )
    return 'class="mark provisional"'  # table 2's players: reported, not yet confirmed


def correction(world: World, on_commit: Any) -> str:
    with on_commit(execute=True):
        scoring.hand_correct(
            game=world.game,
            number=1,
            revision=1,
            entry=time_called(world.table, {n: "R12" for n in NAMES}),
            by=Actor(seat_id=world.seat(0).pk),
        )
    return "✎2"


def confirmation(world: World, on_commit: Any) -> str:
    with on_commit(execute=True):
        scoring.hand_confirm(game=world.game, number=1, by=Actor(seat_id=world.seat(1).pk))
    return "Confirmed"


def status_in_shell(world: World) -> str:
    Hand.objects.filter(game_id=world.table.game_id).update(status=Hand.Status.DISPUTED)
    return "Disputed"


def withdrawal(world: World) -> str:
    tournaments.registration_withdraw(registration=registration_of(world, "Fay"))
    return "(withdrawn)"


def substitute(world: World) -> str:
    """A substitute takes a seat at table 2 (no hands yet): the registered player is no longer
    the one playing there, so the standings stop marking them "not reported"."""
    seated = TableSeat.objects.filter(table=world.other).order_by("position").first()
    assert seated is not None and seated.registration is not None
    tournaments.substitute_set(
        round=world.round, registration=seated.registration, substitute="Zed"
    )
    return 'data-in-play="not_reported"'


def time_call(world: World) -> str:
    tournaments.tick(now=timezone.now() + timedelta(hours=2))
    return "time called"


def deadline_in_shell(world: World) -> str:
    Round.objects.filter(pk=world.round.pk).update(deadline=datetime(2030, 1, 2, 3, 4, tzinfo=UTC))
    return "08:34"  # 03:04 UTC in Kolkata


#: Each kind of change: what it does; it returns a text it makes appear (more often).
CHANGES: dict[str, Callable[..., str]] = {
    "player renamed in the admin": rename_player_in_admin,
    "player renamed in a shell": rename_player_in_shell,
    "club renamed in the admin": rename_club_in_admin,
    "tournament renamed": rename_tournament,
    "seat renamed": rename_seat,
    "a new hand": new_hand,
    "a correction": correction,
    "a confirmation": confirmation,
    "a status changed in a shell": status_in_shell,
    "a withdrawal": withdrawal,
    "a substitute": substitute,
    "time called": time_call,
    "deadline changed in a shell": deadline_in_shell,
}
NEEDS_ON_COMMIT = {"a new hand", "a correction", "a confirmation"}

#: What each endpoint shows of the changes: the text must appear after the change.
SHOWN: dict[str, set[str]] = {
    "tournaments:standings-fragment": {
        "player renamed in the admin",
        "player renamed in a shell",
        "a new hand",
        "a withdrawal",
        "time called",
        "deadline changed in a shell",
    },
    "scoring:live": {
        "seat renamed",
        "a correction",
        "a confirmation",
        "a status changed in a shell",
    },
}


def without_volatile(body: bytes) -> str:
    """The body with the values of the inputs that change at every render left out."""
    text = body.decode()
    for name in VOLATILE_INPUTS:
        text = re.sub(rf'(name="{name}"[^>]*?value=")[^"]*"', r'\1"', text)
    return text


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_changes_the_etag_exactly_when_the_response_shows_it(
    world: World, endpoint: str, change: str, django_capture_on_commit_callbacks: Any
) -> None:
    spec = ENDPOINTS[endpoint]
    client = spec.client(world)
    before = client.get(spec.url(world))
    assert before.status_code == 200
    assert client.get(spec.url(world), HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 304

    args = (django_capture_on_commit_callbacks,) if change in NEEDS_ON_COMMIT else ()
    text = CHANGES[change](world, *args)
    asked = client.get(spec.url(world), HTTP_IF_NONE_MATCH=before["ETag"])
    after = client.get(spec.url(world))

    assert after.status_code == 200
    changed = without_volatile(after.content) != without_volatile(before.content)
    assert (after["ETag"] != before["ETag"]) == changed
    assert asked.status_code == (200 if changed else 304)
    if change in SHOWN[endpoint]:
        assert changed
        assert after.content.decode().count(text) > before.content.decode().count(text)
        assert without_volatile(asked.content) == without_volatile(after.content)


def test_a_substitute_is_in_the_next_standings_poll(world: World) -> None:
    """A substitute changes who plays a seat, so the registered player is no longer shown as
    in play at a table that has not reported: the fragment and its ETag change at once."""
    url = reverse("tournaments:standings-fragment", args=[world.tournament.pk])
    client = Client()
    before = client.get(url)
    mark = substitute(world)
    asked = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"])

    assert asked.status_code == 200
    assert asked["ETag"] != before["ETag"]
    assert asked.content.decode().count(mark) == before.content.decode().count(mark) - 1


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_nothing_changed_is_a_304_with_the_same_etag(world: World, endpoint: str) -> None:
    spec = ENDPOINTS[endpoint]
    client = spec.client(world)
    first = client.get(spec.url(world))
    again = client.get(spec.url(world), HTTP_IF_NONE_MATCH=first["ETag"])

    assert again.status_code == 304
    assert again["ETag"] == first["ETag"]
    assert client.get(spec.url(world))["ETag"] == first["ETag"]


@override_settings(LANGUAGES=[("en", "English"), ("fr", "French")])
@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_another_language_is_another_etag(world: World, endpoint: str) -> None:
    spec = ENDPOINTS[endpoint]
    client = spec.client(world)
    english = client.get(spec.url(world), HTTP_ACCEPT_LANGUAGE="en")
    french = client.get(
        spec.url(world), HTTP_ACCEPT_LANGUAGE="fr", HTTP_IF_NONE_MATCH=english["ETag"]
    )

    assert french.status_code == 200
    assert french["Content-Language"] == "fr"
    assert french["ETag"] != english["ETag"]
    assert "Accept-Language" in french["Vary"]


def test_the_standings_poll_naming_its_version_is_a_204_until_a_name_changes(
    world: World,
) -> None:
    page = Client().get(reverse("tournaments:standings", args=[world.tournament.pk]))
    shown = re.search(r"\?v=([0-9a-f]{32})", page.content.decode())
    assert shown
    fragment = reverse("tournaments:standings-fragment", args=[world.tournament.pk])
    assert Client().get(fragment, {"v": shown.group(1)}).status_code == 204
    # The big screen shows the same fragment, so the same version.
    screen = Client().get(reverse("tournaments:screen", args=[world.tournament.pk]))
    assert f"?v={shown.group(1)}" in screen.content.decode()

    rename_player_in_admin(world)
    after = Client().get(fragment, {"v": shown.group(1)})

    assert after.status_code == 200
    assert "Zoë Admin" in after.content.decode()


def test_the_table_page_shows_the_version_its_poll_answers(world: World) -> None:
    client = table_phone(world)
    page = client.get(reverse("scoring:table", args=[world.game.table_key])).content.decode()
    shown = re.search(r'data-version="([0-9a-f]{32})"', page)
    assert shown

    live = client.get(
        reverse("scoring:live", args=[world.game.table_key]),
        HTTP_IF_NONE_MATCH=f'"{shown.group(1)}"',
    )
    assert live.status_code == 304


def test_a_player_renamed_in_the_admin_is_in_the_standings_api_and_pages(world: World) -> None:
    # The cached standings (the expensive part) are keyed on the names as read now.
    selectors.standings(world.tournament)
    rename_player_in_admin(world)
    world.tournament.refresh_from_db()

    assert "Zoë Admin" in {row.name for row in selectors.standings(world.tournament).rows}
    director = Client()
    director.force_login(world.director)
    for url in (
        reverse("tournaments:standings", args=[world.tournament.pk]),
        reverse("tournaments:screen", args=[world.tournament.pk]),
        reverse("tournaments-api:standings", args=[world.tournament.pk]),
    ):
        response = director.get(url)
        assert response.status_code == 200, url
        assert "Zoë Admin" in response.content.decode(), url


# --- the memo of large regions (ops.etags.render_memoised) ---------------------------------------


def renders_of(template: str, call: Callable[[], object]) -> int:
    """How many times ``template`` was rendered during ``call``."""
    from django.test.signals import template_rendered

    seen: list[str] = []

    def count(sender: Any, template: Any, **kwargs: Any) -> None:
        seen.append(template.name)

    template_rendered.connect(count)
    try:
        call()
    finally:
        template_rendered.disconnect(count)
    return seen.count(template)


def test_the_standings_fragment_is_rendered_once_per_change(world: World) -> None:
    fragment = reverse("tournaments:standings-fragment", args=[world.tournament.pk])
    first = Client().get(fragment)

    unchanged = renders_of(
        "tournaments/_standings.html",
        lambda: Client().get(fragment, HTTP_IF_NONE_MATCH=first["ETag"]),
    )
    Player.objects.filter(name="Ana").update(name="Anouk")
    changed = renders_of("tournaments/_standings.html", lambda: Client().get(fragment))

    assert (unchanged, changed) == (0, 1)


def test_a_context_the_walk_does_not_know_is_rendered_every_time() -> None:
    from ops.etags import Unversionable, context_version, render_memoised

    class Opaque:
        __slots__ = ("value",)

    with pytest.raises(Unversionable):
        context_version({"x": Opaque()})
    template = "tournaments/_clock.html"
    context = {"clock": None, "opaque": Opaque()}
    assert renders_of(template, lambda: render_memoised((template,), context)) == 1
    assert renders_of(template, lambda: render_memoised((template,), context)) == 1


def test_a_render_that_reads_the_database_is_not_kept(world: World) -> None:
    from ops.etags import render_memoised

    # A round whose number is not loaded: the render reads it, so the render is not kept.
    rnd = Round.objects.get(pk=world.round.pk)
    context = {"clock": {"round": rnd}, "tournament": world.tournament}
    template = "tournaments/_clock.html"
    deferred = Round.objects.only("pk", "state", "tournament_id").get(pk=rnd.pk)
    lazy = {"clock": {"round": deferred}, "tournament": world.tournament}
    assert renders_of(template, lambda: render_memoised((template,), context)) == 1
    assert renders_of(template, lambda: render_memoised((template,), context)) == 0
    assert renders_of(template, lambda: render_memoised((template,), lazy)) == 1
    assert renders_of(template, lambda: render_memoised((template,), lazy)) == 1


def test_a_model_changed_in_any_field_is_another_context_version(world: World) -> None:
    from ops.etags import context_version

    tournament = Tournament.objects.select_related("club").get(pk=world.tournament.pk)
    before = context_version({"tournament": tournament})
    tournament.club.name = "Elsewhere"  # a related object loaded with it

    assert context_version({"tournament": tournament}) != before
