from django.contrib import admin

from scoring.models import ScoresheetJob


@admin.register(ScoresheetJob)
class ScoresheetJobAdmin(admin.ModelAdmin):
    """Read-only view of background scoring jobs: they are written by services only."""

    list_display = ("id", "status", "created_at", "finished_at")
    list_filter = ("status",)
    date_hierarchy = "created_at"
    readonly_fields = ("sheet", "result", "status", "created_at", "finished_at")

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False
