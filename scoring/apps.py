from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    """Games, hands and score lines; validated and scored through ``tonkrules``."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self) -> None:
        from scoring import schema  # noqa: F401 (registers the OpenAPI extension)
