"""Factories for the tests (factory-boy): users, clubs and their members, club players; and
:func:`sit`, a browser at a game's seat."""

from typing import Any, TypeVar

import factory
from django.contrib.auth import get_user_model

from scoring.models import Game
from tournaments.models import Club, Membership, Player


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    # No usable password unless a test needs to sign in (hashing one costs ~0.2 s).
    password = factory.django.Password(None)


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Club {n}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    club = factory.SubFactory(ClubFactory)
    user = factory.SubFactory(UserFactory)


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    club = factory.SubFactory(ClubFactory)
    name = factory.Sequence(lambda n: f"Player {n}")


G = TypeVar("G", bound=Game)


def sit(client: Any, game: G, position: int = 0) -> G:
    """This browser (a Django test ``Client``) is seat ``position`` of ``game``, as the seat
    chooser or the seat's link leaves it (the session's ``seats``): every write at a table
    records who made it, and the table link alone only reads (issue 12). Returns ``game``."""
    session = client.session
    seats = dict(session.get("seats", {}))
    seats[str(game.pk)] = game.seats.get(position=position).pk
    session["seats"] = seats
    session.save()
    return game
