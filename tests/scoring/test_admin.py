"""The admin follows the same rules as the pages and the API (issue 12): games, hands, their
trail (hand events), score lines and a tournament's audit entries are read-only there. Even a
superuser cannot add, change or delete a result in the admin; results change through the
services, which check who may and keep the trail."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Model
from django.test import Client
from django.urls import reverse

from scoring import services
from scoring.models import Game, Hand, HandEvent, ScoreLine
from scoring.permissions import Actor
from tests.factories import MembershipFactory
from tests.scoring.sheets import TONK_KNOCK_HAND
from tournaments import services as tournaments
from tournaments.models import AuditEntry, Membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client() -> Client:
    user = get_user_model().objects.create_superuser("root", "root@example.org", "pw")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def results() -> dict[type[Model], Model]:
    """A game with a hand voided (a hand event), its score lines, and a tournament audit row."""
    director = MembershipFactory(role=Membership.Role.DIRECTOR)
    game, _ = services.game_start(
        kind="tonk", players=["Ana", "Ben"], club=director.club, created_by=director.user
    )
    services.hand_record(game=game, entry=TONK_KNOCK_HAND)
    services.hand_void(game=game, number=1, by=Actor(user=director.user), reason="twice")
    tournament, _ = tournaments.tournament_create(
        club=director.club, created_by=director.user, name="Open", kind="tonk", rounds=2
    )
    entry = AuditEntry.objects.create(tournament=tournament, action=AuditEntry.Action.CREATE)
    return {
        Game: game,
        Hand: Hand.objects.get(game=game),
        HandEvent: HandEvent.objects.get(game=game),
        ScoreLine: ScoreLine.objects.filter(hand__game=game).first(),
        AuditEntry: entry,
    }


MODELS = [Game, Hand, HandEvent, ScoreLine, AuditEntry]


def admin_url(model: type[Model], view: str, *args: object) -> str:
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args)


def rows() -> dict[str, int]:
    return {m.__name__: m.objects.count() for m in MODELS}


@pytest.mark.parametrize("model", MODELS, ids=[m.__name__ for m in MODELS])
def test_a_superuser_sees_results_in_the_admin_but_cannot_add_change_or_delete_them(
    superuser_client: Client, results: dict[type[Model], Model], model: type[Model]
) -> None:
    obj = results[model]
    before = rows()
    listing = superuser_client.get(admin_url(model, "changelist"))
    assert listing.status_code == 200
    assert b'value="delete_selected"' not in listing.content
    assert superuser_client.get(admin_url(model, "change", obj.pk)).status_code == 200  # a view
    assert superuser_client.get(admin_url(model, "add")).status_code == 403
    assert superuser_client.post(admin_url(model, "add"), {}).status_code == 403
    assert superuser_client.post(admin_url(model, "change", obj.pk), {}).status_code == 403
    assert superuser_client.get(admin_url(model, "delete", obj.pk)).status_code == 403
    assert (
        superuser_client.post(admin_url(model, "delete", obj.pk), {"post": "yes"}).status_code
        == 403
    )
    bulk = superuser_client.post(
        admin_url(model, "changelist"),
        {"action": "delete_selected", "_selected_action": [obj.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    assert rows() == before


def test_the_admin_form_of_a_hand_shows_no_editable_field(
    superuser_client: Client, results: dict[type[Model], Model]
) -> None:
    page = superuser_client.get(admin_url(Hand, "change", results[Hand].pk)).content.decode()
    assert 'name="status"' not in page
    assert 'name="reason"' not in page
    assert "Save" not in page
