"""``manage.py languages``: the codes of ``settings.LANGUAGES``, on one line, space-separated
(English first); ``--translated``: only those with a catalogue of their own (all but
``LANGUAGE_CODE``). The Makefile's ``LANGS`` reads it, so the list is written only in the
settings (:mod:`ops.language_list`)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ops import language_list


class Command(BaseCommand):
    help = "Print the codes of settings.LANGUAGES (--translated: those with a catalogue)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--translated",
            action="store_true",
            help="only the languages with a catalogue (all but LANGUAGE_CODE)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        found = language_list.translated_codes() if options["translated"] else language_list.codes()
        self.stdout.write(" ".join(found))
