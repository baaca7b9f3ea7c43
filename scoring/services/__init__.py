"""Writes of the scoring app: games, hands, corrections, voids, imports, one module per concern:

- :mod:`~scoring.services.seam`: the listener registry and the announcement of a change to the
  layer above;
- :mod:`~scoring.services.games`: starting, opening, limiting, seat replacement, finishing (one
  game, or a round's tables at once);
- :mod:`~scoring.services.hands`: recording, correcting and voiding hands, the totals rebuild;
- :mod:`~scoring.services.sheets`: score-sheet imports and background scoring jobs;
- :mod:`~scoring.services.trust`: confirming, disputing, resolving, restoring, rotating links
  (who may: :mod:`scoring.permissions`);
- :mod:`~scoring.services.common`: helpers shared by the others (seat specs, the game's engine,
  storable names, request fingerprints, a hand's trail, writing a hand revision with its score
  lines).

The game row's books (totals, numbers, version) are written by :mod:`scoring.ledger` alone: it
opens the game locked, refuses a hand that is no longer next, applies or reverts hands and
announces each change once after commit; every service here goes through it.

Every function is keyword-only, runs in one transaction and validates through ``tonkrules``.
Rule errors are raised as :class:`tonkrules.sheet.SheetError` (the format's error object, with
the hand's position); refusals that are not rule errors are :mod:`scoring.errors`. Writes to one
game are serialised by locking its row, so a retried request (same idempotency key), two
corrections from the same revision, or the same hand sent from two phones (each saying which
hand it is) can never both be applied.

After a change commits, the listeners registered with :func:`game_changed_register` are called
once with a typed :class:`scoring.events.GameChanged` (which game, what changed): this is how
``tournaments`` hears of results (no Django signals). Every service that changes a game takes
``origin``: the name of the listener on whose behalf it acts (``"tournaments"``), which is then
not told of the change (no echo; see :mod:`scoring.events`).

The public names are importable from this package, as callers use them
(``services.hand_record``). What one module of this package uses from another is a public,
documented name; no private name crosses a module (``tests/test_boundaries.py``).
"""

from scoring.ledger import BOOKKEEPING_FIELDS as HAND_STATE_FIELDS
from scoring.ledger import LOCKED_FIELDS
from scoring.money import MAX_STAKE_LENGTH
from scoring.services.common import (
    SeatSpec,
    User,
    as_json_text,
    engine_of,
)
from scoring.services.games import (
    game_finish,
    game_limit_set,
    game_open,
    game_start,
    games_finish,
    games_last_hand,
    games_open,
    games_start,
    seat_replace,
)
from scoring.services.hands import (
    game_totals_rebuild,
    hand_correct,
    hand_record,
    hand_void,
)
from scoring.services.seam import game_changed_register, game_changed_unregister
from scoring.services.sheets import (
    scoresheet_import,
    scoresheet_job_complete,
    scoresheet_job_submit,
)
from scoring.services.trust import (
    RESOLUTIONS,
    game_links_rotate,
    hand_confirm,
    hand_dispute,
    hand_resolve,
    hand_restore,
)

__all__ = [
    "HAND_STATE_FIELDS",
    "LOCKED_FIELDS",
    "MAX_STAKE_LENGTH",
    "RESOLUTIONS",
    "SeatSpec",
    "User",
    "as_json_text",
    "engine_of",
    "game_changed_register",
    "game_changed_unregister",
    "game_finish",
    "game_limit_set",
    "game_links_rotate",
    "game_open",
    "game_start",
    "game_totals_rebuild",
    "games_finish",
    "games_last_hand",
    "games_open",
    "games_start",
    "hand_confirm",
    "hand_correct",
    "hand_dispute",
    "hand_record",
    "hand_resolve",
    "hand_restore",
    "hand_void",
    "scoresheet_import",
    "scoresheet_job_complete",
    "scoresheet_job_submit",
    "seat_replace",
]
