"""gunicorn's configuration for the real mode: ``make serve`` runs
``gunicorn -c gunicorn.conf.py config.wsgi``.

Every value comes from the environment (and from ``.env`` when present, as for the settings:
variables already in the environment win; empty counts as unset), with these defaults:

- ``bind``: ``HOST:PORT`` (127.0.0.1:8000);
- ``workers``: ``WEB_CONCURRENCY``, else 2 × the CPUs this process may use + 1 (sync workers:
  one request each at a time, so a slow request holds one worker, not the site);
- ``timeout``: ``GUNICORN_TIMEOUT`` (30 s): a worker silent that long is killed and replaced,
  and its request answered 502 by the proxy (no request does per-table work, so none should
  come near it);
- ``graceful_timeout``: ``GUNICORN_GRACEFUL_TIMEOUT`` (30 s): on SIGTERM, or a SIGHUP reload
  (new code and config, new workers; the old ones finish their requests), a worker that has
  not finished by then is killed;
- ``keepalive``: ``GUNICORN_KEEPALIVE`` (5 s) an idle keep-alive connection is held open (the
  live table pages poll every 3 s);
- ``max_requests`` ``GUNICORN_MAX_REQUESTS`` (1000) plus a random jitter of up to
  ``GUNICORN_MAX_REQUESTS_JITTER`` (100): each worker is replaced gracefully after that many
  requests, not all at once;
- the access log to stdout, each line with the request's time in seconds and its request id
  (the response's ``X-Request-ID``); gunicorn's own log to stderr, at ``LOG_LEVEL`` (info),
  beside the application's lines (``config.settings.LOGGING``).
"""

import os
from pathlib import Path

import environ

if (Path(__file__).resolve().parent / ".env").is_file():
    environ.Env.read_env(Path(__file__).resolve().parent / ".env")


def _setting(name: str, default: int) -> int:
    """The environment variable ``name`` as an int; ``default`` when unset or empty."""
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity, which containers narrow), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


bind = f"{os.environ.get('HOST') or '127.0.0.1'}:{os.environ.get('PORT') or '8000'}"
workers = _setting("WEB_CONCURRENCY", 2 * cpu_count() + 1)
worker_class = "sync"
timeout = _setting("GUNICORN_TIMEOUT", 30)
graceful_timeout = _setting("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = _setting("GUNICORN_KEEPALIVE", 5)
max_requests = _setting("GUNICORN_MAX_REQUESTS", 1000)
max_requests_jitter = _setting("GUNICORN_MAX_REQUESTS_JITTER", 100)

accesslog = "-"
errorlog = "-"
loglevel = (os.environ.get("LOG_LEVEL") or "info").lower()
access_log_format = (
    '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(L)s [%({x-request-id}o)s]'
)
# Workers' heartbeat files in memory: a slow disk does not get a worker killed as silent.
if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"
# No control socket: its default path ($HOME/.gunicorn/gunicorn.ctl) is one per user, so two
# servers on one host (a deployment and a benchmark, two ports) would take it from each other;
# nothing here uses it (signals restart and stop the server).
control_socket_disable = True
