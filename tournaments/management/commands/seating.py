"""``manage.py seating plan``: seat a made-up field for some rounds and say how good it is.

    manage.py seating plan --players 13 --sizes 3-4 --rounds 6
    manage.py seating plan --players 16 --sizes 4 --rounds 5 --method plan --json

Players are numbered 1..N. A dry run has no results, so ``swiss`` uses the players' numbers as
the standings (1 on top) in every round, and looks ahead over every round of the plan. With
``--json``, ``proven`` says per round whether its repeats are proven the fewest (swiss; null for
the other methods). The seating itself is ``tournaments.seating``.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.messages import error_message
from tournaments import seating

SIZE_RANGE = (2, 5)


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"3-5"`` -> (3, 4, 5); ``"4"`` -> (4,); ``"2,3"`` -> (2, 3); ``"2-3,5"`` -> (2, 3, 5).

    Raises CommandError for anything else, or a size outside 2 to 5.
    """
    sizes: set[int] = set()
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            first, last = int(lo), int(hi) if hi else int(lo)
            if first > last:
                raise ValueError(part)
            sizes.update(range(first, last + 1))
    except ValueError:
        raise CommandError(
            f"--sizes {text!r}: give a size (4), a range (3-5) or a list (2,3)"
        ) from None
    outside = sorted(s for s in sizes if not SIZE_RANGE[0] <= s <= SIZE_RANGE[1])
    if outside:
        raise CommandError(
            f"--sizes {text!r}: tables seat {SIZE_RANGE[0]} to {SIZE_RANGE[1]} players, "
            f"not {', '.join(map(str, outside))}"
        )
    return tuple(sorted(sizes))


class Command(BaseCommand):
    help = "Seating: plan rounds for N made-up players and print E, LB and the time per round."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        plan = actions.add_parser(
            "plan",
            help="seat players 1..N for some rounds",
            description="Seat players 1..N for some rounds; print the tables, E, LB and ms.",
        )
        plan.add_argument("--players", type=int, required=True, help="N, the number of players")
        plan.add_argument(
            "--sizes", required=True, help="allowed table sizes: 4, 3-5 or 2,3 (2 to 5)"
        )
        plan.add_argument(
            "--prefer", type=int, help="preferred table size (default 4 if allowed, else largest)"
        )
        plan.add_argument("--rounds", type=int, required=True, help="R, the number of rounds")
        plan.add_argument(
            "--method", choices=seating.METHODS, default="balanced", help="default: balanced"
        )
        plan.add_argument("--seed", type=int, default=0, help="same seed, same plan (default 0)")
        plan.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        sizes = parse_sizes(options["sizes"])
        prefer = options["prefer"]
        if prefer is not None and prefer not in sizes:
            raise CommandError(f"--prefer {prefer} is not one of the sizes {list(sizes)}")
        if options["players"] < 1:
            raise CommandError(f"--players {options['players']}: at least 1 player")
        try:
            plan = seating.plan_rounds(
                range(1, options["players"] + 1),
                options["rounds"],
                sizes=sizes,
                prefer=prefer,
                method=options["method"],
                seed=options["seed"],
            )
        except seating.SeatingError as error:
            raise CommandError(error_message(error)) from error
        ms = [round(1000 * s, 3) for s in plan.seconds]
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "rounds": [[list(t.players) for t in r.tables] for r in plan.rounds],
                        "sit_outs": [list(r.sit_outs) for r in plan.rounds],
                        "excess": plan.excess,
                        "bound": plan.bound,
                        "ms_per_round": ms,
                        "proven": [r.proven for r in plan.rounds],
                    }
                )
            )
            return
        for number, (seated, took) in enumerate(zip(plan.rounds, ms, strict=True), start=1):
            tables = "  |  ".join(" ".join(map(str, t.players)) for t in seated.tables)
            out = f"  (sits out: {' '.join(map(str, seated.sit_outs))})" if seated.sit_outs else ""
            self.stdout.write(f"Round {number}: {tables}{out}  [{took:.1f} ms]")
        self.stdout.write(
            f"E = {plan.excess} meetings beyond the first (LB = {plan.bound}; "
            f"{plan.pairs} pairs seated together); opponents faced spread {plan.spread}; "
            f"method {plan.method}, seed {options['seed']}; "
            f"ms per round: {', '.join(f'{m:.1f}' for m in ms)}"
        )
        unproven = [str(i) for i, r in enumerate(plan.rounds, start=1) if r.proven is False]
        if unproven:
            self.stdout.write(
                f"Swiss: the fewest repeats is not proven for round {', '.join(unproven)} "
                "(the search stopped at its limit; fewer may exist)."
            )
        self.stdout.write("The first player listed at each table deals first.")
