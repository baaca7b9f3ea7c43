"""gunicorn's configuration file (issue 13, "Health and logs"): workers from the CPU count or
``WEB_CONCURRENCY``, timeouts, graceful restarts, logs; and ``make serve`` uses it."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
from typing import Any

import pytest
from gunicorn.config import Config

from config.settings import BASE_DIR

CONFIG = BASE_DIR / "gunicorn.conf.py"
SETTINGS = (
    "WEB_CONCURRENCY",
    "HOST",
    "PORT",
    "LOG_LEVEL",
    "GUNICORN_TIMEOUT",
    "GUNICORN_GRACEFUL_TIMEOUT",
    "GUNICORN_KEEPALIVE",
    "GUNICORN_MAX_REQUESTS",
    "GUNICORN_MAX_REQUESTS_JITTER",
)


def load(monkeypatch: pytest.MonkeyPatch, **environment: str) -> Config:
    """The file as gunicorn loads it (``Application.load_config_from_file``: each name it
    knows, through its validators), under ``environment`` and nothing else of ours (empty
    values count as unset and hide whatever a developer's ``.env`` holds)."""
    for name in SETTINGS:
        monkeypatch.setenv(name, "")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    config = Config()
    for name, value in runpy.run_path(str(CONFIG)).items():
        if name in config.settings:
            config.set(name, value)
    return config


def test_defaults_workers_from_the_cpus_and_the_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    config: Any = load(monkeypatch)

    cpus = len(os.sched_getaffinity(0))
    assert config.workers == 2 * cpus + 1
    assert config.worker_class_str == "sync"
    assert config.bind == ["127.0.0.1:8000"]
    assert (config.timeout, config.graceful_timeout, config.keepalive) == (30, 30, 5)
    assert (config.max_requests, config.max_requests_jitter) == (1000, 100)
    # Access log to stdout with the request id, gunicorn's own log to stderr.
    assert (config.accesslog, config.errorlog, config.loglevel) == ("-", "-", "info")
    assert "%({x-request-id}o)s" in config.access_log_format
    assert config.control_socket_disable is True  # no socket shared by every server of a user


def test_the_environment_overrides_each_value(monkeypatch: pytest.MonkeyPatch) -> None:
    config: Any = load(
        monkeypatch,
        WEB_CONCURRENCY="3",
        HOST="0.0.0.0",
        PORT="9000",
        LOG_LEVEL="WARNING",
        GUNICORN_TIMEOUT="20",
        GUNICORN_GRACEFUL_TIMEOUT="10",
        GUNICORN_KEEPALIVE="2",
        GUNICORN_MAX_REQUESTS="500",
        GUNICORN_MAX_REQUESTS_JITTER="50",
    )

    assert config.workers == 3
    assert config.bind == ["0.0.0.0:9000"]
    assert (config.timeout, config.graceful_timeout, config.keepalive) == (20, 10, 2)
    assert (config.max_requests, config.max_requests_jitter) == (500, 50)
    assert config.loglevel == "warning"


def test_empty_values_count_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    config: Any = load(monkeypatch, WEB_CONCURRENCY="", PORT="", GUNICORN_TIMEOUT="")

    assert config.workers == 2 * len(os.sched_getaffinity(0)) + 1
    assert config.bind == ["127.0.0.1:8000"]
    assert config.timeout == 30


def test_make_serve_runs_gunicorn_with_this_file() -> None:
    done = subprocess.run(
        ["make", "-n", "serve", "HOST=127.0.0.2", "PORT=8765"],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )

    commands = [line for line in done.stdout.splitlines() if "gunicorn" in line]
    assert len(commands) == 1
    assert re.fullmatch(
        r"HOST=127\.0\.0\.2 PORT=8765 \S*/gunicorn -c gunicorn\.conf\.py config\.wsgi",
        commands[0],
    )
