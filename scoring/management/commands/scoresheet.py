"""``manage.py scoresheet score|check|canonical PATH`` as a Django management command.

The command itself lives in :mod:`scoring.scoresheet_cli`, which ``manage.py`` runs without
setting Django up; this wrapper serves ``call_command("scoresheet", ...)`` and
``manage.py help scoresheet``.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.scoresheet_cli import HELP, add_arguments, answer, read_source, render


class Command(BaseCommand):
    help = HELP
    requires_system_checks: list[str] = []  # noqa: RUF012 (Django's own annotation)
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, action: str, path: str, **options: Any) -> None:
        try:
            raw = read_source(path, sys.stdin.buffer)
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from exc
        status, obj = answer(action, raw)
        self.stdout.write(render(obj))
        if status:
            sys.exit(status)
