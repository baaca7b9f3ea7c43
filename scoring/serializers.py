"""The scoring API's output shapes, one serializer each, and its error bodies.

Each serializer both renders a response (``GameOut(game).data`` in the API view) and describes
it in the OpenAPI schema (drf-spectacular reads the same fields), so the two cannot drift. The
shapes follow the score-sheet format (``shared/formats/scoresheet.md``): a game's ``results``
is the format's result object, ``hand`` a hand object of the format.
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from scoring import selectors
from scoring.messages import warning_message
from scoring.models import Game, Hand, HandEvent, Seat

# --- base -------------------------------------------------------------------------------------


class GameNameField(serializers.CharField):
    """A game's name: one of the games registered in ``scoring.games`` (the schema lists them
    as they are when it is made: ``scoring.schema.GameNameSchema``). As input it is read as a
    string as sent, not trimmed, and the rules engine reads it
    (``tonkrules.choices.one_of``: exactly one of the games, else ``bad_format``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)


class OutputSerializer(serializers.Serializer[Any]):
    """An output shape. ``Shape(obj).data`` renders as any serializer; ``Shape.render(obj)``
    gives the same body through one shared instance per class, skipping DRF's deep copy of the
    declared fields that every new instance makes (0.4 ms for a hand: the hand write path
    renders this way). Only for shapes that read no ``context``."""

    #: The class's shared instance, made by the first :meth:`render` (set per class).
    _shared: ClassVar[OutputSerializer]

    @classmethod
    def render(cls, instance: Any) -> Any:
        """``cls(instance).data``, as a plain dict, from the class's shared instance."""
        shared = cls.__dict__.get("_shared")
        if shared is None:
            shared = cls()
            shared.fields  # noqa: B018 (binds the fields once)
            cls._shared = shared
        return shared.to_representation(instance)

    @classmethod
    def render_many(cls, instances: Any) -> list[Any]:
        """``cls(instances, many=True).data``, as a plain list (see :meth:`render`)."""
        return [cls.render(instance) for instance in instances]


# --- fields -----------------------------------------------------------------------------------


class BlankAsNullCharField(serializers.CharField):
    """A text column where blank means "not set": rendered as ``null``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, **kwargs)

    # A field may render any JSON value (None included); the stubs narrow CharField's to str.
    def to_representation(self, value: Any) -> str | None:  # type: ignore[override]
        text = super().to_representation(value)
        return text or None


@extend_schema_field({"type": "object", "additionalProperties": {"type": "integer"}})
class PlayerPointsField(serializers.DictField):
    """Player name → points (Rook, Bluke) or stake units (Tonk), in seat order."""

    child = serializers.IntegerField()


@extend_schema_field({"type": "object", "additionalProperties": {"type": "string"}})
class PlayerMoneyField(serializers.DictField):
    """Player name → money, a decimal string with the stake's decimal places (``"-0.75"``)."""

    child = serializers.CharField()


@extend_schema_field({"type": "object", "additionalProperties": True})
class JsonObjectField(serializers.JSONField):
    """A JSON object passed through as it is (house-rule options, a hand object)."""


# --- errors -----------------------------------------------------------------------------------


class ErrorObjectOut(serializers.Serializer[Any]):
    """The score-sheet format's error object: ``code`` (``bad_format``, ``bad_card``...),
    ``message`` for people, and where they apply ``hand`` (1-based position), ``number`` (the
    hand's number in the game), ``player``, ``cards``, ``detail`` and, for a request that does
    not fit the endpoint, DRF's messages per field under ``fields``."""

    code = serializers.CharField()
    message = serializers.CharField()
    detail = serializers.CharField(required=False)
    hand = serializers.IntegerField(required=False)
    number = serializers.IntegerField(required=False)
    player = serializers.CharField(required=False, allow_null=True)
    cards = serializers.ListField(child=serializers.CharField(), required=False)
    # The error object's key "fields": DRF's metaclass takes declared fields off the class, so
    # this does not replace Serializer.fields at runtime, which the stubs cannot see.
    fields = serializers.JSONField(required=False)  # type: ignore[assignment]
    field = serializers.CharField(
        required=False, help_text="A tournament request's field at fault."
    )
    retry_after = serializers.IntegerField(
        required=False, help_text="throttled (429): seconds to wait before trying again."
    )
    limit = serializers.IntegerField(
        required=False, help_text="too_large (413): the endpoint's body limit, in bytes."
    )


@extend_schema_serializer(component_name="Error")
class ErrorOut(serializers.Serializer[Any]):
    """A refused request (400): ``{"error": {"code", "message", ...}}``."""

    error = ErrorObjectOut()


class ConflictObjectOut(serializers.Serializer[Any]):
    """A write the present state refuses: a stable ``code`` (``stale_revision``,
    ``void_refused``, ``game_finished``, ``no_such_hand``, ``idempotency_key_reused``...), a
    ``message``, and the values a client needs to recover, each declared here."""

    code = serializers.CharField()
    message = serializers.CharField()
    number = serializers.IntegerField(required=False, help_text="The hand concerned.")
    current_revision = serializers.IntegerField(
        required=False, help_text="stale_revision: the hand's current revision."
    )
    latest = serializers.IntegerField(
        required=False, help_text="void_refused: the latest hand, the only one that may be voided."
    )
    limit = serializers.IntegerField(required=False, help_text="hand_limit: the hands it takes.")
    next = serializers.IntegerField(
        required=False, help_text="hand_not_next: the number the next hand takes."
    )
    last_number = serializers.IntegerField(
        required=False, help_text="hand_not_next: the last hand number entered (0: none)."
    )
    hands = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="hand_not_next: the current hands, as `GET .../hands/` gives them.",
    )
    game = serializers.JSONField(
        required=False,
        help_text="hand_limit: the game's id; not_tonk: the game's name.",
    )
    round = serializers.IntegerField(required=False, help_text="The tournament round concerned.")
    field = serializers.CharField(
        required=False, help_text="A tournament request's field at fault."
    )


@extend_schema_serializer(component_name="Conflict")
class ConflictOut(serializers.Serializer[Any]):
    """A write the present state refuses (409; 404 ``no_such_hand``): ``{"conflict": {...}}``."""

    conflict = ConflictObjectOut()


@extend_schema_serializer(component_name="Refusal")
class RefusalOut(serializers.Serializer[Any]):
    """DRF's answer to a caller it refuses or a thing it cannot find (401, 403, 404, 405, 415):
    ``{"detail": "..."}``."""

    detail = serializers.CharField()


# --- who entered a hand -----------------------------------------------------------------------


class SeatOut(OutputSerializer):
    """A seat: its number from 1 clockwise, the name played under, the club player (or null)."""

    seat = serializers.SerializerMethodField()
    name = serializers.CharField()
    player = serializers.IntegerField(source="player_id", allow_null=True)

    def get_seat(self, seat: Any) -> int:
        return int(seat.position) + 1


def _seat(seat_id: int | None, seat: Seat | None) -> Any:
    return SeatOut.render(seat) if seat_id is not None and seat is not None else None


class HandStatusOut(OutputSerializer):
    """A hand's standing at the table (issue 12): its current revision, its ``status``
    (``provisional`` until confirmed as the game's ``confirmation`` requires, ``confirmed``,
    or ``disputed`` until a director resolves it), who entered that revision (``entered_seat``:
    the seat that entered it, or null; ``entered_by``: the signed-in user's username, or null;
    ``entered_via``: ``seat``, ``table``, ``user`` or ``import``), when, and the ``reason``
    given (a correction's or a director's resolution's; blank when none was given)."""

    number = serializers.IntegerField()
    revision = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Hand.Status.choices)
    entered_seat = serializers.SerializerMethodField()
    entered_by = serializers.SerializerMethodField()
    entered_via = serializers.ChoiceField(choices=Hand.Via.choices)
    entered_at = serializers.DateTimeField(source="created_at")
    reason = serializers.CharField()

    @extend_schema_field(SeatOut(allow_null=True))
    def get_entered_seat(self, hand: Hand) -> Any:
        return _seat(hand.entered_seat_id, hand.entered_seat if hand.entered_seat_id else None)

    def get_entered_by(self, hand: Hand) -> str | None:
        return hand.entered_by.get_username() if hand.entered_by else None


# --- games ------------------------------------------------------------------------------------


class WarningOut(OutputSerializer):
    """Something the house rules flag without rejecting the hand (Tonk ``concealed_spread``);
    its ``message`` in the request's language, like an error's."""

    code = serializers.CharField()
    player = serializers.CharField(allow_null=True)
    cards = serializers.ListField(child=serializers.CharField())
    message = serializers.CharField()

    def to_representation(self, instance: Any) -> dict[str, Any]:
        """The warning as stored, its sentence in the active language."""
        data: dict[str, Any] = super().to_representation(instance)
        data["message"] = warning_message(instance)
        return data


class ResultHandOut(OutputSerializer):
    """One hand in a result: its number and revision, its scores and the running totals."""

    number = serializers.IntegerField()
    revision = serializers.IntegerField()
    scores = PlayerPointsField()
    running = PlayerPointsField()
    warnings = WarningOut(many=True, required=False)


class ResultOut(OutputSerializer):
    """The score-sheet format's result object (``tabletally.result/1``), from the score lines:
    per-hand scores with running totals, totals, the ranking (best first, tied players
    together) and, for Tonk with a stake, money."""

    format = serializers.CharField()
    game = GameNameField()
    players = serializers.ListField(child=serializers.CharField())
    hands = ResultHandOut(many=True)
    totals = PlayerPointsField()
    ranking = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    money = PlayerMoneyField(required=False)


class SeatWithKeyOut(SeatOut):
    """A seat as those who may see the keys see it: with ``seat_key``, its player's private
    key (``Authorization: Seat <key>``)."""

    seat_key = serializers.CharField(required=False)


class GameOut(serializers.Serializer[Any]):
    """A game with its seats, house rules, who confirms its hands, state, results and each
    current hand's status and author. ``table_key`` (the table device's key) and each seat's
    ``seat_key`` are shown only to those who may see them (``scoring.permissions.may_see_keys``:
    a director, a casual game's creator): render with ``context={"with_key": True}``.
    """

    id = serializers.IntegerField(source="pk")
    game = GameNameField(source="kind")
    players = serializers.SerializerMethodField()
    options = JsonObjectField()
    rules_version = serializers.CharField()
    stake = BlankAsNullCharField()
    currency = BlankAsNullCharField()
    club = serializers.IntegerField(source="club_id", allow_null=True)
    state = serializers.ChoiceField(choices=Game.State.choices)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    confirmation = serializers.ChoiceField(choices=Game.Confirmation.choices)
    directed = serializers.BooleanField(
        help_text="A tournament table: once its round is complete only the club's directors "
        "change its hands, each time with a reason."
    )
    results = serializers.SerializerMethodField()
    hands = serializers.SerializerMethodField()
    table_key = serializers.CharField(required=False)

    @extend_schema_field(SeatWithKeyOut(many=True))
    def get_players(self, game: Game) -> Any:
        seats = game.seats.order_by("position")
        if self.context.get("with_key"):
            return SeatWithKeyOut.render_many(seats)
        return SeatOut.render_many(seats)

    @extend_schema_field(ResultOut)
    def get_results(self, game: Game) -> Any:
        return ResultOut.render(selectors.game_results(game))

    @extend_schema_field(HandStatusOut(many=True))
    def get_hands(self, game: Game) -> Any:
        hands = game.hands.filter(state=Hand.State.CURRENT).select_related(
            "entered_seat", "entered_by"
        )
        return HandStatusOut.render_many(hands.order_by("number"))

    def to_representation(self, instance: Any) -> Any:
        body = super().to_representation(instance)
        if not self.context.get("with_key"):
            body.pop("table_key", None)
        return body


class GameSummaryOut(OutputSerializer):
    """A game in a list: who plays what (names in seat order), its club, state and totals
    over the hands that count (``scoring.selectors.counting_hands``; 0 for a seat with none).
    Render with ``context={"totals": ...}``
    (``scoring.selectors.counted_totals_by_game`` of the page's games)."""

    id = serializers.IntegerField(source="pk")
    game = GameNameField(source="kind")
    players = serializers.SerializerMethodField()
    club = serializers.IntegerField(source="club_id", allow_null=True)
    state = serializers.ChoiceField(choices=Game.State.choices)
    created_at = serializers.DateTimeField()
    totals = serializers.SerializerMethodField()

    def get_players(self, game: Game) -> list[str]:
        return [s.name for s in game.seats.all()]

    @extend_schema_field(PlayerPointsField())
    def get_totals(self, game: Game) -> dict[str, int]:
        totals: dict[str, int] = self.context["totals"][game.pk]
        return totals


class PaymentOut(OutputSerializer):
    """One payment that settles a Tonk table: who pays whom how many stake units (and, with a
    stake, the amount)."""

    payer = serializers.CharField()
    payee = serializers.CharField()
    units = serializers.IntegerField()
    amount = serializers.CharField(required=False)


class SettleUpOut(OutputSerializer):
    """Tonk: each player's net in stake units (and money, with a stake), and the fewest
    payments that settle the table (``scoring.selectors.settle_up``)."""

    net = PlayerPointsField()
    money = PlayerMoneyField(required=False)
    currency = serializers.CharField(allow_null=True)
    payments = PaymentOut(many=True)


# --- hands ------------------------------------------------------------------------------------


class HandOut(OutputSerializer):
    """One hand revision: its number, revision, state and status (``provisional``,
    ``confirmed``, ``disputed``), the hand as entered (``entry``, verbatim) and canonical
    (``hand``), its scores and warnings, the revision it replaces, who entered it (the seat,
    the signed-in user), how, when and why (``reason``: a correction's or a director's)."""

    number = serializers.IntegerField()
    revision = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Hand.State.choices)
    status = serializers.ChoiceField(choices=Hand.Status.choices)
    hand = JsonObjectField(source="record")
    entry = serializers.JSONField()
    scores = serializers.SerializerMethodField()
    warnings = WarningOut(many=True)
    replaces = serializers.SerializerMethodField()
    entered_seat = serializers.SerializerMethodField()
    entered_by = serializers.SerializerMethodField()
    entered_via = serializers.ChoiceField(choices=Hand.Via.choices)
    entered_at = serializers.DateTimeField(source="created_at")
    reason = serializers.CharField()

    @extend_schema_field(PlayerPointsField)
    def get_scores(self, hand: Hand) -> dict[str, int]:
        return selectors.hand_scores(hand)

    def get_replaces(self, hand: Hand) -> int | None:
        return hand.replaces.revision if hand.replaces_id and hand.replaces else None

    @extend_schema_field(SeatOut(allow_null=True))
    def get_entered_seat(self, hand: Hand) -> Any:
        return _seat(hand.entered_seat_id, hand.entered_seat if hand.entered_seat_id else None)

    def get_entered_by(self, hand: Hand) -> str | None:
        return hand.entered_by.get_username() if hand.entered_by else None


class VoidOut(OutputSerializer):
    """Who voided a hand (the seat, the signed-in user; both null: the system), when and
    why."""

    at = serializers.DateTimeField(source="created_at")
    seat = serializers.SerializerMethodField()
    user = serializers.SerializerMethodField()
    reason = serializers.CharField()

    @extend_schema_field(SeatOut(allow_null=True))
    def get_seat(self, event: HandEvent) -> Any:
        return _seat(event.seat_id, event.seat if event.seat_id else None)

    def get_user(self, event: HandEvent) -> str | None:
        return event.user.get_username() if event.user else None


class HandHistoryOut(OutputSerializer):
    """Hand ``number`` with every revision, oldest first; ``void``: while the hand is voided
    (struck through on the sheet, to be restored), who voided it, when and why; else null."""

    number = serializers.IntegerField()
    revisions = HandOut(many=True)
    void = VoidOut(allow_null=True)


class AuditStepOut(OutputSerializer):
    """One step of a game's trail (``scoring.selectors.AuditStep``): when, the hand's number
    and revision, the ``action`` (``enter``, ``correct``, ``confirm``, ``dispute``,
    ``resolve``, ``void``, ``restore``), who (the seat's name and club player, the signed-in
    user's username), how an entry came (``via``), why, and the step's facts (``details``: a
    resolution's ``resolution``)."""

    at = serializers.DateTimeField()
    game = serializers.IntegerField(source="game_id")
    number = serializers.IntegerField()
    revision = serializers.IntegerField()
    action = serializers.CharField()
    seat = serializers.CharField(allow_null=True)
    player = serializers.IntegerField(source="player_id", allow_null=True)
    user = serializers.CharField(allow_null=True)
    via = serializers.CharField(allow_null=True)
    reason = serializers.CharField()
    details = JsonObjectField()


# --- score sheets -----------------------------------------------------------------------------


class ImportedOut(OutputSerializer):
    """A score sheet imported as a game: the game's id and its results."""

    id = serializers.IntegerField(source="pk")
    results = serializers.SerializerMethodField()

    @extend_schema_field(ResultOut)
    def get_results(self, game: Game) -> Any:
        return ResultOut.render(selectors.game_results(game))


class ScoresheetOut(OutputSerializer):
    """The game's canonical score sheet (``tabletally.scoresheet/1``): canonical card notation,
    the format's keys only, hands as the format's hand objects."""

    format = serializers.CharField()
    game = GameNameField()
    players = serializers.ListField(child=serializers.CharField())
    options = JsonObjectField(required=False)
    stake = serializers.CharField(required=False)
    currency = serializers.CharField(required=False)
    hands = serializers.ListField(child=JsonObjectField())
