"""Settings of the API benchmarks (``bench/entry.py``, ``bench/rounds.py``): the project's
settings, read from the environment as always, with the bench's URLs (the project's plus
``bench/bare/``), server errors logged to standard error (gunicorn's log) since ``DEBUG`` is off,
and the Celery queue named by ``BENCH_CELERY_QUEUE`` when set (a run's own queue, so that its
worker and no other takes its tasks, whatever else listens on the same Redis)."""

import os

from config.settings import *  # noqa: F403

CELERY_TASK_DEFAULT_QUEUE = os.environ.get("BENCH_CELERY_QUEUE") or "celery"

ROOT_URLCONF = "bench.urls"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR"}},
}
