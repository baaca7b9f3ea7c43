"""Benchmark of big rounds (issue 13): a round of 500 tables (2,000 players at tables of 4) and
one of 100 tables (400 players) seated, published and closed through the API of a real gunicorn,
the seating run by a real Celery worker on Redis, on PostgreSQL.

    .venv/bin/python -m bench.rounds             # full run (a few minutes); a Markdown report
    .venv/bin/python -m bench.rounds --check     # also exits 1 when a target is missed
    .venv/bin/python -m bench.rounds --quick     # smoke run: one run of each case

What it does, always on the scratch database ``tabletally_bench_rounds`` (dropped first and
dropped again at the end, whatever happens; no other database is touched):

1. creates the database on PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth), sets
   Django up in this process on it (to write the starting point only: a club, its director
   with a DRF token, 2,000 club players) and migrates it;
2. starts a real ``celery -A config worker`` (solo pool, as ``tests/services.py`` starts one)
   and gunicorn (``config.wsgi``, ``sync:2`` as ``bench/entry.py``), both with
   ``DJANGO_SETTINGS_MODULE=bench.settings``, ``DEBUG=false``, ``CONN_MAX_AGE`` 60, the broker
   ``--broker-url`` (Redis; default ``redis://127.0.0.1:6379/14``) and a Celery queue of this
   run's own (``bench-rounds-<pid>-<random>``, removed at the end), so that no other worker on
   the same Redis takes its tasks and this worker takes no one else's;
3. for each run (``--runs``, default 3) and each case (500 tables, then 100 tables): creates a
   Rook tournament of that many of the club's players (tables of exactly 4, one hand a round,
   written in this process: the tournament through ``tournaments.services``, the
   registrations with one ``bulk_create``), then, through the API with the director's token,
   for round 1 and round 2 (seated on round 1's history; standings of a round where nobody
   played):

   * **seat**: ``POST /api/v1/tournaments/{id}/rounds/`` (202, the round ``planned``), then
     ``GET /api/v1/tournaments/{id}/rounds/{n}/`` every 50 ms until the API reports
     ``seated``: from the POST sent to that GET's answer read (so the worker's seating and
     the GET that renders every table are in it);
   * **publish**: ``POST .../rounds/{n}/publish/``, until its answer (``published``, with every
     table) is read;
   * **close**: ``POST .../rounds/{n}/close/`` with no hand entered (every table not played),
     until its answer (``complete``) is read;

   every answer is checked (its status, the state, the number of tables and seats);
4. prints a Markdown report: the machine, the commit, the load, and each step's median, min and
   max over the runs, with the targets (issue 13: each step of the 500-table round at most
   2 s; the 100-table round held to the same), then stops gunicorn and the worker and drops the
   scratch database.

Options: ``--runs N`` (3), ``--quick`` (1 run), ``--check``, ``--db-name NAME`` (must start with
``tabletally_bench``), ``--broker-url URL``. Record the figures in bench/RESULTS.md.

The script stays one module: it is run as one file, and its parts (the processes it starts, the
API client, the measurements, the report) serve only this measurement.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import platform
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.entry import (  # noqa: E402
    VENV_BIN,
    CpuMeter,
    Server,
    ServerSpec,
    database_create,
    database_drop,
    database_url,
    server_environment,
)

TARGET_SECONDS = 2.0
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/14"
TABLE_SIZE = 4
CASES = (500, 100)  # tables
POLL_SECONDS = 0.05
WAIT_SECONDS = 120.0  # a step that takes longer is a failure, not a figure
STEPS = ("seat", "publish", "close")
#: The worker's log line of a seating task done: ``Task tournaments.tasks.round_seat[…]
#: succeeded in 0.84s: None``.
SEATING_DONE = re.compile(r"Task tournaments\.tasks\.round_seat\[[^\]]+\] succeeded in ([\d.]+)s")


def log(message: str) -> None:
    print(f"[bench.rounds] {message}", file=sys.stderr, flush=True)


# --- the starting point, written in this process ------------------------------------------------


def django_setup(db_name: str) -> None:
    """Set Django up in this process on the scratch database, and migrate it (no broker: this
    process writes the starting point only, and asks nothing of the background)."""
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url(db_name),
        CONN_MAX_AGE="60",
        DEBUG="false",
        SECRET_KEY="bench-" + secrets.token_urlsafe(40),
        CELERY_BROKER_URL="",
        CACHE_URL="",
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)


@dataclass
class Club:
    """The club of the run: its director's token and its players' ids."""

    pk: int
    director: Any
    token: str
    players: list[int]


def club_create(players: int) -> Club:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from tournaments.models import Club as ClubRow
    from tournaments.models import Membership, Player

    club = ClubRow.objects.create(name="Bench rounds club")
    user = get_user_model().objects.create_user("bench-director", password=None)
    Membership.objects.create(club=club, user=user, role=Membership.Role.DIRECTOR)
    rows = Player.objects.bulk_create(
        Player(club=club, name=f"Player {i:04d}") for i in range(players)
    )
    return Club(club.pk, user, Token.objects.create(user=user).key, [p.pk for p in rows])


def tournament_create(club: Club, tables: int, run: int) -> int:
    """A Rook tournament of ``tables`` × 4 of the club's players (tables of exactly 4, one hand
    a round); returns its id."""
    from tournaments import services
    from tournaments.models import Club as ClubRow
    from tournaments.models import Registration

    tournament, _created = services.tournament_create(
        club=ClubRow.objects.get(pk=club.pk),
        created_by=club.director,
        name=f"Bench {tables} tables, run {run}",
        kind="rook",
        rounds=3,
        sizes=[TABLE_SIZE],
        prefer=TABLE_SIZE,
        seed=run,
    )
    Registration.objects.bulk_create(
        Registration(tournament=tournament, player_id=p)
        for p in club.players[: tables * TABLE_SIZE]
    )
    return int(tournament.pk)


# --- the worker --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Worker:
    """The running worker: its process (solo pool: it runs the tasks itself) and its log."""

    pid: int
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def cpu_seconds(self) -> float:
        """The CPU time the worker has used so far (utime + stime, from /proc)."""
        stat = Path(f"/proc/{self.pid}/stat").read_bytes()
        fields = stat[stat.rindex(b")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) / CpuMeter.TICK


@contextlib.contextmanager
def worker_running(env: dict[str, str]) -> Iterator[Worker]:
    """A real ``celery -A config worker`` (solo pool: one process) on ``env``."""
    with tempfile.NamedTemporaryFile(
        prefix="tabletally-bench-worker-", suffix=".log", delete=False
    ) as file:
        log_path = Path(file.name)
    command = [
        str(VENV_BIN / "celery"),
        "-A",
        "config",
        "worker",
        "--pool=solo",
        "--concurrency=1",
        "-l",
        "info",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-n",
        f"bench-rounds-{os.getpid()}@%h",
    ]
    with log_path.open("wb") as out:
        worker = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while " ready." not in log_path.read_text(errors="replace"):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "the celery worker did not get ready:\n"
                    + log_path.read_text(errors="replace")[-3000:]
                )
            time.sleep(0.1)
        yield Worker(worker.pid, log_path)
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        log_path.unlink(missing_ok=True)


def queue_drop(broker_url: str, queue: str) -> None:
    """Remove this run's queue from Redis: its messages (none when all went well) and the
    bindings kombu keeps for it."""
    import redis

    with contextlib.suppress(redis.RedisError):
        redis.Redis.from_url(broker_url, socket_connect_timeout=2, socket_timeout=2).delete(
            queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}"
        )


# --- the API client ----------------------------------------------------------------------------


class Api:
    """The director's calls to the tournaments API of the gunicorn on ``port``."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.token = token

    def call(self, method: str, path: str) -> tuple[int, Any]:
        """One request (a new connection: gunicorn's sync workers close it after each
        answer); the status and the JSON body read."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT_SECONDS)
        try:
            connection.request(
                method,
                path,
                headers={"Authorization": f"Token {self.token}", "Accept": "application/json"},
            )
            answer = connection.getresponse()
            body = answer.read()
        finally:
            connection.close()
        try:
            return answer.status, json.loads(body)
        except ValueError:
            return answer.status, body[:500]


def _expect(status: int, body: Any, wanted: int, what: str) -> dict[str, Any]:
    if status != wanted or not isinstance(body, dict):
        raise RuntimeError(f"{what}: answered {status}, not {wanted}: {str(body)[:500]}")
    return body


def _check_round(body: dict[str, Any], state: str, tables: int, what: str) -> None:
    if body.get("state") != state:
        raise RuntimeError(f"{what}: the round is {body.get('state')!r}, not {state!r}")
    seats = [len(t["seats"]) for t in body["tables"]]
    if len(seats) != tables or set(seats) != {TABLE_SIZE}:
        raise RuntimeError(f"{what}: {len(seats)} tables of {sorted(set(seats))} seats")


@dataclass
class Servers:
    """What a step is measured against: the API, the worker, gunicorn's session and the
    scratch database (whose backends' CPU counts)."""

    api: Api
    worker: Worker
    session: int
    db_name: str
    worker_tasks: int = 0  # seating tasks the worker has logged as done


@contextlib.contextmanager
def measured(servers: Servers, out: dict[str, float], step: str) -> Iterator[None]:
    """Time the block into ``out[step]``, with the CPU seconds gunicorn, the worker and the
    PostgreSQL backends spent meanwhile (``out[step + " cpu"]``) and the cores the rest of the
    machine used on average (``out[step + " other"]``: how much the figure was disturbed)."""
    meter = CpuMeter(servers.session, servers.db_name)
    worker = servers.worker.cpu_seconds()
    started = time.perf_counter()
    yield
    wall = time.perf_counter() - started
    use = meter.read()
    out[step] = wall
    own = (use.gunicorn or 0.0) + (use.postgres or 0.0)
    out[f"{step} cpu"] = own * wall + servers.worker.cpu_seconds() - worker
    if use.machine is not None:
        out[f"{step} other"] = max(0.0, use.machine - use.client - out[f"{step} cpu"] / wall)


def round_played(servers: Servers, tournament: int, number: int, tables: int) -> dict[str, float]:
    """Seat, publish and close round ``number`` through the API: seconds of each step (and
    its CPU, :func:`measured`), and of the seating task in the worker (``task``, from its
    log)."""
    api = servers.api
    base = f"/api/v1/tournaments/{tournament}/rounds/"
    out: dict[str, float] = {}
    with measured(servers, out, "seat"):
        started = time.perf_counter()
        body = _expect(*api.call("POST", base), 202, "seat")
        if body["number"] != number:
            raise RuntimeError(f"seat: round {body['number']} asked, not {number}")
        while True:
            body = _expect(*api.call("GET", f"{base}{number}/"), 200, "round")
            if body["state"] not in ("planned", "seated"):
                raise RuntimeError(f"seat: the round is {body['state']}: {body}")
            if body["state"] == "seated":
                break
            if time.perf_counter() - started > WAIT_SECONDS:
                raise RuntimeError(f"seat: still planned after {WAIT_SECONDS:.0f} s")
            time.sleep(POLL_SECONDS)
    _check_round(body, "seated", tables, "seat")
    deadline = time.monotonic() + 10  # the worker logs the task's end just after its commit
    while len(done := SEATING_DONE.findall(servers.worker.log())) < servers.worker_tasks + 1:
        if time.monotonic() > deadline:
            raise RuntimeError("seat: the worker did not log the seating task's end")
        time.sleep(POLL_SECONDS)
    servers.worker_tasks = len(done)
    out["task"] = float(done[-1])
    for step, path, state in (
        ("publish", "publish/", "published"),
        ("close", "close/", "complete"),
    ):
        with measured(servers, out, step):
            body = _expect(*api.call("POST", f"{base}{number}/{path}"), 200, step)
        _check_round(body, state, tables, step)
    return out


# --- the report --------------------------------------------------------------------------------


@dataclass
class Figures:
    """Seconds of each step of one case and round, one value per run."""

    tables: int
    round: int
    seconds: dict[str, list[float]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.tables} tables ({self.tables * TABLE_SIZE:,} players), round {self.round}"


def commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return head + (" with changes" if dirty else "")


def machine() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg = cursor.fetchone()[0]
    return (
        f"{os.cpu_count()} cores, Python {platform.python_version()} on {platform.machine()} "
        f"{platform.system()}, PostgreSQL {pg}"
    )


def targets(figures: list[Figures]) -> list[tuple[str, bool]]:
    """(line, met) for each case, round and step: the median at most 2 s."""
    out = []
    for f in figures:
        for step in STEPS:
            median = statistics.median(f.seconds[step])
            met = median <= TARGET_SECONDS
            out.append(
                (
                    f"{f.name}, {step}: **{median:.2f} s** (target ≤ {TARGET_SECONDS:g} s): "
                    + ("met" if met else "MISSED"),
                    met,
                )
            )
    return out


def report(figures: list[Figures], args: argparse.Namespace, load: tuple[float, ...]) -> str:
    out = [
        f"Machine: {machine()}. Commit {commit()}. Load average at the start: "
        + ", ".join(f"{x:.2f}" for x in load)
        + f"; at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}.",
        f"Runs: {args.runs}" + (" (--quick)" if args.quick else "") + "; gunicorn sync:2 and one "
        "Celery worker (solo pool) on Redis, on the same machine as PostgreSQL and this client.",
        "",
        "| case | seat s: median | min | max | the task in the worker | CPU s | "
        "publish s: median | min | max | CPU s | close s: median | min | max | CPU s | "
        "other cores |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        cells = []
        for step in STEPS:
            values = f.seconds[step]
            cells += [f"{x:.2f}" for x in (statistics.median(values), min(values), max(values))]
            if step == "seat":
                cells.append(f"{statistics.median(f.seconds['task']):.2f}")
            cells.append(f"{statistics.median(f.seconds[step + ' cpu']):.2f}")
        others = [v for step in STEPS for v in f.seconds.get(step + " other", [])]
        cells.append(f"{statistics.mean(others):.1f}" if others else "–")
        out.append(f"| {f.name} | " + " | ".join(cells) + " |")
    out += [
        "",
        "Seat: from the POST asking for the round to the answer of the GET that first reports it "
        "seated (polled every 50 ms; the seating runs in the worker; *the task in the worker*: "
        "its run time as the worker logs it). Publish, close: the POST's answer, which reports "
        "the new state with every table. *CPU s*: the CPU time gunicorn, the worker and the "
        "PostgreSQL backends of the scratch database spent during the step (median; from "
        "/proc), less moved by other work on the machine than the wall times. *Other cores*: "
        "the cores the rest of the machine kept busy on average during the steps (of 2: the "
        "figures were disturbed as much).",
        "",
    ]
    out += [f"- {line}" for line, _met in targets(figures)]
    return "\n".join(out)


# --- main --------------------------------------------------------------------------------------


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--quick", action="store_true", help="smoke run: one run of each case")
    ap.add_argument("--runs", type=int, default=None, help="runs of each case (3)")
    ap.add_argument("--db-name", default="tabletally_bench_rounds")
    ap.add_argument("--broker-url", default=DEFAULT_BROKER_URL)
    args = ap.parse_args(argv)
    args.runs = args.runs or (1 if args.quick else 3)
    if not args.db_name.startswith("tabletally_bench"):
        ap.error("--db-name must start with tabletally_bench")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)

    def terminated(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminated)
    load = os.getloadavg()
    figures = {(tables, n): Figures(tables, n) for tables in CASES for n in (1, 2)}
    text = ""
    queue = f"bench-rounds-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        log(f"creating the scratch database {args.db_name}")
        database_create(args.db_name)
        django_setup(args.db_name)
        club = club_create(max(CASES) * TABLE_SIZE)
        env = server_environment(args.db_name)
        env.update(
            CELERY_BROKER_URL=args.broker_url,
            BENCH_CELERY_QUEUE=queue,
            # The worker imports the app from this tree (gunicorn runs with --chdir ROOT).
            PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        )
        log("starting the celery worker")
        with worker_running(env) as worker:
            server = Server(ServerSpec("sync", 2), env, ROOT)
            try:
                server.wait_ready()
                servers = Servers(
                    Api(server.port, club.token), worker, server.process.pid, args.db_name
                )
                for run in range(1, args.runs + 1):
                    for tables in CASES:
                        tournament = tournament_create(club, tables, run)
                        for number in (1, 2):
                            seconds = round_played(servers, tournament, number, tables)
                            log(
                                f"run {run}, {tables} tables, round {number}: "
                                + ", ".join(f"{k} {v:.2f}" for k, v in seconds.items())
                            )
                            for step, value in seconds.items():
                                figures[(tables, number)].seconds.setdefault(step, []).append(value)
            except Exception:
                log("gunicorn's log:\n" + server.tail(40))
                raise
            finally:
                server.stop()
        text = report(list(figures.values()), args, load)
    finally:
        from django.conf import settings

        if settings.configured:  # close this process's connections before the drop
            from django.db import connections

            connections.close_all()
        log(f"dropping the scratch database {args.db_name}")
        database_drop(args.db_name)
        queue_drop(args.broker_url, queue)
    print(text)
    missed = [line for line, met in targets(list(figures.values())) if not met]
    for line in missed:
        log(f"target missed: {line}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
