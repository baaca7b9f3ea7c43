"""What scoring tells the layer above when a game changes: one typed event per change.

The scoring services announce each committed change to a game once, after commit, as a
:class:`GameChanged` to the listeners registered with
:func:`scoring.services.game_changed_register` (``tournaments`` registers in its
``AppConfig.ready()``). No Django signals.

**No echo.** A listener registers under a name (``origin``); a caller that acts on a game on
behalf of a listener passes that name to the service (``origin="tournaments"``), and the event
of that change is not delivered back to the listener of the same name: what a layer does to its
own games it already knows, and it does whatever follows in the same call. Every other listener
still hears of it. A change made by a person (a hand entered at the table, a correction) has no
origin and reaches every listener.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass


class Change(enum.StrEnum):
    """What changed in a game, one value per kind of write the scoring services make."""

    #: A game was started: seats taken (waiting for hands, or in play).
    STARTED = "started"
    #: A waiting game was opened for hands (a tournament round published).
    OPENED = "opened"
    #: The most hands the game takes was lowered (a tournament round's time called).
    LIMIT_SET = "limit_set"
    #: Another player took a seat of a game with no hands yet (a substitute).
    SEAT_REPLACED = "seat_replaced"
    #: A new hand (or round) was recorded with its score lines.
    HAND_RECORDED = "hand_recorded"
    #: A hand was corrected: a new revision replaces the current one.
    HAND_CORRECTED = "hand_corrected"
    #: A hand was voided: it no longer counts.
    HAND_VOIDED = "hand_voided"
    #: A voided hand was restored: it counts again.
    HAND_RESTORED = "hand_restored"
    #: A hand was confirmed by the table (or a director): where the game requires confirmation,
    #: only confirmed hands count in a tournament's standings.
    HAND_CONFIRMED = "hand_confirmed"
    #: A hand was disputed by a seat: it waits for a director.
    HAND_DISPUTED = "hand_disputed"
    #: A hand's status changed without a new revision otherwise (a director confirmed a
    #: disputed hand; a confirmation recorded that does not yet make it count).
    HAND_STATUS = "hand_status"
    #: The game was finished: no new hands (corrections and voids stay possible).
    FINISHED = "finished"


#: The changes that alter a game's score lines (what standings are computed from).
#: A status change counts too: a game that requires confirmation counts confirmed hands only.
RESULT_CHANGES = frozenset(
    {
        Change.HAND_RECORDED,
        Change.HAND_CORRECTED,
        Change.HAND_VOIDED,
        Change.HAND_RESTORED,
        Change.HAND_CONFIRMED,
        Change.HAND_DISPUTED,
        Change.HAND_STATUS,
    }
)


@dataclass(frozen=True, slots=True)
class GameChanged:
    """One committed change to a game.

    Attributes:
        game_id: the ``scoring.Game`` that changed.
        change: what changed (:class:`Change`).
        origin: the name of the listener on whose behalf the change was made
            (``"tournaments"``), or None for a change a person made; the listener of that name
            is not told of it.
    """

    game_id: int
    change: Change
    origin: str | None = None

    @property
    def results_changed(self) -> bool:
        """Whether the game's score lines or a hand's status changed (a hand recorded,
        corrected, voided, restored, confirmed or disputed)."""
        return self.change in RESULT_CHANGES


#: A listener: called once per change, after commit, with the event.
Listener = Callable[[GameChanged], None]
