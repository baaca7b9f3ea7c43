"""The Celery app: configured from Django settings (the ``CELERY_`` names), tasks found per app.

In the embedded mode (no ``CELERY_BROKER_URL``) tasks run eagerly in the calling process; with a
broker they run in ``celery -A config worker`` processes, and timed work in ``celery -A config
beat``.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("tabletally")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The worker's own signal handlers (ops.worker): importing connects them.
import ops.worker  # noqa: E402, F401
