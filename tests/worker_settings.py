"""The settings of the tests' own celery worker: the project's, with every broker key under the
prefix in ``TEST_BROKER_KEY_PREFIX`` (``tests.services.celery_worker_running``), so that the
workers of parallel test processes on one Redis database never take each other's tasks."""

import os

from config.settings import *  # noqa: F403
from config.settings import CELERY_BROKER_TRANSPORT_OPTIONS

CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,
    "global_keyprefix": os.environ["TEST_BROKER_KEY_PREFIX"],
}
