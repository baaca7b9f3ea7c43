"""Writes of the tournaments app. Every function here is keyword-only."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from tournaments.models import Club, Membership, Player

DEMO_CLUB_NAME = "Demo Card Club"
DEMO_PLAYERS = ("Ana", "Ben", "Cyd", "Dee")


@transaction.atomic
def demo_superuser_ensure(*, username: str, password: str) -> tuple[AbstractBaseUser, bool]:
    """Make sure a local superuser ``username`` exists and logs in with ``password``.

    Returns the user and whether anything was created or changed. Idempotent: a second call
    with the same arguments changes nothing. For a developer's own machine only.
    """
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        **{user_model.USERNAME_FIELD: username},
        defaults={"is_staff": True, "is_superuser": True, "is_active": True},
    )
    changed = created
    if not (user.is_staff and user.is_superuser and user.is_active):
        user.is_staff = user.is_superuser = user.is_active = True
        changed = True
    if not user.check_password(password):
        user.set_password(password)
        changed = True
    if changed:
        user.save()
    return user, changed


@transaction.atomic
def demo_club_ensure(*, director: AbstractBaseUser) -> tuple[Club, bool]:
    """Make sure the demo club exists, with ``director`` as its director and four players.

    Returns the club and whether it was created now. Idempotent.
    """
    club, created = Club.objects.get_or_create(name=DEMO_CLUB_NAME)
    Membership.objects.update_or_create(
        club=club, user=director, defaults={"role": Membership.Role.DIRECTOR}
    )
    for name in DEMO_PLAYERS:
        Player.objects.get_or_create(club=club, name=name)
    return club, created
