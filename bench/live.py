"""Benchmark of the table's live poll (issue 14, "Caches and ETags"): what a ``/t/<key>/live/``
request costs, answered 304 (nothing changed) and 200 (rendered), on SQLite.

    .venv/bin/python -m bench.live                  # Markdown report
    .venv/bin/python -m bench.live --runs 200       # more requests per measure

Every phone at every table polls the live region every 3 s (``scoring.pages.POLL_SECONDS``):
a club of 30 tables of 4 phones is 40 polls a second, so the 304 is what counts.

What it does, on a scratch SQLite file in a temporary directory (removed at the end; no other
database is touched): sets Django up in this process on it (``config.settings`` with
``DATABASE_URL``, ``DEBUG=false``), migrates it, and writes through the services

* **Tonk of 3, 20 hands**: a casual Tonk game at stakes, 20 hands entered; the poll of a phone
  that chose a seat (its session), and
* **tournament table**: the same, seated as table 1 of a playing round of a Tonk tournament
  (a directed game); the poll of the club's director, signed in.

For each, through Django's test client: after ``--warmup`` requests, ``--runs`` requests
asked with the ETag the poll answered ("304") and as many without ("200"); the CPU time of
this process per request (``time.process_time``: SQLite runs in this process, so the
database's work is in it) and the wall time, medians and 95th percentiles, and the queries
of one request. Record the figures in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

WARMUP = 10


def django_setup(path: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", "bench-live-not-secret")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def tonk_game(club: Any, hands: int) -> Any:
    from scoring import services
    from scoring.permissions import Actor

    names = ["Ana", "Ben", "Cy"]
    game, _ = services.game_start(
        kind="tonk", players=names, stake="0.25", currency="USD", club=club
    )
    seats = {s.name: s.pk for s in game.seats.all()}
    for i in range(hands):
        dealer, by = names[i % 3], names[(i + 1) % 3]
        entry = {"dealer": dealer, "end": "tonk_out", "by": by, "held": {}}
        services.hand_record(game=game, entry=entry, by=Actor(seat_id=seats[dealer]))
    return game


def cases(hands: int) -> dict[str, tuple[Any, Callable[[], Any]]]:
    """The games and, for each, a factory of the client that polls it."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from scoring.models import Game
    from tournaments.models import Club, Membership, Round, Table, Tournament

    club = Club.objects.create(name="Bench club")
    director = get_user_model().objects.create_user("director")
    Membership.objects.create(club=club, user=director, role=Membership.Role.DIRECTOR)

    casual = tonk_game(club, hands)

    def phone() -> Any:
        client = Client(HTTP_HOST="localhost")
        session = client.session
        session["seats"] = {str(casual.pk): casual.seats.get(position=1).pk}
        session.save()
        return client

    seated = tonk_game(club, hands)
    tournament = Tournament.objects.create(
        club=club,
        name="Friday Tonk",
        kind="tonk",
        round_count=4,
        sizes=[3],
        prefer=3,
        hands_per_round=hands,
        time_zone="Europe/Paris",
    )
    rnd = Round.objects.create(tournament=tournament, number=1, state=Round.State.PLAYING)
    Game.objects.filter(pk=seated.pk).update(directed=True)
    Table.objects.create(round=rnd, number=1, game=seated)

    def director_client() -> Any:
        client = Client(HTTP_HOST="localhost")
        client.force_login(director)
        return client

    return {
        f"Tonk of 3, {hands} hands (a seated phone)": (casual, phone),
        f"tournament table, {hands} hands (the director)": (seated, director_client),
    }


def measure(request: Callable[[], Any], status: int, runs: int) -> tuple[list[float], list[float]]:
    """CPU and wall ms of ``runs`` calls of ``request`` (each must answer ``status``)."""
    for _ in range(WARMUP):
        assert request().status_code == status
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(runs):
        c0, w0 = time.process_time(), time.perf_counter()
        response = request()
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
        assert response.status_code == status, response.status_code
    return cpu, wall


def p95(values: Sequence[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def queries_of(request: Callable[[], Any]) -> int:
    """How many SQL statements one call of ``request`` runs."""
    from django.db import connection

    statements: list[str] = []

    def count(execute: Any, sql: str, *rest: Any) -> Any:
        statements.append(sql)
        return execute(sql, *rest)

    with connection.execute_wrapper(count):
        request()
    return len(statements)


def rows(name: str, game: Any, client: Any, runs: int) -> list[str]:
    """The report's rows of one case: its poll answered 304, then 200."""
    from django.urls import reverse

    url = reverse("scoring:live", args=[game.table_key])
    first = client.get(url)
    assert first.status_code == 200, first.status_code
    etag = first["ETag"]
    asks: dict[str, tuple[Callable[[], Any], int]] = {
        "304": (lambda: client.get(url, HTTP_IF_NONE_MATCH=etag), 304),
        "200": (lambda: client.get(url), 200),
    }
    lines = []
    for answer, (ask, status) in asks.items():
        count = queries_of(ask)
        cpu, wall = measure(ask, status, runs)
        lines.append(
            f"| {name} | {answer} | {statistics.median(cpu):.2f} | {p95(cpu):.2f} | "
            f"{statistics.median(wall):.2f} | {p95(wall):.2f} | {count} |"
        )
    return lines


def run(runs: int, hands: int) -> str:
    lines = [
        "| case | answer | CPU p50 ms | CPU p95 ms | wall p50 ms | wall p95 ms | queries |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, (game, make_client) in cases(hands).items():
        lines.extend(rows(name, game, make_client(), runs))
    load = os.getloadavg()
    lines.append("")
    lines.append(
        f"Python {sys.version.split()[0]}, SQLite, {runs} requests per row after {WARMUP}; "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores."
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--hands", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-live-") as scratch:
        django_setup(Path(scratch) / "bench.sqlite3")
        print(run(args.runs, args.hands))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
