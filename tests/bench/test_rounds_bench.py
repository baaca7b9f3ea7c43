"""The big rounds benchmark still runs end to end: gunicorn, a real Celery worker on Redis and
PostgreSQL (its figures live in bench/RESULTS.md, not in a timed test: the machine's load moves
them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.services import services_redis_url

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.services


def test_rounds_benchmark_smoke_run_seats_publishes_and_closes_every_case() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.rounds",
            "--quick",
            "--db-name",
            "tabletally_bench_rounds_smoke",
            # The tests' Redis; the run's tasks go to a queue of its own there.
            "--broker-url",
            services_redis_url(),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    for case in ("500 tables (2,000 players)", "100 tables (400 players)"):
        for number in (1, 2):
            assert f"| {case}, round {number} | " in out
            for step in ("seat", "publish", "close"):
                assert f"- {case}, round {number}, {step}: **" in out
    assert "Runs: 1 (--quick)" in out
