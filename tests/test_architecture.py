"""The rules engine stays a plain Python package: importable without Django."""

import re
import subprocess
import sys
import tomllib

from config.settings import BASE_DIR


def test_tonkrules_imports_without_django() -> None:
    code = (
        "import sys, tonkrules, tonkrules.sheet; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=BASE_DIR, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr


def test_no_module_writes_a_models_private_state() -> None:
    """Instances are made through the ORM (``Model.from_db`` where SQL is hand-written), never
    by patching ``_state`` (issue 11)."""
    offenders = [
        str(path.relative_to(BASE_DIR))
        for package in ("scoring", "tournaments")
        for path in (BASE_DIR / package).rglob("*.py")
        if "._state." in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


#: Where hand-written SQL may be: the one module design.md names (ops/db/).
SQL_MODULE = "ops/db/sql.py"

#: What hand-written SQL looks like in Django: a raw cursor, ``Manager.raw``, ``RawSQL``,
#: ``QuerySet.extra``.
RAW_SQL = re.compile(r"\.cursor\(|\.raw\(|\bRawSQL\b|\.extra\(")


def first_party_packages() -> list[str]:
    """Every app of the project: the root packages import-linter checks (pyproject.toml), so a
    new app is scanned as soon as it is declared there."""
    with (BASE_DIR / "pyproject.toml").open("rb") as file:
        return list(tomllib.load(file)["tool"]["importlinter"]["root_packages"])


def raw_sql_modules() -> list[str]:
    return sorted(
        path.relative_to(BASE_DIR).as_posix()
        for package in first_party_packages()
        for path in (BASE_DIR / package).rglob("*.py")
        if RAW_SQL.search(path.read_text(encoding="utf-8"))
    )


def test_every_app_is_scanned_for_raw_sql() -> None:
    assert set(first_party_packages()) >= {"config", "ops", "scoring", "tournaments", "tonkrules"}


def test_hand_written_sql_lives_in_one_module() -> None:
    """Raw cursors, ``raw()``, ``RawSQL`` and ``extra()`` only in ``ops/db/sql.py`` (design.md:
    "the one module of hand-written SQL"), in every first-party package, migrations
    included; the hand path (``scoring/rows.py``), the live region's digest
    (``ops/etags.py``) and the health check call its public functions."""
    assert raw_sql_modules() == [SQL_MODULE]
