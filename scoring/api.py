"""The scorekeeping REST API (``/api/v1/``): games, hands, corrections, voids, score sheets.

Views are thin: they parse, authorise (``scoring.api_auth``), call one service or selector and
render. Every rule error is a 400 carrying the score-sheet format's error object; a write the
game's state refuses is a 409 saying what the client needs to recover.
"""

from __future__ import annotations

import re
from typing import Any, cast

from django.db.models import Prefetch
from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView, exception_handler

from scoring import games, selectors, services
from scoring.api_auth import TableKeyAuthentication, game_for, is_table
from scoring.errors import HandNotFound, NotTonk, ScoringConflict
from scoring.messages import error_body
from scoring.models import Game, Hand, Seat
from tonkrules.errors import FormatError
from tonkrules.sheet import SheetError

IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The device's key for this write: a retry with the same key changes nothing "
    "and answers as the first request did.",
)


class StrictJSONParser(JSONParser):
    """JSON only (other media types get 415), refusing text PostgreSQL cannot store (NUL,
    unpaired surrogates) and nesting too deep to read, as the format's ``bad_format``."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise SheetError(FormatError("not_json.nested")) from None
        if _holds_unstorable_text(data):
            raise SheetError(FormatError("not_text.nul"))
        return data


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _holds_unstorable_text(value: object) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if _UNSTORABLE.search(v):
                return True
        elif isinstance(v, dict):
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Rule errors → 400 with the format's error object, and so are requests that are not the
    JSON an endpoint takes (``bad_format``, with DRF's field messages under ``fields``); 404
    for a missing hand; other conflicts → 409 with their code and details; the rest as DRF
    does (401, 403, 404, 405, 415)."""
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
            else "the request does not fit the endpoint",
        }
        if isinstance(exc, exceptions.ValidationError):
            body["fields"] = exc.detail
        return Response({"error": body}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, HandNotFound):
        conflict = error_body(exc, exc.to_dict())
        return Response({"conflict": conflict}, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, ScoringConflict):
        return Response(
            {"conflict": error_body(exc, exc.to_dict())}, status=status.HTTP_409_CONFLICT
        )
    return exception_handler(exc, context)


class SignedInOrTableKey(BasePermission):
    """A signed-in user, or a table device with its game's key (checked per game)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(is_table(request) or (request.user and request.user.is_authenticated))


class SignedIn(BasePermission):
    """A signed-in user: creating games and importing sheets is not for a table device."""

    message = _("Sign in: a table key opens its own game only.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(request.user and request.user.is_authenticated)


class GameApiView(APIView):
    """Base of the game endpoints: users by session or token, table devices by table key."""

    # Token first: an unauthenticated request gets 401 with a WWW-Authenticate challenge.
    authentication_classes = (TokenAuthentication, TableKeyAuthentication, SessionAuthentication)
    permission_classes = (SignedInOrTableKey,)
    parser_classes = (StrictJSONParser,)

    def member_club(self, club_id: object) -> Any:
        """The club ``club_id`` if the signed-in user is a member (403 otherwise), or None."""
        if club_id in (None, ""):
            return None
        try:
            number = serializers.IntegerField().run_validation(club_id)
        except exceptions.ValidationError as exc:
            raise exceptions.ValidationError({"club": exc.detail}) from exc
        club = self.request.user.clubs.filter(pk=number).first()
        if club is None:
            raise exceptions.PermissionDenied(_("You are not a member of that club."))
        return club

    def via(self) -> str:
        return Hand.Via.TABLE if is_table(self.request) else Hand.Via.USER

    def idempotency_key(self, *, required: bool) -> str:
        key = self.request.headers.get(IDEMPOTENCY_HEADER, "").strip()
        if required and not key:
            raise exceptions.ValidationError(
                {IDEMPOTENCY_HEADER: _("Every write from a device carries an idempotency key.")}
            )
        if len(key) > 255:
            raise exceptions.ValidationError({IDEMPOTENCY_HEADER: _("At most 255 characters.")})
        return key


# --- output -----------------------------------------------------------------------------------


def game_body(game: Game, *, with_key: bool) -> dict[str, Any]:
    """A game as the API shows it, with its results (the format's result object)."""
    body: dict[str, Any] = {
        "id": game.pk,
        "game": game.kind,
        "players": [
            {"seat": s.position + 1, "name": s.name, "player": s.player_id}
            for s in game.seats.order_by("position")
        ],
        "options": game.options,
        "rules_version": game.rules_version,
        "stake": game.stake or None,
        "currency": game.currency or None,
        "club": game.club_id,
        "state": game.state,
        "created_at": game.created_at,
        "finished_at": game.finished_at,
        "results": selectors.game_results(game),
    }
    if with_key:
        body["table_key"] = game.table_key
    return body


def hand_body(hand: Hand) -> dict[str, Any]:
    """One hand revision: its number, revision, state, the hand as entered and canonical, its
    scores and warnings, who entered it and when."""
    return {
        "number": hand.number,
        "revision": hand.revision,
        "state": hand.state,
        "hand": hand.record,
        "entry": hand.entry,
        "scores": selectors.hand_scores(hand),
        "warnings": hand.warnings,
        "replaces": hand.replaces.revision if hand.replaces_id and hand.replaces else None,
        "entered_by": hand.entered_by.get_username() if hand.entered_by else None,
        "entered_via": hand.entered_via,
        "entered_at": hand.created_at,
    }


class GameKindField(serializers.ChoiceField):
    """A game's name: one of the games registered in ``scoring.games`` when the serializer is
    made (DRF makes each field anew per serializer, so a game registered later is included)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=games.choices(), **kwargs)


class GameOut(serializers.Serializer):
    """A game (the schema of :func:`game_body`)."""

    id = serializers.IntegerField()
    game = GameKindField()
    players = serializers.ListField(child=serializers.DictField())
    options = serializers.DictField()
    rules_version = serializers.CharField()
    stake = serializers.CharField(allow_null=True)
    currency = serializers.CharField(allow_null=True)
    club = serializers.IntegerField(allow_null=True)
    state = serializers.ChoiceField(choices=Game.State.choices)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    table_key = serializers.CharField(required=False)
    results = serializers.DictField()


class HandOut(serializers.Serializer):
    """One hand revision (the schema of :func:`hand_body`)."""

    number = serializers.IntegerField()
    revision = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Hand.State.choices)
    hand = serializers.DictField()
    entry = serializers.JSONField()
    scores = serializers.DictField(child=serializers.IntegerField())
    warnings = serializers.ListField(child=serializers.DictField())
    replaces = serializers.IntegerField(allow_null=True)
    entered_by = serializers.CharField(allow_null=True)
    entered_via = serializers.ChoiceField(choices=Hand.Via.choices)
    entered_at = serializers.DateTimeField()


RuleErrorOut = inline_serializer("RuleError", {"error": serializers.DictField()})
ConflictOut = inline_serializer("Conflict", {"conflict": serializers.DictField()})


def game_url(game: Game) -> str:
    return reverse("scoring-api:game", args=[game.pk])


def created_response(body: Any, created: bool, location: str) -> Response:
    """201 with a Location header for a write that created something; 200 for its replay."""
    if created:
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})
    return Response(body, status=status.HTTP_200_OK)


# --- games ------------------------------------------------------------------------------------


class StrictSerializer(serializers.Serializer):
    """A serializer that refuses keys it does not declare (the format's rule for objects)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise exceptions.ValidationError({key: [_("Unknown key.")] for key in unknown})
        return super().to_internal_value(data)


class GamePage(PageNumberPagination):
    page_size = 50
    max_page_size = 200
    page_size_query_param = "page_size"


def game_summary(game: Game) -> dict[str, Any]:
    """A game in a list: who plays what, its state and its totals (no hands)."""
    return {
        "id": game.pk,
        "game": game.kind,
        "players": [s.name for s in game.seats.all()],
        "club": game.club_id,
        "state": game.state,
        "created_at": game.created_at,
        "totals": game.totals,
    }


class GameSummaryOut(serializers.Serializer):
    """A game in a list (the schema of :func:`game_summary`)."""

    id = serializers.IntegerField()
    game = GameKindField()
    players = serializers.ListField(child=serializers.CharField())
    club = serializers.IntegerField(allow_null=True)
    state = serializers.ChoiceField(choices=Game.State.choices)
    created_at = serializers.DateTimeField()
    totals = serializers.DictField(child=serializers.IntegerField())


class GameListApi(GameApiView):
    """``GET``: the games the caller may see, newest first, 50 a page. ``POST``: start a game
    (signed-in users)."""

    class InputSerializer(StrictSerializer):
        class SeatInput(StrictSerializer):
            name = serializers.CharField(allow_blank=True, trim_whitespace=False)
            player = serializers.IntegerField(required=False, allow_null=True)

        game = serializers.CharField()
        players = serializers.ListField(child=SeatInput())
        options = serializers.JSONField(required=False)
        stake = serializers.JSONField(required=False)
        currency = serializers.JSONField(required=False)
        club = serializers.IntegerField(required=False, allow_null=True)

    def get_permissions(self) -> list[BasePermission]:
        if self.request.method == "POST":
            return [SignedIn()]
        return super().get_permissions()

    @extend_schema(responses={200: GameSummaryOut(many=True)})
    def get(self, request: Request) -> Response:
        if is_table(request):
            games = Game.objects.filter(pk=request.auth.game_id)
        else:
            games = selectors.games_visible_to(request.user)
        paginator = GamePage()
        page = paginator.paginate_queryset(
            games.order_by("-created_at", "-id").prefetch_related(
                Prefetch("seats", queryset=Seat.objects.order_by("position"))
            ),
            request,
            view=self,
        )
        return paginator.get_paginated_response([game_summary(g) for g in page or []])

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={201: GameOut, 200: GameOut, 400: RuleErrorOut},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        game, created = services.game_start(
            kind=v["game"],
            players=[services.SeatSpec(s["name"], s.get("player")) for s in v["players"]],
            options=v.get("options"),
            stake=v.get("stake"),
            currency=v.get("currency"),
            club=self.member_club(v.get("club")),
            created_by=request.user,
            idempotency_key=self.idempotency_key(required=False),
        )
        return created_response(game_body(game, with_key=True), created, game_url(game))


class GameDetailApi(GameApiView):
    """``GET``: one game with its results."""

    @extend_schema(responses={200: GameOut})
    def get(self, request: Request, game_id: int) -> Response:
        return Response(game_body(game_for(request, game_id), with_key=not is_table(request)))


class GameFinishApi(GameApiView):
    """``POST``: finish the game (no more hands; corrections stay possible)."""

    @extend_schema(request=None, responses={200: GameOut})
    def post(self, request: Request, game_id: int) -> Response:
        game = services.game_finish(game=game_for(request, game_id))
        return Response(game_body(game, with_key=not is_table(request)))


class SettleUpApi(GameApiView):
    """``GET``: Tonk: each player's net, and the fewest payments that settle the table."""

    @extend_schema(
        responses={
            200: inline_serializer(
                "SettleUp",
                {
                    "net": serializers.DictField(child=serializers.IntegerField()),
                    "money": serializers.DictField(child=serializers.CharField(), required=False),
                    "currency": serializers.CharField(allow_null=True),
                    "payments": serializers.ListField(child=serializers.DictField()),
                },
            )
        }
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        if not game.adapter.has_stakes:
            raise NotTonk(game=game.kind)
        return Response(selectors.tonk_settle_up(game))


# --- hands ------------------------------------------------------------------------------------


class HandListApi(GameApiView):
    """``GET``: the current hands. ``POST``: record the next hand (one hand object of the
    score-sheet format) with an ``Idempotency-Key``."""

    @extend_schema(responses={200: HandOut(many=True)})
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        return Response([hand_body(h) for h in selectors.current_hands(game)])

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={201: HandOut, 200: HandOut, 400: RuleErrorOut, 409: ConflictOut},
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id, load=False)
        hand, created = services.hand_record(
            game=game,
            entry=request.data,
            entered_by=request.user,
            via=self.via(),
            idempotency_key=self.idempotency_key(required=True),
        )
        return created_response(
            hand_body(hand), created, reverse("scoring-api:hand", args=[game.pk, hand.number])
        )


class HandDetailApi(GameApiView):
    """``GET``: a hand with every revision. ``PUT``: correct it from a revision. ``DELETE``:
    void it (Tonk: any hand; Rook and Bluke: the latest only)."""

    class CorrectionSerializer(serializers.Serializer):
        revision = serializers.IntegerField(min_value=1)
        hand = serializers.JSONField()

    @extend_schema(
        responses={
            200: inline_serializer(
                "HandHistory",
                {"number": serializers.IntegerField(), "revisions": HandOut(many=True)},
            )
        }
    )
    def get(self, request: Request, game_id: int, number: int) -> Response:
        revisions = selectors.hand_history(game_for(request, game_id), number)
        if not revisions:
            raise exceptions.NotFound(_("No such hand."))
        return Response({"number": number, "revisions": [hand_body(h) for h in revisions]})

    @extend_schema(
        request=CorrectionSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={200: HandOut, 400: RuleErrorOut, 404: ConflictOut, 409: ConflictOut},
    )
    def put(self, request: Request, game_id: int, number: int) -> Response:
        game = game_for(request, game_id, load=False)
        data = self.CorrectionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hand, _created = services.hand_correct(
            game=game,
            number=number,
            revision=data.validated_data["revision"],
            entry=data.validated_data["hand"],
            entered_by=request.user,
            via=self.via(),
            idempotency_key=self.idempotency_key(required=False),
        )
        return Response(hand_body(hand))

    @extend_schema(responses={200: HandOut, 404: ConflictOut, 409: ConflictOut})
    def delete(self, request: Request, game_id: int, number: int) -> Response:
        hand = services.hand_void(game=game_for(request, game_id, load=False), number=number)
        return Response(hand_body(hand))


# --- score sheets -----------------------------------------------------------------------------


class ScoresheetImportApi(GameApiView):
    """``POST``: import a whole score sheet as a new game (signed-in users)."""

    permission_classes = (SignedIn,)

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        parameters=[
            IDEMPOTENCY_PARAMETER,
            OpenApiParameter("club", OpenApiTypes.INT, description="the club the game joins"),
        ],
        responses={
            201: inline_serializer(
                "Imported", {"id": serializers.IntegerField(), "results": serializers.DictField()}
            ),
            400: RuleErrorOut,
        },
    )
    def post(self, request: Request) -> Response:
        game, created = services.scoresheet_import(
            sheet=request.data,
            club=self.member_club(request.query_params.get("club")),
            created_by=request.user,
            idempotency_key=self.idempotency_key(required=False),
        )
        return created_response(
            {"id": game.pk, "results": selectors.game_results(game)}, created, game_url(game)
        )


class ScoresheetExportApi(GameApiView):
    """``GET``: the game's canonical score sheet (JSON)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, game_id: int) -> Response:
        return Response(selectors.scoresheet_export(game_for(request, game_id)))


class ScoresheetCsvApi(GameApiView):
    """``GET``: the score sheet as CSV, one row per hand and player."""

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request: Request, game_id: int) -> HttpResponse:
        game = game_for(request, game_id)
        response = HttpResponse(
            selectors.scoresheet_csv(game), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="tabletally-game-{game.pk}.csv"'
        return response
