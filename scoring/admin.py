"""The Django admin of the scoring app: a window on games, hands, their trail and score lines,
never a way round the services. Results change through the services only, which check who
may (``scoring.permissions``), score, keep the trail and announce the change: a superuser
corrects, voids or confirms a hand on the table page or through the API like everyone else.
"""

from typing import Any

from django.contrib import admin

from scoring.models import Game, Hand, HandEvent, ScoreLine, ScoresheetJob, Seat


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written by the services only (they validate and score): read-only here."""

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


class ResultsAdmin(ReadOnlyAdmin):
    """A game's results and their trail: not added, changed nor deleted here (a deleted hand
    or game would change standings with no one recorded)."""

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    """Rows shown beside their game or hand, never edited here."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("position", "name", "player")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(ResultsAdmin):
    list_display = ("id", "kind", "club", "state", "created_by", "created_at")
    list_filter = ("kind", "state", "club")
    date_hierarchy = "created_at"
    exclude = ("table_key", "idempotency_key", "request_fingerprint")
    inlines = (SeatInline,)


class ScoreLineInline(ReadOnlyInline):
    model = ScoreLine
    fields = ("seat", "points", "went_out", "bid_made", "won")
    readonly_fields = fields


@admin.register(Hand)
class HandAdmin(ResultsAdmin):
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
    exclude = ("idempotency_key",)
    inlines = (ScoreLineInline,)


@admin.register(HandEvent)
class HandEventAdmin(ResultsAdmin):
    """A hand's trail: confirmations, disputes, resolutions, voids and restores."""

    list_display = ("game", "number", "action", "seat", "user", "reason", "created_at")
    list_filter = ("action",)


@admin.register(ScoreLine)
class ScoreLineAdmin(ResultsAdmin):
    """Each player's result in a hand revision, as the services scored it."""

    list_display = ("hand", "seat", "points")


@admin.register(ScoresheetJob)
class ScoresheetJobAdmin(ReadOnlyAdmin):
    """Background scoring jobs."""

    list_display = ("id", "status", "created_at", "finished_at")
    list_filter = ("status",)
    date_hierarchy = "created_at"
