"""Every acceptance case, scored through the engine and through ``manage.py scoresheet score``.

The cases are the project's own copy in tests/golden/ (a user's machine has no ../shared);
the test is parametrised over the files, so a new case file is picked up without code changes.
"""

from __future__ import annotations

import filecmp
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.tonkrules.golden import (
    GOLDEN,
    SHARED_CASES,
    case_id,
    case_paths,
    disagreement,
    expected_exit,
    load_case,
)
from tonkrules.sheet import score_sheet_json

CASES = case_paths()
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def run_command(path: Path) -> tuple[int, dict[str, object]]:
    """The Django command ``scoresheet score PATH`` in this process: (exit status, JSON)."""
    out = io.StringIO()
    status = 0
    try:
        call_command("scoresheet", "score", str(path), stdout=out)
    except SystemExit as exc:
        status = int(exc.code or 0)
    return status, json.loads(out.getvalue())


def test_the_copy_holds_the_real_games_and_every_game() -> None:
    names = [case_id(p) for p in CASES]
    assert len(names) >= 231
    assert sum(n.startswith("real-games/") for n in names) >= 7
    for game in ("tonk", "rook", "bluke", "top"):
        assert any(Path(n).name.startswith(game) for n in names), game


@pytest.mark.parametrize("path", CASES, ids=case_id)
def test_engine_agrees_with_case(path: Path) -> None:
    case = load_case(path)
    status, got = score_sheet_json(case["sheet"])
    assert disagreement(case["expect"], got) is None
    assert status == expected_exit(case["expect"])


@pytest.mark.parametrize("path", CASES, ids=case_id)
def test_command_agrees_with_case_and_engine(path: Path, tmp_path: Path) -> None:
    case = load_case(path)
    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps(case["sheet"], ensure_ascii=False), encoding="utf-8")
    status, got = run_command(sheet)
    assert disagreement(case["expect"], got) is None
    assert status == expected_exit(case["expect"])
    assert (status, got) == score_sheet_json(case["sheet"])


@pytest.mark.parametrize(
    "name", ["tonk-T14-knock-caught-3p-stake-quarter", "rook-RS5-four-r7-with-3-decks"]
)
def test_command_in_a_fresh_process_reads_standard_input(name: str) -> None:
    case = load_case(GOLDEN / f"{name}.json")
    proc = subprocess.run(
        [sys.executable, "manage.py", "scoresheet", "score", "-"],
        input=json.dumps(case["sheet"]),
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        check=False,
    )
    assert proc.returncode == expected_exit(case["expect"]), proc.stderr
    assert disagreement(case["expect"], json.loads(proc.stdout)) is None


def test_command_reports_text_that_is_not_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    status, got = run_command(bad)
    assert status == 2
    assert got["error"]["code"] == "bad_format"  # type: ignore[index]
    assert "hand" not in got["error"]  # type: ignore[operator]


def test_copy_matches_shared_cases() -> None:
    if not SHARED_CASES.is_dir():
        pytest.skip(f"no shared cases at {SHARED_CASES} (only the project's own copy is here)")
    ours = {p.relative_to(GOLDEN) for p in GOLDEN.rglob("*") if p.is_file()}
    theirs = {p.relative_to(SHARED_CASES) for p in SHARED_CASES.rglob("*") if p.is_file()}
    assert ours == theirs, "tests/golden differs from ../shared/cases: copy the cases again"
    changed = [
        str(p) for p in sorted(ours) if not filecmp.cmp(GOLDEN / p, SHARED_CASES / p, shallow=False)
    ]
    assert changed == [], "these cases changed in ../shared/cases: copy them again"


def test_manage_py_runs_the_command_without_django_and_reports_an_unreadable_file(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "missing.json"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "manage.py", "scoresheet", "score", str(missing)],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert f"cannot read {missing}" in proc.stderr
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "tonkrules.sheet" in imported
    assert not any(m == "django" or m.startswith("django.") for m in imported)
