"""The seating benchmark runs and judges issue #5's targets (its figures live in
bench/RESULTS.md, not in a timed test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.seating import METHODS, Run, SwissPlan, _swiss_plans, check_swiss_plans, check_targets

ROOT = Path(__file__).resolve().parents[2]


def test_quick_bench_on_a_tiny_grid_prints_every_method_and_passes(tmp_path: Path) -> None:
    out = tmp_path / "seating.json"
    args = ["--quick", "--players", "9,500", "--rounds", "4", "--sizes", "tonk", "--check"]
    args.append("--no-swiss-plans")  # checked by test_swiss_plans_reach_the_bound
    proc = subprocess.run(
        [sys.executable, "-m", "bench.seating", *args, "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for method in METHODS:
        assert f"### {method}\n" in proc.stdout
    assert "| N | sizes | M (R=4) | LB | E | E/M | spread | ms p50 | ms max | peak MiB |" in (
        proc.stdout
    )
    assert "| 500 | Tonk 2–3 (3) |" in proc.stdout
    result = json.loads(out.read_text())
    runs = result["runs"]
    assert {(r["method"], r["players"]) for r in runs} == {
        (m, n) for m in METHODS for n in (9, 500)
    }
    for r in runs:
        assert r["rounds"] == 4 and len(r["ms"]) == 4
        assert r["excess"] >= r["bound"] >= 0
        assert r["pairs"] == 4 * (9 if r["players"] == 9 else 498 // 3 * 3 + 1)
    assert {p["method"] for p in result["peaks"]} == set(METHODS)
    statuses = {v["target"].split(":")[0]: v["status"] for v in result["verdicts"]}
    assert statuses == {
        "speed": "SKIP",  # no N = 2000 in this grid
        "zero": "PASS",
        "bound": "SKIP",
        "share": "PASS",
        "fairness": "PASS",
        "swiss zero": "PASS",  # 500 players
        "swiss bound": "SKIP",  # no LB > 0 in this grid
    }
    assert "PASS zero: E = 0 whenever M <= N(N-1)/4" in proc.stdout


def test_swiss_plans_reach_the_bound_and_a_miss_fails() -> None:
    plans = _swiss_plans([(9, (3,), 4), (12, (4,), 3)])

    assert [(p.excess, p.bound, p.proven) for p in plans] == [
        (0, 0, True),
        (plans[1].bound, plans[1].bound, plans[1].proven),
    ]
    assert check_swiss_plans(plans).status == "PASS"
    missed = SwissPlan(9, (3,), 4, excess=4, bound=0, proven=True, seconds=0.0)
    verdict = check_swiss_plans([*plans, missed])
    assert (verdict.status, verdict.failed) == ("FAIL", ["N=9 sizes 3 R=4: E=4 LB=0"])


def run(method: str, players: int, **kw: object) -> Run:
    values: dict[str, object] = {
        "method": method,
        "players": players,
        "sizes": "four",
        "rounds": 6,
        "seed": 0,
        "pairs": 0,
        "bound": 0,
        "excess": 0,
        "spread": 0,
        "mixed": False,
        "ms": [1.0],
    }
    values.update(kw)
    return Run(**values)  # type: ignore[arg-type]


def test_check_targets_fails_each_missed_target_and_passes_the_rest() -> None:
    runs = [
        run("balanced", 2000, ms=[60.0, 61.0, 10.0]),  # p50 61 ms > 50
        run("swiss", 2000, ms=[300.0]),  # <= 400
        run("balanced", 40, pairs=360, excess=1),  # M <= 390: E must be 0
        run("plan", 16, pairs=144, bound=24, excess=31),  # > 1.1 * 24 + 4 = 30.4
        run("balanced", 16, pairs=144, bound=24, excess=30),  # fine
        run("plan", 20, pairs=180, excess=10),  # > 0.05 * 180 = 9
        run("balanced", 20, pairs=180, excess=18),  # <= 0.10 * 180
        run("swiss", 13, sizes="bluke", mixed=True, spread=3),  # spread > 2
        run("swiss", 40, pairs=360, excess=20),  # swiss too: M <= 390, E must be 0
        run("swiss", 16, pairs=144, bound=24, excess=30),  # swiss bound: fine
        run("random", 13, mixed=True, spread=9),  # baselines are not judged
    ]

    verdicts = {v.target.split(":")[0]: v for v in check_targets(runs)}

    assert {k: v.status for k, v in verdicts.items()} == {
        "speed": "FAIL",
        "zero": "FAIL",
        "bound": "FAIL",
        "share": "FAIL",
        "fairness": "FAIL",
        "swiss zero": "FAIL",
        "swiss bound": "PASS",
    }
    assert verdicts["speed"].failed == ["balanced four: p50 60.0 ms"]
    assert verdicts["zero"].failed == ["balanced N=40 four R=6 seed=0: E=1"]
    assert verdicts["bound"].failed == ["plan N=16 four R=6 seed=0: E=31 LB=24"]
    assert verdicts["share"].failed == ["plan N=20 four R=6 seed=0: E=10 > 9.0"]
    assert verdicts["fairness"].failed == ["swiss N=13 bluke R=6 seed=0: spread 3"]
    assert verdicts["swiss zero"].failed == ["swiss N=40 four R=6 seed=0: E=20"]
    assert (verdicts["bound"].checked, verdicts["share"].checked) == (2, 2)
