"""The list of languages is written once, in ``settings.LANGUAGES``: the models' choices, the
Makefile's ``LANGS`` and the tests read it (``ops.language_list``), and a new language needs
no migration."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db.migrations.autodetector import MigrationAutodetector
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.state import ProjectState
from django.test import override_settings

from config.settings import BASE_DIR
from ops import language_list

#: The one file that writes the list.
SETTINGS = "config/settings.py"
#: Where the list could be written again: everything of the project but the catalogues,
#: generated files and the virtualenv.
SKIPPED_DIRS = {".git", ".venv", "locale", "staticfiles", "node_modules", "__pycache__"}
SCANNED_SUFFIXES = {".py", ".toml", ".cfg", ".ini", ".sh", ".yml", ".yaml", ".js", ".html"}
SCANNED_NAMES = {"Makefile", "run"}


def written_lists(text: str, codes: list[str]) -> list[str]:
    """Three or more of ``codes`` in a row: quoted and separated by commas (a Python, TOML or
    JavaScript list), or bare and separated by blanks (a Makefile or shell list)."""
    code = "(?:" + "|".join(re.escape(c) for c in codes) + ")"
    quoted = rf"""(?:["']{code}["']\s*,\s*){{2,}}["']{code}["']"""
    bare = rf"(?<![\w-]){code}(?:[ \t]+{code}(?![\w-])){{2,}}"
    return [m.group(0) for m in re.finditer(f"{quoted}|{bare}", text)]


def project_files() -> list[Path]:
    found = []
    for root, dirs, files in os.walk(BASE_DIR):
        dirs[:] = [
            d for d in dirs if (d not in SKIPPED_DIRS and not d.startswith(".")) or d == ".ci"
        ]
        for name in files:
            path = Path(root) / name
            if path.suffix in SCANNED_SUFFIXES or name in SCANNED_NAMES:
                found.append(path)
    return found


def test_the_scan_finds_a_list_written_out() -> None:
    codes = language_list.codes()
    translated = language_list.translated_codes()
    quoted = ",\n    ".join(f'"{c}"' for c in translated)
    assert written_lists(f"LANGS = ({quoted})", codes) == [quoted]
    bare = " ".join(translated)
    assert written_lists(f"LANGS := {bare}\n", codes) == [bare]
    assert written_lists("read it as the basis", codes) == []
    # The settings write it as (code, name) pairs: each code once, found by no scan.
    text = BASE_DIR.joinpath(SETTINGS).read_text(encoding="utf-8")
    assert written_lists(text, codes) == []
    assert [c for c in codes if f'("{c}", _(' in text] == codes


def test_the_list_of_languages_is_written_only_in_the_settings() -> None:
    codes = language_list.codes()
    offenders = {
        path.relative_to(BASE_DIR).as_posix(): found
        for path in project_files()
        if (found := written_lists(path.read_text(encoding="utf-8", errors="replace"), codes))
    }
    assert offenders == {}


def test_the_models_read_the_languages_through_a_callable() -> None:
    language_fields = [
        field
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if getattr(field, "name", "") == "language" and getattr(field, "choices", None)
    ]
    assert {f.model._meta.label for f in language_fields} == {
        "ops.Profile",
        "tournaments.Tournament",
    }
    for field in language_fields:
        assert field.deconstruct()[3]["choices"] is language_list.choices
        assert list(field.choices) == list(settings.LANGUAGES)


def test_a_new_language_needs_no_migration() -> None:
    more = [*settings.LANGUAGES, ("hi", "Hindi")]
    with override_settings(LANGUAGES=more):
        field = apps.get_model("tournaments", "Tournament")._meta.get_field("language")
        assert ("hi", "Hindi") in list(field.choices)
        # What ``makemigrations`` would write: the models' state against the migrations'.
        loader = MigrationLoader(None, ignore_no_migrations=True)
        changes = MigrationAutodetector(
            loader.project_state(), ProjectState.from_apps(apps)
        ).changes(graph=loader.graph)
    assert changes == {}


@pytest.mark.parametrize("translated", [False, True])
def test_the_languages_command_prints_the_settings_list(translated: bool) -> None:
    out = StringIO()
    call_command("languages", *(["--translated"] if translated else []), stdout=out)
    expected = language_list.translated_codes() if translated else language_list.codes()
    assert out.getvalue().split() == expected
    assert settings.LANGUAGE_CODE not in expected if translated else expected[0] == "en"


def test_make_messages_extracts_every_language_of_the_settings() -> None:
    done = subprocess.run(
        ["make", "-n", "messages", f"PY={sys.executable}", f"STAMP={BASE_DIR / 'pyproject.toml'}"],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    commands = [line for line in done.stdout.splitlines() if "makemessages" in line]
    assert len(commands) == 2
    for command in commands:
        asked = re.findall(r"-l (\S+)", command)
        assert asked == language_list.translated_codes()
