from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OpsConfig(AppConfig):
    """Background work, the tick, heartbeats and health, users' language; knows no game and
    no tournament."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ops"
    verbose_name = _("Operations")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from ops import languages

        # A signed-in user's chosen language is read once, at sign-in, into the session.
        user_logged_in.connect(languages.profile_to_session, dispatch_uid="ops.languages")
