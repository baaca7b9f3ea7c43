"""Where the time of recording a hand through the API goes: SQL queries and Python profile.

    .venv/bin/python bench/profile_hand.py              # queries of one request, timings
    .venv/bin/python bench/profile_hand.py --cprofile   # also the top functions (cProfile)
    .venv/bin/python bench/profile_hand.py --ref HEAD   # a commit rather than the working tree

In one process, without gunicorn or sockets, on the scratch database ``tabletally_bench_profile``
(PostgreSQL at 127.0.0.1:5432, created, migrated and dropped at the end): the same two requests
as ``bench/entry.py`` (``POST /api/v1/games/{id}/hands/`` and the bare ``POST /bench/bare/``,
both with the first seat's key, ``Authorization: Seat <key>``: a table key alone only reads)
through Django's test client, with ``DEBUG=false``.
It prints the SQL queries of one request of each (from ``CaptureQueriesContext``), the mean
time of a request, how that time grows with the number of hands already in the game, and,
with ``--cprofile``, the functions that take the time.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.entry import (  # noqa: E402
    GAME_BODY,
    HAND_BODY,
    database_create,
    database_drop,
    manage,
    server_environment,
    snapshot_export,
)

DB_NAME = "tabletally_bench_profile"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cprofile", action="store_true", help="print the top functions")
    parser.add_argument("--requests", type=int, default=300, help="timed requests per endpoint")
    parser.add_argument("--ref", help="profile this commit (exported), not the working tree")
    args = parser.parse_args()
    if args.ref:  # run this script again from the exported tree
        with tempfile.TemporaryDirectory(prefix="tabletally-profile-") as scratch:
            print(f"profiling {snapshot_export(args.ref, Path(scratch))}", flush=True)
            again = [a for a in sys.argv[1:] if a != args.ref and not a.startswith("--ref")]
            script = Path(scratch) / "bench" / "profile_hand.py"
            return subprocess.run([sys.executable, str(script), *again], check=False).returncode
    env = server_environment(DB_NAME)
    try:
        database_create(DB_NAME)
        manage(env, "migrate", "--noinput")
        os.environ.update(env)
        return profile(args)
    finally:
        from django.db import connections

        connections.close_all()
        database_drop(DB_NAME)


def profile(args: argparse.Namespace) -> int:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from scoring import services

    user = get_user_model().objects.create_user("bench", password=None)
    client = Client(HTTP_HOST="127.0.0.1")  # ALLOWED_HOSTS has no "testserver"
    counter = iter(range(10**9))
    # Each game's first seat key, read when the game starts (never inside a measured request).
    seat_keys: dict[int, str] = {}

    def new_game():
        game, _ = services.game_start(
            kind=GAME_BODY["game"],
            players=[p["name"] for p in GAME_BODY["players"]],
            stake=GAME_BODY["stake"],
            created_by=user,
        )
        seat_keys[game.pk] = game.seats.get(position=0).seat_key
        return game

    numbers: dict[int, int] = {}  # the hands sent to each game so far

    def post(game, path: str) -> int:
        number = numbers.get(game.pk, 0) + 1
        if path.endswith("/hands/"):  # the bare endpoint records no hand
            numbers[game.pk] = number
        response = client.post(
            path,
            json.dumps({"number": number, **HAND_BODY}),
            content_type="application/json",
            headers={
                "Authorization": f"Seat {seat_keys[game.pk]}",
                "Idempotency-Key": f"profile-{next(counter)}",
            },
        )
        assert response.status_code == 201, response.content
        return response.status_code

    def hand(game) -> int:
        return post(game, f"/api/v1/games/{game.pk}/hands/")

    def bare(game) -> int:
        return post(game, "/bench/bare/")

    game = new_game()
    for _ in range(5):  # warm: imports, URL resolver, connection
        hand(game)
        bare(game)

    for name, fn in (("hand", hand), ("bare", bare)):
        timings: list[float] = []

        def timed(execute, sql, params, many, context, timings=timings):
            start = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                timings.append(time.perf_counter() - start)

        with CaptureQueriesContext(connection) as captured, connection.execute_wrapper(timed):
            start = time.perf_counter()
            fn(game)
            elapsed = time.perf_counter() - start
        # BEGIN and COMMIT are captured but do not pass through the execute wrapper.
        print(
            f"\n## {name}: {len(captured)} queries, {sum(timings) * 1000:.2f} ms waiting on them "
            f"({len(timings)} timed), {elapsed * 1000:.2f} ms for the request\n"
        )
        times = iter(timings)
        for i, q in enumerate(captured.captured_queries, 1):
            sql = q["sql"] if len(q["sql"]) < 200 else q["sql"][:197] + "..."
            ms = "" if sql in ("BEGIN", "COMMIT") else f"{next(times) * 1000:.2f} ms"
            print(f"{i:2}. [{ms:>8}] {sql}")

    print("\n## mean time of one request (in process, no HTTP)\n")
    for name, fn in (("hand", hand), ("bare", bare)):
        games = [new_game() for _ in range(args.requests)]
        start = time.perf_counter()
        for g in games:  # a fresh game each: the first hand of a game
            fn(g)
        elapsed = (time.perf_counter() - start) / len(games)
        print(f"- {name}: {elapsed * 1000:.2f} ms")

    print("\n## hand: time of one request by hands already in the game\n")
    game = new_game()
    done = 0
    for size in (0, 10, 50, 100, 200, 400):
        while done < size:
            hand(game)
            done += 1
        start = time.perf_counter()
        for _ in range(20):
            hand(game)
        done += 20
        print(f"- {size:3} hands before: {(time.perf_counter() - start) / 20 * 1000:.2f} ms")

    print("\n## one query: the ORM against the same SQL on a cursor (mean of 500)\n")
    from scoring.models import Game

    pk = game.pk
    sql = str(Game.objects.filter(pk=pk).query)

    def orm_get() -> object:
        return Game.objects.get(pk=pk)

    def cursor_fetch() -> object:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchone()

    def cursor_trivial() -> object:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone()

    for label, fn in (
        ("Game.objects.get(pk=...)", orm_get),
        ("the same SELECT on a cursor", cursor_fetch),
        ("SELECT 1 on a cursor (the round trip)", cursor_trivial),
    ):
        start = time.perf_counter()
        for _ in range(500):
            fn()
        print(f"- {label}: {(time.perf_counter() - start) / 500 * 1000:.3f} ms")

    print("\n## hand: where the time of one request goes (mean, fresh games)\n")
    steps = step_timers()
    games = [new_game() for _ in range(args.requests)]
    start = time.perf_counter()
    for g in games:
        hand(g)
    elapsed = (time.perf_counter() - start) / len(games)
    steps.restore()
    for name, (calls, seconds) in steps.totals.items():
        if calls:
            mean = seconds / len(games) * 1000
            print(f"- {name}: {mean:.2f} ms ({calls / len(games):g} calls)")
    print(f"- the whole request (test client included): {elapsed * 1000:.2f} ms")

    if args.cprofile:
        games = [new_game() for _ in range(args.requests)]
        profiler = cProfile.Profile()
        profiler.enable()
        for g in games:
            hand(g)
        profiler.disable()
        print(f"\n## cProfile: {args.requests} hands, one per fresh game\n")
        stats = pstats.Stats(profiler).strip_dirs().sort_stats("cumulative")
        stats.print_stats(
            r"\((post|dispatch|initial|authenticate|perform_authentication|"
            r"game_for|hand_record|to_representation|hand_scores|_replayed|_locked|"
            r"engine_of|_current|_next_revision|_write_hand|_seats|read_hand|"
            r"score_hand|save|render|rendered_content|_fetch_all|"
            r"execute_sql|as_sql|execute)\)"
        )
        stats.sort_stats("tottime").print_stats(15)
    return 0


class StepTimers:
    """Wraps functions (module, attribute name) with timers; ``restore()`` unwraps them."""

    def __init__(self) -> None:
        self.totals: dict[str, tuple[int, float]] = {}
        self.patched: list[tuple[object, str, object]] = []

    def wrap(self, owner: object, name: str, label: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        self.totals[label] = (0, 0.0)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                calls, seconds = self.totals[label]
                self.totals[label] = (calls + 1, seconds + time.perf_counter() - start)

        self.patched.append((owner, name, original))
        setattr(owner, name, timed)

    def restore(self) -> None:
        for owner, name, original in reversed(self.patched):
            setattr(owner, name, original)


def step_timers() -> StepTimers:
    """Timers on the steps of ``POST .../hands/``, outermost first (nested steps are part of
    the step that calls them)."""
    from scoring import api_auth, api_hands, services
    from scoring.services import hands

    steps = StepTimers()
    steps.wrap(api_auth.SeatKeyAuthentication, "authenticate", "seat key authentication")
    steps.wrap(api_hands, "game_for", "api: game_for (the game, again)")
    steps.wrap(services, "hand_record", "services.hand_record (transaction included)")
    from scoring import ledger

    # hand_record (scoring.services.hands) calls these through its own imports of them, and
    # through the ledger module (its attributes, read at each call).
    for name in ("replayed_hand", "engine_of"):
        steps.wrap(hands, name, f"  hand_record: {name}")
    steps.wrap(ledger, "open_game", "  hand_record: ledger.open_game (the game's row, locked)")
    steps.wrap(hands, "write_revision", "  hand_record: write_revision (hand, lines, books)")
    from scoring.services import seam

    steps.wrap(seam, "_deliver", "  hand_record: the listeners, after commit (tournaments' seam)")
    from tonkrules import tonk

    for name in ("read_hand", "score_hand"):
        if hasattr(tonk, "Tonk"):
            steps.wrap(tonk.Tonk, name, f"  hand_record: rules engine {name}")
    steps.wrap(api_hands.HandOut, "to_representation", "api: HandOut (the answer)")
    return steps


if __name__ == "__main__":
    sys.exit(main())
