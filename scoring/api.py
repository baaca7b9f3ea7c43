"""The scorekeeping REST API (``/api/v1/``): games, hands, corrections, voids, score sheets.

Views are thin: they parse, authorise (``scoring.api_auth``), call one service or selector and
render. Every rule error is a 400 carrying the score-sheet format's error object; a write the
game's state refuses is a 409 saying what the client needs to recover.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView, exception_handler

from scoring import selectors, services
from scoring.api_auth import TableKeyAuthentication, game_for, is_table
from scoring.errors import HandNotFound, ScoringConflict
from scoring.models import Game, Hand
from tonkrules.sheet import SheetError

IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_PARAMETER = OpenApiParameter(
    IDEMPOTENCY_HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The device's key for this write: a retry with the same key changes nothing "
    "and answers as the first request did.",
)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Rule errors → 400 with the format's error object; 404 for a missing hand; other
    conflicts → 409 with their code and details; the rest as DRF does."""
    if isinstance(exc, SheetError):
        return Response(exc.to_json(), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, HandNotFound):
        return Response({"conflict": exc.to_dict()}, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, ScoringConflict):
        return Response({"conflict": exc.to_dict()}, status=status.HTTP_409_CONFLICT)
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


class GameOut(serializers.Serializer):
    """A game (the schema of :func:`game_body`)."""

    id = serializers.IntegerField()
    game = serializers.ChoiceField(choices=Game.Kind.choices)
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


# --- games ------------------------------------------------------------------------------------


class GameListApi(GameApiView):
    """``GET``: the games the caller may see. ``POST``: start a game (signed-in users)."""

    class InputSerializer(serializers.Serializer):
        class SeatInput(serializers.Serializer):
            name = serializers.CharField(max_length=80, trim_whitespace=False)
            player = serializers.IntegerField(required=False, allow_null=True)

        game = serializers.CharField()
        players = serializers.ListField(child=SeatInput(), allow_empty=False)
        options = serializers.JSONField(required=False)
        stake = serializers.CharField(required=False, allow_blank=True)
        currency = serializers.CharField(required=False, allow_blank=True)
        club = serializers.IntegerField(required=False, allow_null=True)

    def get_permissions(self) -> list[BasePermission]:
        if self.request.method == "POST":
            return [SignedIn()]
        return super().get_permissions()

    @extend_schema(responses={200: GameOut(many=True)})
    def get(self, request: Request) -> Response:
        if is_table(request):
            games = Game.objects.filter(pk=request.auth.game_id)
        else:
            games = selectors.games_visible_to(request.user)
        return Response([game_body(g, with_key=not is_table(request)) for g in games])

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={201: GameOut, 200: GameOut, 400: RuleErrorOut},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        club = None
        if v.get("club") is not None:
            club = request.user.clubs.filter(pk=v["club"]).first()
            if club is None:
                raise exceptions.PermissionDenied(_("You are not a member of that club."))
        game, created = services.game_start(
            kind=v["game"],
            players=[services.SeatSpec(s["name"], s.get("player")) for s in v["players"]],
            options=v.get("options"),
            stake=v.get("stake"),
            currency=v.get("currency"),
            club=club,
            created_by=request.user,
            idempotency_key=self.idempotency_key(required=False),
        )
        return Response(
            game_body(game, with_key=True),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


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
                    "currency": serializers.CharField(),
                    "payments": serializers.ListField(child=serializers.DictField()),
                },
            )
        }
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        if game.kind != Game.Kind.TONK:
            raise exceptions.NotFound(_("Settling up is for Tonk, played for stakes."))
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
        game = game_for(request, game_id)
        hand, created = services.hand_record(
            game=game,
            entry=request.data,
            entered_by=request.user,
            via=self.via(),
            idempotency_key=self.idempotency_key(required=True),
        )
        return Response(
            hand_body(hand), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
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
        game = game_for(request, game_id)
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
        hand = services.hand_void(game=game_for(request, game_id), number=number)
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
        club = None
        if request.query_params.get("club"):
            club = request.user.clubs.filter(pk=request.query_params["club"]).first()
            if club is None:
                raise exceptions.PermissionDenied(_("You are not a member of that club."))
        game, created = services.scoresheet_import(
            sheet=request.data,
            club=club,
            created_by=request.user,
            idempotency_key=self.idempotency_key(required=False),
        )
        return Response(
            {"id": game.pk, "results": selectors.game_results(game)},
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
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
