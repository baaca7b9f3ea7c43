"""Settings of the API benchmark (``bench/entry.py``): the project's settings, read from the
environment as always, with the bench's URLs (the project's plus ``bench/bare/``)."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
