"""The API benchmark still runs end to end (gunicorn on PostgreSQL); its figures live in
bench/RESULTS.md, not in a timed test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.services


def test_entry_benchmark_smoke_run_records_every_hand() -> None:
    proc = subprocess.run(
        [sys.executable, "bench/entry.py", "--quick", "--db-name", "tabletally_bench_smoke"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "hand p99 at 100 requests/s" in proc.stdout
    assert "throughput at saturation" in proc.stdout
    assert "| hand |" in proc.stdout and "| bare |" in proc.stdout
