"""Settings of the API benchmarks (``bench/entry.py``, ``bench/rounds.py``): the project's
settings, read from the environment as always (its logging too: errors with their tracebacks
on standard error, and the worker's "ready" line that ``bench/rounds.py`` waits for), with the
bench's URLs (the project's plus ``bench/bare/``), and the Celery queue named by
``BENCH_CELERY_QUEUE`` when set (a run's own queue, so that its worker and no other takes its
tasks, whatever else listens on the same Redis)."""

import os

from config.settings import *  # noqa: F403

CELERY_TASK_DEFAULT_QUEUE = os.environ.get("BENCH_CELERY_QUEUE") or "celery"

ROOT_URLCONF = "bench.urls"
