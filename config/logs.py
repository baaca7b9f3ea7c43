"""Logging helpers named in ``settings.LOGGING``."""

import logging

from django_guid import get_guid


class RequestIdFilter(logging.Filter):
    """Put the current request's id (django-guid: the request's, or the Celery task's) on every
    record as ``request_id``; ``-`` outside a request or task."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Set ``record.request_id``; never drops a record."""
        record.request_id = get_guid() or "-"
        return True
