"""The seam to the layer above: the registry of listeners, and the announcement of a change.

After a change commits, the listeners registered with :func:`game_changed_register` are called
once with a typed :class:`scoring.events.GameChanged` (which game, what changed): this is how
``tournaments`` hears of results (no Django signals). A change made with ``origin=name`` is not
delivered to the listener registered under that name (no echo; see :mod:`scoring.events`).
Services announce through :func:`scoring.ledger.announce`, which calls :func:`announce_all`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import transaction

from scoring.events import Change, GameChanged, Listener

_game_changed: list[tuple[Listener, str | None]] = []


def game_changed_register(listener: Listener, *, name: str | None = None) -> None:
    """Call ``listener(event)`` once after every committed change to a game, with a
    :class:`scoring.events.GameChanged` saying which game and what changed.

    Args:
        listener: a callable taking the event; it runs after the commit, outside the
            transaction that made the change.
        name: the listener's name (``"tournaments"``): a change made with ``origin=name`` (on
            the listener's own behalf) is not delivered to it (no echo, see
            :mod:`scoring.events`).

    ``tournaments`` registers here in its ``AppConfig.ready()``; registering twice is a no-op.
    """
    if all(registered is not listener for registered, _name in _game_changed):
        _game_changed.append((listener, name))


def game_changed_unregister(listener: Listener) -> None:
    """Stop calling ``listener`` (tests). Unknown listeners are ignored."""
    _game_changed[:] = [(cb, name) for cb, name in _game_changed if cb is not listener]


def announce(game_id: int, change: Change, origin: str | None) -> None:
    """Announce one change to game ``game_id``, once, after the outermost transaction commits
    (not at all if it rolls back), to every listener but the one named ``origin``."""
    announce_all((game_id,), change, origin)


def announce_all(game_ids: Iterable[int], change: Change, origin: str | None) -> None:
    """Announce the same change to each game of ``game_ids`` (a round's tables), each once, in
    that order, after the outermost transaction commits, to every listener but the one named
    ``origin``: one callback on commit for them all, none when no listener would hear them."""
    listeners = [cb for cb, name in _game_changed if origin is None or name != origin]
    if listeners:
        events = [GameChanged(game_id=g, change=change, origin=origin) for g in game_ids]
        if events:
            transaction.on_commit(lambda: _deliver(events, listeners))


def _deliver(events: Sequence[GameChanged], listeners: Sequence[Listener]) -> None:
    for event in events:
        for listener in listeners:
            listener(event)
