"""Benchmark of the seating engine (issue #5): repeats left over, fairness and time per round.

    .venv/bin/python -m bench.seating              # the full grid (about 13 min on 2 cores)
    .venv/bin/python -m bench.seating --check      # also exits 1 when a target is missed
    .venv/bin/python -m bench.seating --quick      # 13, 16 and 2000 players, seed 0 (~2 min)

The grid: N in {12, 13, 16, 20, 40, 100, 500, 2000} players, R in {6, 10} rounds, the table
sizes of Tonk (2-3, prefer 3), Bluke (3-4, prefer 4), Rook (3-5, prefer 4) and exactly 4,
seeds 0-4. Methods: ``balanced`` and ``swiss`` (round by round through ``seat_round``, with the
meetings carried from round to round; swiss gets standings from simulated results) and
``plan`` (``plan_rounds``, the whole schedule at once), against two baselines measured in the
same run: ``random`` (one random shuffle a round) and ``best-of-1000`` (a thousand shuffles a
round, keeping the one with the fewest repeat meetings, then the least sum of squares).
Round-by-round methods run R = 10 once per seed and are read after round 6 too (the first 6
rounds of a 10-round run are exactly a 6-round run); ``plan`` runs each R.

Measures: E (meetings beyond each pair's first), LB (``seating.lower_bound``), E/M (M: pairs
seated together), the fairness spread (max - min of opponents faced over the rounds), ms per
round (p50 and max over every round of every seed; ``plan``: its total time / R) and the peak
memory traced by ``tracemalloc`` in a separate run (seed 0, R = 10).

Targets (issue #5), each checked and printed PASS or FAIL:
  speed     balanced p50 <= 50 ms a round at N = 2000, swiss <= 400 ms;
  zero      E = 0 whenever M <= N(N-1)/4 (balanced and plan);
  bound     when LB > 0: E <= 1.1 LB + 4 (balanced and plan);
  share     when LB = 0 and M > N(N-1)/4: E <= 0.10 M (balanced), <= 0.05 M (plan);
  fairness  with mixed table sizes in a round: spread <= 2 (balanced, plan and swiss).
Swiss (issue 14: fewest repeats first, then the standings), each checked the same way:
  swiss zero   E = 0 whenever M <= N(N-1)/4 (round by round, simulated standings, each round
               looking ahead over the rounds still to play, as a tournament does);
  swiss bound  when LB > 0: E <= 1.1 LB + 4;
  swiss plans  the dry-run plans of ``SWISS_PLANS`` (``manage.py seating plan --method swiss``:
               the known designs and others) reach E = LB (``--no-swiss-plans`` skips them).
The baselines are the yardstick.

It stays one module (about 570 lines): one benchmark run from one command, its drivers, targets
and report read together, as the other benchmarks of ``bench/`` do.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tournaments import seating  # noqa: E402

PLAYERS = (12, 13, 16, 20, 40, 100, 500, 2000)
ROUNDS = (6, 10)
SIZES: dict[str, tuple[tuple[int, ...], int]] = {
    "tonk": ((2, 3), 3),
    "bluke": ((3, 4), 4),
    "rook": ((3, 4, 5), 4),
    "four": ((4,), 4),
}
SIZE_LABELS = {
    "tonk": "Tonk 2–3 (3)",
    "bluke": "Bluke 3–4 (4)",
    "rook": "Rook 3–5 (4)",
    "four": "4",
}
SEEDS = (0, 1, 2, 3, 4)
METHODS = ("balanced", "plan", "swiss", "random", "best-of-1000")
SHUFFLES = 1000
SPEED_TARGET_MS = {"balanced": 50.0, "swiss": 400.0}
SPEED_N = 2000


@dataclass
class Run:
    """One method on one field for one seed and number of rounds."""

    method: str
    players: int
    sizes: str
    rounds: int
    seed: int
    pairs: int  # M
    bound: int  # LB
    excess: int  # E
    spread: int
    mixed: bool  # some round has tables of different sizes
    ms: list[float] = field(default_factory=list)


# --- Round-by-round drivers ---------------------------------------------------------------


def _rotate_sit_outs(
    players: Sequence[int], k: int, sat: Counter[int], rng: np.random.Generator
) -> list[int]:
    """Baselines sit out the same way as the engine: fewest sit-outs first, ties at random."""
    draw = rng.permutation(len(players))
    order = sorted(range(len(players)), key=lambda i: (sat[players[i]], draw[i]))
    return [players[i] for i in order[:k]]


def _tables_from(perm: np.ndarray, split: seating.Split) -> list[list[int]]:
    out, at = [], 0
    for size in split.tables:
        out.append(perm[at : at + size].tolist())
        at += size
    return out


def _shuffle_round(
    active: list[int],
    split: seating.Split,
    meetings: seating.Meetings,
    rng: np.random.Generator,
    shuffles: int,
) -> list[list[int]]:
    """The best of ``shuffles`` random seatings: fewest repeat meetings, then least sum of m²."""
    idx = np.array([meetings.index[p] for p in active], dtype=np.intp)
    perms = rng.permuted(np.tile(idx, (shuffles, 1)), axis=1)
    counts = meetings.counts
    repeats = np.zeros(shuffles, dtype=np.int64)
    squares = np.zeros(shuffles, dtype=np.int64)
    at = 0
    for size in split.tables:
        for i in range(at, at + size):
            for j in range(i + 1, at + size):
                m = counts[perms[:, i], perms[:, j]].astype(np.int64)
                repeats += m
                squares += m * m
        at += size
    best = int(np.lexsort((squares, repeats))[0])
    players = np.array(meetings.players, dtype=object)
    return _tables_from(players[perms[best]], split)


def _round_by_round(
    method: str, n: int, sizes: tuple[int, ...], prefer: int, rounds: int, seed: int
) -> tuple[list[seating.RoundSeating], list[float]]:
    """Seat ``rounds`` rounds one at a time; returns the rounds and the seconds of each."""
    players = list(range(1, n + 1))
    split = seating.table_sizes(n, sizes, prefer)
    meetings = seating.Meetings.none(players)
    sat: Counter[int] = Counter()
    dealt: Counter[int] = Counter()
    sim = np.random.default_rng((seed, 99))
    skill = sim.normal(size=n + 1)
    points = np.zeros(n + 1)
    done: list[seating.RoundSeating] = []
    seconds: list[float] = []
    for r in range(rounds):
        rng = np.random.default_rng((seed, r))
        start = time.perf_counter()
        if method in ("balanced", "swiss"):
            standing = None
            if method == "swiss":
                standing = sorted(players, key=lambda p: (-points[p], p))
            seated = seating.seat_round(
                players,
                meetings,
                sizes=sizes,
                prefer=prefer,
                method=method,
                standing=standing,
                sit_outs_so_far=sat,
                dealer_counts=dealt,
                seed=(seed, r),
                later=rounds - r - 1,  # as a tournament: the rounds still to play
            )
        else:
            out = _rotate_sit_outs(players, split.sit_outs, sat, rng)
            active = [p for p in players if p not in set(out)]
            if method == "random":
                tables = _tables_from(rng.permutation(np.array(active)), split)
            else:
                tables = _shuffle_round(active, split, meetings, rng, SHUFFLES)
            seated = seating.RoundSeating(
                tuple(seating.Table(tuple(t), t[0]) for t in tables), tuple(out)
            )
        seconds.append(time.perf_counter() - start)
        meetings = meetings.after(seated)
        sat.update(seated.sit_outs)
        dealt.update(t.first_dealer for t in seated.tables)
        done.append(seated)
        for table in seated.tables:  # simulated results: the better players tend to win
            perf = {p: skill[p] + sim.normal() for p in table.players}
            for place, p in enumerate(sorted(table.players, key=lambda p: -perf[p])):
                points[p] += len(table.players) - place
    return done, seconds


def _measure(
    method: str,
    n: int,
    sizes_name: str,
    rounds: Sequence[int],
    seed: int,
) -> list[Run]:
    sizes, prefer = SIZES[sizes_name]
    runs = []
    if method == "plan":
        for r in rounds:
            start = time.perf_counter()
            plan = seating.plan_rounds(
                list(range(1, n + 1)), r, sizes=sizes, prefer=prefer, method="plan", seed=seed
            )
            total = time.perf_counter() - start
            runs.append(_run(method, n, sizes_name, seed, list(plan.rounds), [total / r] * r))
        return runs
    done, seconds = _round_by_round(method, n, sizes, prefer, max(rounds), seed)
    for r in rounds:
        runs.append(_run(method, n, sizes_name, seed, done[:r], seconds[:r]))
    return runs


def _run(
    method: str,
    n: int,
    sizes_name: str,
    seed: int,
    rounds: list[seating.RoundSeating],
    seconds: list[float],
) -> Run:
    players = list(range(1, n + 1))
    splits = [seating.split_of(r) for r in rounds]
    return Run(
        method=method,
        players=n,
        sizes=sizes_name,
        rounds=len(rounds),
        seed=seed,
        pairs=seating.pairs_seated(rounds),
        bound=seating.lower_bound(n, splits),
        excess=seating.excess(rounds),
        spread=seating.opponent_spread(rounds, players),
        mixed=any(len(set(s.tables)) > 1 for s in splits),
        ms=[1000 * s for s in seconds],
    )


def _peak_mib(method: str, n: int, sizes_name: str, rounds: int) -> float:
    """Peak memory traced while seating ``rounds`` rounds (seed 0), in MiB."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    _measure(method, n, sizes_name, [rounds], 0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


#: Dry-run swiss plans (``manage.py seating plan --method swiss``): (players, sizes, rounds).
#: Each has a repeat-free schedule (the known designs, and fields with room to spare) or a
#: known bound; the plan must reach LB.
SWISS_PLANS: tuple[tuple[int, tuple[int, ...], int], ...] = (
    (9, (3,), 4),  # affine plane of order 3 (issue 14's example)
    (12, (3,), 4),
    (13, (3,), 4),  # one sits out
    (15, (3,), 7),  # Kirkman's schoolgirls
    (16, (4,), 5),  # affine plane of order 4
    (17, (4,), 3),  # one sits out
    (20, (4,), 5),
    (20, (3, 4), 4),
    (21, (4,), 4),
    (22, (3, 4, 5), 4),
    (25, (5,), 6),  # affine plane of order 5
    (12, (4,), 6),  # LB 42
)


@dataclass
class SwissPlan:
    """One dry-run swiss plan: its E and LB, whether every round says proven, and its time."""

    players: int
    sizes: tuple[int, ...]
    rounds: int
    excess: int
    bound: int
    proven: bool
    seconds: float


def _swiss_plans(
    fields: Sequence[tuple[int, tuple[int, ...], int]] = SWISS_PLANS,
) -> list[SwissPlan]:
    out = []
    for n, sizes, rounds in fields:
        start = time.perf_counter()
        plan = seating.plan_rounds(range(1, n + 1), rounds, sizes=sizes, method="swiss")
        took = time.perf_counter() - start
        proven = all(r.proven for r in plan.rounds)
        out.append(SwissPlan(n, sizes, rounds, plan.excess, plan.bound, proven, took))
    return out


def check_swiss_plans(plans: Sequence[SwissPlan]) -> Verdict:
    """The swiss dry-run plans reach LB (no repeat where a repeat-free schedule exists)."""
    verdict = Verdict("swiss plans: E = LB for the dry-run plans of SWISS_PLANS")
    for p in plans:
        verdict.checked += 1
        if p.excess != p.bound:
            sizes = ",".join(map(str, p.sizes))
            verdict.failed.append(
                f"N={p.players} sizes {sizes} R={p.rounds}: E={p.excess} LB={p.bound}"
            )
    return verdict


def swiss_plans_report(plans: Sequence[SwissPlan]) -> str:
    lines = [
        "### swiss plans (dry run, standings = player numbers)\n",
        "| N | sizes | R | LB | E | proven | s |",
        "|---:|---|---:|---:|---:|---|---:|",
    ]
    for p in plans:
        sizes = ",".join(map(str, p.sizes))
        lines.append(
            f"| {p.players} | {sizes} | {p.rounds} | {p.bound} | {p.excess} |"
            f" {'yes' if p.proven else 'no'} | {p.seconds:.2f} |"
        )
    return "\n".join(lines) + "\n"


# --- Targets --------------------------------------------------------------------------------


@dataclass
class Verdict:
    target: str
    checked: int = 0
    failed: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def status(self) -> str:
        if not self.checked:
            return "SKIP"
        return "FAIL" if self.failed else "PASS"


def _label(run: Run) -> str:
    return f"{run.method} N={run.players} {run.sizes} R={run.rounds} seed={run.seed}"


def check_targets(runs: Sequence[Run]) -> list[Verdict]:
    """Every target of issue #5 over ``runs``: what was checked and what failed."""
    speed = Verdict("speed: p50 ms a round at N = 2000, balanced <= 50, swiss <= 400")
    swiss_zero = Verdict("swiss zero: E = 0 whenever M <= N(N-1)/4 (swiss)")
    swiss_bound = Verdict("swiss bound: E <= 1.1 LB + 4 when LB > 0 (swiss)")
    zero = Verdict("zero: E = 0 whenever M <= N(N-1)/4 (balanced, plan)")
    bound = Verdict("bound: E <= 1.1 LB + 4 when LB > 0 (balanced, plan)")
    share = Verdict("share: E <= 0.10 M (balanced), 0.05 M (plan) when LB = 0 < M - N(N-1)/4")
    fair = Verdict("fairness: spread <= 2 with mixed table sizes (balanced, plan, swiss)")
    by_speed: dict[tuple[str, str], list[float]] = {}
    for run in runs:
        half = run.players * (run.players - 1) / 4
        if run.method in SPEED_TARGET_MS and run.players == SPEED_N:
            by_speed.setdefault((run.method, run.sizes), []).extend(run.ms)
        if run.method in ("balanced", "plan"):
            if run.pairs <= half:
                zero.checked += 1
                if run.excess != 0:
                    zero.failed.append(f"{_label(run)}: E={run.excess}")
            elif run.bound > 0:
                bound.checked += 1
                if run.excess > 1.1 * run.bound + 4:
                    bound.failed.append(f"{_label(run)}: E={run.excess} LB={run.bound}")
            else:
                share.checked += 1
                limit = (0.10 if run.method == "balanced" else 0.05) * run.pairs
                if run.excess > limit:
                    share.failed.append(f"{_label(run)}: E={run.excess} > {limit:.1f}")
        if run.method == "swiss":
            if run.pairs <= half:
                swiss_zero.checked += 1
                if run.excess != 0:
                    swiss_zero.failed.append(f"{_label(run)}: E={run.excess}")
            elif run.bound > 0:
                swiss_bound.checked += 1
                if run.excess > 1.1 * run.bound + 4:
                    swiss_bound.failed.append(f"{_label(run)}: E={run.excess} LB={run.bound}")
        if run.method in ("balanced", "plan", "swiss") and run.mixed:
            fair.checked += 1
            if run.spread > 2:
                fair.failed.append(f"{_label(run)}: spread {run.spread}")
    notes = []
    for (method, sizes), ms in sorted(by_speed.items()):
        speed.checked += 1
        p50 = statistics.median(ms)
        notes.append(f"{method} {sizes} {p50:.1f}")
        if p50 > SPEED_TARGET_MS[method]:
            speed.failed.append(f"{method} {sizes}: p50 {p50:.1f} ms")
    speed.note = "; ".join(notes)
    return [speed, zero, bound, share, fair, swiss_zero, swiss_bound]


# --- Report ---------------------------------------------------------------------------------


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kib / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return (
        f"{os.cpu_count()} cores ({cpu}){mem}; Python {platform.python_version()}, "
        f"numpy {np.__version__}, {platform.system()} {platform.machine()}; one core used"
    )


def _fmt_e(values: list[int]) -> str:
    mean = statistics.fmean(values)
    lo, hi = min(values), max(values)
    text = f"{mean:.1f}" if lo != hi else f"{lo}"
    return text if lo == hi else f"{text} ({lo}–{hi})"


def report(runs: Sequence[Run], peaks: dict[tuple[str, int, str], float]) -> str:
    """Markdown: one table per method, one row per field and sizes, R = 6 and R = 10 side by
    side (E over the seeds: mean (min–max); spread: the largest over the seeds)."""
    lines = []
    rounds = sorted({r.rounds for r in runs})
    for method in METHODS:
        mine = [r for r in runs if r.method == method]
        if not mine:
            continue
        lines.append(f"### {method}\n")
        head = "| N | sizes |"
        rule = "|---:|---|"
        for r in rounds:
            head += f" M (R={r}) | LB | E | E/M | spread | ms p50 | ms max |"
            rule += "---:|---:|---:|---:|---:|---:|---:|"
        head += " peak MiB |"
        rule += "---:|"
        lines += [head, rule]
        fields = sorted(
            {(r.players, r.sizes) for r in mine}, key=lambda k: (k[0], list(SIZES).index(k[1]))
        )
        for n, sizes in fields:
            row = f"| {n} | {SIZE_LABELS[sizes]} |"
            for r in rounds:
                cell = [x for x in mine if x.players == n and x.sizes == sizes and x.rounds == r]
                if not cell:
                    row += " | | | | | | |"
                    continue
                es = [x.excess for x in cell]
                ms = [m for x in cell for m in x.ms]
                m_pairs = cell[0].pairs
                row += (
                    f" {m_pairs} | {cell[0].bound} | {_fmt_e(es)} |"
                    f" {statistics.fmean(es) / m_pairs:.3f} | {max(x.spread for x in cell)} |"
                    f" {statistics.median(ms):.1f} | {max(ms):.1f} |"
                )
            peak = peaks.get((method, n, sizes))
            row += f" {peak:.1f} |" if peak is not None else " |"
            lines.append(row)
        lines.append("")
    return "\n".join(lines)


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.seating",
        description="Benchmark of tournaments/seating/ against issue #5's targets.",
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: a few fields, seed 0")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--players", help="comma-separated N (default: the grid)")
    parser.add_argument("--rounds", help="comma-separated R (default 6,10)")
    parser.add_argument("--sizes", help=f"comma-separated of {', '.join(SIZES)}")
    parser.add_argument("--seeds", help="comma-separated seeds (default 0-4)")
    parser.add_argument("--methods", help=f"comma-separated of {', '.join(METHODS)}")
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs")
    parser.add_argument(
        "--no-swiss-plans", action="store_true", help="skip the dry-run swiss plans"
    )
    parser.add_argument("--json", type=Path, help="also write every run and verdict here")
    args = parser.parse_args(argv)

    def ints(text: str | None, default: Sequence[int]) -> list[int]:
        return [int(x) for x in text.split(",")] if text else list(default)

    quick = args.quick
    args.players = ints(args.players, (13, 16, 2000) if quick else PLAYERS)
    args.rounds = ints(args.rounds, ROUNDS)
    args.seeds = ints(args.seeds, (0,) if quick else SEEDS)
    args.sizes = args.sizes.split(",") if args.sizes else list(SIZES)
    args.methods = args.methods.split(",") if args.methods else list(METHODS)
    for name in args.sizes:
        if name not in SIZES:
            parser.error(f"unknown sizes {name!r}")
    for name in args.methods:
        if name not in METHODS:
            parser.error(f"unknown method {name!r}")
    return args


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    args = arguments(argv)
    started = time.perf_counter()
    runs: list[Run] = []
    for method in args.methods:
        for n in args.players:
            for sizes in args.sizes:
                for seed in args.seeds:
                    runs += _measure(method, n, sizes, args.rounds, seed)
    peaks: dict[tuple[str, int, str], float] = {}
    if not args.no_memory:
        for method in args.methods:
            for n in args.players:
                for sizes in args.sizes:
                    peaks[(method, n, sizes)] = _peak_mib(method, n, sizes, max(args.rounds))
    verdicts = check_targets(runs)
    plans = _swiss_plans() if "swiss" in args.methods and not args.no_swiss_plans else []
    if plans:
        verdicts.append(check_swiss_plans(plans))
    out(f"Seating benchmark: {_machine()}")
    out(f"Command: python -m bench.seating {' '.join(argv if argv is not None else sys.argv[1:])}")
    out(f"Wall time {time.perf_counter() - started:.0f} s\n")
    out(report(runs, peaks))
    if plans:
        out(swiss_plans_report(plans))
    for v in verdicts:
        note = f" [{v.note}]" if v.note else ""
        out(f"{v.status} {v.target}: {v.checked} checked, {len(v.failed)} failed{note}")
        for failure in v.failed[:20]:
            out(f"    {failure}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "runs": [asdict(r) for r in runs],
                    "peaks": [
                        {"method": m, "players": n, "sizes": s, "mib": v}
                        for (m, n, s), v in peaks.items()
                    ],
                    "verdicts": [
                        {
                            "target": v.target,
                            "status": v.status,
                            "checked": v.checked,
                            "failed": v.failed,
                        }
                        for v in verdicts
                    ],
                },
                indent=1,
            )
        )
    if args.check and any(v.status == "FAIL" for v in verdicts):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
