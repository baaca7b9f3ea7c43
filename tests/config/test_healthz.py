"""``/healthz`` (issue 13, "Health and logs"): 200 when the database, Redis (cache and broker),
a worker's heartbeat, the tick and the waiting background work are all fine; 503 naming what
is wrong otherwise, in a fixed, small number of queries.

Each part is made to fail for real where that is practical: the database is a connection to a
database that cannot be opened (SQLite: a file in a folder that does not exist; PostgreSQL: a
port where nothing listens), Redis a port where nothing listens or a server that never
answers; heartbeats and waiting work are rows of the given age."""

from __future__ import annotations

import copy
import logging
import os
import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import DEFAULT_DB_ALIAS, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_guid import clear_guid, set_guid
from pytest_django.fixtures import Settings

from ops import background
from ops.background import TICK
from ops.models import Heartbeat
from ops.tasks import tick as tick_task
from ops.worker import WORKER_PREFIX, beat_seconds
from tests.services import WorkerProcess, celery_configured, services_redis_url
from tournaments.models import Club, Tournament

pytestmark = pytest.mark.django_db

WORKER = WORKER_PREFIX + "celery@test"


def free_port() -> int:
    """A port of 127.0.0.1 where nothing listens (bound by the system, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def seen(name: str, seconds_ago: float) -> None:
    """Heartbeat ``name`` as last seen ``seconds_ago`` seconds ago."""
    Heartbeat.objects.update_or_create(
        name=name, defaults={"at": timezone.now() - timedelta(seconds=seconds_ago)}
    )


def healthz(client: Client) -> tuple[int, dict[str, Any]]:
    response = client.get("/healthz")
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    return response.status_code, response.json()


def reasons(body: dict[str, Any], **ages: int) -> dict[str, str]:
    """Each check's reason; for a check named in ``ages``, its age (its first "N s") read as
    the given age when it is at most 10 s more: the time the request took on a busy machine."""
    found = {name: check["reason"] for name, check in body["checks"].items()}
    for name, seconds in ages.items():
        age = re.search(r"(\d+) s", found[name])
        assert age is not None, found[name]
        if seconds <= int(age[1]) <= seconds + 10:
            found[name] = found[name][: age.start(1)] + str(seconds) + found[name][age.end(1) :]
    return found


@pytest.fixture
def limits(settings: Settings) -> Settings:
    settings.HEALTH_WORKER_SECONDS = 60
    settings.HEALTH_TICK_SECONDS = 45
    settings.HEALTH_WAITING_SECONDS = 120
    return settings


@pytest.fixture
def eager() -> Iterator[None]:
    """The embedded mode: tasks run eagerly (no broker, no worker to check)."""
    with celery_configured(task_always_eager=True):
        yield


@pytest.fixture
def with_workers() -> Iterator[None]:
    """Tasks go to workers, on a broker that is not Redis (so not pinged): the worker's
    heartbeat is checked and nothing else changes."""
    with celery_configured(task_always_eager=False, broker_url="memory://"):
        yield


# --- all fine ---------------------------------------------------------------------------------


@pytest.mark.usefixtures("limits", "eager")
def test_all_fine_in_the_embedded_mode_is_200(client: Client) -> None:
    seen(TICK, 3)

    status, body = healthz(client)

    assert status == 200
    assert (body["status"], body["failing"]) == ("ok", [])
    assert {name: check["status"] for name, check in body["checks"].items()} == {
        "database": "ok",
        "cache": "skipped",
        "broker": "skipped",
        "worker": "skipped",
        "tick": "ok",
        "waiting": "ok",
    }
    assert reasons(body, tick=3) == {
        "database": "answers",
        "cache": "not Redis (LocMemCache)",
        "broker": "eager: tasks run in the process that sends them",
        "worker": "eager: tasks run in the process that sends them",
        "tick": "last tick 3 s ago",
        "waiting": "nothing waits",
    }


@pytest.mark.usefixtures("limits", "with_workers")
def test_a_worker_that_beat_recently_passes(client: Client) -> None:
    seen(TICK, 1)
    seen(WORKER, 50)
    seen(WORKER_PREFIX + "celery@gone", 3600)

    status, body = healthz(client)

    assert status == 200
    assert body["checks"]["worker"]["status"] == "ok"
    assert reasons(body, worker=50)["worker"] == "1 worker(s) alive, last heartbeat 50 s ago"


@pytest.mark.usefixtures("limits", "eager")
def test_healthz_makes_two_queries_and_one_per_kind_of_waiting_work(
    client: Client, django_assert_num_queries: Any
) -> None:
    seen(TICK, 1)
    # SELECT 1, the heartbeats (tick and workers in one aggregate), then one per kind.
    kinds = len(background._waiting)
    assert kinds >= 3  # seating, standings, score sheet jobs

    with django_assert_num_queries(2 + kinds):
        status, _body = healthz(client)

    assert status == 200


# --- database down ----------------------------------------------------------------------------


@contextmanager
def database_down(tmp_path: Path) -> Iterator[None]:
    """The default connection replaced, for a while, by one to a database that cannot be
    opened: its first query fails as it would with the server down."""
    working = connections[DEFAULT_DB_ALIAS]
    broken_settings = copy.deepcopy(working.settings_dict)
    if working.vendor == "sqlite":
        broken_settings["NAME"] = str(tmp_path / "no such folder" / "db.sqlite3")
    else:
        broken_settings.update(HOST="127.0.0.1", PORT=str(free_port()))
    broken = type(working)(broken_settings, alias=DEFAULT_DB_ALIAS)
    connections[DEFAULT_DB_ALIAS] = broken
    try:
        yield
    finally:
        connections[DEFAULT_DB_ALIAS] = working
        broken.close()


@pytest.mark.usefixtures("limits", "eager")
def test_database_down_is_503_and_the_checks_that_read_it_are_not_run(
    client: Client, tmp_path: Path
) -> None:
    seen(TICK, 1)
    working = connections[DEFAULT_DB_ALIAS]

    with CaptureQueriesContext(working) as queries, database_down(tmp_path):
        status, body = healthz(client)

    assert status == 503
    assert body["status"] == "error"
    assert body["failing"] == ["database", "worker", "tick", "waiting"]
    assert body["checks"]["database"] == {
        "status": "error",
        "reason": "query failed (OperationalError)",
    }
    for name in ("worker", "tick", "waiting"):
        assert body["checks"][name] == {
            "status": "error",
            "reason": "not checked: the database is down",
        }
    assert len(queries) == 0
    # And once the database is back, so is the health check.
    assert healthz(client)[0] == 200


# --- Redis down -------------------------------------------------------------------------------


def redis_cache(url: str) -> dict[str, dict[str, str]]:
    return {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}


@pytest.mark.usefixtures("limits")
def test_redis_down_fails_cache_and_broker(client: Client, settings: Settings) -> None:
    seen(TICK, 1)
    seen(WORKER, 1)
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    settings.CACHES = redis_cache(nowhere)

    with celery_configured(task_always_eager=False, broker_url=nowhere):
        status, body = healthz(client)

    assert status == 503
    assert body["failing"] == ["cache", "broker"]
    assert body["checks"]["cache"] == {
        "status": "error",
        "reason": "Redis did not answer (ConnectionError)",
    }
    assert body["checks"]["broker"] == {
        "status": "error",
        "reason": "Redis did not answer (ConnectionError)",
    }
    assert nowhere.split("//")[1].split("/")[0] not in str(body)


@pytest.fixture
def silent_redis() -> Iterator[str]:
    """A Redis URL whose server takes connections and never answers (a hung server): the
    kernel completes the handshake into the backlog, nobody reads."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"


@pytest.mark.usefixtures("limits")
def test_a_redis_that_never_answers_fails_within_the_timeout(
    client: Client, settings: Settings, silent_redis: str
) -> None:
    seen(TICK, 1)
    seen(WORKER, 1)
    settings.CACHES = redis_cache(silent_redis)
    settings.HEALTH_TIMEOUT_SECONDS = 0.2

    with celery_configured(task_always_eager=False, broker_url=silent_redis):
        status, body = healthz(client)

    assert status == 503
    assert body["failing"] == ["cache", "broker"]
    assert reasons(body)["cache"] == "Redis did not answer (TimeoutError)"
    assert reasons(body)["broker"] == "Redis did not answer (TimeoutError)"


@pytest.mark.usefixtures("limits", "eager")
def test_a_cache_url_that_is_not_valid_fails_without_showing_it(
    client: Client, settings: Settings
) -> None:
    seen(TICK, 1)
    settings.CACHES = redis_cache("redis://:secret@127.0.0.1:notaport/0")

    status, body = healthz(client)

    assert status == 503
    assert body["failing"] == ["cache"]
    assert reasons(body)["cache"] == "not a valid Redis URL (ValueError)"
    assert "secret" not in str(body) and "notaport" not in str(body)


def test_django_redis_style_locations_are_read(settings: Settings) -> None:
    from ops.health import cache_redis_url

    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": ["redis://10.0.0.1:6379/1", "redis://10.0.0.2:6379/1"],
        }
    }
    assert cache_redis_url() == "redis://10.0.0.1:6379/1"
    settings.CACHES = redis_cache("redis://10.0.0.3:6379/2,redis://10.0.0.4:6379/2")
    assert cache_redis_url() == "redis://10.0.0.3:6379/2"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert cache_redis_url() is None


# --- worker, tick, waiting work ---------------------------------------------------------------


@pytest.mark.usefixtures("limits", "with_workers")
def test_no_worker_ever_is_503(client: Client, caplog: pytest.LogCaptureFixture) -> None:
    seen(TICK, 1)

    with caplog.at_level(logging.INFO, logger="django.request"):
        status, body = healthz(client)

    # Logged as a warning: the health check doing its job, not a server error.
    [logged] = [r for r in caplog.records if r.name == "django.request"]
    assert (logged.levelname, logged.getMessage()) == ("WARNING", "Service Unavailable: /healthz")

    assert status == 503
    assert body["failing"] == ["worker"]
    assert body["checks"]["worker"] == {
        "status": "error",
        "reason": "no worker heartbeat: no worker has ever beaten",
    }


@pytest.mark.usefixtures("limits", "with_workers")
def test_no_worker_heartbeat_within_the_limit_is_503(client: Client) -> None:
    seen(TICK, 1)
    seen(WORKER, 90)

    status, body = healthz(client)

    assert status == 503
    assert body["failing"] == ["worker"]
    assert reasons(body, worker=90)["worker"] == "no worker heartbeat for 90 s (limit 60 s)"


@pytest.mark.usefixtures("limits", "eager")
def test_tick_too_old_is_503(client: Client) -> None:
    seen(TICK, 100)

    status, body = healthz(client)

    assert status == 503
    assert body["failing"] == ["tick"]
    assert body["checks"]["tick"]["status"] == "error"
    assert reasons(body, tick=100)["tick"] == "tick too old: last 100 s ago (limit 45 s)"


@pytest.mark.usefixtures("limits", "eager")
def test_no_tick_ever_is_503(client: Client) -> None:
    status, body = healthz(client)

    assert status == 503
    assert body["failing"] == ["tick"]
    assert reasons(body)["tick"] == "tick too old: no tick has run"


def waiting_standings(seconds_ago: float) -> Tournament:
    club = Club.objects.create(name="Club")
    return Tournament.objects.create(
        club=club,
        name="Open",
        kind="rook",
        round_count=1,
        sizes=[4],
        prefer=4,
        hands_per_round=1,
        standings_waiting_since=timezone.now() - timedelta(seconds=seconds_ago),
    )


@pytest.mark.usefixtures("limits", "eager")
def test_work_waiting_too_long_is_503_with_its_kind_and_age(client: Client) -> None:
    seen(TICK, 1)
    waiting_standings(300)

    status, body = healthz(client)

    assert status == 503
    assert body["failing"] == ["waiting"]
    assert body["checks"]["waiting"]["status"] == "error"
    assert reasons(body, waiting=300)["waiting"] == "standings has waited 300 s (limit 120 s)"


@pytest.mark.usefixtures("limits", "eager")
def test_work_waiting_within_the_limit_passes(client: Client) -> None:
    seen(TICK, 1)
    waiting_standings(20)

    status, body = healthz(client)

    assert status == 200
    assert reasons(body, waiting=20)["waiting"] == "oldest: standings, waiting 20 s"


def test_healthz_answers_get_only(client: Client) -> None:
    assert client.post("/healthz").status_code == 405


# --- a real worker ----------------------------------------------------------------------------


def wait_for(what: str, condition: Any, seconds: float, worker: WorkerProcess) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {seconds:.0f} s\n{worker.log()[-4000:]}")
        time.sleep(0.2)
    return found


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_beats_while_idle_and_healthz_is_200_with_redis(
    celery_with_worker: WorkerProcess, client: Client, settings: Settings
) -> None:
    settings.CACHES = redis_cache(services_redis_url())
    name = f"{WORKER_PREFIX}pytest-{os.getpid()}@{socket.gethostname()}"

    def last_beat() -> Any:
        return Heartbeat.objects.filter(name=name).values_list("at", flat=True).first()

    first = wait_for("the worker's heartbeat", last_beat, 30, celery_with_worker)
    # It beats again while idle, on the worker's timer.
    wait_for(
        "a later heartbeat",
        lambda: (at := last_beat()) and at > first,
        2 * beat_seconds() + 10,
        celery_with_worker,
    )
    # The tick, run by the worker, sent from a request's context: the worker's log lines for
    # the task carry the request's id.
    request_id = "0123456789abcdef0123456789abcdef"
    set_guid(request_id)
    try:
        tick_task.delay()
    finally:
        clear_guid()
    wait_for(
        "the tick's log line",
        lambda: re.search(
            rf"INFO \[{request_id}\] celery\.app\.trace: Task ops\.tasks\.tick\[[0-9a-f-]+\] "
            "succeeded",
            celery_with_worker.log(),
        ),
        30,
        celery_with_worker,
    )

    status, body = healthz(client)

    assert status == 200, body
    assert {name: check["status"] for name, check in body["checks"].items()} == {
        "database": "ok",
        "cache": "ok",
        "broker": "ok",
        "worker": "ok",
        "tick": "ok",
        "waiting": "ok",
    }
