"""The standings benchmark still runs end to end on PostgreSQL (its figures live in
bench/RESULTS.md, not in a timed test: the machine's load moves them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.services


def test_standings_benchmark_smoke_run_measures_every_case_in_three_queries() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.standings",
            "--quick",
            "--db-name",
            "tabletally_bench_standings_smoke",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert "| Rook 1,000 × 10, 1 hand a round | 10,000 | 10,000 | 3 / 1 |" in out
    assert "| Bluke 1,000 × 10, 5 hands a round | 50,000 | 10,000 | 3 / 1 |" in out
    assert "| Rook again, beside the Bluke tournament |" in out
    assert "Rook recomputation p50" in out
    assert "Rook serving from the local-memory cache p50" in out
    assert "Rook queries: 3 on a miss, 1 on a hit" in out
