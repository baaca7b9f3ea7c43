from typing import Any

from django.contrib import admin

from tournaments.models import AuditEntry, Club, Membership, Player


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    inlines = (MembershipInline,)


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "club", "user")
    list_filter = ("club",)
    search_fields = ("name",)


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """A tournament's trail: written by the services only, never added, changed or deleted
    here (as the games' hands and their trail: ``scoring.admin``)."""

    list_display = ("tournament", "action", "round_number", "table_number", "user", "created_at")
    list_filter = ("action",)

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False
