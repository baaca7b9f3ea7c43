"""Benchmark of the rules engine: the real games of the acceptance cases, scored end to end,
and a Rook round-10 contract check (four runs, 16 cards, two Rooks).

    .venv/bin/python bench/engine.py            # prints a Markdown table
    .venv/bin/python bench/engine.py --check    # also exits 1 when a target is missed

Targets (issue #2): ≤ 20 ms for a whole 25-hand Bluke game with trick-by-trick play, ≤ 1 ms
for the Rook contract check. Each figure is the median of repeated runs (min in brackets), on
one core, with the sheet already parsed from JSON (the engine's own work). Record the figures
in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tonkrules import RookCard, find_game  # noqa: E402
from tonkrules.melds import read_meld  # noqa: E402
from tonkrules.rook import CONTRACTS, ContractMode, verify_contract  # noqa: E402
from tonkrules.sheet import score_sheet  # noqa: E402

REAL_GAMES = ROOT / "tests" / "golden" / "real-games"
BLUKE_TARGET_MS = 20.0
ROOK_CONTRACT_TARGET_MS = 1.0

ROUND_10 = {
    "round": 10,
    "dealer": "Cy",
    "out": "Ana",
    "melds": {
        "Ana": [
            ["R1", "R2", "ROOK", "R4"],
            ["Y5", "Y6", "Y7", "Y8"],
            ["G11", "G9", "ROOK", "G12"],
            ["B14", "B11", "B12", "B13"],
        ]
    },
    "discard": "R9",
    "held": {"Ben": "B13 ROOK", "Cy": "Y4 G8", "Dee": "R14"},
}
PLAYERS = ["Ana", "Ben", "Cy", "Dee"]


def timed(fn: Callable[[], object], *, repeat: int, number: int) -> tuple[float, float]:
    """(median, min) milliseconds per call."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) * 1000 / number)
    return statistics.median(runs), min(runs)


def rook_contract_check() -> None:
    """Read the four melds (placing the two Rooks) and check them against round 10's contract."""
    melds = [[RookCard.parse(t) for t in m] for m in ROUND_10["melds"]["Ana"]]  # type: ignore[index]
    readings = [read_meld(m) for m in melds]
    verify_contract(readings, CONTRACTS[10], ContractMode.EXACT, player="Ana")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()

    rows: list[tuple[str, str, float, float, str]] = []
    missed = []
    for path in sorted(REAL_GAMES.glob("*.json")):
        sheet = json.loads(path.read_text(encoding="utf-8"))["sheet"]
        hands = len(sheet["hands"])
        played = sum("play" in h for h in sheet["hands"])
        med, low = timed(lambda s=sheet: score_sheet(s), repeat=args.repeat, number=5)
        what = f"{sheet['game']}, {len(sheet['players'])} players, {hands} hands" + (
            f", {played} played trick by trick" if played else ""
        )
        target = ""
        if sheet["game"] == "bluke" and played == hands == 25:
            target = f"≤ {BLUKE_TARGET_MS:g} ms"
            if med > BLUKE_TARGET_MS:
                missed.append(path.name)
        rows.append((path.stem, what, med, low, target))

    med, low = timed(rook_contract_check, repeat=args.repeat, number=200)
    rows.append(
        (
            "rook round-10 contract check",
            "four runs, 16 cards, two Rooks",
            med,
            low,
            f"≤ {ROOK_CONTRACT_TARGET_MS:g} ms",
        )
    )
    if med > ROOK_CONTRACT_TARGET_MS:
        missed.append("rook contract")
    rook = find_game("rook")
    opts = rook.options()
    med, low = timed(
        lambda: rook.score_hand(
            rook.read_hand(ROUND_10, players=PLAYERS, options=opts, previous=9),
            players=PLAYERS,
            options=opts,
        ),
        repeat=args.repeat,
        number=200,
    )
    rows.append(
        ("rook round-10, whole round", "every check of the round, then its points", med, low, "")
    )

    print(f"Python {platform.python_version()} on {platform.machine()}, {platform.system()}")
    print()
    print("| benchmark | what | median ms | (min ms) | target |")
    print("|---|---|---:|---:|---|")
    for name, what, med, low, target in rows:
        print(f"| {name} | {what} | {med:.3f} | ({low:.3f}) | {target} |")
    if missed:
        print(f"\nmissed targets: {', '.join(missed)}")
    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
