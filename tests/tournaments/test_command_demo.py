"""`manage.py demo`: a local demo login, the demo club and one game of each kind in progress,
created once, refused when DEBUG is off."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from scoring import selectors
from scoring.models import Game, Hand, ScoreLine, Seat
from tournaments.demo import DEMO_ENTRANTS
from tournaments.models import Club

pytestmark = pytest.mark.django_db

FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # the login is not under test


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
    # The four of the demo games, and the nine of the demo tournament.
    assert list(club.players.values_list("name", flat=True)) == sorted(DEMO_ENTRANTS)


def test_demo_refuses_when_debug_is_off(settings) -> None:
    settings.DEBUG = False

    with pytest.raises(CommandError, match="DEBUG is off"):
        call_command("demo")

    assert not get_user_model().objects.filter(username="demo").exists()
    assert not Game.objects.exists()


def test_demo_starts_one_game_of_each_kind_in_progress_with_real_hands(settings, capsys) -> None:
    settings.DEBUG = True
    settings.PASSWORD_HASHERS = FAST_HASHERS

    call_command("demo")

    club = Club.objects.get(name="Demo Card Club")
    user = get_user_model().objects.get(username="demo")
    games = {game.kind: game for game in Game.objects.filter(club=club, created_by=user)}
    assert sorted(games) == ["bluke", "rook", "tonk"]
    assert {game.state for game in games.values()} == {"in_play"}
    tonk, rook, bluke = games["tonk"], games["rook"], games["bluke"]
    assert (tonk.stake, tonk.currency) == ("0.25", "USD")
    assert [hand.record["end"] for hand in selectors.current_hands(tonk)] == [
        "knock",
        "tonk_out",
        "knock",
    ]
    assert selectors.game_totals(tonk) == {"Ana": -6, "Ben": 4, "Cyd": 2}
    assert selectors.settle_up(tonk)["money"] == {
        "Ana": "-1.50",
        "Ben": "1.00",
        "Cyd": "0.50",
    }
    assert [hand.sequence for hand in selectors.current_hands(rook)] == [1, 2]
    assert selectors.game_totals(rook) == {"Ana": 75, "Ben": 50, "Cyd": 20, "Dee": 40}
    assert [hand.sequence for hand in selectors.current_hands(bluke)] == [1, 2, 3]
    assert selectors.game_totals(bluke) == {"Ana": 91, "Ben": 112, "Cyd": 41}
    for game in games.values():
        assert game.totals == selectors.game_totals(game)
        seats = game.seats.order_by("position").select_related("player")
        assert all(seat.player is not None and seat.player.club == club for seat in seats)
    out = capsys.readouterr().out
    assert "for this machine only" in out
    for game in games.values():
        assert f"/t/{game.table_key}/" in out


def test_demo_run_twice_creates_nothing_the_second_time(settings, capsys) -> None:
    settings.DEBUG = True
    settings.PASSWORD_HASHERS = FAST_HASHERS
    call_command("demo")
    first_out = capsys.readouterr().out
    counts = {model.__name__: model.objects.count() for model in (Game, Seat, Hand, ScoreLine)}
    casual = Game.objects.filter(tournament_table__isnull=True)
    casual_counts = {
        "Game": casual.count(),
        "Seat": Seat.objects.filter(game__in=casual).count(),
        "Hand": Hand.objects.filter(game__in=casual).count(),
        "ScoreLine": ScoreLine.objects.filter(game__in=casual).count(),
    }

    call_command("demo")

    second_out = capsys.readouterr().out
    # The three casual games; the rest are the demo tournament's tables.
    assert casual_counts == {"Game": 3, "Seat": 10, "Hand": 8, "ScoreLine": 26}
    assert {m.__name__: m.objects.count() for m in (Game, Seat, Hand, ScoreLine)} == counts
    links = [line.split(": ")[-1] for line in first_out.splitlines() if "/t/" in line]
    assert len(links) == 3
    assert [line.split(": ")[-1] for line in second_out.splitlines() if "/t/" in line] == links
    assert second_out.count("already there") == 4  # the login and the three games
