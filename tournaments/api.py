"""The tournaments REST API (``/api/v1/tournaments/``): events, registrations, rounds (seat,
publish, close, regenerate, substitutes) and standings.

Views are thin: they parse, authorise (a club's members read its tournaments, its directors
change them; any other caller gets 404), call one service or selector and render. A request
the rules refuse is a 400 ``{"error": {...}}``, one the tournament's state refuses a 409
``{"conflict": {...}}``; both change nothing. Results are entered through the scoring API, for
each table's game.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from scoring.api import (
    IDEMPOTENCY_PARAMETER,
    ConflictOut,
    RuleErrorOut,
    StrictJSONParser,
    StrictSerializer,
    created_response,
)
from tournaments import selectors, services
from tournaments.models import Membership, Player, Registration, Round, Tournament

# --- access -----------------------------------------------------------------------------------


def tournaments_readable(user: Any) -> QuerySet[Tournament]:
    """The tournaments of the clubs ``user`` is a member of."""
    return Tournament.objects.filter(club__memberships__user=user).distinct()


def tournaments_directed(user: Any) -> QuerySet[Tournament]:
    """The tournaments of the clubs ``user`` directs."""
    return Tournament.objects.filter(
        club__memberships__user=user, club__memberships__role=Membership.Role.DIRECTOR
    ).distinct()


class TournamentApiView(APIView):
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


# --- output -----------------------------------------------------------------------------------


def tournament_url(tournament: Tournament) -> str:
    return reverse("tournaments-api:tournament", args=[tournament.pk])


def round_url(rnd: Round) -> str:
    return reverse("tournaments-api:round", args=[rnd.tournament_id, rnd.number])


def tournament_body(tournament: Tournament) -> dict[str, Any]:
    """A tournament: its settings and where it stands."""
    return {
        "id": tournament.pk,
        "url": tournament_url(tournament),
        "club": tournament.club_id,
        "name": tournament.name,
        "game": tournament.kind,
        "options": tournament.options,
        "stake": tournament.stake or None,
        "currency": tournament.currency or None,
        "rounds": tournament.rounds,
        "sizes": tournament.sizes,
        "prefer": tournament.prefer,
        "method": tournament.method,
        "hands_per_round": tournament.hands_per_round,
        "time_zone": tournament.time_zone,
        "starts_at": tournament.starts_at,
        "minutes_per_round": tournament.minutes_per_round,
        "missed_round_score": tournament.missed_round_score,
        "basis": tournament.basis,
        "seed": tournament.seed,
        "rounds_complete": tournament.rounds_complete,
    }


def registration_body(registration: Registration) -> dict[str, Any]:
    return {
        "id": registration.pk,
        "player": registration.player_id,
        "name": registration.player.name,
        "from_round": registration.from_round,
        "withdrawn": registration.withdrawn,
        "withdrawn_after": registration.withdrawn_after,
    }


def round_body(rnd: Round, *, director: bool) -> dict[str, Any]:
    """A round: its state and clock, and once seated its tables (seat order from the first
    dealer) and sit-outs; directors also get each table's game id and table key."""
    body: dict[str, Any] = {
        "number": rnd.number,
        "url": round_url(rnd),
        "state": rnd.state,
        "superseded": rnd.superseded,
        "deadline": rnd.deadline,
        "time_called": rnd.time_called_at is not None,
        "tables": [],
        "sit_outs": [],
    }
    if rnd.state == Round.State.PLANNED:
        return body
    for table in rnd.tables.select_related("game").prefetch_related("seats__registration__player"):
        seats = [
            {
                "seat": seat.position + 1,
                "registration": seat.registration_id,
                "player": seat.registration.player.name,
                "substitute": seat.substitute or None,
            }
            for seat in table.seats.all()
        ]
        row: dict[str, Any] = {
            "number": table.number,
            "state": table.state,
            "seats": seats,
            "first_dealer": seats[0]["substitute"] or seats[0]["player"],
        }
        if director:
            row["game"] = table.game_id
            row["table_key"] = table.game.table_key
        body["tables"].append(row)
    body["sit_outs"] = [
        {"registration": s.registration_id, "player": s.registration.player.name}
        for s in rnd.sit_outs.select_related("registration__player")
    ]
    return body


def standings_body(tournament: Tournament) -> dict[str, Any]:
    """The standings, exact: totals as fractions ("35/3") with a decimal for display."""
    standings = selectors.standings(tournament)
    return {
        "version": standings.version,
        "basis": tournament.basis,
        "tiebreaks": [
            {"key": c.key, "title": str(c.title), "help": str(c.explanation)}
            for c in standings.tiebreaks
        ],
        "rows": [
            {
                "place": row.label,
                "registration": row.registration_id,
                "name": row.name,
                "withdrawn": row.withdrawn,
                "total": str(row.total),
                "total_decimal": f"{float(row.total):.2f}",
                "tiebreaks": list(row.tiebreaks),
                "rounds": {
                    str(number): {"score": str(score.score), "missed": score.missed}
                    for number, score in row.rounds.items()
                },
            }
            for row in standings.rows
        ],
    }


class TournamentOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    rounds = serializers.IntegerField()
    sizes = serializers.ListField(child=serializers.IntegerField())
    prefer = serializers.IntegerField()
    rounds_complete = serializers.IntegerField()


class RoundOut(serializers.Serializer):
    number = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Round.State.choices)
    superseded = serializers.BooleanField()
    tables = serializers.ListField(child=serializers.DictField())
    sit_outs = serializers.ListField(child=serializers.DictField())


class RegistrationOut(serializers.Serializer):
    id = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    from_round = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class StandingsOut(serializers.Serializer):
    version = serializers.IntegerField()
    tiebreaks = serializers.ListField(child=serializers.DictField())
    rows = serializers.ListField(child=serializers.DictField())


# --- tournaments ------------------------------------------------------------------------------


class TournamentListApi(TournamentApiView):
    """``GET``: the tournaments of the caller's clubs. ``POST``: create one (a director)."""

    class TournamentInSerializer(StrictSerializer):
        club = serializers.IntegerField()
        name = serializers.CharField(max_length=120)
        game = serializers.CharField()
        options = serializers.JSONField(required=False)
        stake = serializers.JSONField(required=False)
        currency = serializers.JSONField(required=False)
        rounds = serializers.IntegerField(required=False)
        sizes = serializers.ListField(child=serializers.IntegerField(), required=False)
        prefer = serializers.IntegerField(required=False)
        method = serializers.CharField(required=False)
        hands_per_round = serializers.IntegerField(required=False)
        time_zone = serializers.CharField(required=False)
        starts_at = serializers.DateTimeField(required=False, allow_null=True)
        minutes_per_round = serializers.IntegerField(required=False, allow_null=True)
        missed_round_score = serializers.CharField(required=False)
        basis = serializers.CharField(required=False)
        seed = serializers.IntegerField(required=False)

    @extend_schema(responses={200: TournamentOut(many=True)})
    def get(self, request: Request) -> Response:
        tournaments = tournaments_readable(request.user).order_by("-created_at", "-id")
        return Response([tournament_body(t) for t in tournaments[:200]])

    @extend_schema(
        request=TournamentInSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={201: TournamentOut, 200: TournamentOut, 400: RuleErrorOut},
    )
    def post(self, request: Request) -> Response:
        data = self.TournamentInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        club = request.user.clubs.filter(pk=v.pop("club")).first()
        if club is None:
            raise Http404
        tournament, created = services.tournament_create(
            club=club,
            created_by=request.user,
            kind=v.pop("game"),
            idempotency_key=request.headers.get("Idempotency-Key", "").strip()[:255] or None,
            **v,
        )
        return created_response(tournament_body(tournament), created, tournament_url(tournament))


class TournamentDetailApi(TournamentApiView):
    """``GET``: one tournament."""

    @extend_schema(responses={200: TournamentOut})
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(tournament_body(self.tournament(tournament_id, direct=False)))


class RegistrationListApi(TournamentApiView):
    """``GET``: the registered players. ``POST``: register a club player (a director); between
    rounds this is a late entry."""

    class RegistrationInSerializer(StrictSerializer):
        player = serializers.IntegerField()

    @extend_schema(responses={200: RegistrationOut(many=True)})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=False)
        registrations = tournament.registrations.select_related("player").order_by("id")
        return Response([registration_body(r) for r in registrations])

    @extend_schema(
        request=RegistrationInSerializer, responses={201: RegistrationOut, 400: RuleErrorOut}
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        data = self.RegistrationInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = Player.objects.filter(pk=data.validated_data["player"]).first()
        if player is None:
            raise Http404
        registration = services.registration_add(tournament=tournament, player=player)
        return Response(registration_body(registration), status=status.HTTP_201_CREATED)


class WithdrawalApi(TournamentApiView):
    """``POST``: withdraw a registered player (results kept; never seated again)."""

    @extend_schema(request=None, responses={200: RegistrationOut})
    def post(self, request: Request, tournament_id: int, registration_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        registration = get_object_or_404(
            Registration.objects.select_related("player"),
            tournament=tournament,
            pk=registration_id,
        )
        registration = services.registration_withdraw(registration=registration)
        return Response(registration_body(registration))


# --- rounds -----------------------------------------------------------------------------------


class RoundListApi(TournamentApiView):
    """``GET``: the rounds. ``POST``: seat the next round (202: the seating runs as a task;
    the round's state shows when it is seated). Asking again before it is published returns
    the same round."""

    @extend_schema(responses={200: RoundOut(many=True)})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=False)
        director = self.is_director(tournament)
        rounds = tournament.round_set.order_by("number")
        if not director:  # members see a round once it is published (as RoundDetailApi)
            rounds = rounds.exclude(state__in=(Round.State.PLANNED, Round.State.SEATED))
        return Response([round_body(r, director=director) for r in rounds])

    @extend_schema(request=None, responses={202: RoundOut, 400: RuleErrorOut, 409: ConflictOut})
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        rnd, _created = services.round_seat(tournament=tournament)
        rnd.refresh_from_db()
        return Response(
            round_body(rnd, director=True),
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": round_url(rnd)},
        )


class RoundDetailApi(TournamentApiView):
    """``GET``: a round's tables, seats, first dealers and sit-outs (directors: each table's
    game id and table key). Members see a round once it is published."""

    @extend_schema(responses={200: RoundOut})
    def get(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = self.tournament(tournament_id, direct=False)
        rnd = self.round(tournament, number)
        director = self.is_director(tournament)
        if not director and rnd.state in (Round.State.PLANNED, Round.State.SEATED):
            raise Http404
        return Response(round_body(rnd, director=director))


class RoundActionApi(TournamentApiView):
    """Base of the round actions: a director, one service, the round back."""

    action_name = ""

    def act(self, rnd: Round, request: Request) -> Round:
        raise NotImplementedError

    @extend_schema(request=None, responses={200: RoundOut, 409: ConflictOut})
    def post(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        rnd = self.act(self.round(tournament, number), request)
        rnd.refresh_from_db()
        return Response(round_body(rnd, director=True))


class RoundPublishApi(RoundActionApi):
    """``POST``: publish a seated round: its tables open and its clock starts."""

    def act(self, rnd: Round, request: Request) -> Round:
        return services.round_publish(round=rnd)


class RoundCloseApi(RoundActionApi):
    """``POST``: close a round: tables that entered no hand are not played."""

    def act(self, rnd: Round, request: Request) -> Round:
        return services.round_close(round=rnd)


class RoundRegenerateApi(RoundActionApi):
    """``POST``: seat a round again while none of its results exist (after its standings were
    superseded)."""

    def act(self, rnd: Round, request: Request) -> Round:
        return services.round_regenerate(round=rnd)


class SubstituteApi(TournamentApiView):
    """``POST``: a substitute plays a registered player's seat in this round."""

    class SubstituteInSerializer(StrictSerializer):
        registration = serializers.IntegerField()
        substitute = serializers.CharField(max_length=80)

    @extend_schema(
        request=SubstituteInSerializer,
        responses={200: RoundOut, 400: RuleErrorOut, 409: ConflictOut},
    )
    def post(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        rnd = self.round(tournament, number)
        data = self.SubstituteInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        registration = get_object_or_404(
            Registration.objects.select_related("player"),
            tournament=tournament,
            pk=data.validated_data["registration"],
        )
        services.substitute_set(
            round=rnd, registration=registration, substitute=data.validated_data["substitute"]
        )
        rnd.refresh_from_db()
        return Response(round_body(rnd, director=True))


class StandingsApi(TournamentApiView):
    """``GET``: the standings with their tie-break columns, exact."""

    @extend_schema(responses={200: StandingsOut})
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(standings_body(self.tournament(tournament_id, direct=False)))
