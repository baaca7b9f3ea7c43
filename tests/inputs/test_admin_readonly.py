"""Writes that bypass the services (issue 14): the Django admin is a window on results.

Parametrised over every model registered in the admin (``admin.site._registry``), each
classified below: a results model's add, change and delete views and its bulk "delete
selected" are refused to a superuser with every row count unchanged; a record's admin edits
exactly the fields listed; a delete that would remove or rewrite results is refused, while one
that touches none goes through. A model registered later without a classification fails
``test_every_model_in_the_admin_is_classified``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Model
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from ops.admin import ReadOnlyAdmin, RecordAdmin
from ops.models import Heartbeat, Profile
from scoring import services
from scoring.models import Game, Hand, HandEvent, ScoreLine, ScoresheetJob, Seat
from scoring.permissions import Actor
from tests.factories import MembershipFactory, PlayerFactory
from tests.inputs.conftest import nothing_stored
from tests.scoring.sheets import TONK_KNOCK_HAND
from tournaments import services as tournaments
from tournaments.models import (
    AuditEntry,
    Club,
    Membership,
    Player,
    Registration,
    Round,
    SeatResult,
    SitOut,
    Table,
    TableSeat,
)

pytestmark = pytest.mark.django_db

RESULTS = "results: read-only"
#: Every model in the admin: results (read-only), or a record with the fields editable on an
#: existing row and on a new one (None: not added in the admin), or kept as its library ships it.
CLASSIFICATION: dict[str, Any] = {
    "ops.Heartbeat": RESULTS,
    "scoring.Game": RESULTS,
    "scoring.Seat": RESULTS,
    "scoring.Hand": RESULTS,
    "scoring.HandEvent": RESULTS,
    "scoring.ScoreLine": RESULTS,
    "scoring.ScoresheetJob": RESULTS,
    "tournaments.Registration": RESULTS,
    "tournaments.Round": RESULTS,
    "tournaments.Table": RESULTS,
    "tournaments.TableSeat": RESULTS,
    "tournaments.SitOut": RESULTS,
    "tournaments.SeatResult": RESULTS,
    "tournaments.AuditEntry": RESULTS,
    "tournaments.Club": ({"name"}, {"name"}),
    "tournaments.Player": ({"name", "user"}, {"club", "name", "user"}),
    "tournaments.Tournament": ({"name"}, None),
    "ops.Profile": ({"language"}, None),
    "auth.User": (
        {
            "username",
            "password",
            "first_name",
            "last_name",
            "email",
            "is_active",
            "is_staff",
            "is_superuser",
            "groups",
            "user_permissions",
        },
        {"username", "usable_password", "password1", "password2"},
    ),
    # As shipped: permission groups; API tokens (issue, revoke); axes' records of failed
    # sign-ins (deleting one unlocks it) and its logs (not written here). None holds a result.
    "auth.Group": "library",
    "authtoken.TokenProxy": "library",
    "axes.AccessAttempt": "library",
    "axes.AccessLog": "library",
    "axes.AccessFailureLog": "library",
}

REGISTERED = {model._meta.label: model for model in admin.site._registry}
RESULT_MODELS = sorted(label for label, kind in CLASSIFICATION.items() if kind == RESULTS)
RECORD_MODELS = sorted(label for label, kind in CLASSIFICATION.items() if isinstance(kind, tuple))


def test_every_model_in_the_admin_is_classified() -> None:
    assert set(REGISTERED) == set(CLASSIFICATION)
    for label, kind in CLASSIFICATION.items():
        model_admin = admin.site._registry[REGISTERED[label]]
        if kind == RESULTS:
            assert isinstance(model_admin, ReadOnlyAdmin), label
        elif isinstance(kind, tuple):
            assert isinstance(model_admin, RecordAdmin), label
        # Results are never offered as an inline to edit.
        for inline in model_admin.inlines:
            if inline.model._meta.label in RESULT_MODELS:
                request = RequestFactory().get("/")
                request.user = get_user_model()(is_superuser=True, is_staff=True, is_active=True)
                instance = inline(model_admin.model, admin.site)
                assert not instance.has_add_permission(request, None), (label, inline)
                assert not instance.has_change_permission(request, None), (label, inline)
                assert not instance.has_delete_permission(request, None), (label, inline)


def test_every_project_model_is_in_the_admin() -> None:
    """Every model of the project's apps is registered, and so classified above."""
    from django.apps import apps

    project = {
        m._meta.label
        for m in apps.get_models()
        if m._meta.app_label in ("ops", "scoring", "tournaments")
    }
    # A club's memberships are edited beside their club (who belongs, who directs).
    assert project - set(REGISTERED) == {"tournaments.Membership"}


# --- a world with a row of every model --------------------------------------------------------


@pytest.fixture
def superuser() -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.org", "pw")


@pytest.fixture
def root(superuser: Any) -> Client:
    client = Client()
    client.force_login(superuser)
    return client


@pytest.fixture
def world() -> dict[str, Model]:
    """One row of every model the admin shows: a club game with a voided hand, a tournament
    with a round seated at one table (a sit-out, a seat result), a score sheet job, a
    heartbeat and the director's profile."""
    director = MembershipFactory(role=Membership.Role.DIRECTOR)
    club = director.club
    game, _ = services.game_start(
        kind="tonk", players=["Ana", "Ben"], club=club, created_by=director.user
    )
    services.hand_record(game=game, entry=TONK_KNOCK_HAND, by=Actor(user=director.user))
    services.hand_void(game=game, number=1, by=Actor(user=director.user), reason="twice")
    tournament, _ = tournaments.tournament_create(
        club=club, created_by=director.user, name="Open", kind="tonk", rounds=2
    )
    players = [PlayerFactory(club=club) for _ in range(3)]
    registrations = [Registration.objects.create(tournament=tournament, player=p) for p in players]
    rnd = Round.objects.create(tournament=tournament, number=1)
    table_game, _ = services.game_start(
        kind="tonk", players=[p.name for p in players[:2]], club=club, created_by=director.user
    )
    table = Table.objects.create(round=rnd, number=1, game=table_game)
    table_seat = TableSeat.objects.create(
        table=table, round=rnd, position=0, registration=registrations[0]
    )
    seat = table_game.seats.order_by("position").first()
    assert seat is not None
    seat_result = SeatResult.objects.create(
        tournament=tournament,
        round_number=1,
        game=table_game,
        seat=seat,
        player=players[0],
        points=1,
        max_points=1,
        min_points=1,
        hands=1,
        went_out=0,
        bids_made=0,
        won=1,
    )
    return {
        "ops.Heartbeat": Heartbeat.objects.create(name="tick", at=timezone.now()),
        "scoring.Game": game,
        "scoring.Seat": seat,
        "scoring.Hand": Hand.objects.get(game=game),
        "scoring.HandEvent": HandEvent.objects.get(game=game),
        "scoring.ScoreLine": ScoreLine.objects.filter(game=game).first(),
        "scoring.ScoresheetJob": ScoresheetJob.objects.create(sheet={}),
        "tournaments.Registration": registrations[0],
        "tournaments.Round": rnd,
        "tournaments.Table": table,
        "tournaments.TableSeat": table_seat,
        "tournaments.SitOut": SitOut.objects.create(round=rnd, registration=registrations[2]),
        "tournaments.SeatResult": seat_result,
        "tournaments.AuditEntry": AuditEntry.objects.filter(tournament=tournament).first()
        or AuditEntry.objects.create(tournament=tournament, action=AuditEntry.Action.CREATE),
        "tournaments.Club": club,
        "tournaments.Player": players[0],
        "tournaments.Tournament": tournament,
        "auth.User": director.user,
        "ops.Profile": Profile.objects.create(user=director.user, language="bn"),
    }


def url(label: str, view: str, *args: object) -> str:
    app_label, _, name = label.partition(".")
    return reverse(f"admin:{app_label}_{name.lower()}_{view}", args=args)


def delete_selected(client: Client, label: str, pk: object) -> Any:
    return client.post(
        url(label, "changelist"),
        {"action": "delete_selected", "_selected_action": [pk], "post": "yes"},
    )


# --- results: read-only -----------------------------------------------------------------------


@pytest.mark.parametrize("label", RESULT_MODELS)
def test_a_superuser_cannot_add_change_or_delete_results(
    label: str, root: Client, world: dict[str, Model]
) -> None:
    obj = world[label]
    with nothing_stored():
        listing = root.get(url(label, "changelist"))
        assert listing.status_code == 200
        assert b'value="delete_selected"' not in listing.content
        shown = root.get(url(label, "change", obj.pk))
        assert shown.status_code == 200
        assert b'name="_save"' not in shown.content  # a view, no Save
        assert root.get(url(label, "add")).status_code == 403
        assert root.post(url(label, "add"), {}).status_code == 403
        assert root.post(url(label, "change", obj.pk), {}).status_code == 403
        assert root.get(url(label, "delete", obj.pk)).status_code == 403
        assert root.post(url(label, "delete", obj.pk), {"post": "yes"}).status_code == 403
        assert delete_selected(root, label, obj.pk).status_code in (200, 302)
    assert type(obj)._default_manager.filter(pk=obj.pk).exists()


def test_the_private_keys_are_not_shown(root: Client, world: dict[str, Model]) -> None:
    game = world["scoring.Game"]
    seat = world["scoring.Seat"]
    assert isinstance(game, Game) and isinstance(seat, Seat)
    assert game.table_key not in root.get(url("scoring.Game", "change", game.pk)).content.decode()
    assert seat.seat_key not in root.get(url("scoring.Seat", "change", seat.pk)).content.decode()


# --- records: the fields listed, and no delete that touches results --------------------------


def _form_fields(label: str, superuser: Any, obj: Model | None) -> set[str]:
    model_admin = admin.site._registry[REGISTERED[label]]
    request = RequestFactory().get("/")
    request.user = superuser
    form = model_admin.get_form(request, obj, change=obj is not None)
    return set(form.base_fields)


@pytest.mark.parametrize("label", RECORD_MODELS)
def test_a_records_admin_edits_only_its_listed_fields(
    label: str, superuser: Any, world: dict[str, Model]
) -> None:
    editable, on_add = CLASSIFICATION[label]
    assert _form_fields(label, superuser, world[label]) == editable
    model_admin = admin.site._registry[REGISTERED[label]]
    request = RequestFactory().get("/")
    request.user = superuser
    if on_add is None:
        assert not model_admin.has_add_permission(request)
    else:
        assert _form_fields(label, superuser, None) == on_add


def test_a_player_moved_to_another_club_in_the_admin_stays_in_their_club(
    root: Client, world: dict[str, Model]
) -> None:
    player = world["tournaments.Player"]
    assert isinstance(player, Player)
    other = Club.objects.create(name="Elsewhere")
    answer = root.post(
        url("tournaments.Player", "change", player.pk),
        {"name": "Renamed", "user": "", "club": other.pk},
    )
    assert answer.status_code == 302
    player.refresh_from_db()
    assert (player.name, player.club_id) == ("Renamed", world["tournaments.Club"].pk)


@pytest.mark.parametrize(
    "label", ["tournaments.Club", "tournaments.Player", "tournaments.Tournament", "auth.User"]
)
def test_a_delete_that_would_touch_results_is_refused_and_says_why(
    label: str, root: Client, world: dict[str, Model]
) -> None:
    obj = world[label]
    with nothing_stored():
        page = root.get(url(label, "delete", obj.pk))
        assert page.status_code == 200
        assert "<title>Cannot delete" in page.content.decode()
        root.post(url(label, "delete", obj.pk), {"post": "yes"})
        delete_selected(root, label, obj.pk)
    assert type(obj)._default_manager.filter(pk=obj.pk).exists()


def test_a_user_in_a_trail_is_kept_and_the_page_says_to_deactivate(
    root: Client, world: dict[str, Model]
) -> None:
    user = world["auth.User"]
    page = root.get(url("auth.User", "delete", user.pk)).content.decode()
    assert "would lose their" in page
    assert "deactivate the account instead" in page


def test_a_delete_that_touches_no_result_goes_through(root: Client) -> None:
    club = Club.objects.create(name="Empty")
    PlayerFactory(club=club)
    user = get_user_model().objects.create_user("nobody")
    MembershipFactory(club=club, user=user)
    assert root.post(url("tournaments.Club", "delete", club.pk), {"post": "yes"}).status_code == 302
    assert not Club.objects.filter(pk=club.pk).exists()
    assert root.post(url("auth.User", "delete", user.pk), {"post": "yes"}).status_code == 302
    assert not get_user_model().objects.filter(pk=user.pk).exists()
