"""The hot path of recording a new hand (``scoring.services.hand_record``) in plain SQL: the
game's row read and locked, then the hand, its score lines and the game's totals in one
statement. The SQL itself lives in :mod:`ops.db.sql`, the project's one module of
hand-written SQL; these names stay here so that scoring's services keep calling
``rows.select_for_update`` and the like. Nothing else may use this module: every other write
and read goes through the ORM.
"""

from __future__ import annotations

from ops.db.sql import insert, insert_with_children_and_update, loaded, select_for_update, update

__all__ = ["insert", "insert_with_children_and_update", "loaded", "select_for_update", "update"]
