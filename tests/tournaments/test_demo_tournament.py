"""The demo tournament `make run` shows, and the tick command."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.factories import UserFactory
from tournaments import services
from tournaments.demo import DEMO_ENTRANTS, demo_tournament_ensure
from tournaments.models import Club, Membership, Round, Table

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_demo_tournament_is_half_way_through_and_made_once() -> None:
    director = UserFactory()
    club = Club.objects.create(name="Demo Card Club")
    Membership.objects.create(club=club, user=director, role=Membership.Role.DIRECTOR)

    tournament = demo_tournament_ensure(club=club, director=director)

    assert (tournament.kind, tournament.round_count, tournament.rounds_complete) == ("rook", 5, 2)
    assert tournament.registrations.count() == len(DEMO_ENTRANTS)
    states = dict(tournament.round_set.values_list("number", "state"))
    assert states == {1: Round.State.COMPLETE, 2: Round.State.COMPLETE, 3: Round.State.PLAYING}
    third = tournament.round_set.get(number=3)
    assert sorted(third.tables.values_list("state", flat=True)) == [
        Table.State.REPORTED,
        *[Table.State.SEATED] * (third.tables.count() - 1),
    ]
    # Played through the services: every complete round's tables hold their one round.
    for table in Table.objects.filter(round__tournament=tournament, round__number__lte=2):
        assert table.game.current_hands == 1
    assert demo_tournament_ensure(club=club, director=director).pk == tournament.pk
    assert club.tournaments.count() == 1


def test_tick_command_calls_time_once() -> None:
    director = UserFactory()
    club = Club.objects.create(name="Clockwork")
    Membership.objects.create(club=club, user=director, role=Membership.Role.DIRECTOR)
    tournament = demo_tournament_ensure(club=club, director=director)
    Round.objects.filter(tournament=tournament, number=3).update(
        deadline=timezone.now() - timedelta(minutes=1)
    )

    first, second = io.StringIO(), io.StringIO()
    call_command("tick", stdout=first)
    call_command("tick", stdout=second)

    assert "call_time 1," in first.getvalue()
    assert "call_time 0," in second.getvalue()
    assert services.tick() == 0
    assert tournament.round_set.get(number=3).time_called_at is not None
