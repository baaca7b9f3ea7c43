"""The hands endpoints of the scoring API: record the next hand, list the current hands, read
one hand with its revisions, correct it, void it, and the table's trust (issue 12): confirm,
dispute, a director's resolution, restore a voided hand, and a game's audit trail. Each view
parses, authorises, calls one service or selector and renders its output serializer
(``scoring.serializers``). Who may change what is :mod:`scoring.permissions`' (403 otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
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
    StrictSerializer,
    created_response,
    errors,
    example,
    has_body,
)
from scoring.api_auth import game_for, known_seat
from scoring.errors import HandNotNext
from scoring.models import Hand
from scoring.permissions import MAX_REASON_LENGTH, may_see_audit
from scoring.serializers import AuditStepOut, ConflictOut, HandHistoryOut, HandOut

# One hand object of the score-sheet format, of the game's shape (scoring.schema.hand_body).
HAND_OBJECT = {"$ref": "#/components/schemas/Hand"}

#: The key of a new hand's body that says which hand it is (kept beside the hand, not in it).
NUMBER_KEY = "number"

# A new hand: the hand object of the game's shape with the number the sender believes it is
# entering (scoring.schema.BODIES["HandWrite"]).
NEW_HAND_OBJECT = {"$ref": "#/components/schemas/HandWrite"}

HAND_NUMBER_ERRORS = {
    409: OpenApiResponse(
        ConflictOut,
        description="The present state refuses the write; `hand_not_next`: another hand was "
        "entered meanwhile (`next` is the next number, `hands` the current hands), nothing "
        "saved: show the sheet and ask before sending again with the new number.",
    ),
    428: OpenApiResponse(
        ConflictOut,
        description="`hand_number_required`: the body does not say which hand it is (its "
        "`number`); nothing saved. A retry with the same `Idempotency-Key` still answers as "
        "the first request did.",
    ),
}


def hand_number(data: object) -> tuple[object, int | None]:
    """A new hand's body split into the hand object and the number it says it is (None when
    it does not say).

    Raises:
        ValidationError: ``number`` is not a whole number from 1 (400 ``bad_format``).
    """
    if not isinstance(data, dict) or NUMBER_KEY not in data:
        return data, None
    entry = {k: v for k, v in data.items() if k != NUMBER_KEY}
    field = serializers.IntegerField(min_value=1)
    value = data[NUMBER_KEY]
    try:
        if isinstance(value, bool | str | float):  # JSON's number, whole: not "3", true, 3.0
            raise exceptions.ValidationError(field.error_messages["invalid"])
        number = int(field.run_validation(value))
    except exceptions.ValidationError as exc:
        raise exceptions.ValidationError({NUMBER_KEY: exc.detail}) from exc
    return entry, number


@extend_schema_field(HAND_OBJECT)
class HandObjectField(serializers.JSONField):
    """A hand object of the score-sheet format, checked by the rules engine (a value that is
    not an object is ``bad_format``)."""


REVISION_QUERY = OpenApiParameter(
    "revision",
    {"type": "integer", "minimum": 1},
    OpenApiParameter.QUERY,
    description="The revision voided, as the sender saw it: one that is no longer current "
    "is 409 `stale_revision`; absent: not checked.",
)

REASON_QUERY = OpenApiParameter(
    "reason",
    {"type": "string", "maxLength": MAX_REASON_LENGTH},
    OpenApiParameter.QUERY,
    description="Why (kept with the step, shown on the audit); needed once a tournament "
    "round is complete.",
)


class HandListApi(GameApiView):
    """``GET``: the current hands. ``POST``: record the next hand (one hand object of the
    score-sheet format) with an ``Idempotency-Key``."""

    @extend_schema(responses={200: HandOut(many=True), **errors(*READ_ERRORS)})
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        return Response(HandOut.render_many(selectors.current_hands(game)))

    @extend_schema(
        request={"application/json": NEW_HAND_OBJECT},
        parameters=[IDEMPOTENCY_REQUIRED],
        responses={201: HandOut, 200: HandOut, **errors(*WRITE_ERRORS), **HAND_NUMBER_ERRORS},
        examples=[example("A Tonk knock", {NUMBER_KEY: 1, **TONK_HAND_EXAMPLE})],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id, load=False)
        entry, number = hand_number(request.data)
        try:
            hand, created = services.hand_record(
                game=game,
                entry=entry,
                number=number,
                number_required=True,
                by=self.actor(),
                idempotency_key=self.idempotency_key(required=True),
            )
        except HandNotNext as exc:  # the current sheet, for the client to show
            exc.details["hands"] = HandOut.render_many(selectors.current_hands(game))
            raise
        return created_response(
            HandOut.render(known_seat(request, hand)),
            created,
            reverse("scoring-api:hand", args=[game.pk, hand.number]),
        )


class HandDetailApi(GameApiView):
    """``GET``: a hand with every revision. ``PUT``: correct it from a revision. ``DELETE``:
    void it (Tonk: any hand; Rook and Bluke: the latest only)."""

    class CorrectionSerializer(serializers.Serializer[Any]):
        revision = serializers.IntegerField(min_value=1)
        hand = HandObjectField()
        reason = serializers.CharField(
            required=False,
            allow_blank=True,
            max_length=MAX_REASON_LENGTH,
            trim_whitespace=False,
            help_text="Why (kept on the new revision); needed once a tournament round is complete.",
        )

    @extend_schema(responses={200: HandHistoryOut, **errors(*READ_ERRORS)})
    def get(self, request: Request, game_id: int, number: int) -> Response:
        game = game_for(request, game_id)
        revisions = selectors.hand_history(game, number)
        if not revisions:
            raise exceptions.NotFound(_("No such hand."))
        void = selectors.hand_void_step(game, number)
        return Response(
            HandHistoryOut.render({"number": number, "revisions": revisions, "void": void})
        )

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
            reason=data.validated_data.get("reason", ""),
            idempotency_key=self.idempotency_key(required=False),
        )
        return Response(HandOut.render(hand))

    @extend_schema(
        description="Void the hand: it no longer counts and stays on the sheet struck through, "
        "with who voided it and why, until restored (`.../restore/`). The reason is the "
        "`reason` query parameter (a DELETE carries no body); it is needed once a tournament "
        "round is complete (409 `reason_required.closed`). Voiding a voided hand changes "
        "nothing: a retry is safe.",
        parameters=[REASON_QUERY, REVISION_QUERY, IDEMPOTENCY_PARAMETER],
        responses={
            200: HandOut,
            **errors(400, *READ_ERRORS, 409, 411, 413, 415, e404=NOT_FOUND_OR_NO_HAND),
        },
    )
    def delete(self, request: Request, game_id: int, number: int) -> Response:
        reason = self.reason_query()
        key = self.idempotency_key(required=False) or None
        hand = services.hand_void(
            game=game_for(request, game_id, load=False),
            number=number,
            by=self.actor(),
            idempotency_key=key,
            reason=reason,
            revision=self.revision_query(),
        )
        return Response(HandOut.render(hand))

    def revision_query(self) -> int | None:
        """The ``?revision=`` of a void (None when absent; 400 when not a whole number from
        1)."""
        raw = self.request.query_params.get("revision")
        if raw is None:
            return None
        field = serializers.IntegerField(min_value=1)
        try:
            return int(field.run_validation(raw))
        except exceptions.ValidationError as exc:
            raise exceptions.ValidationError({"revision": exc.detail}) from exc

    def reason_query(self) -> str:
        """The ``?reason=`` of a void (400 when longer than a reason may be)."""
        field = serializers.CharField(
            allow_blank=True, max_length=MAX_REASON_LENGTH, trim_whitespace=False
        )
        try:
            return str(field.run_validation(self.request.query_params.get("reason", "")))
        except exceptions.ValidationError as exc:
            raise exceptions.ValidationError({"reason": exc.detail}) from exc


# --- trust at the table (issue 12) -------------------------------------------------------------

_TRUST_ERRORS = errors(*WRITE_ERRORS, e404=NOT_FOUND_OR_NO_HAND)


def _revision() -> serializers.IntegerField:
    return serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="The revision this step acts on, as the sender saw it: one that is no "
        "longer current is 409 `stale_revision` (with `current_revision`); absent: not "
        "checked.",
    )


def _reason(*, required: bool) -> serializers.CharField:
    return serializers.CharField(
        required=required,
        allow_blank=True,
        max_length=MAX_REASON_LENGTH,
        trim_whitespace=False,
        help_text="Why, at most 500 characters.",
    )


class HandStepApi(GameApiView):
    """Base of the endpoints of a trust step that takes only a reason (confirm, dispute,
    restore): the body read (optional where the reason is), the step taken by the caller with
    the device's idempotency key, the hand answered. Each subclass names its ``step`` (a
    ``scoring.services`` function) and its ``InputSerializer``."""

    InputSerializer: type[StrictSerializer]
    step: Callable[..., Hand]
    #: Whether the request may come with no body at all (a reason is optional).
    body_optional = True

    def take(self, request: Request, game_id: int, number: int) -> Response:
        body = request.data if has_body(request) or not self.body_optional else {}
        data = self.InputSerializer(data=body)
        data.is_valid(raise_exception=True)
        hand = type(self).step(
            game=game_for(request, game_id, load=False),
            number=number,
            by=self.actor(),
            idempotency_key=self.idempotency_key(required=False) or None,
            reason=data.validated_data.get("reason", ""),
            revision=data.validated_data.get("revision"),
        )
        return Response(HandOut.render(hand))


class HandConfirmApi(HandStepApi):
    """``POST``: confirm the hand's current revision (issue 12: Confirmation)."""

    step = staticmethod(services.hand_confirm)

    @extend_schema_serializer(component_name="ConfirmIn")
    class InputSerializer(StrictSerializer):
        reason = _reason(required=False)
        revision = _revision()

    @extend_schema(
        request=InputSerializer,
        description="A seat other than the one that entered the hand confirms it (`one_other`), "
        "or adds its confirmation towards every other seat's (`all`); a club director's "
        "confirmation makes it count in any game (`director`: only theirs). The seat that "
        "entered it may not (403), nor anyone but a seat or a director (a table key alone: "
        "403); a disputed hand waits for a director's resolution (409 `hand_disputed`). The "
        'body is optional (`{"reason": "…"}`, kept with the confirmation; a director '
        "confirming a hand of a complete tournament round gives one, else 409 "
        "`reason_required`). Naturally idempotent: confirming a confirmed hand, or "
        "confirming twice from one seat, changes nothing.",
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={200: HandOut, **_TRUST_ERRORS},
        examples=[example("Confirm", {}), example("With a reason", {"reason": "checked"})],
    )
    def post(self, request: Request, game_id: int, number: int) -> Response:
        return self.take(request, game_id, number)


class HandDisputeApi(HandStepApi):
    """``POST``: dispute the hand's current revision, with a reason (issue 12: Disputes)."""

    step = staticmethod(services.hand_dispute)
    body_optional = False

    @extend_schema_serializer(component_name="DisputeIn")
    class InputSerializer(StrictSerializer):
        reason = _reason(required=True)
        revision = _revision()

    @extend_schema(
        request=InputSerializer,
        description="Any seat of the table disputes the hand with a reason (blank: 409 "
        "`reason_required`): it shows as disputed until a club director resolves it "
        "(`.../resolve/`). Naturally idempotent: the same seat disputing a disputed hand with "
        "the same reason changes nothing.",
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={200: HandOut, **_TRUST_ERRORS},
        examples=[example("A dispute", {"reason": "Ben held KH, not KD"})],
    )
    def post(self, request: Request, game_id: int, number: int) -> Response:
        return self.take(request, game_id, number)


class HandResolveApi(GameApiView):
    """``POST``: a club director resolves the hand: confirm, correct or void, with a reason."""

    @extend_schema_serializer(component_name="ResolutionIn")
    class InputSerializer(StrictSerializer):
        action = serializers.ChoiceField(choices=services.RESOLUTIONS)
        reason = _reason(required=True)
        hand = HandObjectField(
            required=False, help_text="`correct`: the corrected hand object (required)."
        )
        revision = serializers.IntegerField(
            required=False,
            min_value=1,
            help_text="The revision resolved (for `correct`, the revision corrected): one that "
            "is no longer current is 409 `stale_revision`; absent: the current one.",
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if attrs["action"] == "correct" and "hand" not in attrs:
                raise exceptions.ValidationError({"hand": [_("A correction gives the hand.")]})
            return attrs

    @extend_schema(
        request=InputSerializer,
        description="A club director's (403 for anyone else), always with a reason (blank: 409 "
        "`reason_required`): `confirm` the hand as it stands, `correct` it (`hand`, from "
        "`revision`; the new revision is confirmed at once) or `void` it. Naturally "
        "idempotent for `confirm` and `void` (done already: nothing changes); a correction "
        "retried with the same `Idempotency-Key` returns the revision it wrote.",
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={200: HandOut, **_TRUST_ERRORS},
        examples=[
            example("Confirm", {"action": "confirm", "reason": "Checked the cards with both"}),
            example(
                "Correct",
                {"action": "correct", "reason": "Ben held KH", "hand": TONK_HAND_EXAMPLE},
            ),
        ],
    )
    def post(self, request: Request, game_id: int, number: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        hand = services.hand_resolve(
            game=game_for(request, game_id, load=False),
            number=number,
            by=self.actor(),
            action=v["action"],
            reason=v["reason"],
            revision=v.get("revision"),
            entry=v.get("hand"),
            idempotency_key=self.idempotency_key(required=False) or None,
        )
        return Response(HandOut.render(hand))


class HandRestoreApi(HandStepApi):
    """``POST``: restore a voided hand: it counts again."""

    step = staticmethod(services.hand_restore)

    @extend_schema_serializer(component_name="RestoreIn")
    class InputSerializer(StrictSerializer):
        reason = _reason(required=False)
        revision = _revision()

    @extend_schema(
        request=InputSerializer,
        description="The voided hand counts again, its last revision with its status as it "
        "was. Tonk: any hand; Rook and Bluke: only a hand that still follows the hands that "
        "count (409 `restore_refused`); never beyond the hands a game takes (409 "
        '`hand_limit`). The body is optional (`{"reason": "…"}`; a reason is needed '
        "once a tournament round is complete). Naturally idempotent: restoring a hand that "
        "counts changes nothing.",
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={200: HandOut, **_TRUST_ERRORS},
        examples=[example("Restore", {"reason": "voided by mistake"})],
    )
    def post(self, request: Request, game_id: int, number: int) -> Response:
        return self.take(request, game_id, number)


class GameAuditApi(GameApiView):
    """``GET``: every step of the game's trail, oldest first."""

    @extend_schema(
        description="Every entry, correction, confirmation, dispute, resolution, void and "
        "restore of the game's hands, oldest first, with who, when and why. Readers: the "
        "club's directors; for a casual game also its creator and its seats (a seat key, or a "
        "signed-in user seated at it). A tournament table's seats, its table key and the "
        "club's other members get 403; anyone else 404.",
        responses={200: AuditStepOut(many=True), **errors(*READ_ERRORS)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = game_for(request, game_id)
        if not may_see_audit(self.actor(), game):
            raise exceptions.PermissionDenied(
                _("Only the club's directors (and a casual game's creator and seats) read this.")
            )
        return Response(AuditStepOut.render_many(selectors.game_audit([game.pk])))
