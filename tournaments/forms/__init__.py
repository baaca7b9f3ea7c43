"""Forms of the director's dashboard: creating a tournament, registering players, substitutes,
one module per concern:

- :mod:`~tournaments.forms.tournament`: the new-tournament form;
- :mod:`~tournaments.forms.registration`: registering players, and what a registration did;
- :mod:`~tournaments.forms.substitutes`: a substitute for a seated player in a round;
- :mod:`~tournaments.forms.common`: the words for the services' refusals, the table sizes and
  most rounds offered, the check of a player's name, the field of a time
  (:class:`~tournaments.forms.common.LocalDateTimeField`).

The forms parse what was typed into the arguments of the tournaments services; the rules
(table sizes a game allows, rounds, zero for Rook…) are checked once, by the services, and a
refusal is shown next to the field it concerns (``TournamentError.field``), in words built here
from the error's stable code so that they can be translated. The public names are importable
from this package (``from tournaments.forms import TournamentForm``); names starting with ``_``
that one module imports from another are shared within this package only.
"""

from tournaments.forms.common import (
    ERROR_TEXT,
    MAX_ROUNDS,
    LocalDateTimeField,
    error_text,
    table_sizes,
)
from tournaments.forms.registration import Registered, RegisterForm, registered_text
from tournaments.forms.substitutes import SubstituteForm
from tournaments.forms.tournament import TournamentForm, default_time_zone

__all__ = [
    "ERROR_TEXT",
    "MAX_ROUNDS",
    "LocalDateTimeField",
    "RegisterForm",
    "Registered",
    "SubstituteForm",
    "TournamentForm",
    "default_time_zone",
    "error_text",
    "registered_text",
    "table_sizes",
]
