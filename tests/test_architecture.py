"""The rules engine stays a plain Python package: importable without Django."""

import subprocess
import sys

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


def test_hand_written_sql_lives_in_one_module() -> None:
    """Raw cursors only in ``scoring/rows.py``, the documented hot path of recording a hand."""
    offenders = sorted(
        str(path.relative_to(BASE_DIR))
        for package in ("scoring", "tournaments")
        for path in (BASE_DIR / package).rglob("*.py")
        if "migrations" not in path.parts
        and ".cursor()" in path.read_text(encoding="utf-8")
        and path.relative_to(BASE_DIR).as_posix() != "scoring/rows.py"
    )
    assert offenders == []
