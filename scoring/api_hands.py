"""The hands endpoints of the scoring API: record the next hand, list the current hands, read
one hand with its revisions, correct it, void it. Each view parses, authorises, calls one
service or selector and renders its output serializer (``scoring.serializers``)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from scoring import selectors, services
from scoring.api import (
    IDEMPOTENCY_PARAMETER,
    IDEMPOTENCY_REQUIRED,
    NOT_FOUND_OR_NO_HAND,
    READ_ERRORS,
    TONK_HAND_EXAMPLE,
    WRITE_ERRORS,
    GameApiView,
    created_response,
    errors,
    example,
)
from scoring.api_auth import game_for
from scoring.serializers import HandHistoryOut, HandOut

# One hand object of the score-sheet format; its keys depend on the game (the format's tables).
HAND_OBJECT = {
    "type": "object",
    "additionalProperties": True,
    "description": "One hand object of the score-sheet format (its keys depend on the game).",
}


@extend_schema_field(HAND_OBJECT)
class HandObjectField(serializers.JSONField):
    """A hand object of the score-sheet format, checked by the rules engine (a value that is
    not an object is ``bad_format``)."""


class HandListApi(GameApiView):
    """``GET``: the current hands. ``POST``: record the next hand (one hand object of the
    score-sheet format) with an ``Idempotency-Key``."""

    @extend_schema(responses={200: HandOut(many=True), **errors(*READ_ERRORS)})
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        return Response(HandOut.render_many(selectors.current_hands(game)))

    @extend_schema(
        request={"application/json": HAND_OBJECT},
        parameters=[IDEMPOTENCY_REQUIRED],
        responses={201: HandOut, 200: HandOut, **errors(*WRITE_ERRORS)},
        examples=[example("A Tonk knock", TONK_HAND_EXAMPLE)],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id, load=False)
        hand, created = services.hand_record(
            game=game,
            entry=request.data,
            by=self.actor(),
            idempotency_key=self.idempotency_key(required=True),
        )
        return created_response(
            HandOut.render(hand), created, reverse("scoring-api:hand", args=[game.pk, hand.number])
        )


class HandDetailApi(GameApiView):
    """``GET``: a hand with every revision. ``PUT``: correct it from a revision. ``DELETE``:
    void it (Tonk: any hand; Rook and Bluke: the latest only)."""

    class CorrectionSerializer(serializers.Serializer[Any]):
        revision = serializers.IntegerField(min_value=1)
        hand = HandObjectField()

    @extend_schema(responses={200: HandHistoryOut, **errors(*READ_ERRORS)})
    def get(self, request: Request, game_id: int, number: int) -> Response:
        revisions = selectors.hand_history(game_for(request, game_id), number)
        if not revisions:
            raise exceptions.NotFound(_("No such hand."))
        return Response(HandHistoryOut.render({"number": number, "revisions": revisions}))

    @extend_schema(
        request=CorrectionSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={200: HandOut, **errors(*WRITE_ERRORS, e404=NOT_FOUND_OR_NO_HAND)},
        examples=[example("Correct revision 1", {"revision": 1, "hand": TONK_HAND_EXAMPLE})],
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
            by=self.actor(),
            idempotency_key=self.idempotency_key(required=False),
        )
        return Response(HandOut.render(hand))

    @extend_schema(responses={200: HandOut, **errors(*READ_ERRORS, 409, e404=NOT_FOUND_OR_NO_HAND)})
    def delete(self, request: Request, game_id: int, number: int) -> Response:
        hand = services.hand_void(
            game=game_for(request, game_id, load=False), number=number, by=self.actor()
        )
        return Response(HandOut.render(hand))
