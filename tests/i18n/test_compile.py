"""Compiled catalogues without GNU gettext (issue 15): ``manage.py compilemessages`` is the
project's own (Babel), so a fresh machine with no ``msgfmt`` gets every ``.mo`` that
``make run`` and ``make test`` need, and Django reads them.
"""

from __future__ import annotations

import gettext
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ops.catalogues import catalogue_files, compile_catalogues

BASE = Path(__file__).resolve().parents[2]


def test_compilemessages_needs_no_msgfmt(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(BASE / "locale", project / "locale", ignore=shutil.ignore_patterns("*.mo"))
    script = (
        "import sys, django, os\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'\n"
        "from django.conf import settings\n"
        "from django.core.management import call_command\n"
        "django.setup()\n"
        f"settings.LOCALE_PATHS = [{str(project / 'locale')!r}]\n"
        "call_command('compilemessages')\n"
    )
    # No PATH at all: no msgfmt (nor anything else) can be found.
    env = {"PYTHONPATH": str(BASE), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=BASE, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    sources = catalogue_files(project / "locale")
    assert len(sources) == 8  # four languages, two domains
    for po in sources:
        assert po.with_suffix(".mo").is_file(), po
    bn = gettext.GNUTranslations((project / "locale/bn/LC_MESSAGES/django.mo").open("rb"))
    assert bn.gettext("Language") == "ভাষা"
    assert bn.ngettext("%(n)d run", "%(n)d runs", 3) != "%(n)d runs"


def test_a_catalogue_is_compiled_again_only_when_its_source_is_newer(tmp_path: Path) -> None:
    shutil.copytree(BASE / "locale", tmp_path / "locale", ignore=shutil.ignore_patterns("*.mo"))
    assert len(compile_catalogues(tmp_path / "locale")) == 8
    assert compile_catalogues(tmp_path / "locale") == []
    po = tmp_path / "locale/ta/LC_MESSAGES/django.po"
    later = po.with_suffix(".mo").stat().st_mtime + 10
    os.utime(po, (later, later))
    assert compile_catalogues(tmp_path / "locale") == [po.with_suffix(".mo")]
