from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    """Games, hands and score lines; validated and scored through ``tonkrules``."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self) -> None:
        """Register the OpenAPI extension, and the score sheet jobs as background work: the
        tick sends a queued job's task again, the health check reports the oldest."""
        from ops.background import tick_register, waiting_register
        from ops.idempotency import holder_register
        from scoring import (
            games,  # noqa: F401 (the adapters register how refusals word their objects)
            schema,  # noqa: F401 (registers the OpenAPI extension)
        )
        from scoring.services.games import game_holds_key
        from scoring.services.sheets import jobs_oldest, jobs_resend

        tick_register("scoresheet_jobs", jobs_resend)
        holder_register("games", game_holds_key)
        waiting_register("scoresheet_jobs", jobs_oldest)
