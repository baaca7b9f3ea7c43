"""The request type of a page that answers htmx: what django-htmx's middleware adds.

``django_htmx.middleware.HtmxMiddleware`` (``settings.MIDDLEWARE``) sets ``request.htmx`` on
every request; Django's ``HttpRequest`` does not declare it, so pages that read it take an
:class:`HtmxHttpRequest` (the type django-htmx documents for this). A type only: nothing is
added at runtime.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """An ``HttpRequest`` that went through ``HtmxMiddleware``: ``htmx`` is truthy for a request
    htmx sent (the ``HX-Request`` header) and carries its details (target, trigger…)."""

    htmx: HtmxDetails
