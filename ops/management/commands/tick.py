"""``manage.py tick [--loop]``: run the tick's jobs (call time, send waiting work again)."""

import logging
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from ops.background import tick

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Run the tick once: call time on tournament rounds whose deadline passed and send "
        "again the background work that waited too long. With --loop, every TICK_SECONDS (the "
        "embedded mode's stand-in for Celery beat). Safe to run twice."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loop", action="store_true", help="run every TICK_SECONDS")
        parser.add_argument(
            "--interval",
            type=float,
            default=None,
            help="seconds between ticks (default TICK_SECONDS)",
        )

    def handle(
        self, *args: Any, loop: bool = False, interval: float | None = None, **options: Any
    ) -> None:
        interval = interval or settings.TICK_SECONDS
        while True:
            try:
                done = tick()
            except Exception:  # the clock must keep going all night: log, and try again
                if not loop:
                    raise
                logger.exception("tick failed; trying again in %s s", interval)
            else:
                if not loop or any(done.values()):
                    summary = ", ".join(f"{name} {count}" for name, count in sorted(done.items()))
                    self.stdout.write(f"tick: {summary}")
            if not loop:
                return
            time.sleep(interval)
