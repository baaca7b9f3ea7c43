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
        (passing that origin) are not announced back to it. Register the tick's jobs and the
        waiting work with ``ops.background``, and the rows of this app a table's live region
        reads with ``scoring.live`` (its poll's version)."""
        from ops.background import tick_register, waiting_register
        from ops.idempotency import holder_register
        from scoring.live import live_sources_register
        from scoring.services import game_changed_register
        from tournaments.selectors import live_sources
        from tournaments.services import ORIGIN, game_changed
        from tournaments.services.clock import call_time
        from tournaments.services.keys import seat_holds_key, tournament_holds_key
        from tournaments.services.results import standings_oldest, standings_resend
        from tournaments.services.seatings import seating_oldest, seating_resend

        game_changed_register(game_changed, name=ORIGIN)
        # Background work (ops.background): the tick calls time on rounds past their deadline
        # and sends again the seatings and standings refreshes that waited too long.
        tick_register("call_time", call_time)
        tick_register("seating", seating_resend)
        tick_register("standings", standings_resend)
        waiting_register("seating", seating_oldest)
        waiting_register("standings", standings_oldest)
        live_sources_register(live_sources)
        # A user's create keys are one space (ops.idempotency.refuse_if_held_elsewhere).
        holder_register("tournaments", tournament_holds_key)
        holder_register("rounds", seat_holds_key)
