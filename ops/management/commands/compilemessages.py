"""``manage.py compilemessages``: Django's command, made with Babel instead of GNU gettext.

The project's catalogues (``locale/``) compile on a machine with no ``msgfmt``; see
:mod:`ops.catalogues`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from ops.catalogues import compile_catalogues


class Command(BaseCommand):
    help = "Compile locale/*/LC_MESSAGES/*.po into .mo files (Babel; no GNU gettext needed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--force", action="store_true", help="rewrite every .mo, even when up to date"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for locale_dir in settings.LOCALE_PATHS:
            for mo in compile_catalogues(locale_dir, force=options["force"]):
                self.stdout.write(f"compiled {mo}")
