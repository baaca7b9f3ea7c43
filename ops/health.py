"""The health check behind ``/healthz``: is every part that serves the tables working now?

Six checks, each reported by name as ``ok``, ``error`` or ``skipped`` (not used in this
configuration, which passes) with a short reason; the whole passes when none is ``error``:

- ``database``: a trivial query (``SELECT 1``);
- ``cache``: when the cache is Redis (``CACHE_URL``), a ``PING`` to its server on a connection
  of our own with a short timeout (never through ``cache.get``, which a cache that ignores
  its errors would answer with a miss); skipped with the local-memory cache;
- ``broker``: when tasks are sent to workers (Celery's ``task_always_eager`` off), a ``PING``
  to the Redis broker (``CELERY_BROKER_URL``); skipped in the embedded mode (eager tasks);
- ``worker``: some Celery worker beat (``ops.worker``) within ``HEALTH_WORKER_SECONDS``;
  skipped in the embedded mode;
- ``tick``: the last tick (``ops.background.tick``) is at most ``HEALTH_TICK_SECONDS`` old;
- ``waiting``: no background work has waited longer than ``HEALTH_WAITING_SECONDS``
  (``ops.background.oldest_waiting``).

Cheap enough to poll every few seconds: ``2 + k`` queries (``SELECT 1``, one over the
heartbeats, one per kind of waiting work registered: ``k``), none when the database is down,
and each Redis check is one connection with a timeout of ``HEALTH_TIMEOUT_SECONDS`` (under a
second) and no retry. The reasons are for operators and monitors, like log lines: English,
untranslated, and naming no host, port or password (the endpoint is public).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal
from urllib.parse import urlsplit

import redis
from celery import current_app
from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Max, Q
from django.utils import timezone
from redis.backoff import NoBackoff
from redis.retry import Retry

from ops.background import TICK, oldest_waiting
from ops.db.sql import select_one
from ops.models import Heartbeat
from ops.worker import WORKER_PREFIX

Status = Literal["ok", "error", "skipped"]

#: URL schemes of a Redis server (redis-py's ``from_url``).
REDIS_SCHEMES = frozenset({"redis", "rediss", "unix"})


@dataclass(frozen=True)
class Check:
    """The outcome of one check: ``status`` (``ok``, ``error``, or ``skipped`` when the part is
    not used here) and ``reason``, one short English phrase."""

    status: Status
    reason: str

    @property
    def passed(self) -> bool:
        """Whether this check lets the whole pass (``ok`` or ``skipped``)."""
        return self.status != "error"


@dataclass(frozen=True)
class Report:
    """Every check by name, in a fixed order: database, cache, broker, worker, tick, waiting."""

    checks: dict[str, Check]

    @property
    def ok(self) -> bool:
        """Whether every check passed (``/healthz`` answers 200; 503 otherwise)."""
        return all(check.passed for check in self.checks.values())

    def as_json(self) -> dict[str, Any]:
        """``{"status": "ok" | "error", "failing": [names], "checks": {name: {"status",
        "reason"}}}``: the body of ``/healthz``."""
        return {
            "status": "ok" if self.ok else "error",
            "failing": [name for name, check in self.checks.items() if not check.passed],
            "checks": {
                name: {"status": check.status, "reason": check.reason}
                for name, check in self.checks.items()
            },
        }


def report(*, now: datetime | None = None) -> Report:
    """Run every check once (see the module's docstring) and return them all.

    Args:
        now: the time ages are measured from; default the current time.

    Never raises for a part that is down: that part's check is ``error`` with the reason. When
    the database is down the checks that read it (worker, tick, waiting) are ``error`` too,
    without a query each.
    """
    now = now or timezone.now()
    checks = {"database": database(), "cache": cache(), "broker": broker()}
    if not checks["database"].passed:
        down = Check("error", "not checked: the database is down")
        checks |= {"worker": down, "tick": down, "waiting": down}
        return Report(checks)
    try:
        seen = Heartbeat.objects.aggregate(
            tick=Max("at", filter=Q(name=TICK)),
            worker=Max("at", filter=Q(name__startswith=WORKER_PREFIX)),
            workers=Count(
                "name",
                filter=Q(name__startswith=WORKER_PREFIX, at__gte=now - worker_limit()),
            ),
        )
    except DatabaseError as error:
        failed = Check("error", f"heartbeats not read ({type(error).__name__})")
        checks |= {"worker": failed, "tick": failed}
    else:
        checks["worker"] = worker(seen["worker"], seen["workers"], now=now)
        checks["tick"] = tick(seen["tick"], now=now)
    checks["waiting"] = waiting(now=now)
    return Report(checks)


def database() -> Check:
    """``SELECT 1`` on the default database."""
    try:
        row = select_one()
    except DatabaseError as error:
        return Check("error", f"query failed ({type(error).__name__})")
    if row != (1,):
        return Check("error", f"SELECT 1 answered {row!r}")
    return Check("ok", "answers")


def cache() -> Check:
    """A ``PING`` to the default cache's Redis server; skipped for a cache that is not Redis."""
    url = cache_redis_url()
    if url is None:
        backend = str(settings.CACHES.get("default", {}).get("BACKEND", "none"))
        return Check("skipped", f"not Redis ({backend.rsplit('.', 1)[-1]})")
    return redis_ping(url)


def cache_redis_url() -> str | None:
    """The URL of the default cache's Redis server (the first, which takes the writes, when
    ``LOCATION`` lists several), or None when the cache is not Redis. Reads ``CACHES``, so it
    serves Django's own Redis backend and django-redis alike."""
    config = settings.CACHES.get("default", {})
    if "redis" not in str(config.get("BACKEND", "")).lower():
        return None
    location = config.get("LOCATION")
    if isinstance(location, str):
        servers = re.split("[;,]", location)
    elif isinstance(location, list | tuple):
        servers = list(location)
    else:
        servers = []
    return str(servers[0]).strip() if servers else None


def broker() -> Check:
    """A ``PING`` to the Celery broker, when tasks go to workers (Celery's
    ``task_always_eager`` off); skipped in the embedded mode and for a broker that is not
    Redis."""
    conf = current_app.conf
    if conf.task_always_eager:
        return Check("skipped", "eager: tasks run in the process that sends them")
    # kombu takes several broker URLs separated by ";" (failover): the first is the broker.
    url = str(conf.broker_url or "").split(";")[0].strip()
    scheme = urlsplit(url).scheme
    if scheme not in REDIS_SCHEMES:
        return Check("skipped", f"not checked: not a Redis broker ({scheme or 'none'})")
    return redis_ping(url)


def redis_ping(url: str) -> Check:
    """``PING`` the Redis server at ``url`` on a fresh connection, within
    ``HEALTH_TIMEOUT_SECONDS`` to connect and as much to answer, without retrying."""
    timeout = settings.HEALTH_TIMEOUT_SECONDS
    try:
        client = redis.Redis.from_url(
            url,
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )
    except ValueError as error:
        return Check("error", f"not a valid Redis URL ({type(error).__name__})")
    try:
        client.ping()
    except (redis.RedisError, OSError) as error:
        return Check("error", f"Redis did not answer ({type(error).__name__})")
    finally:
        client.close()
    return Check("ok", "answers")


def worker_limit() -> timedelta:
    """How recent a worker's heartbeat must be (``HEALTH_WORKER_SECONDS``)."""
    return timedelta(seconds=settings.HEALTH_WORKER_SECONDS)


def worker(last: datetime | None, alive: int, *, now: datetime) -> Check:
    """Some worker beat within ``HEALTH_WORKER_SECONDS``, given the last heartbeat of any
    worker and how many beat within the limit; skipped when tasks run eagerly."""
    if current_app.conf.task_always_eager:
        return Check("skipped", "eager: tasks run in the process that sends them")
    limit = settings.HEALTH_WORKER_SECONDS
    if last is None:
        return Check("error", "no worker heartbeat: no worker has ever beaten")
    age = seconds_since(last, now)
    if age > limit:
        return Check("error", f"no worker heartbeat for {age:.0f} s (limit {limit:.0f} s)")
    return Check("ok", f"{alive} worker(s) alive, last heartbeat {age:.0f} s ago")


def tick(last: datetime | None, *, now: datetime) -> Check:
    """The last tick is at most ``HEALTH_TICK_SECONDS`` old."""
    limit = settings.HEALTH_TICK_SECONDS
    if last is None:
        return Check("error", "tick too old: no tick has run")
    age = seconds_since(last, now)
    if age > limit:
        return Check("error", f"tick too old: last {age:.0f} s ago (limit {limit:.0f} s)")
    return Check("ok", f"last tick {age:.0f} s ago")


def waiting(*, now: datetime) -> Check:
    """No background work has waited more than ``HEALTH_WAITING_SECONDS`` (one query per
    registered kind)."""
    limit = settings.HEALTH_WAITING_SECONDS
    try:
        found = oldest_waiting()
    except DatabaseError as error:
        return Check("error", f"waiting work not read ({type(error).__name__})")
    if found is None:
        return Check("ok", "nothing waits")
    kind, since = found
    age = seconds_since(since, now)
    if age > limit:
        return Check("error", f"{kind} has waited {age:.0f} s (limit {limit:.0f} s)")
    return Check("ok", f"oldest: {kind}, waiting {age:.0f} s")


def seconds_since(moment: datetime, now: datetime) -> float:
    """Seconds from ``moment`` to ``now``; 0 for a moment ahead (clocks a little apart)."""
    return max(0.0, (now - moment).total_seconds())
