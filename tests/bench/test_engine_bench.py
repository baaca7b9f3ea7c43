"""The engine benchmark still runs (its figures live in bench/RESULTS.md, not in a timed test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_benchmark_runs_and_lists_every_real_game() -> None:
    proc = subprocess.run(
        [sys.executable, "bench/engine.py", "--repeat", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    games = sorted(p.stem for p in (ROOT / "tests" / "golden" / "real-games").glob("*.json"))
    for game in games:
        assert f"| {game} |" in proc.stdout
    assert "| rook round-10 contract check |" in proc.stdout
