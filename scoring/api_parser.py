"""The API's body reader: the one strict JSON reader (``tonkrules.jsontext``) as DRF's parser,
under the body limits (``settings.API_MAX_BODY_BYTES``, ``API_MAX_SHEET_BYTES``).

Its own module, importing no DRF view: ``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]`` names the
parser, and DRF reads that setting when ``APIView`` is defined.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser

from tonkrules.errors import FormatError
from tonkrules.jsontext import read_json
from tonkrules.sheet import SheetError


def body_limit(view: object) -> int:
    """The most bytes a request body to ``view`` may hold: the setting its
    ``body_limit_setting`` names, ``API_MAX_BODY_BYTES`` unless it says otherwise (a hand, a
    game, a tournament: 64 KiB; the score-sheet import takes ``API_MAX_SHEET_BYTES``, 1 MiB)."""
    name = getattr(view, "body_limit_setting", "API_MAX_BODY_BYTES")
    return int(getattr(settings, name))


class BodyTooLarge(exceptions.APIException):
    """A request body over the endpoint's limit (:func:`body_limit`): 413, the API's error
    object with ``code`` ``bad_format`` and ``detail`` ``too_large``; nothing is read further
    nor stored."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(
            gettext("The request body is larger than %(limit)s bytes, this endpoint's limit.")
            % {"limit": limit}
        )


class LengthRequired(exceptions.APIException):
    """A write whose body comes without a ``Content-Length`` (``Transfer-Encoding: chunked``):
    411, the API's error object with ``code`` ``bad_format`` and ``detail``
    ``length_required``. Django reads such a body as empty, so the write would silently lose
    what the client sent; nothing is stored."""

    status_code = status.HTTP_411_LENGTH_REQUIRED
    default_code = "length_required"

    def __init__(self) -> None:
        super().__init__(
            gettext("Send the request body with a Content-Length header (not chunked).")
        )


def is_chunked(meta: dict[str, Any]) -> bool:
    """Whether a request's WSGI environ says its body comes in chunks, without a length."""
    return "chunked" in str(meta.get("HTTP_TRANSFER_ENCODING", "")).lower()


def length_required_body(exc: LengthRequired) -> dict[str, object]:
    """The API's answer to a chunked write (411): ``{"error": {"code": "bad_format",
    "detail": "length_required", "message"}}``."""
    return {
        "error": {
            "code": "bad_format",
            "detail": "length_required",
            "message": str(exc.detail),
        }
    }


def too_large_body(exc: BodyTooLarge) -> dict[str, object]:
    """The API's answer to a body over its limit (413): ``{"error": {"code": "bad_format",
    "detail": "too_large", "message", "limit"}}``, ``limit`` in bytes."""
    return {
        "error": {
            "code": "bad_format",
            "detail": "too_large",
            "message": str(exc.detail),
            "limit": exc.limit,
        }
    }


class StrictJSONParser(JSONParser):
    """JSON only (other media types get 415), read by the one strict reader
    (:func:`tonkrules.jsontext.read_json`: UTF-8, no key named twice, no NaN, no NUL or unpaired
    surrogate, not nested too deep) as the format's ``bad_format``; a body over the endpoint's
    limit (:func:`body_limit`) is refused with 413 after reading one byte past the limit, so a
    body longer than its ``Content-Length`` claims is never read in whole."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = body_limit((parser_context or {}).get("view"))
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise BodyTooLarge(limit)
        try:
            return read_json(raw)
        except FormatError as exc:
            raise SheetError(exc) from None
