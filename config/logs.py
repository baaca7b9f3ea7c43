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


class HealthAnswerFilter(logging.Filter):
    """Log ``/healthz``'s 503 as a warning, not an error: it is the health check doing its
    job (its body says what is wrong), and a load balancer polling it every few seconds
    through an outage would otherwise fill the error log. Other 5xx are left as they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Lower a ``/healthz`` 503's level; never drops a record."""
        request = getattr(record, "request", None)
        if getattr(record, "status_code", None) == 503 and getattr(request, "path_info", "") == (
            "/healthz"
        ):
            record.levelno = logging.WARNING
            record.levelname = logging.getLevelName(logging.WARNING)
        return True
