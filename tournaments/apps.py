from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    """Clubs, players, events, rounds and tables; reads scores through ``scoring``."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        """Hear from scoring when a game changes (the one seam between the two apps), under
        the name ``tournaments.services.ORIGIN``: the changes this app makes to its own games
        (passing that origin) are not announced back to it."""
        from scoring.services import game_changed_register
        from tournaments.services import ORIGIN, game_changed

        game_changed_register(game_changed, name=ORIGIN)
