"""Fixtures and hooks for the whole suite: the `services` gate and the real Celery worker."""

import os
from collections.abc import Iterator

import pytest
from celery._state import _set_task_join_will_block
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.test import override_settings
from hypothesis import settings as hypothesis_settings

from ops.background import broker_backoff_forget
from tests.services import (
    WorkerProcess,
    broker_key_prefix,
    broker_keys_removed,
    celery_configured,
    celery_worker_running,
    services_redis_url,
    services_unavailable_reason,
    skip_or_fail,
)

# Hypothesis' default 200 ms deadline per example measures the machine, not the code: on a busy
# 2-core machine running the suite in parallel a fast example can take longer. Every property
# keeps its number of examples; none fails for time (HYPOTHESIS_PROFILE=default restores it).
hypothesis_settings.register_profile("tabletally", deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "tabletally"))


def pytest_configure(config: pytest.Config) -> None:
    """Compile the translation catalogues first (``make test`` does too): a bare ``pytest``
    after editing a ``.po`` file reads the edit."""
    from pathlib import Path

    from ops.catalogues import compile_catalogues

    compile_catalogues(Path(__file__).resolve().parents[1] / "locale")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (or fail, under REQUIRE_SERVICES=1) `services` tests before their fixtures run."""
    if item.get_closest_marker("services") is not None:
        reason = services_unavailable_reason()
        if reason is not None:
            skip_or_fail(reason)


@pytest.fixture(autouse=True, scope="session")
def fast_password_hashing() -> Iterator[None]:
    """Hash passwords with a fast hasher in the tests (Django's advice for test suites): the
    project's PBKDF2 takes about a second a password on a busy 2-core machine, and fixtures that
    make a superuser or a director with a password would each pay it. No test is about the
    hasher; the subprocesses a test starts (``make run``, the celery worker) keep the project's.
    """
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def celery_join_allowed() -> None:
    """Start each test with Celery's "a task is running here" flag down.

    Celery keeps that flag in one global, set while a task runs eagerly and put back after; two
    threads running eager tasks at once (the concurrency tests' requests) can leave it up, and
    a later ``result.get()`` in this process would then refuse ("Never call result.get()
    within a task"). No code of the project calls ``get()``; only tests do.
    """
    _set_task_join_will_block(False)


@pytest.fixture(autouse=True)
def broker_not_skipped() -> None:
    """Start each test with no broker skipped after an earlier test's failed send
    (``ops.background.send``'s back-off is per process)."""
    broker_backoff_forget()


@pytest.fixture(autouse=True)
def throttles_forgotten() -> None:
    """Start each test with no throttle history (the limits on guessing and on table links'
    writes keep it in the cache, ``ops.guessing``, ``scoring.throttles``): the local-memory
    cache the tests use is emptied. A Redis cache (services tests) is left alone, since its
    database may be the test broker's too. The sign-in failures (axes, in the database) are
    rolled back with each test."""
    default = caches["default"]
    if isinstance(default, LocMemCache):
        default.clear()


@pytest.fixture(scope="session")
def celery_worker_subprocess(
    django_db_setup: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerProcess]:
    """A real ``celery worker`` for the session, on the test database and the test broker.

    One per pytest process: under pytest-xdist each worker process has its own, on its own
    test database, its broker keys under a prefix of its own (``broker_key_prefix``). Stopped
    before pytest-django drops the test database, whatever happened; its keys are removed.
    """
    from django.db import connection

    broker_url = services_redis_url()
    prefix = broker_key_prefix()
    try:
        with celery_worker_running(
            database_settings=connection.settings_dict,
            broker_url=broker_url,
            log_path=tmp_path_factory.mktemp("celery") / "worker.log",
            key_prefix=prefix,
        ) as worker:
            yield worker
    finally:
        broker_keys_removed(broker_url, prefix)


@pytest.fixture
def celery_eager() -> Iterator[None]:
    """Run Celery tasks eagerly in this process, as the embedded mode does."""
    with celery_configured(task_always_eager=True, task_eager_propagates=True):
        yield


@pytest.fixture
def celery_with_worker(celery_worker_subprocess: WorkerProcess) -> Iterator[WorkerProcess]:
    """Send this process's Celery tasks to the real test worker, for one test."""
    with celery_configured(
        task_always_eager=False,
        broker_url=celery_worker_subprocess.broker_url,
        broker_transport_options=celery_worker_subprocess.transport_options(),
    ):
        yield celery_worker_subprocess
