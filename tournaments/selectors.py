"""Reads of the tournaments app: the standings, computed in two queries and cached; a round's
tables with their seats in two queries whatever their number (:func:`round_tables`); the
tournament's audit (:func:`tournament_audit`).

The rules live in the pure ``tournaments.standings``; this module reads what they need from the
database (the registrations; the seat results, each seat's aggregate over its game's current
hands, which ``services.game_changed`` materialises in ``models.SeatResult`` whenever a game's
hands change) and keeps the computed rows in Django's cache under a key that covers everything
they are computed from (issue 14, "Caches and ETags"): the tournament's settings and
``results_version``, which the services bump in the transaction that rewrites its seat
results and with every change to where a table stands in the round in play (both derived
from the hands, whose only writers are the services), and a digest of the registrations and
their players' names as read at every call (one cheap query, :func:`_registrations_key`), so
that a name, a late entry or a withdrawal changed anywhere (the admin, a migration, a shell)
is a cache miss, never a stale row. The seat results and the computation, the expensive part,
are what the cache saves.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import (
    Case,
    CharField,
    Exists,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
    When,
)

from ops import collation
from ops.etags import Source
from scoring import games
from scoring import selectors as scoring_selectors
from scoring.models import Game, Hand
from tournaments.models import (
    Membership,
    Player,
    Registration,
    Round,
    SeatResult,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.standings import (
    Entry,
    SeatColumns,
    StandingRow,
    compute_standings,
    fields_read,
)

#: How long computed standings stay in the cache (seconds). Entries of older versions are
#: never read again and simply expire.
STANDINGS_CACHE_SECONDS = 24 * 60 * 60
#: Part of the cache key: bump it when the cached rows change shape (a deploy then misses).
STANDINGS_CACHE_FORMAT = 4

TiebreakColumn = games.TiebreakColumn
"""A tie-break column: its key (``TieBreak.key``), its title and a one-line explanation (both
translated lazily, in the language of the request); from the game's adapter
(``scoring.games.GameAdapter.tiebreak_columns``)."""


@dataclass(frozen=True)
class Standings:
    """A tournament's standings: the rows best first (``tournaments.standings.StandingRow``),
    for results version ``version`` with rounds 1 to ``rounds_complete`` complete, and the
    game's tie-break columns in the order the rows' ``tiebreaks`` hold their values."""

    tournament_id: int
    version: int
    rounds_complete: int
    rows: tuple[StandingRow, ...]
    tiebreaks: tuple[TiebreakColumn, ...]
    #: The cache key the rows were computed for (:func:`standings_cache_key`): it names
    #: everything they are computed from, so it stands for them (``ops.etags``).
    content_key: str = ""


@dataclass(frozen=True)
class RoundTableSeat:
    """A seat at a round's table: its position (0: the first dealer), the registration, the
    registered player's name and the substitute playing it (or "")."""

    position: int
    registration_id: int
    player: str
    substitute: str

    @property
    def name(self) -> str:
        """Who sits there: the substitute, else the registered player."""
        return self.substitute or self.player


@dataclass(frozen=True)
class RoundTable:
    """A table of a round: its number, state, game (id and table key) and seats in seat order
    from the first dealer."""

    number: int
    state: str
    game_id: int
    table_key: str
    seats: tuple[RoundTableSeat, ...]

    @property
    def first_dealer(self) -> str:
        return self.seats[0].name if self.seats else ""


def round_tables(rnd: Round) -> list[RoundTable]:
    """Round ``rnd``'s tables in number order, with their seats: two queries of plain rows
    (no model instances), however many tables (500 at a 2,000-player round)."""
    seats: dict[int, list[RoundTableSeat]] = {}
    for table_id, position, registration_id, player, substitute in (
        TableSeat.objects.filter(round=rnd)
        .order_by("table_id", "position")
        .values_list(
            "table_id", "position", "registration_id", "registration__player__name", "substitute"
        )
    ):
        seats.setdefault(table_id, []).append(
            RoundTableSeat(position, registration_id, player, substitute)
        )
    return [
        RoundTable(number, state, game_id, table_key, tuple(seats.get(pk, ())))
        for pk, number, state, game_id, table_key in rnd.tables.order_by("number").values_list(
            "pk", "number", "state", "game_id", "game__table_key"
        )
    ]


def standings(tournament: Tournament) -> Standings:
    """The standings of ``tournament`` for its ``results_version`` and its registrations as
    they are now, from the cache or computed.

    Every call reads the registrations' names, first rounds and withdrawals (one simple query,
    :func:`_registrations_key`); a cache hit makes no other query; a miss reads the
    registrations with where their tables stand and the tournament's materialised seat results
    (two queries) and caches the rows under :func:`standings_cache_key`. ``tournament`` is
    used as given (the fields :func:`standings_recompute` loads): an older copy gets the
    standings of its version, or newer ones. The rules: ``tournaments.standings``.

    A cache that is down (Redis stopped) is a miss, and a write to it does nothing: the
    standings are computed from the database and the error logged (``django_redis`` with
    ``IGNORE_EXCEPTIONS``: ``config.settings``).

    Errors: ``ValueError`` from ``compute_standings`` for settings it refuses (``zero`` missed
    rounds with Rook totals).
    """
    with _collector_paused():
        key = standings_cache_key(tournament, _registrations_key(tournament.pk))
        rows = cache.get(key)
        if rows is None:
            rows = _rows(tournament, _entries(tournament))
            cache.set(key, rows, STANDINGS_CACHE_SECONDS)
    return _standings(tournament, rows, key)


def standings_recompute(tournament_id: int) -> Standings | None:
    """Compute the standings of tournament ``tournament_id`` for its current results version
    and registrations and cache them (replacing what the cache held under that key): four
    queries.

    For the refresh task, after commit. Safe to run twice or concurrently: the same results
    give the same rows under the same key. Returns the standings, or ``None`` when the
    tournament no longer exists (nothing is cached). Errors: as :func:`standings`.
    """
    fields = (
        "id",
        "kind",
        "basis",
        "missed_round_score",
        "results_version",
        "rounds_complete",
        "created_at",
        "language",
    )
    try:
        tournament = Tournament.objects.only(*fields).get(pk=tournament_id)
    except Tournament.DoesNotExist:
        return None
    with _collector_paused():
        key = standings_cache_key(tournament, _registrations_key(tournament.pk))
        rows = _rows(tournament, _entries(tournament))
        cache.set(key, rows, STANDINGS_CACHE_SECONDS)
    return _standings(tournament, rows, key)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while the rows are read, computed or loaded.

    A recomputation makes some 100,000 short-lived objects (the rows of the seat results, the
    standings' rows), a cache hit some 5,000, none of them in a reference cycle: reference
    counting frees them all. Counted as allocations, though, they start the collector's
    generational collections, and now and then a full one over every object of the process,
    which costs more than the recomputation itself. Process-wide: another thread's objects
    wait for the collector too, for those few milliseconds. Re-enabled only if it was enabled.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def standings_cache_key(tournament: Tournament, registrations: str) -> str:
    """The cache key of ``tournament``'s standings: its id and results version, what else on
    the row the rows depend on (rounds complete, basis, missed round score, game, language of
    names' order), its creation time, so that an id used again (SQLite reuses the ids of
    rolled-back rows: tests) never finds another tournament's standings, and
    ``registrations``, the digest of its registrations as read now (names included)."""
    return (
        f"tournaments:standings:{STANDINGS_CACHE_FORMAT}:{tournament.pk}:"
        f"{collation.tournament_language(tournament)}:"
        f"{tournament.results_version}:{tournament.rounds_complete}:"
        f"{tournament.basis}:{tournament.missed_round_score}:{tournament.kind}:"
        f"{tournament.created_at.timestamp() if tournament.created_at else ''}:{registrations}"
    )


#: The seat results' columns, by the field of ``tournaments.standings.SeatColumns`` they fill.
RESULT_COLUMNS = {
    "round": "round_number",
    "game_id": "game_id",
    "player_id": "player_id",
    "points": "points",
    "max_points": "max_points",
    "went_out": "went_out",
    "bids_made": "bids_made",
    "won": "won",
    "min_points": "min_points",
}


def _result_columns(fields: tuple[str, ...]) -> tuple[str, ...]:
    """The columns of the seat results holding ``fields`` (of ``SeatColumns``)."""
    return tuple(RESULT_COLUMNS[field] for field in fields)


def _results_query(
    tournament_id: int, fields: tuple[str, ...]
) -> QuerySet[SeatResult, tuple[Any, ...]]:
    """The tournament's materialised seat results (one row per (game, seat) with current
    hands, rewritten by ``services.seam.game_changed``): the columns that the computation reads
    for the tournament's game (``tournaments.standings.fields_read``), in that order; five or
    six of eleven, as the values fetched cost the most."""
    return (
        SeatResult.objects.filter(tournament_id=tournament_id)
        .order_by()
        .values_list(*_result_columns(fields))
    )


ENTRY_COLUMNS = ("id", "player_id", "player__name", "from_round", "withdrawn_after", "in_play")


def _in_play() -> tuple[Case, Subquery]:
    """Where a registration's table stands in the round in play (a round published and not
    complete; at most one at a time, else the latest), as ``tournaments.standings.IN_PLAY``
    words it: ``""`` (not seated in it, a substitute in their seat, or no round in play),
    ``not_reported`` (no
    current hand), ``disputed`` (a current hand that does not count,
    ``scoring.selectors.counting_filter``, because it is disputed), ``provisional`` (another
    current hand that does not count yet: provisional where confirmation is required),
    ``reported``. Subqueries of the registrations' query: no query of its own."""
    in_play_round = (
        Round.objects.filter(
            tournament_id=OuterRef(OuterRef("tournament_id")),
            state__in=(Round.State.PUBLISHED, Round.State.PLAYING),
        )
        .order_by("-number")
        .values("pk")[:1]
    )
    game = Subquery(
        TableSeat.objects.filter(
            registration_id=OuterRef("pk"), substitute="", round_id=Subquery(in_play_round)
        ).values("table__game_id")[:1]
    )
    current = Hand.objects.filter(game_id=OuterRef("in_play_game"), state=Hand.State.CURRENT)
    waiting = current.exclude(scoring_selectors.counting_filter())
    return Case(
        When(in_play_game__isnull=True, then=Value("")),
        When(Exists(waiting.filter(status=Hand.Status.DISPUTED)), then=Value("disputed")),
        When(Exists(waiting), then=Value("provisional")),
        When(Exists(current), then=Value("reported")),
        default=Value("not_reported"),
        output_field=CharField(),
    ), game


def _entries_query(tournament_id: int) -> QuerySet[Registration, tuple[Any, ...]]:
    """The tournament's registrations with their players' names and where their table stands
    in the round in play: rows in ``Entry``'s order (one query)."""
    in_play, game = _in_play()
    return (
        Registration.objects.filter(tournament_id=tournament_id)
        .annotate(in_play_game=game)
        .annotate(in_play=in_play)
        .order_by()
        .values_list(*ENTRY_COLUMNS)
    )


def _results(tournament_id: int, kind: str) -> SeatColumns:
    """The tournament's seat results, as the columns that game ``kind`` reads (one query)."""
    fields = fields_read(games.adapter_for(kind).rules)
    rows = list(_results_query(tournament_id, fields))
    columns = zip(*rows, strict=True) if rows else [()] * len(fields)
    return SeatColumns(**dict(zip(fields, columns, strict=True)))


def _registrations_key(tournament_id: int) -> str:
    """A digest of what the standings read of the tournament's registrations other than
    where their tables stand (that moves ``results_version``): each registration's id,
    player, player's name, first round and withdrawal, in id order (one query)."""
    rows = (
        Registration.objects.filter(tournament_id=tournament_id)
        .order_by("pk")
        .values_list("pk", "player_id", "player__name", "from_round", "withdrawn_after")
    )
    return hashlib.blake2b(repr(list(rows)).encode(), digest_size=16).hexdigest()


def _entries(tournament: Tournament) -> list[Entry]:
    """The tournament's registrations (one query)."""
    return [Entry(*row) for row in _entries_query(tournament.pk)]


def _rows(tournament: Tournament, entries: list[Entry]) -> tuple[StandingRow, ...]:
    """The seat results (one query), then the pure computation."""
    results = _results(tournament.pk, str(tournament.kind))
    return tuple(
        compute_standings(
            kind=games.adapter_for(tournament.kind).rules,
            basis=str(tournament.basis),
            missed=str(tournament.missed_round_score),
            entries=entries,
            results=results,
            rounds_complete=tournament.rounds_complete,
            name_order=collation.sort_key(collation.tournament_language(tournament)),
        )
    )


def _standings(tournament: Tournament, rows: tuple[StandingRow, ...], key: str) -> Standings:
    columns = games.adapter_for(tournament.kind).tiebreak_columns()
    return Standings(
        tournament_id=tournament.pk,
        version=tournament.results_version,
        rounds_complete=tournament.rounds_complete,
        rows=rows,
        tiebreaks=columns,
        content_key=key,
    )


# --- the tournament's audit ----------------------------------------------------------------------


@dataclass(frozen=True)
class AuditLine:
    """One step of a tournament's audit (issue 12): a change to its rounds or registrations
    (``source`` ``"tournament"``, an ``AuditEntry``) or to a hand of one of its tables
    (``source`` ``"hand"``, a step of ``scoring.selectors.game_audit``).

    Attributes:
        at: when.
        source: ``"tournament"`` or ``"hand"``.
        action: ``AuditEntry.Action`` (tournament) or ``enter``, ``correct``, ``confirm``,
            ``dispute``, ``resolve``, ``void``, ``restore`` (hand).
        round_number: the round concerned, or None.
        table_number: the table concerned, or None.
        game_id: the table's game (hand steps), or None.
        hand: the hand's number in its game (hand steps), or None.
        revision: the hand revision concerned (hand steps), or None.
        user: the signed-in user's username, or None.
        seat: the acting seat's name (hand steps), or None.
        player_id: the acting seat's club player, or None.
        reason: why (blank when none was given).
        details: the step's facts (names, the resolution…).
    """

    at: datetime
    source: str
    action: str
    round_number: int | None
    table_number: int | None
    game_id: int | None
    hand: int | None
    revision: int | None
    user: str | None
    seat: str | None
    player_id: int | None
    reason: str
    details: dict[str, Any]

    @property
    def system(self) -> bool:
        """Whether nobody in particular made it (the round clock, a round completed by its
        last result, a hand recorded by a tournament's own step)."""
        return self.user is None and self.seat is None


def tournament_audit(
    tournament: Tournament,
    *,
    round_number: int | None = None,
    table_number: int | None = None,
) -> list[AuditLine]:
    """Every step of ``tournament``'s audit, oldest first: its own entries (publish, close,
    call time, regenerate, substitute, registrations, seat, complete, new links) merged with
    the hand trails of its tables' games (``scoring.selectors.game_audit``: entries,
    corrections, confirmations, disputes, resolutions, voids, restores). Four queries.

    Args:
        round_number: only that round's steps (registrations are of no round unless a late
            entry's first round).
        table_number: with ``round_number``, only that table's steps (its hands, substitutes
            and new links).
    """
    entries = tournament.audit.select_related("user")
    tables = Table.objects.filter(round__tournament=tournament)
    if round_number is not None:
        entries = entries.filter(round_number=round_number)
        tables = tables.filter(round__number=round_number)
        if table_number is not None:
            entries = entries.filter(table_number=table_number)
            tables = tables.filter(number=table_number)
    where = {
        game_id: (number, table)
        for game_id, number, table in tables.values_list("game_id", "round__number", "number")
    }
    lines = [
        AuditLine(
            at=entry.created_at,
            source="tournament",
            action=entry.action,
            round_number=entry.round_number,
            table_number=entry.table_number,
            game_id=None,
            hand=None,
            revision=None,
            user=entry.user.get_username() if entry.user else None,
            seat=None,
            player_id=None,
            reason=entry.reason,
            details=dict(entry.details),
        )
        for entry in entries
    ]
    lines += [
        AuditLine(
            at=step.at,
            source="hand",
            action=step.action,
            round_number=where[step.game_id][0],
            table_number=where[step.game_id][1],
            game_id=step.game_id,
            hand=step.number,
            revision=step.revision,
            user=step.user,
            seat=step.seat,
            player_id=step.player_id,
            reason=step.reason,
            details=step.details,
        )
        for step in scoring_selectors.game_audit(where)
    ]
    lines.sort(key=lambda line: line.at)
    return lines


def live_sources(game: Game, user_id: int | None) -> list[Source]:
    """This app's rows that a table's live region reads for a signed-in viewer (registered
    with ``scoring.live.live_sources_register``): their memberships of the game's club (a
    director's buttons) and their club players (the seat a signed-in player holds). None for
    an anonymous viewer: the region then reads nothing of this app."""
    if user_id is None:
        return []
    return [
        (Membership, {"user_id": user_id, "club_id": game.club_id}),
        (Player, {"user_id": user_id}),
    ]
