"""The one settings module: embedded defaults with nothing set, real mode from the environment.

Each case loads the settings in a fresh interpreter with a controlled environment, since the
test run itself may be configured for PostgreSQL. Empty values count as unset and also hide
whatever a developer's ``.env`` holds.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from config.settings import BASE_DIR
from ops.language_list import codes

UNSET = {"DATABASE_URL": "", "CELERY_BROKER_URL": "", "CACHE_URL": ""}
OWN_ENVIRONMENT = {
    key: value for key, value in os.environ.items() if key not in ("DEBUG", "SECRET_KEY")
}

PROBE = """
import json, sys
import django
django.setup()
from django.conf import settings
from django.db.utils import ConnectionHandler
from config.celery import app

database = settings.DATABASES["default"]
report = {
    "engine": database["ENGINE"],
    "name": str(database["NAME"]),
    "options": database.get("OPTIONS", {}),
    "conn_max_age": database.get("CONN_MAX_AGE"),
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_options": settings.CACHES["default"].get("OPTIONS", {}),
    "eager": app.conf.task_always_eager,
    "broker": app.conf.broker_url,
    "languages": [code for code, _ in settings.LANGUAGES],
}
if database["ENGINE"].endswith("sqlite3"):
    # The same settings, on a scratch file instead of the project's db.sqlite3.
    probe = ConnectionHandler({"default": {**database, "NAME": sys.argv[1]}})
    with probe["default"].cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        report["journal_mode"] = cursor.fetchone()[0]
        cursor.execute("PRAGMA busy_timeout")
        report["busy_timeout_ms"] = cursor.fetchone()[0]
print(json.dumps(report))
"""


def load_settings(tmp_path: Path, **environment: str) -> dict[str, object]:
    """The settings that a fresh process sees with ``environment`` (over UNSET)."""
    env = {
        **OWN_ENVIRONMENT,
        **UNSET,
        **environment,
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "probe.sqlite3")],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_nothing_set_is_embedded_mode_sqlite_wal_and_eager_tasks(tmp_path: Path) -> None:
    report = load_settings(tmp_path)

    assert report["engine"] == "django.db.backends.sqlite3"
    assert report["name"] == str(BASE_DIR / "db.sqlite3")
    assert report["journal_mode"] == "wal"
    assert report["busy_timeout_ms"] == 20_000
    assert report["options"]["transaction_mode"] == "IMMEDIATE"
    assert report["eager"] is True
    assert report["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    assert report["languages"] == codes()


def test_service_urls_switch_to_real_mode(tmp_path: Path) -> None:
    report = load_settings(
        tmp_path,
        DATABASE_URL="postgres://tt:secret@db.internal:5432/tabletally",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
        CACHE_URL="redis://127.0.0.1:6379/1",
    )

    assert report["engine"] == "django.db.backends.postgresql"
    assert report["name"] == "tabletally"
    assert report["conn_max_age"] == 60
    # A database host that stops answering fails the request in seconds (libpq's options).
    assert report["options"] == {
        "connect_timeout": 5,
        "tcp_user_timeout": 10_000,
        "keepalives": 1,
        "keepalives_idle": 10,
        "keepalives_interval": 5,
        "keepalives_count": 3,
    }
    assert report["eager"] is False
    assert report["broker"] == "redis://127.0.0.1:6379/0"
    # django-redis, which answers a miss when Redis is down, within half a second.
    assert report["cache"] == "django_redis.cache.RedisCache"
    assert report["cache_options"] == {
        "IGNORE_EXCEPTIONS": True,
        "SOCKET_CONNECT_TIMEOUT": 0.5,
        "SOCKET_TIMEOUT": 0.5,
    }


def test_debug_off_without_secret_key_refuses_to_start(tmp_path: Path) -> None:
    env = {**OWN_ENVIRONMENT, **UNSET, "DEBUG": "false", "SECRET_KEY": ""}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=BASE_DIR,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode != 0
    assert "SECRET_KEY must be set" in done.stderr


def test_cookies_are_https_only_once_debug_is_off() -> None:
    env = {**os.environ, "DEBUG": "false", "SECRET_KEY": "x" * 50}
    code = (
        "import django; from django.conf import settings as s; django.setup(); "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["True", "True"]


def test_celery_keeps_a_task_until_it_is_done_and_never_gives_it_to_two_workers_at_once() -> None:
    """The Celery settings that make a killed worker lose nothing (issue 13): acknowledged
    when done, put back when its worker dies, one task taken at a time, a visibility timeout
    just above the longest a task may run (so a running task is never handed out again), and
    workers that reconnect to the broker for as long as it takes."""
    from config.celery import app

    conf = app.conf
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    assert conf.broker_connection_max_retries is None
    hard_limit = conf.task_time_limit
    assert conf.task_soft_time_limit < hard_limit
    visibility = conf.broker_transport_options["visibility_timeout"]
    assert hard_limit < visibility <= hard_limit + 30
    assert conf.beat_schedule["tick"]["task"] == "ops.tasks.tick"
