"""Helpers for tests that need real services: the skip-or-fail rule and a real Celery worker.

A test marked ``services`` needs PostgreSQL (``DATABASE_URL=postgres://...``), Redis
(``TEST_REDIS_URL``, default ``redis://127.0.0.1:6379/15``) and a real ``celery worker``. It skips
with the reason when one is missing, and fails with the same reason under ``REQUIRE_SERVICES=1``.

Under pytest-xdist every worker process (``gw0``, ``gw1``, ...) is a session of its own: its own
test database (pytest-django names it ``test_<name>_gw<n>``), its own celery worker whose broker
keys carry a prefix of that process (:func:`broker_key_prefix`), and its own ports for the
``redis-server`` a test starts (:func:`xdist_port`).
"""

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import redis
from django.conf import settings
from django.db import connections

from config.celery import app

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TEST_REDIS_URL = "redis://127.0.0.1:6379/15"
WORKER_READY_SECONDS = 60


def services_redis_url() -> str:
    """The Redis database that serves as the test worker's broker (its tasks purged first)."""
    return os.environ.get("TEST_REDIS_URL") or DEFAULT_TEST_REDIS_URL


def xdist_worker_index() -> int:
    """This pytest-xdist worker's number (``gw3`` is 3), or 0 in a run without workers."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def xdist_port(base: int, *, per_worker: int) -> int:
    """A port of this pytest-xdist worker's own: each worker has ``per_worker`` ports from
    ``base + index * per_worker`` on, so that two workers never start servers on one port."""
    return base + xdist_worker_index() * per_worker


def broker_key_prefix() -> str:
    """The prefix of every broker key (queues, unacknowledged messages, bindings) that this
    pytest process and its celery worker use on the shared test Redis: two processes (xdist
    workers, or two runs) on one Redis database never take each other's tasks."""
    return f"tests-{os.getpid()}:"


def skip_or_fail(reason: str) -> None:
    """Skip the current test for ``reason``, or fail it when ``REQUIRE_SERVICES=1``."""
    if os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(reason)


@cache
def services_unavailable_reason() -> str | None:
    """Why the `services` tests cannot run here, or None when PostgreSQL and Redis are there."""
    engine = settings.DATABASES["default"]["ENGINE"]
    if engine != "django.db.backends.postgresql":
        return (
            "PostgreSQL not configured: set "
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres "
            f"(the database engine is {engine})"
        )
    url = services_redis_url()
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2).ping()
    except redis.RedisError as error:
        return f"Redis not reachable at {url} (set TEST_REDIS_URL): {error}"
    return None


def database_url(settings_dict: dict[str, object]) -> str:
    """A ``postgres://`` URL for the PostgreSQL database that ``settings_dict`` describes."""
    user = quote(str(settings_dict.get("USER") or ""), safe="")
    password = quote(str(settings_dict.get("PASSWORD") or ""), safe="")
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    name = quote(str(settings_dict["NAME"]), safe="")
    return f"postgres://{credentials}{host}:{port}/{name}"


@dataclass(frozen=True)
class WorkerProcess:
    """A running test worker: the broker it listens on, the file it logs to, its process id
    (the leader of its own process group)."""

    broker_url: str
    log_path: Path
    pid: int = 0
    key_prefix: str = ""

    def transport_options(self) -> dict[str, object]:
        """The Celery ``broker_transport_options`` that reach this worker's queues: the
        project's, with the worker's key prefix when it has one."""
        options = dict(app.conf.broker_transport_options or {})
        if self.key_prefix:
            options["global_keyprefix"] = self.key_prefix
        return options

    def log(self) -> str:
        """What the worker has logged so far."""
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the worker's whole process group (kill -9: no clean-up, no acknowledgement)."""
        os.killpg(self.pid, signal.SIGKILL)

    def alive(self) -> bool:
        """Whether the worker's process still runs (not a zombie)."""
        try:
            done, _status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        return done == 0


@contextmanager
def celery_worker_running(
    *,
    database_settings: dict[str, object],
    broker_url: str,
    log_path: Path,
    env: dict[str, str] | None = None,
    purge: bool = True,
    key_prefix: str = "",
) -> Iterator[WorkerProcess]:
    """Run ``celery -A config worker`` on ``database_settings``' database and ``broker_url``,
    in its own process group, with ``env`` added to its environment.

    With a ``key_prefix`` every broker key of the worker starts with it (the project's settings
    with that prefix, ``tests.worker_settings``); send to it with
    ``celery_configured(broker_transport_options=worker.transport_options())``.

    Purges the broker's queue first (unless ``purge`` is false: messages sent before the worker
    starts are then for it), waits until the worker logs that it is ready, and stops the worker
    on the way out, whatever happened.
    """
    if key_prefix:
        env = {
            "DJANGO_SETTINGS_MODULE": "tests.worker_settings",
            "TEST_BROKER_KEY_PREFIX": key_prefix,
            **(env or {}),
        }
    options = WorkerProcess(broker_url, Path(), key_prefix=key_prefix).transport_options()
    if purge:
        with (
            celery_configured(broker_transport_options=options),
            app.connection_for_write(broker_url) as broker,
        ):
            app.control.purge(connection=broker)
    command = ["worker", "--pool=solo", "--concurrency=1", "-l", "info"]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    command += ["-n", f"pytest-{os.getpid()}@%h"]
    with _celery_running(
        command,
        ready=" ready.",
        database_settings=database_settings,
        broker_url=broker_url,
        log_path=log_path,
        env=env,
    ) as process:
        yield WorkerProcess(
            broker_url=broker_url, log_path=log_path, pid=process.pid, key_prefix=key_prefix
        )


def broker_keys_removed(broker_url: str, key_prefix: str) -> None:
    """Delete every key under ``key_prefix`` in the Redis database at ``broker_url`` (a test
    worker's queues and bindings, once it is stopped)."""
    client = redis.Redis.from_url(broker_url, socket_connect_timeout=2, socket_timeout=5)
    keys = list(client.scan_iter(match=f"{key_prefix}*", count=500))
    if keys:
        client.delete(*keys)


@contextmanager
def celery_beat_running(
    *,
    database_settings: dict[str, object],
    broker_url: str,
    log_path: Path,
    env: dict[str, str] | None = None,
) -> Iterator[WorkerProcess]:
    """Run ``celery -A config beat`` (the tick every ``TICK_SECONDS``: set it in ``env``) on
    ``broker_url``, its schedule file beside ``log_path``; stopped on the way out."""
    schedule = log_path.with_name("celerybeat-schedule")
    command = ["beat", "-l", "info", "-s", str(schedule), "--max-interval", "1"]
    with _celery_running(
        command,
        ready="beat: Starting",
        database_settings=database_settings,
        broker_url=broker_url,
        log_path=log_path,
        env=env,
    ) as process:
        yield process


@contextmanager
def _celery_running(
    arguments: list[str],
    *,
    ready: str,
    database_settings: dict[str, object],
    broker_url: str,
    log_path: Path,
    env: dict[str, str] | None,
) -> Iterator[WorkerProcess]:
    """Run ``celery -A config <arguments>`` until it logs ``ready``; stop it on the way out."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(database_settings),
        "CELERY_BROKER_URL": broker_url,
        "PYTHONPATH": os.pathsep.join(
            path for path in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if path
        ),
        **(env or {}),
    }
    celery = Path(sys.executable).with_name("celery")
    command = [str(celery)] if celery.exists() else [sys.executable, "-m", "celery"]
    command += ["-A", "config", *arguments]
    with log_path.open("ab") as log:
        start = log.tell()
        child = subprocess.Popen(
            command,
            cwd=PROJECT_ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    process = WorkerProcess(broker_url=broker_url, log_path=log_path, pid=child.pid)
    try:
        deadline = time.monotonic() + WORKER_READY_SECONDS
        while ready not in process.log()[start:]:
            if child.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"celery {arguments[0]} did not get ready (exit status {child.poll()}):\n"
                    + process.log()[-4000:],
                    pytrace=False,
                )
            time.sleep(0.1)
        yield process
    finally:
        child.terminate()
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


class RedisServer:
    """A ``redis-server`` of a test's own, on ``port`` (never the shared one), keeping nothing on
    disk (``--save "" --appendonly no``); :meth:`stop` and :meth:`start` it again on the same
    port to make an outage. Use as a context manager: stopped on the way out."""

    def __init__(self, port: int, directory: Path) -> None:
        self.port = port
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        """``redis://127.0.0.1:<port>/<db>``."""
        return f"redis://127.0.0.1:{self.port}/{db}"

    def ping(self) -> bool:
        """Whether it answers."""
        try:
            return bool(
                redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5).ping()
            )
        except redis.RedisError:
            return False

    def start(self) -> None:
        """Start it and wait (10 s at most) until it answers."""
        if self.ping():
            pytest.fail(f"something already answers on port {self.port}", pytrace=False)
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.directory)]
        with (self.directory / f"redis-{self.port}.log").open("ab") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        wait_until(f"redis-server on port {self.port} answers", self.ping, seconds=10)

    def stop(self) -> None:
        """Stop it at once (SIGKILL: no save, no goodbye) and wait until it is gone."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def __enter__(self) -> "RedisServer":
        if shutil.which("redis-server") is None:
            skip_or_fail("redis-server is not installed")
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def celery_configured(**conf: object) -> Iterator[None]:
    """Set the in-process Celery app's ``conf`` items for a while, then put them back.

    Pooled broker connections are dropped on both sides, so that the next publish uses the
    ``broker_url`` in force (Celery has no public call for that).
    """
    saved = {key: app.conf[key] for key in conf}

    def drop_pools() -> None:
        app._pool = None
        app.amqp._producer_pool = None

    app.conf.update(conf)
    drop_pools()
    try:
        yield
    finally:
        app.conf.update(saved)
        drop_pools()


def at_once(n: int, call: Callable[[int], Any]) -> list[Any]:
    """Run ``call(i)`` for i in 0..n-1 in ``n`` threads released together, each on its own
    database connection (closed at the end). Returns the results in order; an exception is
    returned in its place, not raised."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = call(i)
        except Exception as exc:  # returned to the test
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def wait_until(what: str, check: Callable[[], Any], *, seconds: float, log: str = "") -> Any:
    """Poll ``check()`` every 50 ms until it returns something truthy, and return it; fail
    saying ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: still not so after {seconds} s\n{log}", pytrace=False)
        time.sleep(0.05)
