from typing import Any

from django.contrib import admin

from scoring.models import Game, Hand, ScoreLine, ScoresheetJob, Seat


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written by the services only (they validate and score): read-only here."""

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
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
class GameAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "club", "state", "created_by", "created_at")
    list_filter = ("kind", "state", "club")
    date_hierarchy = "created_at"
    exclude = ("table_key", "idempotency_key")
    inlines = (SeatInline,)


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
        "entered_by",
        "entered_via",
        "created_at",
    )
    list_filter = ("state", "entered_via")
    exclude = ("idempotency_key",)
    inlines = (ScoreLineInline,)


@admin.register(ScoresheetJob)
class ScoresheetJobAdmin(ReadOnlyAdmin):
    """Background scoring jobs."""

    list_display = ("id", "status", "created_at", "finished_at")
    list_filter = ("status",)
    date_hierarchy = "created_at"
