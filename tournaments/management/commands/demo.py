from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tournaments.services import demo_club_ensure, demo_superuser_ensure

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo"  # a throwaway login for a developer's own machine, never a server's


class Command(BaseCommand):
    help = "Local demo: superuser demo/demo and the demo club (DEBUG only). Safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("The demo login is for a local machine only: DEBUG is off.")
        user, changed = demo_superuser_ensure(username=DEMO_USERNAME, password=DEMO_PASSWORD)
        club, _created = demo_club_ensure(director=user)
        state = "created" if changed else "already there"
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo login ({state}), for this machine only: "
                f"user {DEMO_USERNAME!r}, password {DEMO_PASSWORD!r} at /admin/"
            )
        )
        self.stdout.write(
            f"Demo club: {club.name!r} (id {club.pk}), with {DEMO_USERNAME!r} as its director."
        )
