"""The tournaments API's output shapes, one serializer each: they render the responses
(``TournamentOut(t).data`` in the API view) and describe them in the OpenAPI schema, so the two
cannot drift."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from ops import collation, languages
from scoring.messages import error_message
from scoring.models import Game, HandEvent
from scoring.serializers import BlankAsNullCharField, GameNameField, JsonObjectField
from tournaments import localtime, selectors
from tournaments.errors import TournamentError, failure_message
from tournaments.models import AuditEntry, Round, Table, Tournament
from tournaments.selectors import Standings
from tournaments.standings import IN_PLAY

# --- fields -----------------------------------------------------------------------------------


@extend_schema_field({"type": "string", "pattern": localtime.SCHEMA_TIME_PATTERN})
class LocalDateTimeField(serializers.Field):  # type: ignore[type-arg]
    """A time a request gives: a wall time in the tournament's zone (``2025-03-15T18:30``) or
    an ISO 8601 instant with its offset (``2025-03-15T18:30-05:00``, ``…Z``): the one rule of
    ``tournaments.localtime``. The field reads the text (:func:`tournaments.localtime.parse`;
    anything else is 400 ``bad_format`` naming the field); the service turns it into the
    instant in the tournament's zone (:func:`tournaments.localtime.instant`: a wall time the
    zone skips, or shows twice without its offset, is refused, 400 ``bad_format`` with the
    field, the time and the zone). The schema documents the rule on every such field.

    Validates to a naive ``datetime`` (a wall time) or an aware one (an instant); renders an
    aware ``datetime`` as the instant in ISO 8601 with its offset (``Z`` for UTC)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", localtime.DESCRIPTION)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> datetime:
        try:
            return localtime.parse(data, field=self.field_name or "time")
        except TournamentError as exc:
            raise serializers.ValidationError(error_message(exc), code="bad_format") from None

    def to_representation(self, value: datetime) -> str:
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


#: Round states without tables: the seating under way, or failed.
UNSEATED = (Round.State.PLANNED, Round.State.FAILED)


def tournament_url(tournament: Tournament) -> str:
    """The API address of ``tournament``."""
    return reverse("tournaments-api:tournament", args=[tournament.pk])


def round_url(rnd: Round) -> str:
    """The API address of round ``rnd``."""
    return reverse("tournaments-api:round", args=[rnd.tournament_id, rnd.number])


@extend_schema_field(
    {
        "type": "string",
        "enum": ["", *languages.codes()],
        "description": "The language of the tournament's public pages, table cards and big "
        'screen for a visitor who chose none: one of the codes exactly, or "" for none '
        "(each visitor's browser decides). Anything else: 400 `bad_format`.",
    }
)
class LanguageField(serializers.Field):  # type: ignore[type-arg]
    """A tournament's language: the value is passed on as sent (no trimming, no coercion),
    for the service to read with ``tonkrules.choices.one_of``."""

    def to_internal_value(self, data: Any) -> Any:
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class TournamentOut(serializers.Serializer[Any]):
    """A tournament: its settings (as ``POST /tournaments/`` takes them) and where it stands
    (``rounds_complete``)."""

    id = serializers.IntegerField(source="pk")
    url = serializers.SerializerMethodField()
    club = serializers.IntegerField(source="club_id")
    name = serializers.CharField()
    game = GameNameField(source="kind")
    options = JsonObjectField()
    stake = BlankAsNullCharField()
    currency = BlankAsNullCharField()
    rounds = serializers.IntegerField(source="round_count")
    sizes = serializers.ListField(child=serializers.IntegerField())
    prefer = serializers.IntegerField()
    method = serializers.ChoiceField(choices=Tournament.Method.choices)
    hands_per_round = serializers.IntegerField()
    time_zone = serializers.CharField()
    starts_at = serializers.DateTimeField(allow_null=True)
    minutes_per_round = serializers.IntegerField(allow_null=True)
    missed_round_score = serializers.ChoiceField(choices=Tournament.Missed.choices)
    basis = serializers.ChoiceField(choices=Tournament.Basis.choices)
    confirmation = serializers.ChoiceField(choices=Game.Confirmation.choices)
    seed = serializers.IntegerField()
    language = LanguageField()
    rounds_complete = serializers.IntegerField()

    def get_url(self, tournament: Tournament) -> str:
        return tournament_url(tournament)


class RegistrationOut(serializers.Serializer[Any]):
    """A registered player: the club player, their name, the first round they play, and
    whether (after which round) they withdrew."""

    id = serializers.IntegerField(source="pk")
    player = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.name")
    from_round = serializers.IntegerField()
    withdrawn = serializers.BooleanField()
    withdrawn_after = serializers.IntegerField(allow_null=True)


class TableSeatOut(serializers.Serializer[Any]):
    """A seat at a round's table, from the first dealer clockwise: the registration, the
    player's name and the substitute playing it (or null). Renders a
    :class:`tournaments.selectors.RoundTableSeat`."""

    seat = serializers.SerializerMethodField()
    registration = serializers.IntegerField(source="registration_id")
    player = serializers.CharField()
    substitute = BlankAsNullCharField()

    def get_seat(self, seat: Any) -> int:
        return int(seat.position) + 1


class RoundTableOut(serializers.Serializer[Any]):
    """A table of a seated round: its number, state, seats and first dealer; for directors
    (``context={"director": True}``) also its game's id and table key. Renders a
    :class:`tournaments.selectors.RoundTable`."""

    number = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Table.State.choices)
    seats = TableSeatOut(many=True)
    first_dealer = serializers.CharField()
    game = serializers.IntegerField(source="game_id", required=False)
    table_key = serializers.CharField(required=False)

    def to_representation(self, instance: Any) -> Any:
        body = super().to_representation(instance)
        if not self.context.get("director"):
            body.pop("game", None)
            body.pop("table_key", None)
        return body


class SitOutOut(serializers.Serializer[Any]):
    """A registered player who sits this round out."""

    registration = serializers.IntegerField(source="registration_id")
    player = serializers.CharField(source="registration.player.name")


class RoundFailureOut(serializers.Serializer[Any]):
    """Why a round's seating failed: a stable ``code`` (``too_few_players``: the players
    cannot fill a table; ``seating_unfinished``: the seating was started 5 times and never
    finished; a seating refusal's code) and the sentence in the request's language."""

    code = serializers.CharField()
    message = serializers.CharField()


class RoundOut(serializers.Serializer[Any]):
    """A round: its state and clock, and once seated its tables (seat order from the first
    dealer) and sit-outs; directors (``context={"director": True}``) also get each table's
    game id and table key.

    ``state``: ``planned`` (its seating asked for, under way), ``seated``, ``published``,
    ``playing``, ``complete``, or ``failed``: the seating could not be done, ``failure`` says
    why (null in every other state); ``POST /tournaments/{id}/rounds/`` retries it."""

    number = serializers.IntegerField()
    url = serializers.SerializerMethodField()
    state = serializers.ChoiceField(choices=Round.State.choices)
    failure = serializers.SerializerMethodField()
    superseded = serializers.BooleanField()
    deadline = serializers.DateTimeField(allow_null=True)
    time_called = serializers.SerializerMethodField()
    tables = serializers.SerializerMethodField()
    sit_outs = serializers.SerializerMethodField()

    def get_url(self, rnd: Round) -> str:
        return round_url(rnd)

    def get_time_called(self, rnd: Round) -> bool:
        return rnd.time_called_at is not None

    @extend_schema_field(RoundFailureOut(allow_null=True))
    def get_failure(self, rnd: Round) -> Any:
        if rnd.state != Round.State.FAILED or not rnd.failure:
            return None
        return {"code": rnd.failure.get("code"), "message": failure_message(rnd.failure)}

    @extend_schema_field(RoundTableOut(many=True))
    def get_tables(self, rnd: Round) -> Any:
        if rnd.state in UNSEATED:
            return []
        return RoundTableOut(selectors.round_tables(rnd), many=True, context=self.context).data

    @extend_schema_field(SitOutOut(many=True))
    def get_sit_outs(self, rnd: Round) -> Any:
        if rnd.state in UNSEATED:
            return []
        sit_outs = collation.sorted_by_name(
            rnd.sit_outs.select_related("registration__player"),
            name=lambda s: s.registration.player.name,
            then=lambda s: s.registration_id,
            language=collation.tournament_language(rnd.tournament),
        )
        return SitOutOut(sit_outs, many=True).data


class TiebreakColumnOut(serializers.Serializer[Any]):
    """A tie-break column of the game: its key, title and explanation."""

    key = serializers.CharField()
    title = serializers.CharField()
    help = serializers.CharField(source="explanation")


class RoundScoreOut(serializers.Serializer[Any]):
    """A player's score in one round (an exact fraction, ``"35/3"``) and whether it is a
    missed round's score."""

    score = serializers.CharField()
    missed = serializers.BooleanField()


@extend_schema_field(serializers.DictField(child=RoundScoreOut()))
class RoundScoresField(serializers.Field[Any, Any, Any, Any]):
    """Round number (a string key) → :class:`RoundScoreOut`, rounds in order."""

    def to_representation(self, value: Any) -> Any:
        return {str(number): RoundScoreOut(score).data for number, score in value.items()}


class StandingRowOut(serializers.Serializer[Any]):
    """One line of the standings: the place as shown (``"2="`` when shared; ``""`` for a
    player not ranked yet, ``ranked`` false: no score yet, listed after those who scored), the
    player, the total as an exact fraction with a decimal for display, the tie-break values
    (in the order of the tie-break columns; the total and every tie-break null for a player
    with no result yet, never 0), each round's score, and ``in_play``: where the
    player's table stands in the round in play (``""``: not playing one; ``not_reported``:
    nothing entered yet; ``provisional``: hands not yet confirmed, which do not count yet;
    ``reported``)."""

    place = serializers.CharField(source="label", allow_blank=True)
    ranked = serializers.BooleanField()
    in_play = serializers.ChoiceField(choices=[(v, v or "none") for v in IN_PLAY], allow_blank=True)
    registration = serializers.IntegerField(source="registration_id")
    name = serializers.CharField()
    withdrawn = serializers.BooleanField()
    total = serializers.SerializerMethodField()
    total_decimal = serializers.SerializerMethodField()
    tiebreaks = serializers.SerializerMethodField()
    rounds = RoundScoresField()

    def get_total(self, row: Any) -> str | None:
        """The total as an exact fraction; null for a player with no result yet (never 0:
        in a lowest-wins game 0 is the leader's value)."""
        return str(row.total) if row.ranked else None

    def get_total_decimal(self, row: Any) -> str | None:
        return f"{float(row.total):.2f}" if row.ranked else None

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField(allow_null=True)))
    def get_tiebreaks(self, row: Any) -> list[int | None]:
        """The tie-break values in column order; every one null for a player with no result
        yet."""
        return list(row.tiebreaks) if row.ranked else [None] * len(row.tiebreaks)


class StandingsOut(serializers.Serializer[Any]):
    """The standings, exact: ``version`` (the results version they are for), the basis, the
    tie-break columns and the rows best first. Render with ``context={"basis": ...}``."""

    version = serializers.IntegerField()
    basis = serializers.SerializerMethodField()
    tiebreaks = TiebreakColumnOut(many=True)
    rows = StandingRowOut(many=True)

    @extend_schema_field(serializers.ChoiceField(choices=Tournament.Basis.choices))
    def get_basis(self, standings: Standings) -> str:
        return str(self.context["basis"])


#: What a step of a tournament's audit may be: the tournament's own actions and a hand's.
AUDIT_ACTIONS = (
    *AuditEntry.Action.values,
    "enter",
    "correct",
    *HandEvent.Action.values,
)


class AuditWhoOut(serializers.Serializer[Any]):
    """Who made a step: the signed-in user's username, and/or the seat (its name) and its
    club player; all null for the system (the round clock, a round completed by its last
    result)."""

    user = serializers.CharField(allow_null=True)
    seat = serializers.CharField(allow_null=True)
    player = serializers.IntegerField(source="player_id", allow_null=True)


@extend_schema_serializer(component_name="TournamentAuditStep")
class AuditStepOut(serializers.Serializer[Any]):
    """One step of a tournament's audit, oldest first: ``kind`` ``"tournament"`` (a round or
    registration change) or ``"hand"`` (a hand of a table's game: entered, corrected,
    confirmed, disputed, resolved, voided, restored), when, the round and table concerned,
    the game, hand and revision (hand steps), who, why, and the step's facts."""

    at = serializers.DateTimeField()
    kind = serializers.ChoiceField(
        source="source", choices=[("tournament", "tournament"), ("hand", "hand")]
    )
    action = serializers.ChoiceField(choices=[(a, a) for a in dict.fromkeys(AUDIT_ACTIONS)])
    round = serializers.IntegerField(source="round_number", allow_null=True)
    table = serializers.IntegerField(source="table_number", allow_null=True)
    game = serializers.IntegerField(source="game_id", allow_null=True)
    hand = serializers.IntegerField(allow_null=True)
    revision = serializers.IntegerField(allow_null=True)
    who = serializers.SerializerMethodField()
    reason = serializers.CharField(allow_blank=True)
    details = JsonObjectField()

    @extend_schema_field(AuditWhoOut)
    def get_who(self, line: Any) -> Any:
        return AuditWhoOut(line).data
