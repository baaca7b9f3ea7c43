"""``manage.py tick [--loop]``: call time on tournament rounds whose deadline passed."""

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tournaments.services import tick

INTERVAL_SECONDS = 30


class Command(BaseCommand):
    help = (
        "Call time on tournament rounds whose deadline passed. With --loop, every 30 seconds "
        "(the embedded mode's stand-in for Celery beat). Safe to run twice."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loop", action="store_true", help="run every 30 seconds")
        parser.add_argument(
            "--interval", type=float, default=INTERVAL_SECONDS, help="seconds between ticks"
        )

    def handle(self, *args: Any, loop: bool = False, interval: float = 30, **options: Any) -> None:
        while True:
            called = tick()
            if called or not loop:
                self.stdout.write(f"time called on {called} round(s)")
            if not loop:
                return
            time.sleep(interval)
