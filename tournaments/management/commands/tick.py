"""``manage.py tick [--loop]``: call time on tournament rounds whose deadline passed."""

import logging
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tournaments.services import tick

INTERVAL_SECONDS = 30
logger = logging.getLogger(__name__)


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
            try:
                called = tick()
            except Exception:  # the clock must keep going all night: log, and try again
                if not loop:
                    raise
                logger.exception("tick failed; trying again in %s s", interval)
            else:
                if called or not loop:
                    self.stdout.write(f"time called on {called} round(s)")
            if not loop:
                return
            time.sleep(interval)
