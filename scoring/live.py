"""The version of a table's live region (issue 14, "Caches and ETags"): what its poll answers as
its ETag, computed without building the region.

Every phone at every table polls the live region (``/t/<key>/live/``, :data:`scoring.pages.
POLL_SECONDS`); rendering it to know whether it changed cost some 14 queries and a render per
poll. Its version is instead :func:`ops.etags.rows_version` of the **rows it is built from**
(:func:`live_sources`: every column of every row) and of who is looking (:func:`viewer_bits`),
with the language, the time zone and the code as deployed. So any change to what it shows,
made by whoever (the services, the admin, a shell), changes the version; a change to another
game does not.

The sources of this app: the game's row, its seats, every revision of its hands, their score
lines and events, and the users those name (and the viewer's own row). The layer above adds
its own through :func:`live_sources_register` (``tournaments``: the viewer's club memberships
and club players, which decide their role), as it hears of results through the seam
(``scoring.services.seam``): this app imports nothing of it.

``tests/inputs/test_live.py`` renders the region under ``CaptureQueriesContext`` and fails when
its SQL reads a table that is not one of the sources (the request's session apart: the viewer
bits stand for it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.http import HttpRequest

from ops.etags import Source, rows_version
from scoring.models import Game, Hand, HandEvent, ScoreLine, Seat
from scoring.table_trust import actor_of

#: A provider of more sources: ``(game, the signed-in viewer's user id or None)`` → sources.
SourcesProvider = Callable[[Game, int | None], Iterable[Source]]

_providers: list[SourcesProvider] = []


def live_sources_register(provider: SourcesProvider) -> None:
    """Add the sources ``provider(game, user_id)`` names to every live region's version: the
    rows of the layer above that the region reads (``tournaments`` registers in its
    ``AppConfig.ready()``). Registering twice is a no-op."""
    if provider not in _providers:
        _providers.append(provider)


def live_sources_unregister(provider: SourcesProvider) -> None:
    """Stop asking ``provider`` (tests). Unknown providers are ignored."""
    _providers[:] = [p for p in _providers if p is not provider]


def _user_id(request: HttpRequest) -> int | None:
    user = getattr(request, "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def live_sources(game: Game, user_id: int | None) -> list[Source]:
    """The rows the live region of ``game`` is built from, as seen by the signed-in user
    ``user_id`` (None: anonymous): ``(model, filter)`` pairs for
    :func:`ops.etags.rows_version`, this app's then each registered provider's."""
    named_users = (
        Q(pk__in=Hand.objects.filter(game_id=game.pk).values("entered_by_id"))
        | Q(pk__in=HandEvent.objects.filter(game_id=game.pk).values("user_id"))
        | Q(pk=user_id)
    )
    sources: list[Source] = [
        (Game, {"pk": game.pk}),
        (Seat, {"game_id": game.pk}),
        (Hand, {"game_id": game.pk}),
        (ScoreLine, {"game_id": game.pk}),
        (HandEvent, {"game_id": game.pk}),
        (get_user_model(), named_users),
    ]
    for provider in _providers:
        sources.extend(provider(game, user_id))
    return sources


def viewer_bits(request: HttpRequest, game: Game) -> tuple[object, ...]:
    """Who is looking at ``game``'s table, as far as it changes what the region shows: the
    seat this device chose, its device digest (which confirmations were its own), that it
    came by the table link, and the signed-in user's id (their row is a source)."""
    actor = actor_of(request, game)
    return (actor.seat_id, actor.device, actor.table, _user_id(request))


def live_version(request: HttpRequest, game: Game) -> str:
    """The version of ``game``'s live region as ``request``'s viewer sees it (32 hex digits):
    the ETag of its poll and the ``data-version`` of the page. Reads the sources, one query
    each (:func:`live_sources`); never the region's context. Call it **before** reading the
    context (``ops.etags``: a change in between then costs a 200, never a stale 304)."""
    return rows_version(live_sources(game, _user_id(request)), "live", *viewer_bits(request, game))
