"""The games endpoints of the scoring API: list and start games, read one, finish it, settle
up a Tonk table. Each view parses, authorises, calls one service or selector and renders its
output serializer (``scoring.serializers``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import exceptions, serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from scoring import selectors, services
from scoring.api import (
    IDEMPOTENCY_PARAMETER,
    READ_ERRORS,
    WRITE_ERRORS,
    GameApiView,
    SignedIn,
    StrictSerializer,
    created_response,
    errors,
    example,
    game_url,
)
from scoring.api_auth import TableAccess, game_for, is_table
from scoring.errors import NotForStakes
from scoring.models import Game, Seat
from scoring.names import NameSerializerField
from scoring.permissions import may_see_keys
from scoring.serializers import GameNameField, GameOut, GameSummaryOut, SettleUpOut

if TYPE_CHECKING:
    # What APIView.get_permissions returns in the stubs: anything with has_permission.
    from rest_framework.permissions import _SupportsHasPermission


class GamePage(PageNumberPagination):
    """50 games a page: ``?page=2`` (or ``last``; a page that does not exist, an empty or
    malformed number included, is 404); ``?page_size=`` a positive integer, more than 200
    counting as 200 (anything else is 400 ``bad_format``)."""

    page_size = 50
    max_page_size = 200
    page_size_query_param = "page_size"

    def get_page_number(self, request: Request, paginator: Any) -> str | int:
        # DRF reads an empty ?page= as page 1; here it is a page that does not exist.
        page_number = request.query_params.get(self.page_query_param, 1)
        if page_number in self.last_page_strings:
            return int(paginator.num_pages)
        return page_number

    def get_page_size(self, request: Request) -> int:
        if self.page_size_query_param not in request.query_params:
            return self.page_size
        field = serializers.IntegerField(min_value=1)
        try:
            size = field.run_validation(request.query_params[self.page_size_query_param])
        except exceptions.ValidationError as exc:
            raise exceptions.ValidationError({self.page_size_query_param: exc.detail}) from exc
        return min(size, self.max_page_size)

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {
                    "oneOf": [
                        {"type": "integer", "minimum": 1},
                        {"type": "string", "enum": list(self.last_page_strings)},
                    ]
                }
            else:
                parameter["schema"] = {"type": "integer", "minimum": 1}
        return parameters


class KindField(GameNameField):
    """The game's name; the rules engine refuses a game it does not know (``bad_format``)."""


@extend_schema_field({"type": "object", "additionalProperties": True})
class OptionsField(serializers.JSONField):
    """House rules, a JSON object; absent: the rules' defaults. The rules engine refuses an
    option the game does not have (``bad_format``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)


@extend_schema_field({"type": "string", "maxLength": 32})
class StakeField(serializers.JSONField):
    """Tonk only: the money value of one stake unit, a decimal string (``"0.25"``); the
    service checks it (a number or a malformed decimal is ``bad_format``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)


@extend_schema_field({"type": "string", "minLength": 3, "maxLength": 3})
class CurrencyField(StakeField):
    """Tonk with a stake only: a three-letter currency code (``"USD"``); the service checks
    it."""


class GameListApi(GameApiView):
    """``GET``: the games the caller may see, newest first, 50 a page. ``POST``: start a game
    (signed-in users)."""

    pagination_class = GamePage

    @extend_schema_serializer(component_name="GameStart")
    class InputSerializer(StrictSerializer):
        class SeatInput(StrictSerializer):
            name = NameSerializerField()
            player = serializers.IntegerField(required=False, allow_null=True)

        game = KindField()
        players = serializers.ListField(child=SeatInput())
        options = OptionsField()
        stake = StakeField()
        currency = CurrencyField()
        club = serializers.IntegerField(required=False, allow_null=True)
        confirmation = serializers.ChoiceField(
            choices=Game.Confirmation.choices,
            required=False,
            help_text="Who must confirm a hand before it counts: `none` (the default), "
            "`one_other` (one other seat), `all` (every other seat), `director`.",
        )

    def get_permissions(self) -> Sequence[_SupportsHasPermission]:
        if self.request.method == "POST":
            return [SignedIn()]
        return super().get_permissions()

    @extend_schema(responses={200: GameSummaryOut(many=True), **errors(400, *READ_ERRORS)})
    def get(self, request: Request) -> Response:
        if is_table(request):
            games = Game.objects.filter(pk=cast(TableAccess, request.auth).game_id)
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
        totals = selectors.counted_totals_by_game(page or [])
        return paginator.get_paginated_response(
            GameSummaryOut(page or [], many=True, context={"totals": totals}).data
        )

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={201: GameOut, 200: GameOut, **errors(*WRITE_ERRORS)},
        examples=[
            example(
                "Tonk for a stake",
                {
                    "game": "tonk",
                    "players": [{"name": "Ana"}, {"name": "Ben"}],
                    "stake": "0.25",
                    "currency": "USD",
                },
            )
        ],
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
            confirmation=v.get("confirmation", Game.Confirmation.NONE),
            idempotency_key=self.idempotency_key(required=False),
        )
        body = GameOut(game, context={"with_key": True}).data
        return created_response(body, created, game_url(game))


class GameDetailApi(GameApiView):
    """``GET``: one game with its results."""

    @extend_schema(responses={200: GameOut, **errors(*READ_ERRORS)})
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        return Response(GameOut(game, context={"with_key": may_see_keys(self.actor(), game)}).data)


class GameFinishApi(GameApiView):
    """``POST``: finish the game (no more hands; corrections stay possible)."""

    @extend_schema(
        request=None,
        description="A casual game's seats, its creator and the club's directors finish it; "
        "a table key alone may not (403). A tournament table ends with its round: nobody "
        "finishes it here, a director included (403). A body, if one is sent, is read "
        "strictly all the same (400, 411, 413, 415).",
        responses={200: GameOut, **errors(400, *READ_ERRORS, 409, 411, 413, 415)},
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = services.game_finish(game=game_for(request, game_id), by=self.actor())
        return Response(GameOut(game, context={"with_key": may_see_keys(self.actor(), game)}).data)


class SettleUpApi(GameApiView):
    """``GET``: Tonk: each player's net, and the fewest payments that settle the table (409
    ``not_tonk`` for the other games)."""

    @extend_schema(responses={200: SettleUpOut, **errors(*READ_ERRORS, 409)})
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        if not game.adapter.has_stakes:
            raise NotForStakes(params={"title": game.adapter.rules.title}, game=game.kind)
        return Response(SettleUpOut(selectors.settle_up(game)).data)
