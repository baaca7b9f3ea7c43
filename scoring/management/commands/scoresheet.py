"""``manage.py scoresheet score|check|canonical PATH``: a score sheet through the rules engine.

A thin command over :mod:`tonkrules.sheet` (shared/formats/scoresheet.md, "Results"):

* ``score PATH`` prints the result object and exits 0, or the error object and exits 2;
* ``check PATH`` validates only: prints ``{"ok": true, "hands": N}`` or the error object;
* ``canonical PATH`` prints the sheet in canonical form (card notation, keys), or the error.

PATH is a file, or ``-`` for standard input. Nothing is stored anywhere.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tonkrules.sheet import SheetError, parse_json, read_sheet, score

ERROR_EXIT = 2


class Command(BaseCommand):
    help = "Score, check or canonicalise a Tabletally score sheet (JSON) with the rules engine."
    requires_system_checks: list[str] = []  # noqa: RUF012 (Django's own annotation)
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True, metavar="{score,check,canonical}")
        for action, text in (
            ("score", "print the result object (exit 0) or the error object (exit 2)"),
            ("check", 'validate only: print {"ok": true} (exit 0) or the error object (exit 2)'),
            (
                "canonical",
                "print the sheet in canonical form (exit 0) or the error object (exit 2)",
            ),
        ):
            p = sub.add_parser(action, help=text)
            p.add_argument("path", help="the score sheet file, or - for standard input")

    def handle(self, *args: Any, action: str, path: str, **options: Any) -> None:
        raw = self._read(path)
        try:
            sheet = read_sheet(parse_json(raw))
            if action == "score":
                out: dict[str, object] = score(sheet).to_json()
            elif action == "check":
                out = {"ok": True, "game": sheet.game.name, "hands": len(sheet.hands)}
            else:
                out = sheet.to_json()
        except SheetError as exc:
            self._print(exc.to_json())
            sys.exit(ERROR_EXIT)
        self._print(out)

    def _read(self, path: str) -> bytes:
        try:
            if path == "-":
                return sys.stdin.buffer.read()
            with open(path, "rb") as f:
                return f.read()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from exc

    def _print(self, obj: dict[str, object]) -> None:
        self.stdout.write(json.dumps(obj, ensure_ascii=False))
