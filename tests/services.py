"""Helpers for tests that need real services: the skip-or-fail rule and a real Celery worker.

A test marked ``services`` needs PostgreSQL (``DATABASE_URL=postgres://...``), Redis
(``TEST_REDIS_URL``, default ``redis://127.0.0.1:6379/15``) and a real ``celery worker``. It skips
with the reason when one is missing, and fails with the same reason under ``REQUIRE_SERVICES=1``.
"""

import os
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
    """A running test worker: the broker it listens on and the file it logs to."""

    broker_url: str
    log_path: Path

    def log(self) -> str:
        """What the worker has logged so far."""
        return self.log_path.read_text(errors="replace")


@contextmanager
def celery_worker_running(
    *, database_settings: dict[str, object], broker_url: str, log_path: Path
) -> Iterator[WorkerProcess]:
    """Run ``celery -A config worker`` on ``database_settings``' database and ``broker_url``.

    Purges the broker's queue first, waits until the worker logs that it is ready, and stops
    the worker on the way out, whatever happened.
    """
    with app.connection_for_write(broker_url) as broker:
        app.control.purge(connection=broker)

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(database_settings),
        "CELERY_BROKER_URL": broker_url,
        "PYTHONPATH": os.pathsep.join(
            path for path in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if path
        ),
    }
    celery = Path(sys.executable).with_name("celery")
    command = [str(celery)] if celery.exists() else [sys.executable, "-m", "celery"]
    command += ["-A", "config", "worker", "--pool=solo", "--concurrency=1", "-l", "info"]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    command += ["-n", f"pytest-{os.getpid()}@%h"]

    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    process = WorkerProcess(broker_url=broker_url, log_path=log_path)
    try:
        deadline = time.monotonic() + WORKER_READY_SECONDS
        while " ready." not in process.log():
            if worker.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"celery worker did not get ready (exit status {worker.poll()}):\n"
                    + process.log()[-4000:],
                    pytrace=False,
                )
            time.sleep(0.1)
        yield process
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


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
