from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OpsConfig(AppConfig):
    """Background work, the tick, heartbeats and health; knows no game and no tournament."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ops"
    verbose_name = _("Operations")
