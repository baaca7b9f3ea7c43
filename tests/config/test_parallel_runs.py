"""The suite runs in parallel (pytest-xdist, ``make test``): each test process has a database,
a celery worker and ports of its own, so that two processes never meet (README, "Running the
tests")."""

from __future__ import annotations

import importlib
import os
import re
import uuid

import pytest
import redis
from django.db import connection

from ops.tasks import tick as tick_task
from tests.services import (
    WorkerProcess,
    broker_key_prefix,
    broker_keys_removed,
    celery_configured,
    wait_until,
    xdist_port,
)


@pytest.mark.parametrize(
    ("worker", "ports"),
    [(None, (6392, 6393)), ("gw0", (6392, 6393)), ("gw1", (6394, 6395)), ("gw7", (6406, 6407))],
)
def test_each_test_process_starts_its_redis_servers_on_ports_of_its_own(
    monkeypatch: pytest.MonkeyPatch, worker: str | None, ports: tuple[int, int]
) -> None:
    if worker is None:
        monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    else:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)

    first = xdist_port(6392, per_worker=2)

    assert (first, first + 1) == ports


def test_the_test_workers_settings_put_every_broker_key_under_the_prefix_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from config import settings as project

    monkeypatch.setenv("TEST_BROKER_KEY_PREFIX", "tests-4242:")
    import tests.worker_settings as worker_settings

    options = importlib.reload(worker_settings).CELERY_BROKER_TRANSPORT_OPTIONS

    assert options == {**project.CELERY_BROKER_TRANSPORT_OPTIONS, "global_keyprefix": "tests-4242:"}
    assert worker_settings.DATABASES == project.DATABASES
    assert broker_key_prefix() == f"tests-{os.getpid()}:"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_task_sent_under_another_processs_prefix_is_never_taken_by_this_processs_worker(
    celery_with_worker: WorkerProcess,
) -> None:
    """A tick sent under another prefix (another test process's keys on the same Redis
    database) waits in that process's queue while this process's worker runs the tick sent
    after it under its own prefix."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is not None:  # pytest-django's database of this process
        assert str(connection.settings_dict["NAME"]).endswith(f"_{worker}")
    assert celery_with_worker.key_prefix == broker_key_prefix()
    other = f"tests-other-{uuid.uuid4().hex[:8]}:"
    broker = redis.Redis.from_url(celery_with_worker.broker_url)
    try:
        foreign_options = {**celery_with_worker.transport_options(), "global_keyprefix": other}
        with celery_configured(broker_transport_options=foreign_options):
            foreign = tick_task.apply_async()
        assert broker.llen(f"{other}celery") == 1

        own = tick_task.apply_async()
        wait_until(
            "this process's worker ran its own tick",
            lambda: re.search(
                rf"Task ops\.tasks\.tick\[{own.id}\] succeeded", celery_with_worker.log()
            ),
            seconds=30,
            log=celery_with_worker.log()[-4000:],
        )

        assert foreign.id not in celery_with_worker.log()
        assert broker.llen(f"{other}celery") == 1
    finally:
        broker_keys_removed(celery_with_worker.broker_url, other)
