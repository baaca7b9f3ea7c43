"""The tournaments REST API's rounds (``/api/v1/tournaments/{id}/rounds/``): seat the next
round, a round's detail, publish, close, regenerate, and substitutes. Shared parts (access,
error answers, the confirmations a director sends) are :mod:`tournaments.api`'s."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from scoring.api import (
    IDEMPOTENCY_PARAMETER,
    errors,
    example,
    idempotency_key_of,
)
from scoring.names import NameSerializerField
from tournaments import services
from tournaments.api import (
    ACTION_ERRORS,
    KEY_REUSED,
    READ_ERRORS,
    UNPUBLISHED,
    WRITE_ERRORS,
    ElsewhereConfirmInSerializer,
    TournamentApiView,
    confirmed,
    conflicts,
)
from tournaments.models import (
    Registration,
    Round,
)
from tournaments.serializers import (
    RoundOut,
    round_url,
)

# --- rounds -----------------------------------------------------------------------------------


class RoundListApi(TournamentApiView):
    """``GET``: the rounds. ``POST``: seat the next round (202: the seating runs as a task;
    the round's state shows when it is seated, or ``failed`` with its ``failure``). Asking
    again before it is published returns the same round (its seating sent again while it
    waits); asking again when its seating failed retries it (the players are checked again:
    409 ``too_few_players`` when they still cannot fill a table). A player who sits at another
    of the club's tables at that time is refused (409 ``seated_elsewhere``, naming the
    tournament and table; the seating task checks again, failing the round with that code)
    unless ``confirm_elsewhere`` with a ``reason``."""

    @extend_schema(responses={200: RoundOut(many=True), **errors(*READ_ERRORS)})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=False)
        director = self.is_director(tournament)
        rounds = tournament.round_set.order_by("number")
        if not director:  # members see a round once it is published (as RoundDetailApi)
            rounds = rounds.exclude(state__in=UNPUBLISHED)
        return Response(RoundOut(rounds, many=True, context={"director": director}).data)

    @extend_schema(
        request=ElsewhereConfirmInSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={
            202: RoundOut,
            **errors(*WRITE_ERRORS),
            **conflicts(
                round_not_complete="the last round is not complete",
                all_seated="every round is seated",
                too_few_players="the active players cannot fill a table",
                seated_elsewhere="a player sits at another of the club's tables at that time",
                idempotency_key_reused=KEY_REUSED,
            ),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        rnd, _created = services.round_seat(
            tournament=tournament,
            by=request.user,
            idempotency_key=idempotency_key_of(request),
            **confirmed(request, ElsewhereConfirmInSerializer),
        )
        rnd.refresh_from_db()
        return Response(
            RoundOut(rnd, context={"director": True}).data,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": round_url(rnd)},
        )


class RoundDetailApi(TournamentApiView):
    """``GET``: a round's tables, seats, first dealers and sit-outs (directors: each table's
    game id and table key). Members see a round once it is published."""

    @extend_schema(responses={200: RoundOut, **errors(*READ_ERRORS)})
    def get(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = self.tournament(tournament_id, direct=False)
        rnd = self.round(tournament, number)
        director = self.is_director(tournament)
        if not director and rnd.state in UNPUBLISHED:
            raise Http404
        return Response(RoundOut(rnd, context={"director": director}).data)


class RoundActionApi(TournamentApiView):
    """Base of the round actions: a director, one service, the round back."""

    action_name = ""

    def act(self, rnd: Round, request: Request) -> Round:
        raise NotImplementedError

    @extend_schema(
        request=None,
        responses={
            200: RoundOut,
            **errors(*ACTION_ERRORS),
            **conflicts(
                not_seated="publish: the round is not seated yet",
                not_published="close: the round is not published",
                unconfirmed="close: tables with hands to confirm or resolve (`round`, `tables`)",
                complete="regenerate: the round is complete",
                results_exist="regenerate: the round has results",
                too_few_players="regenerate: the active players cannot fill a table",
            ),
        },
    )
    def post(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        rnd = self.act(self.round(tournament, number), request)
        rnd.refresh_from_db()
        return Response(RoundOut(rnd, context={"director": True}).data)


class RoundPublishApi(RoundActionApi):
    """``POST``: publish a seated round: its tables open and its clock starts."""

    def act(self, rnd: Round, request: Request) -> Round:
        return services.round_publish(round=rnd, by=request.user)


class RoundCloseApi(RoundActionApi):
    """``POST``: close a round: tables that entered no hand are not played. Where the
    tournament requires confirmation, a table with a hand provisional or disputed refuses it
    (409 ``unconfirmed``, naming the tables): confirm or resolve those hands first."""

    def act(self, rnd: Round, request: Request) -> Round:
        return services.round_close(round=rnd, by=request.user)


class RoundRegenerateApi(TournamentApiView):
    """``POST``: seat a round again while none of its results exist (after its standings were
    superseded). Its substitutes whose absent player is seated again take that player's new
    seat; when the new seating leaves such a player out (withdrawn, sitting out), the request
    is refused (409 ``substitutes_dropped``, naming them in ``substitutes``) unless
    ``drop_substitutes`` confirms dropping them. Players who sit at another of the club's
    tables at that time: as seating a round (``confirm_elsewhere`` with a ``reason``)."""

    class RegenerateInSerializer(ElsewhereConfirmInSerializer):
        drop_substitutes = serializers.BooleanField(
            required=False,
            default=False,
            help_text="Seat the round again although it drops the substitutes the 409 "
            "``substitutes_dropped`` named (each kept in the audit as dropped).",
        )

    @extend_schema(
        request=RegenerateInSerializer,
        responses={
            200: RoundOut,
            **errors(*WRITE_ERRORS),
            **conflicts(
                complete="the round is complete",
                results_exist="the round has results",
                too_few_players="the active players cannot fill a table",
                substitutes_dropped="the new seating would drop the `substitutes` named "
                "(confirm with `drop_substitutes`)",
                seated_elsewhere="a player sits at another of the club's tables at that time "
                "(confirm with `confirm_elsewhere` and a `reason`)",
            ),
        },
        examples=[example("Drop the substitutes named", {"drop_substitutes": True})],
    )
    def post(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = self.tournament(tournament_id, direct=True)
        rnd = services.round_regenerate(
            round=self.round(tournament, number),
            by=request.user,
            **confirmed(request, self.RegenerateInSerializer),
        )
        rnd.refresh_from_db()
        return Response(RoundOut(rnd, context={"director": True}).data)


class SubstituteApi(TournamentApiView):
    """``POST``: a substitute plays a registered player's seat in this round. A substitute who
    sits at another of the club's tables at that time is refused (409 ``seated_elsewhere``)
    unless ``confirm_elsewhere`` with a ``reason``."""

    class SubstituteInSerializer(ElsewhereConfirmInSerializer):
        registration = serializers.IntegerField()
        substitute = NameSerializerField()

    @extend_schema(
        request=SubstituteInSerializer,
        responses={
            200: RoundOut,
            **errors(*WRITE_ERRORS),
            **conflicts(
                complete="the round is complete",
                not_seated="the registered player has no seat in this round",
                already_seated="the substitute already sits in this round (`.alike`: under "
                "another spelling of the name)",
                registered="the substitute is a registered player of the tournament",
                results_exist="the table has hands: its seats can no longer change",
                seated_elsewhere="the substitute sits at another of the club's tables at that "
                "time (confirm with `confirm_elsewhere` and a `reason`)",
            ),
        },
        examples=[example("Mallory plays the seat", {"registration": 1, "substitute": "Mallory"})],
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
        v = dict(data.validated_data)
        del v["registration"]
        services.substitute_set(
            round=rnd,
            registration=registration,
            substitute=v.pop("substitute"),
            by=request.user,
            **v,
        )
        rnd.refresh_from_db()
        return Response(RoundOut(rnd, context={"director": True}).data)
