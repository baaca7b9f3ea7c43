"""The Django admin of the tournaments app (``ops.admin``'s one rule): clubs and players are
records an operator may keep (a club's name and its members' roles; a player's name and user
account), everything a tournament produced is read-only, and a tournament's settings change
through the director's dashboard, not here (only its name may be corrected). A player's club,
a registration's withdrawal, a round's state are the services' to change; a delete that would
remove or rewrite a result is refused (``ops.admin.RecordAdmin``)."""

from django.contrib import admin

from ops.admin import ReadOnlyAdmin, RecordAdmin
from tournaments.models import (
    AuditEntry,
    Club,
    Membership,
    Player,
    Registration,
    Round,
    SeatResult,
    SitOut,
    Table,
    TableSeat,
    Tournament,
)


class MembershipInline(admin.TabularInline):
    """Who belongs to the club, and who directs it: kept here (no service changes them)."""

    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Club)
class ClubAdmin(RecordAdmin):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    inlines = (MembershipInline,)
    editable_fields = ("name",)
    add_fields = ("name",)


@admin.register(Player)
class PlayerAdmin(RecordAdmin):
    """A player's name and user account may be corrected; their club never changes (their
    results belong to it)."""

    list_display = ("name", "club", "user")
    list_filter = ("club",)
    search_fields = ("name",)
    editable_fields = ("name", "user")
    add_fields = ("club", "name", "user")


@admin.register(Tournament)
class TournamentAdmin(RecordAdmin):
    """A tournament's name may be corrected here; its game, settings and state change through
    the director's dashboard (its services), and it is created there too."""

    list_display = ("name", "club", "kind", "round_count", "created_at")
    list_filter = ("kind", "club")
    exclude = ("idempotency_key",)
    editable_fields = ("name",)


@admin.register(Registration)
class RegistrationAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "player", "from_round", "withdrawn_after")


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "number", "state", "deadline")
    list_filter = ("state",)


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("round", "number", "state", "game")


@admin.register(TableSeat)
class TableSeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "position", "registration", "substitute")


@admin.register(SitOut)
class SitOutAdmin(ReadOnlyAdmin):
    list_display = ("round", "registration")


@admin.register(SeatResult)
class SeatResultAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "round_number", "player", "points")


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """A tournament's trail: written by the services only."""

    list_display = ("tournament", "action", "round_number", "table_number", "user", "created_at")
    list_filter = ("action",)
