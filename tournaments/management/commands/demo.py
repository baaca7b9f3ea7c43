from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from tournaments.demo import (
    demo_club_ensure,
    demo_games_ensure,
    demo_superuser_ensure,
    demo_tournament_ensure,
)

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo"  # a throwaway login for a developer's own machine, never a server's


class Command(BaseCommand):
    help = (
        "Local demo: superuser demo/demo, the demo club, one game of each kind in progress and "
        "a tournament half-way through (DEBUG only). Safe to run again."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("The demo login is for a local machine only: DEBUG is off.")
        user, changed = demo_superuser_ensure(username=DEMO_USERNAME, password=DEMO_PASSWORD)
        club, _created = demo_club_ensure(director=user)
        games = demo_games_ensure(club=club, user=user)
        tournament = demo_tournament_ensure(club=club, director=user)
        state = "created" if changed else "already there"
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo login ({state}), for this machine only: "
                f"user {DEMO_USERNAME!r}, password {DEMO_PASSWORD!r} at {reverse('login')} "
                f"(and the admin at /admin/)"
            )
        )
        self.stdout.write(
            f"Demo club: {club.name!r} (id {club.pk}), with {DEMO_USERNAME!r} as its director."
        )
        self.stdout.write("Demo games in progress, each at its private table link:")
        for game, created in games:
            names = ", ".join(name for name, _seat in game.seating)
            link = reverse("scoring:table", kwargs={"key": game.table_key})
            state = "created" if created else "already there"
            counted = "rounds" if game.adapter.hands_are_rounds else "hands"
            self.stdout.write(
                f"  {game.get_kind_display()} ({names}; {game.current_hands} {counted}, "
                f"{state}): {link}"
            )
        self.stdout.write(
            f"Demo tournament: {tournament.name!r}, round {tournament.rounds_complete + 1} of "
            f"{tournament.round_count} under way. Its director is {DEMO_USERNAME!r} "
            "(the login above): "
            f"dashboard {reverse('tournaments:manage', args=[tournament.pk])}, public standings "
            f"{reverse('tournaments:standings', args=[tournament.pk])}"
        )
