"""The score-sheet endpoints of the scoring API: import a whole sheet as a new game, export a
game's canonical sheet as JSON or CSV."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from scoring import selectors, services
from scoring.api import (
    IDEMPOTENCY_PARAMETER,
    READ_ERRORS,
    TONK_HAND_EXAMPLE,
    WRITE_ERRORS,
    GameApiView,
    SignedIn,
    created_response,
    errors,
    example,
    game_url,
)
from scoring.api_auth import game_for
from scoring.serializers import ImportedOut, ScoresheetOut

# A whole score sheet, one shape per game (scoring.schema.score_sheet_body).
SCORE_SHEET = {"$ref": "#/components/schemas/ScoreSheet"}


class ScoresheetImportApi(GameApiView):
    """``POST``: import a whole score sheet as a new game (signed-in users)."""

    permission_classes = (SignedIn,)
    body_limit_setting = "API_MAX_SHEET_BYTES"  # a long evening's sheet, pretty-printed

    @extend_schema(
        request={"application/json": SCORE_SHEET},
        parameters=[
            IDEMPOTENCY_PARAMETER,
            OpenApiParameter("club", OpenApiTypes.INT, description="the club the game joins"),
        ],
        responses={201: ImportedOut, 200: ImportedOut, **errors(*WRITE_ERRORS)},
        examples=[
            example(
                "A Tonk sheet",
                {
                    "format": "tabletally.scoresheet/1",
                    "game": "tonk",
                    "players": ["Ana", "Ben"],
                    "hands": [TONK_HAND_EXAMPLE],
                },
            )
        ],
    )
    def post(self, request: Request) -> Response:
        game, created = services.scoresheet_import(
            sheet=request.data,
            club=self.member_club(request.query_params.get("club")),
            created_by=request.user,
            idempotency_key=self.idempotency_key(required=False),
        )
        return created_response(ImportedOut(game).data, created, game_url(game))


class ScoresheetExportApi(GameApiView):
    """``GET``: the game's canonical score sheet (JSON)."""

    @extend_schema(responses={200: ScoresheetOut, **errors(*READ_ERRORS)})
    def get(self, request: Request, game_id: int) -> Response:
        return Response(ScoresheetOut(selectors.scoresheet_export(game_for(request, game_id))).data)


class ScoresheetCsvApi(GameApiView):
    """``GET``: the score sheet as CSV, one row per hand and player."""

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR, **errors(*READ_ERRORS)})
    def get(self, request: Request, game_id: int) -> HttpResponse:
        game = game_for(request, game_id)
        response = HttpResponse(
            selectors.scoresheet_csv(game), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="tabletally-game-{game.pk}.csv"'
        return response
