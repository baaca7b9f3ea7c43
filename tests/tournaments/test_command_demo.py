"""`manage.py demo`: a local demo login, created once, refused when DEBUG is off."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from tournaments.models import Club

pytestmark = pytest.mark.django_db


def test_demo_creates_superuser_once_and_is_idempotent(settings, capsys) -> None:
    settings.DEBUG = True

    call_command("demo")
    first = get_user_model().objects.get(username="demo")
    call_command("demo")
    second = get_user_model().objects.get(username="demo")

    assert get_user_model().objects.filter(username="demo").count() == 1
    assert second.is_superuser and second.is_staff and second.check_password("demo")
    assert second.password == first.password
    out = capsys.readouterr().out
    assert "created" in out and "already there" in out
    club = Club.objects.get(name="Demo Card Club")
    assert club.memberships.get(user=second).role == "director"
    assert list(club.players.values_list("name", flat=True)) == ["Ana", "Ben", "Cyd", "Dee"]


def test_demo_refuses_when_debug_is_off(settings) -> None:
    settings.DEBUG = False

    with pytest.raises(CommandError, match="DEBUG is off"):
        call_command("demo")

    assert not get_user_model().objects.filter(username="demo").exists()
