"""Settings of the API benchmark (``bench/entry.py``): the project's settings, read from the
environment as always, with the bench's URLs (the project's plus ``bench/bare/``), and server
errors logged to standard error (gunicorn's log) since ``DEBUG`` is off."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR"}},
}
