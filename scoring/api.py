"""The scorekeeping REST API (``/api/v1/``): what its endpoints share.

The endpoints live by resource: ``scoring.api_games`` (games, finish, settle-up),
``scoring.api_hands`` (hands, corrections, voids), ``scoring.api_scoresheets`` (import,
export, CSV); their output shapes in ``scoring.serializers``. Here: the JSON parser, the
exception handler, the permissions, the base view, the strict input serializer and the error
responses each operation documents.

Views are thin: they parse, authorise (``scoring.api_auth``), call one service or selector and
render ``OutputSerializer(obj).data``. Every rule error is a 400 carrying the score-sheet
format's error object; a write the game's state refuses is a 409 saying what the client needs
to recover.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
)
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView, exception_handler

from ops import idempotency, l10n
from ops.guessing import TokenAuthentication
from scoring.api_auth import (
    SeatKeyAuthentication,
    TableAccess,
    TableKeyAuthentication,
    actor_of,
    is_table,
)
from scoring.api_parser import (
    BodyTooLarge,
    LengthRequired,
    StrictJSONParser,
    body_limit,
    is_chunked,
    length_required_body,
    too_large_body,
)
from scoring.errors import (
    GameNotFound,
    HandNotFound,
    HandNumberRequired,
    NotAllowed,
    ScoringConflict,
)
from scoring.messages import error_body, error_message
from scoring.models import Game
from scoring.permissions import Actor
from scoring.serializers import ConflictOut, ErrorOut, RefusalOut
from tonkrules.sheet import SheetError

IDEMPOTENCY_HEADER = idempotency.HEADER
_IDEMPOTENCY_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": idempotency.MAX_LENGTH,
    "pattern": idempotency.PATTERN,
}
#: The ``Idempotency-Key`` header, documented once for every operation that takes it (the
#: rule: :mod:`ops.idempotency`).
IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    _IDEMPOTENCY_SCHEMA,
    OpenApiParameter.HEADER,
    description=idempotency.DESCRIPTION,
)
#: The same header where every write must carry one.
IDEMPOTENCY_REQUIRED = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    _IDEMPOTENCY_SCHEMA,
    OpenApiParameter.HEADER,
    required=True,
    description=idempotency.DESCRIPTION + " Required: every write from a device carries one.",
)


def idempotency_key_of(request: Request, *, required: bool = False) -> str | None:
    """The request's ``Idempotency-Key`` read by the one rule (:func:`ops.idempotency.clean_key`),
    or None when it carries none.

    Raises:
        ValidationError: a key the rule refuses, or none where ``required``: 400 ``bad_format``
            naming the header under ``fields``.
    """
    try:
        return idempotency.clean_key(
            request.headers.get(IDEMPOTENCY_HEADER), required=required, blank=False
        )
    except idempotency.KeyRefused as exc:
        raise exceptions.ValidationError({IDEMPOTENCY_HEADER: [exc.message]}) from exc


def has_body(request: Request) -> bool:
    """Whether the request carries a body (a ``Content-Length`` above 0; a body without one,
    chunked, is read as empty, as Django reads it)."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) > 0
    except ValueError:
        return False


class BodyLimited(APIView):
    """Base of every API view. A write whose ``Content-Length`` is over the endpoint's limit
    (:func:`body_limit`) is refused with 413 before anything else, whether or not the endpoint
    reads a body (the parser enforces the limit on the bytes actually sent), and a chunked
    write (no length) with 411. A read's body is never read, so it is not limited. Once the caller
    is authenticated and allowed, a write's body is read by the strict parser even where the
    endpoint needs none: a body that is not strict JSON is refused (400 ``bad_format``, 415
    for another media type) by every write operation alike."""

    body_limit_setting = "API_MAX_BODY_BYTES"

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        if request.method in _WRITES:
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > body_limit(self):
                raise BodyTooLarge(body_limit(self))
            if is_chunked(request.META):
                raise LengthRequired()
        super().initial(request, *args, **kwargs)
        if request.method in _WRITES and has_body(request):
            request.data  # noqa: B018 - parsed now, refused now; the view reads it from the cache


_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Rule errors → 400 with the format's error object, and so are requests that are not the
    JSON an endpoint takes (``bad_format``, with DRF's field messages under ``fields``); 404
    for a missing hand, and for a game deleted while the request waited for it; other
    conflicts → 409 with their code and details; the rest as DRF does
    (401, 403, 404, 405, 415)."""
    if isinstance(exc, RequestDataTooBig):  # Django's own limit, where something read the body
        exc = BodyTooLarge(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    if isinstance(exc, BodyTooLarge):
        return Response(too_large_body(exc), status=exc.status_code)
    if isinstance(exc, LengthRequired):
        return Response(length_required_body(exc), status=exc.status_code)
    if isinstance(exc, SheetError):
        answer = exc.to_json()
        answer["error"] = error_body(exc, cast(dict[str, object], answer["error"]))
        return Response(answer, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, exceptions.ParseError | exceptions.ValidationError):
        body: dict[str, Any] = {
            "code": "bad_format",
            "detail": "request",
            "message": str(exc.detail)
            if isinstance(exc, exceptions.ParseError)
            else gettext("the request does not fit the endpoint"),
        }
        if isinstance(exc, exceptions.ValidationError):
            body["fields"] = exc.detail
        return Response({"error": body}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, NotAllowed):  # the caller may see the game, not change it
        if _table_key_alone(context.get("request")) and exc.key in _SEAT_NEEDED:
            exc = NotAllowed("not_allowed.table_key")  # the API's word: name the seat key
        return Response({"detail": error_message(exc)}, status=status.HTTP_403_FORBIDDEN)
    if isinstance(exc, HandNotFound | GameNotFound):
        return Response(
            {"conflict": error_body(exc, exc.to_dict())}, status=status.HTTP_404_NOT_FOUND
        )
    if isinstance(exc, HandNumberRequired):  # a precondition the write must state
        return Response(
            {"conflict": error_body(exc, exc.to_dict())},
            status=status.HTTP_428_PRECONDITION_REQUIRED,
        )
    if isinstance(exc, ScoringConflict):
        return Response(
            {"conflict": error_body(exc, exc.to_dict())}, status=status.HTTP_409_CONFLICT
        )
    if isinstance(exc, exceptions.Throttled):
        return throttled_response(exc)
    if isinstance(exc, Http404):  # get_object_or_404's sentence names the model: say Not found
        exc = exceptions.NotFound()
    return exception_handler(exc, context)


def throttled_response(exc: exceptions.Throttled) -> Response:
    """429 for a caller over a limit on guessing or on writes (``ops.guessing``,
    ``scoring.throttles``): ``{"error": {"code": "throttled", "detail": "rate", "message",
    "retry_after"}}`` with ``Retry-After`` in whole seconds."""
    wait = max(1, math.ceil(getattr(exc, "wait", None) or 1))
    message = str(exc.detail)
    if message.startswith(str(exceptions.Throttled.default_detail)):
        # DRF's own sentence, with its "Expected available in ..." in English: ours instead.
        message = l10n.sentence(
            ngettext(
                "Too many requests: try again in %(seconds)s second.",
                "Too many requests: try again in %(seconds)s seconds.",
                wait,
            ),
            {"seconds": wait},
        )
    body = {
        "code": "throttled",
        "detail": "rate",
        "message": message,
        "retry_after": wait,
    }
    return Response(
        {"error": body},
        status=status.HTTP_429_TOO_MANY_REQUESTS,
        headers={"Retry-After": str(wait)},
    )


#: Refusals that mean "say which seat you are": a table key alone is told to send a seat key.
_SEAT_NEEDED = ("not_allowed.table_link", "not_allowed.seat")


def _table_key_alone(request: Request | None) -> bool:
    """Whether the caller holds a game's table key, no seat key (``Authorization: Table``)."""
    auth = getattr(request, "auth", None)
    return isinstance(auth, TableAccess) and auth.seat_id is None


class SignedInOrTableKey(BasePermission):
    """A signed-in user, or a table device with its game's key (checked per game)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(is_table(request) or (request.user and request.user.is_authenticated))


class SignedIn(BasePermission):
    """A signed-in user: creating games and importing sheets is not for a table device."""

    message = _("Sign in: a table key opens its own game only.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(request.user and request.user.is_authenticated)


class GameApiView(BodyLimited):
    """Base of the game endpoints: users by session or token, table devices by table key,
    players' phones by seat key."""

    # Token first: an unauthenticated request gets 401 with a WWW-Authenticate challenge.
    authentication_classes = (
        TokenAuthentication,
        TableKeyAuthentication,
        SeatKeyAuthentication,
        SessionAuthentication,
    )
    permission_classes: Sequence[type[BasePermission]] = (SignedInOrTableKey,)
    parser_classes = (StrictJSONParser,)

    def member_club(self, club_id: object) -> Any:
        """The club ``club_id`` if the signed-in user is a member (403 otherwise), or None."""
        if club_id in (None, ""):
            return None
        try:
            number = serializers.IntegerField().run_validation(club_id)
        except exceptions.ValidationError as exc:
            raise exceptions.ValidationError({"club": exc.detail}) from exc
        user = cast(User, self.request.user)  # only the SignedIn endpoints name a club
        club = user.clubs.filter(pk=number).first()
        if club is None:
            raise exceptions.PermissionDenied(_("You are not a member of that club."))
        return club

    def actor(self) -> Actor:
        """Who is making the change (a seat, a table device, a signed-in user)."""
        return actor_of(self.request)

    def idempotency_key(self, *, required: bool) -> str | None:
        """The request's idempotency key (:func:`idempotency_key_of`), or None."""
        return idempotency_key_of(self.request, required=required)


# --- shared parts -----------------------------------------------------------------------------


class StrictSerializer(serializers.Serializer[Any]):
    """A serializer that refuses keys it does not declare (the format's rule for objects); its
    schema says so (``additionalProperties: false``)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise exceptions.ValidationError({key: [_("Unknown key.")] for key in unknown})
        return super().to_internal_value(data)


def game_url(game: Game) -> str:
    """The API address of ``game``."""
    return reverse("scoring-api:game", args=[game.pk])


def created_response(body: Any, created: bool, location: str) -> Response:
    """201 with a Location header for a write that created something; 200 for its replay."""
    if created:
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})
    return Response(body, status=status.HTTP_200_OK)


# --- documented error answers -------------------------------------------------------------------

NOT_FOUND_OR_NO_HAND = PolymorphicProxySerializer(
    component_name="NotFoundOrNoSuchHand",
    serializers=[RefusalOut, ConflictOut],
    resource_type_field_name=None,
)

_ERRORS: dict[int, OpenApiResponse] = {
    400: OpenApiResponse(
        ErrorOut,
        description="A rule error or a request that is not the JSON the endpoint takes "
        "(`bad_format`); nothing is stored.",
    ),
    401: OpenApiResponse(RefusalOut, description="No credentials, or credentials not known."),
    403: OpenApiResponse(
        RefusalOut,
        description="The caller may not do this. A table key alone never writes (every change "
        "records who made it): send the seat's key, `Authorization: Seat <key>`.",
    ),
    404: OpenApiResponse(
        RefusalOut, description="No such thing, or not one the caller may see (the same answer)."
    ),
    409: OpenApiResponse(ConflictOut, description="The present state refuses the write."),
    413: OpenApiResponse(
        ErrorOut,
        description="The body is over the endpoint's limit (64 KiB; the score-sheet import "
        "1 MiB), whatever its `Content-Length` says: `bad_format` with the detail `too_large` "
        "and the `limit` in bytes; nothing is stored.",
    ),
    411: OpenApiResponse(
        ErrorOut,
        description="The body came without a `Content-Length` (chunked): `bad_format` with the "
        "detail `length_required`; nothing is stored.",
    ),
    415: OpenApiResponse(RefusalOut, description="The body is not `application/json`."),
}


def example(name: str, value: object) -> OpenApiExample:
    """A request body example (the docs show it; the schema fuzzer sends it)."""
    return OpenApiExample(name, value=value, request_only=True)


def errors(*codes: int, **special: Any) -> dict[int, Any]:
    """The documented error answers of one operation, by status code: 400 and 413 the format's
    error object, 401/403/404/415 DRF's ``{"detail"}``, 409 a conflict. ``special`` overrides one
    (``e404=NOT_FOUND_OR_NO_HAND``)."""
    out: dict[int, Any] = {code: _ERRORS[code] for code in codes}
    for key, value in special.items():
        out[int(key.removeprefix("e"))] = value
    return out


READ_ERRORS = (401, 403, 404)

#: A Tonk hand of the score-sheet format (README): Ana knocks holding 3 against Ben's 20.
TONK_HAND_EXAMPLE = {
    "dealer": "Ben",
    "end": "knock",
    "by": "Ana",
    "held": {"Ana": "AS 2D", "Ben": "KH QH"},
}
WRITE_ERRORS = (400, 401, 403, 404, 409, 411, 413, 415)
