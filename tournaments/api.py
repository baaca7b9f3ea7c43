"""The tournaments REST API (``/api/v1/tournaments/``): events, registrations, rounds (seat,
publish, close, regenerate, substitutes), standings and the audit.

Views are thin: they parse, authorise (a club's members read its tournaments, its directors
change them; any other caller gets 404), call one service or selector and render. A request
the rules refuse is a 400 ``{"error": {...}}``, one the tournament's state refuses a 409
``{"conflict": {...}}``; both change nothing. Results are entered through the scoring API, for
each table's game.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from ops import collation
from ops.guessing import TokenAuthentication
from scoring.api import (
    IDEMPOTENCY_PARAMETER,
    BodyLimited,
    StrictSerializer,
    created_response,
    errors,
    example,
    idempotency_key_of,
)
from scoring.api_parser import StrictJSONParser
from scoring.names import NameSerializerField
from scoring.permissions import MAX_REASON_LENGTH
from scoring.serializers import ConflictOut, GameNameField
from tournaments import selectors, services
from tournaments.models import (
    TOURNAMENT_NAME_LENGTH,
    Membership,
    Player,
    Registration,
    Round,
    Tournament,
)
from tournaments.serializers import (
    AuditStepOut,
    LanguageField,
    LocalDateTimeField,
    RegistrationOut,
    StandingsOut,
    TournamentOut,
    tournament_url,
)

#: Round states only the club's directors see: before the round is published.
UNPUBLISHED = (Round.State.PLANNED, Round.State.SEATED, Round.State.FAILED)

READ_ERRORS = (401, 403, 404)
WRITE_ERRORS = (400, 401, 403, 404, 409, 411, 413, 415)
ACTION_ERRORS = (400, 401, 403, 404, 409, 411, 413)  # a POST without a body (one sent is read)


def conflicts(**codes: str) -> dict[int, OpenApiResponse]:
    """The 409 of an operation: the tournament's state refuses it (nothing changes; the same
    request may work later), with each ``code`` it may answer and when."""
    listed = "; ".join(f"`{code}`: {when}" for code, when in codes.items())
    return {
        409: OpenApiResponse(
            ConflictOut,
            description=f"The tournament's state refuses it; nothing changed. {listed}.",
        )
    }


KEY_REUSED = "the `Idempotency-Key` was used for another request"

# --- access -----------------------------------------------------------------------------------


def tournaments_readable(user: Any) -> QuerySet[Tournament]:
    """The tournaments of the clubs ``user`` is a member of."""
    return Tournament.objects.filter(club__memberships__user=user).distinct()


def tournaments_directed(user: Any) -> QuerySet[Tournament]:
    """The tournaments of the clubs ``user`` directs."""
    return Tournament.objects.filter(
        club__memberships__user=user, club__memberships__role=Membership.Role.DIRECTOR
    ).distinct()


class TournamentApiView(BodyLimited):
    """Base of the tournament endpoints: signed-in users by token or session."""

    authentication_classes = (TokenAuthentication, SessionAuthentication)
    permission_classes = (IsAuthenticated,)
    parser_classes = (StrictJSONParser,)

    def tournament(self, tournament_id: int, *, direct: bool) -> Tournament:
        """The tournament, if the caller may read it (``direct``: change it); 404 otherwise,
        so that other clubs' tournaments cannot be discovered."""
        queryset = (
            tournaments_directed(self.request.user)
            if direct
            else tournaments_readable(self.request.user)
        )
        return get_object_or_404(queryset.select_related("club"), pk=tournament_id)

    def round(self, tournament: Tournament, number: int) -> Round:
        return get_object_or_404(Round, tournament=tournament, number=number)

    def is_director(self, tournament: Tournament) -> bool:
        return services.is_director(self.request.user, tournament.club)


def standings_body(tournament: Tournament) -> dict[str, Any]:
    """The standings of ``tournament`` as the API shows them (:class:`StandingsOut`)."""
    standings = selectors.standings(tournament)
    return dict(StandingsOut(standings, context={"basis": tournament.basis}).data)


# --- confirmations ------------------------------------------------------------------------------


class ElsewhereConfirmInSerializer(StrictSerializer):
    """What a director confirms with a write the club's other tables could refuse (one person,
    one table at a time: README, "Tournaments")."""

    confirm_elsewhere = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Seat (or register) people although they sit at another of the club's "
        "tables at that time (the 409 ``seated_elsewhere`` names them); needs a reason, kept "
        "in the audit.",
    )
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_REASON_LENGTH,
        trim_whitespace=False,
        help_text="Why (kept in the tournament's audit); needed with ``confirm_elsewhere``.",
    )


def confirmed(request: Request, serializer: type[ElsewhereConfirmInSerializer]) -> dict[str, Any]:
    """The confirmations of an action's body (none sent: none), as the service takes them."""
    data = serializer(data=request.data if request.data else {})
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


# --- tournaments ------------------------------------------------------------------------------


class TournamentListApi(TournamentApiView):
    """``GET``: the tournaments of the caller's clubs. ``POST``: create one (a director)."""

    class TournamentInSerializer(StrictSerializer):
        club = serializers.IntegerField()
        name = NameSerializerField(max_length=TOURNAMENT_NAME_LENGTH)
        game = GameNameField()
        options = serializers.JSONField(required=False)
        stake = serializers.JSONField(required=False)
        currency = serializers.JSONField(required=False)
        rounds = serializers.IntegerField(required=False)
        sizes = serializers.ListField(child=serializers.IntegerField(), required=False)
        prefer = serializers.IntegerField(required=False)
        # Fixed values are read exactly (no trimming): the service's choice is the one rule.
        method = serializers.CharField(required=False, trim_whitespace=False)
        hands_per_round = serializers.IntegerField(required=False)
        time_zone = serializers.CharField(
            required=False,
            trim_whitespace=False,
            help_text="The tournament's time zone, a name of the IANA database "
            "(America/Chicago); the times of this request without an offset are read in it. "
            "UTC when left out.",
        )
        starts_at = LocalDateTimeField(required=False, allow_null=True)
        minutes_per_round = serializers.IntegerField(required=False, allow_null=True)
        missed_round_score = serializers.CharField(required=False, trim_whitespace=False)
        basis = serializers.CharField(required=False, trim_whitespace=False)
        confirmation = serializers.CharField(required=False, trim_whitespace=False)
        seed = serializers.IntegerField(required=False)
        language = LanguageField(required=False)

    @extend_schema(responses={200: TournamentOut(many=True), **errors(*READ_ERRORS)})
    def get(self, request: Request) -> Response:
        tournaments = tournaments_readable(request.user).order_by("-created_at", "-id")
        return Response(TournamentOut(tournaments[:200], many=True).data)

    @extend_schema(
        request=TournamentInSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={
            201: TournamentOut,
            200: TournamentOut,
            **errors(*WRITE_ERRORS),
            **conflicts(idempotency_key_reused=KEY_REUSED),
        },
        examples=[
            example(
                "Three rounds of Tonk", {"club": 1, "name": "Open", "game": "tonk", "rounds": 3}
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = self.TournamentInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        user = cast(User, request.user)  # signed in: IsAuthenticated
        club = user.clubs.filter(pk=v.pop("club")).first()
        if club is None:
            raise Http404
        tournament, created = services.tournament_create(
            club=club,
            created_by=request.user,
            kind=v.pop("game"),
            idempotency_key=idempotency_key_of(request),
            **v,
        )
        return created_response(TournamentOut(tournament).data, created, tournament_url(tournament))


class TournamentDetailApi(TournamentApiView):
    """``GET``: one tournament."""

    @extend_schema(responses={200: TournamentOut, **errors(*READ_ERRORS)})
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(TournamentOut(self.tournament(tournament_id, direct=False)).data)


class RegistrationListApi(TournamentApiView):
    """``GET``: the registered players. ``POST``: register a club player (a director); between
    rounds this is a late entry. A player who sits at another of the club's tables during the
    round they would enter is refused (409 ``seated_elsewhere``, naming the tournament and
    table) unless ``confirm_elsewhere`` with a ``reason``."""

    class RegistrationInSerializer(ElsewhereConfirmInSerializer):
        player = serializers.IntegerField()

    @extend_schema(responses={200: RegistrationOut(many=True), **errors(*READ_ERRORS)})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=False)
        registrations = collation.sorted_by_name(
            tournament.registrations.select_related("player"),
            name=lambda r: r.player.name,
            then=lambda r: r.pk,
            language=collation.tournament_language(tournament),
        )
        return Response(RegistrationOut(registrations, many=True).data)

    @extend_schema(
        request=RegistrationInSerializer,
        responses={
            201: RegistrationOut,
            **errors(*WRITE_ERRORS),
            **conflicts(
                already_registered="the player is registered already",
                finished="every round is seated: too late to enter",
                seated_elsewhere="the player sits at another of the club's tables at that time "
                "(confirm with `confirm_elsewhere` and a `reason`)",
            ),
        },
        examples=[example("A club player", {"player": 1})],
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        data = self.RegistrationInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        player = Player.objects.filter(pk=v.pop("player")).first()
        if player is None:
            raise Http404
        registration = services.registration_add(
            tournament=tournament, player=player, by=request.user, **v
        )
        return Response(RegistrationOut(registration).data, status=status.HTTP_201_CREATED)


class WithdrawalApi(TournamentApiView):
    """``POST``: withdraw a registered player (results kept; never seated again)."""

    @extend_schema(
        request=None,
        responses={
            200: RegistrationOut,
            **errors(*ACTION_ERRORS),
            **conflicts(
                too_few_players="the players left could not fill a table of a round seated "
                "or to seat"
            ),
        },
    )
    def post(self, request: Request, tournament_id: int, registration_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        registration = get_object_or_404(
            Registration.objects.select_related("player"),
            tournament=tournament,
            pk=registration_id,
        )
        registration = services.registration_withdraw(registration=registration, by=request.user)
        return Response(RegistrationOut(registration).data)


class StandingsApi(TournamentApiView):
    """``GET``: the standings with their tie-break columns, exact."""

    @extend_schema(responses={200: StandingsOut, **errors(*READ_ERRORS)})
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(standings_body(self.tournament(tournament_id, direct=False)))


# --- audit ------------------------------------------------------------------------------------

AUDIT_FILTERS = [
    OpenApiParameter(
        "round", {"type": "integer", "minimum": 0}, description="Only this round's steps."
    ),
    OpenApiParameter(
        "table",
        {"type": "integer", "minimum": 0},
        description="With ``round``: only this table's steps (its hands too).",
    ),
]


class AuditApi(TournamentApiView):
    """``GET``: the tournament's audit, oldest first (directors of the club only: a member
    gets 403, anyone else 404): every change to its rounds and registrations merged with the
    hand trails of its tables' games, each with who, when and why."""

    @extend_schema(
        parameters=AUDIT_FILTERS,
        responses={200: AuditStepOut(many=True), **errors(400, *READ_ERRORS)},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=False)
        if not self.is_director(tournament):
            raise PermissionDenied(_("Only the club's directors see a tournament's audit."))
        filters: dict[str, int] = {}
        for name, keyword in (("round", "round_number"), ("table", "table_number")):
            value = request.query_params.get(name)
            if value is None:
                continue
            if not value.isdigit():
                raise ValidationError({name: [_("A whole number.")]})
            filters[keyword] = int(value)
        lines = selectors.tournament_audit(tournament, **filters)
        return Response(AuditStepOut(lines, many=True).data)
