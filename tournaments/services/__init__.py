"""Writes of the tournaments app, one module per concern:

- :mod:`~tournaments.services.events`: tournaments, registrations and withdrawals;
- :mod:`~tournaments.services.rounds`: asking for a seating, publishing, closing, seating
  again, a table's new links;
- :mod:`~tournaments.services.substitutes`: substitutes, and what seating a round again keeps
  of them;
- :mod:`~tournaments.services.overlap`: one person, one table at a time (when two of the
  club's rounds overlap, and who sits elsewhere then);
- :mod:`~tournaments.services.seatings`: the seating as background work (computed through the
  pure ``tournaments.seating``; attempts, failures, sent again by the tick);
- :mod:`~tournaments.services.audit`: the tournament's audit entries (who, when, why);
- :mod:`~tournaments.services.results`: the results version, the materialised seat results,
  the standings refresh;
- :mod:`~tournaments.services.seam`: what tournaments does when scoring announces a change;
- :mod:`~tournaments.services.clock`: round deadlines and the tick.

The demo data lives in ``tournaments.demo``. Every function is keyword-only; every write is one
transaction; tasks are enqueued after commit and are safe to run twice. The public names are
importable from this package, as callers use them (``services.round_publish``); names starting
with ``_`` that one module imports from another are shared within this package only.
"""

from tournaments.services.clock import tick
from tournaments.services.events import (
    club_player_for_name,
    is_director,
    registration_add,
    registration_withdraw,
    tournament_create,
)
from tournaments.services.order import entry_round
from tournaments.services.origin import ORIGIN
from tournaments.services.overlap import elsewhere_conflict, seated_elsewhere
from tournaments.services.results import seat_results_write, standings_update
from tournaments.services.rounds import (
    round_close,
    round_publish,
    round_regenerate,
    round_seat,
    table_links_rotate,
)
from tournaments.services.seam import game_changed
from tournaments.services.seatings import round_seating_compute, round_seating_run
from tournaments.services.substitutes import substitute_set

__all__ = [
    "ORIGIN",
    "club_player_for_name",
    "elsewhere_conflict",
    "entry_round",
    "game_changed",
    "is_director",
    "registration_add",
    "registration_withdraw",
    "round_close",
    "round_publish",
    "round_regenerate",
    "round_seat",
    "round_seating_compute",
    "round_seating_run",
    "seat_results_write",
    "seated_elsewhere",
    "standings_update",
    "substitute_set",
    "table_links_rotate",
    "tick",
    "tournament_create",
]
