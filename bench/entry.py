"""Benchmark of recording a hand through the API, under gunicorn on PostgreSQL, with a bare DRF
endpoint that inserts one row measured in the same run as the reference.

    .venv/bin/python bench/entry.py             # full run (about 3 minutes); a Markdown report
    .venv/bin/python bench/entry.py --check     # also exits 1 when a target is missed
    .venv/bin/python bench/entry.py --quick     # smoke run: a few seconds per phase

What it does, always on the scratch database ``tabletally_bench`` (dropped first and dropped
again at the end, whatever happens; no other database is touched):

1. creates the database on PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth), migrates
   it, and creates a user with a DRF token;
2. starts gunicorn (``config.wsgi``) on a free port of 127.0.0.1 with
   ``DJANGO_SETTINGS_MODULE=bench.settings`` (the project's settings and URLs plus the bench
   endpoint ``POST /bench/bare/``, see ``bench/urls.py``), ``DEBUG=false``, a ``SECRET_KEY``,
   ``DATABASE_URL`` pointing at the scratch database and ``CONN_MAX_AGE`` 60 (the project's
   default: persistent connections);
3. creates ``--games`` Tonk games through ``POST /api/v1/games/`` with the token;
4. measures two endpoints, both with ``Authorization: Seat <seat key>`` (a player's phone at
   a table: the first seat's key of the game; a table key alone only reads), an
   ``Idempotency-Key`` unique per request and the same JSON body (one Tonk hand, with the
   ``number`` it is in its game):

   * ``hand``: ``POST /api/v1/games/{id}/hands/``, recording the hand;
   * ``bare``: ``POST /bench/bare/``, the same authentication, then one ``INSERT``;

   Requests go to the games in turn (request i to game i mod ``--games``), so the load is
   spread over many games as real tables spread it, no two requests in flight wait for the
   same game's row lock, and each game ends the run with a realistic 15 to 25 hands (the
   report says how many);
5. for each endpoint, in the same run:

   * fixed rate: an open-loop schedule of ``--rate`` requests/s (100) for ``--rate-seconds``
     (20 s: 2,000 requests) over ``--rate-connections`` connections; latency runs from the
     request's scheduled send time, so time spent waiting for a free connection counts;
     p50, p90, p99 and max;
   * saturation: ``C`` closed-loop clients (each sends its next request when the answer to
     the last one arrives) for ``--sat-seconds`` (15 s, after a 2 s warm-up), for each ``C``
     in ``--clients`` (4,8,16); the best throughput is reported;

   any answer other than 201 (or a broken connection) is an error;
6. prints a Markdown report: the fixed-rate latencies, the throughput at saturation, the ratio
   hand/bare of the best throughputs and the targets (issue: p99 of the hand at 100 requests/s
   at most 30 ms; hand/bare throughput at least 0.6). For every phase it also gives, from
   /proc, the CPU time per request spent in gunicorn and in the PostgreSQL backends of the
   scratch database, how busy the machine was, the load generator's share and that of other
   processes: a run disturbed by other work on the machine says so;
7. stops gunicorn and drops the scratch database.

Options:
    --gunicorn SPEC[,SPEC...]  gunicorn configurations, each run in turn on the same database
                               with fresh games: ``sync:W`` (W sync workers) or
                               ``gthread:WxT`` (W workers of T threads). Default ``sync:2``:
                               on the 2-core development machine, with the load generator and
                               PostgreSQL on the same cores, it had the best throughput and
                               about the lowest p99 of sync:2, sync:3, sync:4, sync:6,
                               gthread:2x2, gthread:2x4 and gthread:3x2, and the least CPU per
                               request (each more process or thread costs more switching);
                               see bench/RESULTS.md.
    --games N                  games created per configuration (default 1000).
    --rate R, --rate-seconds S, --rate-connections K
                               the fixed-rate phase (default 100 requests/s, 20 s, 8).
    --clients C[,C...], --sat-seconds S, --warmup-seconds S
                               the saturation phase (default 4,8,16 clients, 15 s, 2 s).
    --quick                    smoke run: 100 games, 3 s at the fixed rate, clients 8 only,
                               3 s at saturation after 0.5 s of warm-up.
    --check                    exit 1 when a target is missed or any request failed.
    --db-name NAME             the scratch database (must start with ``tabletally_bench``).
    --ref REF                  measure commit REF instead of the working tree: its tree is
                               exported with ``git archive`` into a temporary directory (this
                               run's ``bench/*.py`` copied over it) and served from there, so
                               edits made to the working tree during the run do not change
                               what is measured.

The load generator is this process: plain sockets with keep-alive (the sync worker closes the
connection after each answer, so with sync workers each request opens a new connection), one
thread per connection, requests prepared as bytes: it uses about 0.05 cores at 250 requests/s
and 0.13 at 1,000. It shares the machine's cores with gunicorn and PostgreSQL. Profile the hand
endpoint with ``bench/profile_hand.py``. Record the figures in bench/RESULTS.md.

The script stays one module: it is run as one file (``python bench/entry.py``), and its parts
(the scratch database, the server, the load generator, the /proc accounting, the report) serve
only this measurement.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import math
import os
import platform
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The project's virtual environment; that of this interpreter when run from an exported tree.
VENV_BIN = ROOT / ".venv" / "bin" if (ROOT / ".venv").is_dir() else Path(sys.executable).parent
PG_HOST = "127.0.0.1"
PG_PORT = 5432
PG_USER = "postgres"
DB_PREFIX = "tabletally_bench"
APP_PATHS = ("config", "scoring", "tonkrules", "tournaments", "manage.py")

P99_TARGET_MS = 30.0
RATIO_TARGET = 0.6
DISTURBED_CORES = 0.25  # other processes using more than this during a phase: a warning

PLAYERS = ["Ana", "Ben", "Cy"]
GAME_BODY = {"game": "tonk", "players": [{"name": n} for n in PLAYERS], "stake": "0.25"}
HAND_BODY = {
    "dealer": "Cy",
    "end": "knock",
    "by": "Ana",
    "held": {"Ana": "AS 2D", "Ben": "KH QH", "Cy": "9C 8C"},
}


# --- the scratch database ---------------------------------------------------------------------


def database_url(name: str) -> str:
    return f"postgres://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"


def _admin_execute(statement: str, name: str) -> None:
    """Run ``statement`` (with ``{}`` for the quoted database name) on the maintenance DB."""
    import psycopg
    from psycopg import sql

    if not name.startswith(DB_PREFIX):
        raise ValueError(f"refusing to touch database {name!r}: not a {DB_PREFIX}* database")
    with psycopg.connect(
        host=PG_HOST, port=PG_PORT, user=PG_USER, dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(sql.SQL(statement).format(sql.Identifier(name)))


def database_create(name: str) -> None:
    """Drop the scratch database if it is there, then create it empty."""
    database_drop(name)
    _admin_execute("CREATE DATABASE {}", name)


def database_drop(name: str) -> None:
    # FORCE: a connection left open by a killed server must not keep the database alive.
    _admin_execute("DROP DATABASE IF EXISTS {} WITH (FORCE)", name)


def database_query(name: str, query: str) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname=name) as conn:
        return conn.execute(query).fetchall()


def server_environment(db_name: str) -> dict[str, str]:
    """The environment of gunicorn and of the set-up commands: the real mode on PostgreSQL."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=database_url(db_name),
        CONN_MAX_AGE="60",
        DEBUG="false",
        SECRET_KEY="bench-" + secrets.token_urlsafe(40),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        # Empty wins over a .env file: no broker (nothing here enqueues), local-memory cache.
        CELERY_BROKER_URL="",
        CACHE_URL="",
        PYTHONUNBUFFERED="1",
    )
    return env


def manage(env: dict[str, str], *args: str, source: Path = ROOT) -> str:
    """Run ``manage.py ARGS`` of ``source`` with the bench environment; its standard output."""
    done = subprocess.run(
        [str(VENV_BIN / "python"), "manage.py", *args],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


CREATE_USER = """
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
user = get_user_model().objects.create_user("bench", password=None)
print("TOKEN=" + Token.objects.create(user=user).key)
import pathlib, scoring
print("SOURCE=" + str(pathlib.Path(scoring.__file__).parents[1]))
"""


def user_token_create(env: dict[str, str], source: Path) -> str:
    out = manage(env, "shell", "-c", CREATE_USER, source=source)
    printed = dict(line.partition("=")[::2] for line in out.splitlines() if "=" in line)
    if Path(printed["SOURCE"]).resolve() != source.resolve():
        raise RuntimeError(f"the app was imported from {printed['SOURCE']}, not from {source}")
    return printed["TOKEN"]


# --- gunicorn ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerSpec:
    """A gunicorn configuration: ``sync:W`` or ``gthread:WxT``."""

    kind: str
    workers: int
    threads: int = 1

    @classmethod
    def parse(cls, text: str) -> ServerSpec:
        kind, _, size = text.partition(":")
        if kind == "sync" and size.isdigit():
            return cls("sync", int(size))
        workers, _, threads = size.partition("x")
        if kind == "gthread" and workers.isdigit() and threads.isdigit():
            return cls("gthread", int(workers), int(threads))
        raise argparse.ArgumentTypeError(f"not sync:W or gthread:WxT: {text!r}")

    def args(self) -> list[str]:
        extra = ["--threads", str(self.threads)] if self.kind == "gthread" else []
        return ["--worker-class", self.kind, "--workers", str(self.workers), *extra]

    def __str__(self) -> str:
        if self.kind == "sync":
            return f"sync, {self.workers} workers"
        return f"gthread, {self.workers} workers × {self.threads} threads"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """gunicorn in its own process group, its log in a temporary file."""

    def __init__(self, spec: ServerSpec, env: dict[str, str], source: Path) -> None:
        self.spec = spec
        self.port = free_port()
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in stop())
            prefix="tabletally-bench-gunicorn-", suffix=".log"
        )
        command = [
            str(VENV_BIN / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--chdir",
            str(source),
            *spec.args(),
            "--log-level",
            "warning",
            # gunicorn also reads the project's gunicorn.conf.py (from --chdir): keep its
            # workers for the whole run (no restart after max_requests in mid-measure).
            "--max-requests",
            "0",
        ]
        self.process = subprocess.Popen(
            command,
            cwd=source,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited ({self.process.returncode}):\n{self.tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
                    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    # The app answers: ready. 503 too, since no tick or worker runs here.
                    if s.recv(64).startswith((b"HTTP/1.1 200", b"HTTP/1.1 503")):
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer /healthz in {timeout:.0f} s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        self.log.flush()
        text = Path(self.log.name).read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """SIGTERM (graceful), then SIGKILL to the whole process group if it lingers."""
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=30)
            # The group is gunicorn's own (start_new_session): its master and workers only.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        finally:
            self.log.close()


# --- HTTP client ------------------------------------------------------------------------------


class ConnectionClosed(ConnectionError):
    """The server closed the connection before a whole answer."""


class Connection:
    """One HTTP/1.1 connection with keep-alive, reopened when the server closes it.

    Deliberately small (requests are prepared bytes, answers are read by ``Content-Length``)
    so that the load generator costs the shared cores as little as possible.
    """

    def __init__(self, port: int) -> None:
        self.address = ("127.0.0.1", port)
        self.sock: socket.socket | None = None
        self.buffer = b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock = None
        self.buffer = b""

    def request(self, data: bytes) -> tuple[int, bytes]:
        """Send one prepared request; (status, body). A keep-alive connection the server
        closed meanwhile is reopened once (a write retried with its idempotency key)."""
        reused = self.sock is not None
        try:
            return self._exchange(data)
        except (ConnectionClosed, ConnectionResetError, BrokenPipeError):
            self.close()
            if not reused:
                raise
            return self._exchange(data)

    def _exchange(self, data: bytes) -> tuple[int, bytes]:
        if self.sock is None:
            self.sock = socket.create_connection(self.address, timeout=60)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(data)
        while (end := self.buffer.find(b"\r\n\r\n")) < 0:
            self._receive()
        head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip().lower()
        if b"content-length" in headers:
            length = int(headers[b"content-length"])
            while len(self.buffer) < length:
                self._receive()
            body, self.buffer = self.buffer[:length], self.buffer[length:]
        elif headers.get(b"transfer-encoding") == b"chunked":
            body = self._chunked()
        else:  # the body runs to the end of the connection
            while self._receive(eof_ok=True):
                pass
            body, headers[b"connection"] = self.buffer, b"close"
        if headers.get(b"connection") == b"close":
            self.close()
        return status, body

    def _receive(self, *, eof_ok: bool = False) -> bool:
        assert self.sock is not None
        chunk = self.sock.recv(65536)
        if not chunk:
            if eof_ok:
                return False
            raise ConnectionClosed("connection closed by the server")
        self.buffer += chunk
        return True

    def _chunked(self) -> bytes:
        body = b""
        while True:
            while (end := self.buffer.find(b"\r\n")) < 0:
                self._receive()
            size = int(self.buffer[:end].split(b";")[0], 16)
            while len(self.buffer) < end + 2 + size + 2:
                self._receive()
            body += self.buffer[end + 2 : end + 2 + size]
            self.buffer = self.buffer[end + 2 + size + 2 :]
            if size == 0:
                return body


def post(path: str, *, host: str, auth: str, body: bytes, idempotency_key: str = "") -> bytes:
    idempotency = f"Idempotency-Key: {idempotency_key}\r\n" if idempotency_key else ""
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: {auth}\r\n{idempotency}"
        f"Content-Type: application/json\r\nAccept: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


# --- what is measured -------------------------------------------------------------------------


@dataclass(frozen=True)
class GameRef:
    id: int
    seat_key: str  # the first seat's: every write records who made it


class Target:
    """An endpoint under load: request ``i`` goes to game ``i mod len(games)``."""

    def __init__(self, name: str, port: int, games: Sequence[GameRef], path: str | None) -> None:
        self.name = name
        self.port = port
        self.host = f"127.0.0.1:{port}"
        self.games = games
        self.path = path  # None: the hand endpoint of the request's game
        self.run = secrets.token_hex(4)
        self.counter = itertools.count()  # next() on it is atomic under the GIL
        self.created = 0  # 201 answers, every phase and the warm-up included
        self.lock = threading.Lock()

    def next_request(self) -> bytes:
        i = next(self.counter)
        game = self.games[i % len(self.games)]
        path = self.path or f"/api/v1/games/{game.id}/hands/"
        # Request i is the (i // games + 1)th to its game: the hand it says it is.
        body = json.dumps({"number": i // len(self.games) + 1, **HAND_BODY}).encode()
        return post(
            path,
            host=self.host,
            auth=f"Seat {game.seat_key}",
            body=body,
            idempotency_key=f"bench-{self.run}-{self.name}-{i}",
        )

    def send(self, connection: Connection, data: bytes) -> tuple[int, bytes | str]:
        status, body = send(connection, data)
        if status == 201:
            with self.lock:
                self.created += 1
        return status, body


@dataclass
class Outcome:
    """What came back from a phase: latencies (seconds) of the 201s, and the errors."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, latency: float, status: int, body: bytes | str) -> None:
        with self.lock:
            if status == 201:
                self.latencies.append(latency)
                return
            self.errors += 1
            if len(self.error_samples) < 3:
                text = body if isinstance(body, str) else body[:300].decode(errors="replace")
                self.error_samples.append(f"{status or 'no answer'}: {text}")


def send(connection: Connection, data: bytes) -> tuple[int, bytes | str]:
    try:
        return connection.request(data)
    except OSError as exc:
        connection.close()
        return 0, f"{type(exc).__name__}: {exc}"


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of sorted ``values``."""
    if not values:
        return math.nan
    return values[max(0, math.ceil(p / 100 * len(values)) - 1)]


@dataclass(frozen=True)
class CpuUse:
    """Cores used on average over a phase (None where /proc could not tell)."""

    gunicorn: float | None  # gunicorn's master and workers
    postgres: float | None  # the PostgreSQL backends serving the scratch database
    client: float  # this process: the load generator
    machine: float | None  # every process on the machine

    @property
    def other(self) -> float | None:
        """Cores used by everything else (another job on the machine, PostgreSQL's own
        background processes): how much the figures were disturbed."""
        if self.machine is None or self.gunicorn is None or self.postgres is None:
            return None
        return max(0.0, self.machine - self.gunicorn - self.postgres - self.client)


class CpuMeter:
    """CPU time over an interval, from /proc (Linux): the load generator, gunicorn (its
    session), the PostgreSQL backends of the scratch database, and the whole machine."""

    TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    POLL = 0.2  # seconds: a process that ends meanwhile loses at most this much of its CPU

    def __init__(self, server_session: int, db_name: str) -> None:
        self.session = server_session
        self.backend = f" {db_name} ".encode()
        self.start = self._snapshot()
        # The last CPU time seen of every process: a database connection that Django closes
        # (CONN_MAX_AGE) ends its backend during the interval, and its time must still count.
        self.seen = {kind: dict(pids) for kind, pids in self.start[3].items()}
        self.stopped = threading.Event()
        self.poller = threading.Thread(target=self._poll, daemon=True)
        self.poller.start()

    def _poll(self) -> None:
        while not self.stopped.wait(self.POLL):
            self._remember(self._processes())

    def _remember(self, processes: dict[str, dict[int, float]]) -> None:
        for kind, pids in processes.items():
            self.seen[kind].update(pids)

    def _snapshot(self) -> tuple[float, float, tuple[int, int] | None, dict[str, dict[int, float]]]:
        return time.perf_counter(), time.process_time(), self._machine(), self._processes()

    @staticmethod
    def _machine() -> tuple[int, int] | None:
        try:
            fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        except (OSError, ValueError):
            return None
        idle = fields[3] + fields[4]  # idle, iowait
        return sum(fields[:8]) - idle, sum(fields[:8])

    def _processes(self) -> dict[str, dict[int, float]]:
        """CPU seconds of each gunicorn process and each backend of the scratch database."""
        found: dict[str, dict[int, float]] = {"gunicorn": {}, "postgres": {}}
        try:
            pids = [int(e.name) for e in os.scandir("/proc") if e.name.isdigit()]
        except OSError:
            return found
        for pid in pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_bytes()
                fields = stat[stat.rindex(b")") + 2 :].split()
                seconds = (int(fields[11]) + int(fields[12])) / self.TICK  # utime + stime
                if int(fields[3]) == self.session:
                    found["gunicorn"][pid] = seconds
                elif (
                    stat[stat.index(b"(") + 1 : stat.rindex(b")")] == b"postgres"
                    # A backend's title: "postgres: USER DATABASE HOST(PORT) STATE".
                    and self.backend in Path(f"/proc/{pid}/cmdline").read_bytes()
                ):
                    found["postgres"][pid] = seconds
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile, or not ours to read
        return found

    def read(self) -> CpuUse:
        """The cores used since this meter was made."""
        self.stopped.set()
        self.poller.join()
        wall0, client0, machine0, processes0 = self.start
        wall1, client1, machine1, processes1 = self._snapshot()
        self._remember(processes1)
        wall = wall1 - wall0
        used: dict[str, float | None] = {}
        for kind, seen in self.seen.items():
            before = processes0[kind]
            # A process born during the interval counts whole.
            used[kind] = sum(t - before.get(pid, 0.0) for pid, t in seen.items()) / wall
        machine = None
        if machine0 is not None and machine1 is not None and machine1[1] > machine0[1]:
            share = (machine1[0] - machine0[0]) / (machine1[1] - machine0[1])
            machine = share * (os.cpu_count() or 1)
        if not processes1["gunicorn"]:
            used = {"gunicorn": None, "postgres": None}
        return CpuUse(
            gunicorn=used["gunicorn"],
            postgres=used["postgres"],
            client=(client1 - client0) / wall,
            machine=machine,
        )


@dataclass
class RateResult:
    target: str
    requests: int
    seconds: float
    p50: float
    p90: float
    p99: float
    max: float
    errors: int
    error_samples: list[str]
    cpu: CpuUse

    @property
    def rps(self) -> float:
        return self.requests / self.seconds


@dataclass
class SaturationResult:
    target: str
    clients: int
    rps: float
    p50: float
    p99: float
    errors: int
    error_samples: list[str]
    cpu: CpuUse


def run_threads(count: int, work: Callable[[], None]) -> None:
    threads = [threading.Thread(target=work, daemon=True) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def fixed_rate(
    target: Target, *, probe: Callable[[], CpuMeter], rate: float, seconds: float, connections: int
) -> RateResult:
    """Open loop: request ``i`` is due at ``start + i / rate``; its latency runs from then."""
    total = round(rate * seconds)
    due = itertools.count()
    outcome = Outcome()
    start = time.perf_counter() + 0.1

    def client() -> None:
        connection = Connection(target.port)
        try:
            while (i := next(due)) < total:
                data = target.next_request()
                scheduled = start + i / rate
                if (delay := scheduled - time.perf_counter()) > 0:
                    time.sleep(delay)
                status, body = target.send(connection, data)
                outcome.record(time.perf_counter() - scheduled, status, body)
        finally:
            connection.close()

    meter = probe()
    run_threads(connections, client)
    cpu = meter.read()
    latencies = sorted(outcome.latencies)
    return RateResult(
        target=target.name,
        requests=total,
        seconds=seconds,
        p50=percentile(latencies, 50) * 1000,
        p90=percentile(latencies, 90) * 1000,
        p99=percentile(latencies, 99) * 1000,
        max=(latencies[-1] if latencies else math.nan) * 1000,
        errors=outcome.errors,
        error_samples=outcome.error_samples,
        cpu=cpu,
    )


def saturation(
    target: Target, *, probe: Callable[[], CpuMeter], clients: int, seconds: float, warmup: float
) -> SaturationResult:
    """Closed loop: ``clients`` connections, each sending as soon as its last answer came;
    the answers that arrive in the ``seconds`` after ``warmup`` are counted."""
    outcome = Outcome()
    began = time.perf_counter()
    window = (began + warmup, began + warmup + seconds)
    cpu: list[CpuUse] = []

    def client() -> None:
        connection = Connection(target.port)
        try:
            while (sent := time.perf_counter()) < window[1]:
                status, body = target.send(connection, target.next_request())
                done = time.perf_counter()
                if window[0] <= done <= window[1]:
                    outcome.record(done - sent, status, body)
        finally:
            connection.close()

    def measure_cpu() -> None:  # over the window, as the requests counted
        time.sleep(max(0.0, window[0] - time.perf_counter()))
        meter = probe()
        time.sleep(max(0.0, window[1] - time.perf_counter()))
        cpu.append(meter.read())

    timer = threading.Thread(target=measure_cpu, daemon=True)
    timer.start()
    run_threads(clients, client)
    timer.join()
    latencies = sorted(outcome.latencies)
    return SaturationResult(
        target=target.name,
        clients=clients,
        rps=len(latencies) / seconds,
        p50=percentile(latencies, 50) * 1000,
        p99=percentile(latencies, 99) * 1000,
        errors=outcome.errors,
        error_samples=outcome.error_samples,
        cpu=cpu[0],
    )


def warm_up(target: Target, *, requests: int, clients: int = 8) -> None:
    """Unmeasured requests: every worker has imported its code and opened its connection."""
    remaining = itertools.count()
    outcome = Outcome()

    def client() -> None:
        connection = Connection(target.port)
        try:
            while next(remaining) < requests:
                status, body = target.send(connection, target.next_request())
                outcome.record(0.0, status, body)
        finally:
            connection.close()

    run_threads(clients, client)
    if outcome.errors:
        raise RuntimeError(f"{target.name}: warm-up failed: {outcome.error_samples}")


def games_create(port: int, token: str, count: int) -> list[GameRef]:
    """``count`` Tonk games started through the API with the user's token."""
    body = json.dumps(GAME_BODY).encode()
    data = post("/api/v1/games/", host=f"127.0.0.1:{port}", auth=f"Token {token}", body=body)
    remaining = itertools.count()
    games: list[GameRef] = []
    failures: list[str] = []

    def client() -> None:
        connection = Connection(port)
        try:
            while next(remaining) < count and not failures:
                status, answer = send(connection, data)
                if status != 201:
                    failures.append(f"{status}: {answer[:300]!r}")
                    return
                game = json.loads(answer)
                games.append(GameRef(game["id"], game["players"][0]["seat_key"]))
        finally:
            connection.close()

    run_threads(4, client)
    if failures:
        raise RuntimeError(f"creating the games failed: {failures[0]}")
    return sorted(games, key=lambda g: g.id)


# --- one configuration ------------------------------------------------------------------------


@dataclass
class ConfigResult:
    spec: ServerSpec
    rate: dict[str, RateResult]
    saturation: dict[str, list[SaturationResult]]
    games: int
    hands_per_game: tuple[int, float, int]  # min, mean, max
    hands_recorded: int
    hands_answered_201: int

    def best(self, target: str) -> SaturationResult:
        return max(self.saturation[target], key=lambda r: r.rps)

    @property
    def ratio(self) -> float:
        return self.best("hand").rps / self.best("bare").rps

    @staticmethod
    def cpu_ms(x: SaturationResult) -> float:
        """Milliseconds of CPU per request in gunicorn and PostgreSQL (NaN if unknown)."""
        if x.cpu.gunicorn is None or x.cpu.postgres is None or not x.rps:
            return math.nan
        return (x.cpu.gunicorn + x.cpu.postgres) / x.rps * 1000

    @property
    def cost_ratio(self) -> float | None:
        hand, bare = self.cpu_ms(self.best("hand")), self.cpu_ms(self.best("bare"))
        return None if math.isnan(hand) or math.isnan(bare) else bare / hand

    def misses(self) -> list[str]:
        missed = []
        if not self.rate["hand"].p99 <= P99_TARGET_MS:
            missed.append(f"p99 {self.rate['hand'].p99:.1f} ms > {P99_TARGET_MS:.0f} ms")
        if not self.ratio >= RATIO_TARGET:
            missed.append(f"ratio {self.ratio:.2f} < {RATIO_TARGET}")
        errors = sum(r.errors for r in self.rate.values()) + sum(
            r.errors for rs in self.saturation.values() for r in rs
        )
        if errors:
            missed.append(f"{errors} failed requests")
        return missed


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_configuration(
    spec: ServerSpec,
    env: dict[str, str],
    token: str,
    args: argparse.Namespace,
    source: Path,
) -> ConfigResult:
    db_name = args.db_name
    server = Server(spec, env, source)
    try:
        server.wait_ready()
        log(f"[{spec}] gunicorn on port {server.port}; creating {args.games} games")
        games = games_create(server.port, token, args.games)
        first_game = games[0].id
        targets = {
            "hand": Target("hand", server.port, games, None),
            "bare": Target("bare", server.port, games, "/bench/bare/"),
        }
        for target in targets.values():
            warm_up(target, requests=max(200, 4 * spec.workers * spec.threads))

        def probe() -> CpuMeter:
            return CpuMeter(server.process.pid, db_name)

        rate: dict[str, RateResult] = {}
        for name, target in targets.items():
            log(f"[{spec}] {name}: {args.rate:g} requests/s for {args.rate_seconds:g} s")
            rate[name] = fixed_rate(
                target,
                probe=probe,
                rate=args.rate,
                seconds=args.rate_seconds,
                connections=args.rate_connections,
            )
            time.sleep(1)
        saturated: dict[str, list[SaturationResult]] = {name: [] for name in targets}
        for clients in args.clients:
            for name, target in targets.items():
                log(f"[{spec}] {name}: {clients} clients for {args.sat_seconds:g} s")
                result = saturation(
                    target,
                    probe=probe,
                    clients=clients,
                    seconds=args.sat_seconds,
                    warmup=args.warmup_seconds,
                )
                log(f"[{spec}] {name}: {result.rps:.0f} requests/s")
                saturated[name].append(result)
                time.sleep(1)
    except BaseException:
        log(f"gunicorn's log:\n{server.tail()}")
        raise
    finally:
        server.stop()
    counts = database_query(
        db_name,
        "SELECT count(h.id) FROM scoring_game g LEFT JOIN scoring_hand h ON h.game_id = g.id "
        f"WHERE g.id >= {int(first_game)} GROUP BY g.id",
    )
    per_game = [int(c) for (c,) in counts]
    return ConfigResult(
        spec=spec,
        rate=rate,
        saturation=saturated,
        games=len(games),
        hands_per_game=(min(per_game), sum(per_game) / len(per_game), max(per_game)),
        hands_recorded=sum(per_game),
        hands_answered_201=targets["hand"].created,
    )


# --- report -----------------------------------------------------------------------------------


CPU_HEADER = (
    "CPU ms/request: gunicorn | PostgreSQL | machine busy (cores) | load generator (cores) "
    "| other processes (cores) |"
)
CPU_COLUMNS = 5


def cpu_cells(cpu: CpuUse, rps: float) -> str:
    """Milliseconds of CPU per request in gunicorn and in PostgreSQL, then cores in use."""

    def per_request(cores: float | None) -> str:
        return "–" if cores is None or not rps else f"{cores / rps * 1000:.2f}"

    def cores(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    return " | ".join(
        (
            per_request(cpu.gunicorn),
            per_request(cpu.postgres),
            cores(cpu.machine),
            cores(cpu.client),
            cores(cpu.other),
        )
    )


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def working_tree_version() -> str:
    """The commit of the working tree, and whether the app's files differ from it."""
    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--", *APP_PATHS)
    except (OSError, subprocess.CalledProcessError):
        return "an unknown commit"
    return f"commit {commit}" + (" with uncommitted changes to the app" if changed else "")


def snapshot_export(ref: str, into: Path) -> str:
    """Export the tree of commit ``ref`` into ``into`` (``git archive``: the repository is only
    read), with this run's ``bench/*.py`` copied over it; a description of what was exported."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    (into / "bench").mkdir(exist_ok=True)
    for harness in (ROOT / "bench").glob("*.py"):
        shutil.copy2(harness, into / "bench" / harness.name)
    return f"commit {commit[:7]} ({ref}, exported; this bench/ harness)"


def report(results: list[ConfigResult], args: argparse.Namespace) -> str:
    cpu_model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    (pg_version,) = database_query(args.db_name, "SHOW server_version")[0]
    out = [
        f"Run on {date.today().isoformat()}, {args.measured}: {os.cpu_count()} "
        f"cores ({cpu_model}), Python {platform.python_version()}, PostgreSQL {pg_version}; "
        "gunicorn, the load generator and PostgreSQL on the same machine.",
        "",
        f"Endpoints: **hand** `POST /api/v1/games/{{id}}/hands/` (one Tonk hand); **bare** "
        f"`POST /bench/bare/` (the same table-key authentication, one INSERT). Fixed rate: "
        f"{args.rate:g} requests/s for {args.rate_seconds:g} s over {args.rate_connections} "
        f"connections, latency from the scheduled send time. Saturation: closed-loop clients, "
        f"{args.sat_seconds:g} s after {args.warmup_seconds:g} s of warm-up.",
    ]
    for r in results:
        out += [
            "",
            f"### gunicorn {r.spec}",
            "",
            f"{r.games} games; hands per game at the end: {r.hands_per_game[0]}–"
            f"{r.hands_per_game[2]} (mean {r.hands_per_game[1]:.1f}); "
            f"{r.hands_recorded} hands recorded, {r.hands_answered_201} answered 201.",
            "",
            f"At {args.rate:g} requests/s:",
            "",
            "| endpoint | p50 ms | p90 ms | p99 ms | max ms | errors | " + CPU_HEADER,
            "|---|---:|---:|---:|---:|---:|" + "---:|" * CPU_COLUMNS,
        ]
        for name, x in r.rate.items():
            out.append(
                f"| {name} | {x.p50:.1f} | {x.p90:.1f} | {x.p99:.1f} | {x.max:.1f} | {x.errors} "
                f"| {cpu_cells(x.cpu, x.rps)} |"
            )
        out += [
            "",
            "At saturation (closed-loop clients):",
            "",
            "| endpoint | clients | requests/s | p50 ms | p99 ms | errors | " + CPU_HEADER,
            "|---|---:|---:|---:|---:|---:|" + "---:|" * CPU_COLUMNS,
        ]
        for name, runs in r.saturation.items():
            best = r.best(name)
            for x in runs:
                rps = f"**{x.rps:.0f}**" if x is best else f"{x.rps:.0f}"
                out.append(
                    f"| {name} | {x.clients} | {rps} | {x.p50:.1f} | {x.p99:.1f} | {x.errors} "
                    f"| {cpu_cells(x.cpu, x.rps)} |"
                )
        p99, hand, bare = r.rate["hand"].p99, r.best("hand"), r.best("bare")
        out += [
            "",
            f"- hand p99 at {args.rate:g} requests/s: **{p99:.1f} ms** (target ≤ "
            f"{P99_TARGET_MS:.0f} ms): {'met' if p99 <= P99_TARGET_MS else 'MISSED'}",
            f"- throughput at saturation: hand {hand.rps:.0f}/s ({hand.clients} clients), bare "
            f"{bare.rps:.0f}/s ({bare.clients} clients): ratio "
            f"**{r.ratio:.2f}** (target ≥ {RATIO_TARGET}): "
            f"{'met' if r.ratio >= RATIO_TARGET else 'MISSED'}",
        ]
        cost = r.cost_ratio
        if cost is not None:
            out.append(
                f"- CPU per request (gunicorn + PostgreSQL) at saturation: hand "
                f"{r.cpu_ms(hand):.2f} ms, bare {r.cpu_ms(bare):.2f} ms; bare/hand **{cost:.2f}** "
                "(what the throughput ratio would be if CPU were the only limit; less sensitive "
                "to other load on the machine)"
            )
        phases = [*r.rate.items(), *((n, b) for n, rs in r.saturation.items() for b in rs)]
        disturbed = max((x.cpu.other or 0.0) for _, x in phases)
        if disturbed > DISTURBED_CORES:
            out.append(
                f"- **other processes used up to {disturbed:.2f} cores during a phase**: the "
                "figures are disturbed; run again on a quiet machine"
            )
        for name, x in phases:
            for sample in x.error_samples:
                out.append(f"- error ({name}): `{sample}`")
    return "\n".join(out)


# --- main -------------------------------------------------------------------------------------


def _list(kind: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    return lambda text: [kind(part) for part in text.split(",") if part]


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Recording a hand through the API under gunicorn on PostgreSQL."
    )
    parser.add_argument("--gunicorn", type=_list(ServerSpec.parse), default=None)
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--rate-seconds", type=float, default=None)
    parser.add_argument("--rate-connections", type=int, default=8)
    parser.add_argument("--clients", type=_list(int), default=None)
    parser.add_argument("--sat-seconds", type=float, default=None)
    parser.add_argument("--warmup-seconds", type=float, default=None)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--db-name", default=DB_PREFIX)
    parser.add_argument("--ref", help="measure this commit (exported), not the working tree")
    args = parser.parse_args(argv)
    if not args.db_name.startswith(DB_PREFIX):
        parser.error(f"--db-name must start with {DB_PREFIX}")
    defaults = {
        "gunicorn": [ServerSpec("sync", 2)],
        "games": 100 if args.quick else 1000,
        "rate_seconds": 3.0 if args.quick else 20.0,
        "clients": [8] if args.quick else [4, 8, 16],
        "sat_seconds": 3.0 if args.quick else 15.0,
        "warmup_seconds": 0.5 if args.quick else 2.0,
    }
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)

    def terminated(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminated)
    env = server_environment(args.db_name)
    results: list[ConfigResult] = []
    with tempfile.TemporaryDirectory(prefix="tabletally-bench-") as scratch:
        source = ROOT
        args.measured = working_tree_version()
        if args.ref:
            source = Path(scratch)
            args.measured = snapshot_export(args.ref, source)
        log(f"measuring {args.measured}")
        try:
            log(f"creating the scratch database {args.db_name}")
            database_create(args.db_name)
            manage(env, "migrate", "--noinput", source=source)
            token = user_token_create(env, source)
            for spec in args.gunicorn:
                results.append(run_configuration(spec, env, token, args, source))
            text = report(results, args)
        finally:
            log(f"dropping the scratch database {args.db_name}")
            database_drop(args.db_name)
    print(text)
    missed = [f"{r.spec}: {m}" for r in results for m in r.misses()]
    for miss in missed:
        log(f"target missed: {miss}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
