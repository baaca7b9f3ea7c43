"""The Django admin of the scoring app: a window on games, seats, hands, their trail, score
lines and score sheet jobs, never a way round the services (``ops.admin``: every one of them is
a :class:`~ops.admin.ReadOnlyAdmin`). Results change through the services only, which check who
may (``scoring.permissions``), score, keep the trail and announce the change: a superuser
corrects, voids or confirms a hand on the table page or through the API like everyone else.
The private keys (table, seat, idempotency, device digests) are not shown.
"""

from django.contrib import admin

from ops.admin import ReadOnlyAdmin, ReadOnlyInline
from scoring.models import Game, Hand, HandEvent, ScoreLine, ScoresheetJob, Seat


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("position", "name", "player")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "club", "state", "created_by", "created_at")
    list_filter = ("kind", "state", "club")
    date_hierarchy = "created_at"
    exclude = ("table_key", "idempotency_key", "request_fingerprint")
    inlines = (SeatInline,)


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    """A game's seats, as the services seated them (a substitute takes a seat through the
    tournament's services)."""

    list_display = ("game", "position", "name", "player")
    exclude = ("seat_key",)


class ScoreLineInline(ReadOnlyInline):
    model = ScoreLine
    fields = ("seat", "points", "went_out", "bid_made", "won")
    readonly_fields = fields


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = (
        "game",
        "number",
        "revision",
        "state",
        "status",
        "entered_seat",
        "entered_by",
        "entered_via",
        "created_at",
    )
    list_filter = ("state", "status", "entered_via")
    exclude = ("idempotency_key", "entered_device")
    inlines = (ScoreLineInline,)


@admin.register(HandEvent)
class HandEventAdmin(ReadOnlyAdmin):
    """A hand's trail: confirmations, disputes, resolutions, voids and restores."""

    list_display = ("game", "number", "action", "seat", "user", "reason", "created_at")
    list_filter = ("action",)
    exclude = ("idempotency_key", "device")


@admin.register(ScoreLine)
class ScoreLineAdmin(ReadOnlyAdmin):
    """Each player's result in a hand revision, as the services scored it."""

    list_display = ("hand", "seat", "points")


@admin.register(ScoresheetJob)
class ScoresheetJobAdmin(ReadOnlyAdmin):
    """Background scoring jobs: written by the import and its task only."""

    list_display = ("id", "status", "created_at", "finished_at")
    list_filter = ("status",)
    date_hierarchy = "created_at"
