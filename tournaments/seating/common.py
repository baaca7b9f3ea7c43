"""The shared core of the seating package: the words (players, meetings, splits), the value
objects, table sizes, the lower bound and the measures (M, E, opponents faced), and the
constants every method's search reads. Pure.

It stays one module (about 500 lines): it is the shared core that each method's module reads,
and its measures and lower bound are defined over the value objects beside them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise
from typing import ClassVar, TypeAlias

import numpy as np

from tonkrules.errors import DomainError
from tonkrules.messages import Template, gettext_noop

Player: TypeAlias = Hashable

METHODS = ("balanced", "swiss", "plan")
SIZE_MIN = 2
DENSE_MAX = 160
"""Fields of up to this many players are searched with whole meeting matrices (tabu search);
larger ones with the row-wise repair pass only."""
ROUND_DENSE_MAX = 48  # one round: above this many players the repair pass runs first

COST_CAP = 64  # meeting counts above this cost as much as this one (only the order matters)
SWISS_REPEAT_WEIGHT = 1e9  # swiss fallback: a repeat costs more than any moves of players
SWISS_BUDGET = 60_000  # swiss: search steps for one round (fewest repeats, then standings)
SWISS_LOOKAHEAD_BUDGET = 20_000  # swiss: search steps for the look-ahead over later rounds
SWISS_TABU_STEPS = 40_000  # swiss: tabu steps for a look-ahead the exact search gave up on
SWISS_TIGHT = 0.9  # ... tried when the rounds ahead seat this share of the pairs not yet met
SWISS_PRUNE_MAX = 160  # swiss: fields up to this size check the rest stays seatable each table
PLAN_ITERATIONS = 40_000  # plan: most tabu steps over the whole schedule
PLAN_PATIENCE = 6_000  # plan: stop after this many steps without a better schedule
_TRANSFER_TABLES = 12  # lower_bound: the transfer bound is computed up to this many tables
ROUND_STEPS = 200  # balanced, swiss: tabu steps per round (plus 8 a player)
ROUND_PATIENCE = 40  # balanced, swiss: stop after this many steps without a better round
# (plus 2 a player)
LOOKAHEAD_MAX = 32  # balanced: fields up to this size compare candidate rounds
LOOKAHEAD_CANDIDATES = 4
STALL = 60  # tabu: restart from the best seating after this many steps without a better one


_ = gettext_noop

#: Each seating refusal's English sentence, by message key (its code, or ``code.variant``);
#: the edge translates them (``scoring.messages.error_message``).
SEATING_MESSAGES: dict[str, Template] = {
    "bad_sizes": _("no table size allowed"),
    "bad_sizes.whole": _("table sizes must be whole numbers of at least 2: %(bad)s"),
    "bad_prefer": _("the preferred size %(prefer)s is not an allowed size %(allowed)s"),
    "too_few_players": _(
        "%(players)s players cannot fill a table: the smallest table seats %(smallest)s"
    ),
    "duplicate_player": _("players listed twice: %(names)s"),
    "duplicate_player.meetings": _("a player appears twice in the meetings"),
    "bad_method": _("unknown method %(method)r: one of %(methods)s"),
    "bad_method.round": _(
        "unknown method %(method)r for one round: balanced or swiss (plan: plan_rounds)"
    ),
    "bad_rounds": _("a plan needs at least 1 round, not %(rounds)s"),
    "bad_meetings.shape": _("meeting counts must be %(n)s x %(n)s"),
    "bad_meetings.range": _("meeting counts must be 0 to 65535"),
    "bad_meetings.symmetric": _("meeting counts must be symmetric, 0 diagonal"),
    "bad_meetings.pair": _("bad meeting %(a)r-%(b)r: %(times)s"),
    "bad_table": _("a table seats at least 2 players, the first dealer first"),
    "bad_table.twice": _("a player sits twice in one round"),
}

del _


class SeatingError(DomainError):
    """Input that cannot be seated: a stable ``code`` and the ``params`` its sentence names
    (the one error shape, ``tonkrules.errors.DomainError``).

    Codes: ``bad_sizes``, ``bad_prefer``, ``too_few_players``, ``duplicate_player``,
    ``bad_method``, ``bad_rounds``, ``bad_meetings``, ``bad_table``; the message key may add
    a ``.variant`` (:data:`SEATING_MESSAGES`).
    """

    messages: ClassVar[Mapping[str, Template]] = SEATING_MESSAGES

    def __init__(self, key: str, /, *, params: Mapping[str, object] | None = None) -> None:
        self.code = key.partition(".")[0]
        super().__init__(key, params=params)


# --- Value objects ------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """The table sizes of one round (largest first) and how many players sit out."""

    tables: tuple[int, ...]
    sit_outs: int

    @property
    def seated(self) -> int:
        """Players seated at the tables."""
        return sum(self.tables)

    @property
    def pairs(self) -> int:
        """Pairs seated together by one round of this split."""
        return sum(s * (s - 1) // 2 for s in self.tables)


@dataclass(frozen=True)
class Table:
    """One table: its players in seat order, starting with the first dealer.

    ``players[0]`` is ``first_dealer``; the deal then passes along ``players`` in order.
    """

    players: tuple[Player, ...]
    first_dealer: Player

    def __post_init__(self) -> None:
        if len(self.players) < SIZE_MIN or self.players[0] != self.first_dealer:
            raise SeatingError("bad_table")

    def pairs(self) -> Iterator[tuple[Player, Player]]:
        """Every pair of players at this table, once."""
        for i, a in enumerate(self.players):
            for b in self.players[i + 1 :]:
                yield a, b


@dataclass(frozen=True)
class RoundSeating:
    """One round: the tables (in table-number order) and the players sitting out.

    ``proven`` (swiss only, else None): True when no seating of these players at these table
    sizes, given who had met whom, seats fewer pairs together again; False when the search
    stopped at its budget first (large fields late in an event), so fewer might exist. It is
    a fact about how the round was found, so it takes no part in equality.
    """

    tables: tuple[Table, ...]
    sit_outs: tuple[Player, ...] = ()
    proven: bool | None = field(default=None, compare=False)

    @property
    def seated(self) -> tuple[Player, ...]:
        """Every seated player, table by table."""
        return tuple(p for t in self.tables for p in t.players)

    def pairs(self) -> Iterator[tuple[Player, Player]]:
        """Every pair seated together in this round, once."""
        for t in self.tables:
            yield from t.pairs()


@dataclass(frozen=True)
class Plan:
    """A schedule: the rounds in order, for ``players``.

    ``seconds`` holds the computing time of each round (for ``plan``, the whole schedule's time
    shared equally); it is a measurement, so it takes no part in equality.
    """

    players: tuple[Player, ...]
    rounds: tuple[RoundSeating, ...]
    method: str
    seconds: tuple[float, ...] = field(default=(), compare=False, repr=False)

    @cached_property
    def pairs(self) -> int:
        """M: pairs seated together over all rounds."""
        return pairs_seated(self.rounds)

    @cached_property
    def excess(self) -> int:
        """E: meetings beyond each pair's first."""
        return excess(self.rounds)

    @cached_property
    def bound(self) -> int:
        """LB: no schedule with the same splits has a smaller E."""
        return lower_bound(len(self.players), [split_of(r) for r in self.rounds])

    @cached_property
    def spread(self) -> int:
        """Max - min over the players of the opponents faced over all rounds."""
        return opponent_spread(self.rounds, self.players)


@dataclass(frozen=True, eq=False)
class Meetings:
    """Who met whom how often: a symmetric ``(N, N)`` matrix of counts over ``players``.

    Build it with :meth:`none`, :meth:`from_pairs` or :meth:`from_rounds`, and add a round
    with :meth:`after` (a new object; this one never changes). ``counts`` is read-only,
    ``uint16``, with a zero diagonal.
    """

    players: tuple[Player, ...]
    counts: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        n = len(self.players)
        counts = np.asarray(self.counts)
        if counts.shape != (n, n):
            raise SeatingError("bad_meetings.shape", params={"n": n})
        if len(set(self.players)) != n:
            raise SeatingError("duplicate_player.meetings")
        if counts.dtype != np.uint16:  # from outside: check what uint16 would hide
            if counts.size and (counts.min() < 0 or counts.max() > np.iinfo(np.uint16).max):
                raise SeatingError("bad_meetings.range")
            if not (counts == counts.T).all() or counts.diagonal().any():
                raise SeatingError("bad_meetings.symmetric")
            counts = counts.astype(np.uint16)
        else:
            counts = counts.copy() if counts.flags.writeable else counts
        counts.flags.writeable = False
        object.__setattr__(self, "counts", counts)

    @classmethod
    def none(cls, players: Iterable[Player]) -> Meetings:
        """No meetings yet."""
        ps = tuple(players)
        return cls(ps, np.zeros((len(ps), len(ps)), dtype=np.uint16))

    @classmethod
    def from_pairs(
        cls, pairs: Mapping[tuple[Player, Player], int], players: Iterable[Player] = ()
    ) -> Meetings:
        """From ``{(a, b): times met}`` (either order; a pair given twice adds up).

        ``players`` fixes the order of the first players; anyone else named in ``pairs`` follows.
        Raises :class:`SeatingError` (``bad_meetings``) for a player paired with themself or a
        negative count.
        """
        order = list(dict.fromkeys(players))
        index = {p: i for i, p in enumerate(order)}
        rows, cols, vals = [], [], []
        for (a, b), times in pairs.items():
            if a == b or times < 0:
                raise SeatingError("bad_meetings.pair", params={"a": a, "b": b, "times": times})
            for p in (a, b):
                if p not in index:
                    index[p] = len(order)
                    order.append(p)
            rows.append(index[a])
            cols.append(index[b])
            vals.append(int(times))
        counts = np.zeros((len(order), len(order)), dtype=np.int64)
        np.add.at(counts, (rows, cols), vals)
        np.add.at(counts, (cols, rows), vals)
        return cls(tuple(order), counts)

    @classmethod
    def from_rounds(
        cls,
        rounds: Iterable[RoundSeating | Iterable[Iterable[Player]]],
        players: Iterable[Player] = (),
    ) -> Meetings:
        """From past rounds: each a :class:`RoundSeating` or a list of tables (lists of ids)."""
        meetings = cls.none(players)
        for r in rounds:
            meetings = meetings.after(r)
        return meetings

    @cached_property
    def index(self) -> dict[Player, int]:
        """Row of each player in ``counts``."""
        return {p: i for i, p in enumerate(self.players)}

    @cached_property
    def faced(self) -> np.ndarray:
        """Opponents faced so far by each player (row sums of ``counts``), ``int64``."""
        return self.counts.sum(axis=1, dtype=np.int64)

    def count(self, a: Player, b: Player) -> int:
        """How often ``a`` and ``b`` sat at the same table (0 for unknown players)."""
        i, j = self.index.get(a), self.index.get(b)
        return 0 if i is None or j is None or i == j else int(self.counts[i, j])

    def pairs(self) -> dict[tuple[Player, Player], int]:
        """Every pair that has met, ``{(a, b): count}`` with ``a`` before ``b`` in players."""
        rows, cols = np.nonzero(np.triu(self.counts, 1))
        return {
            (self.players[i], self.players[j]): int(self.counts[i, j])
            for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
        }

    def after(self, seating: RoundSeating | Iterable[Iterable[Player]]) -> Meetings:
        """These meetings plus one more round (players new to the meetings are added)."""
        tables = (
            [t.players for t in seating.tables]
            if isinstance(seating, RoundSeating)
            else [tuple(t) for t in seating]
        )
        players = list(self.players)
        index = dict(self.index)
        for t in tables:
            for p in t:
                if p not in index:
                    index[p] = len(players)
                    players.append(p)
        n_old, n = len(self.players), len(players)
        if n == n_old:
            counts = self.counts.copy()
        else:
            counts = np.zeros((n, n), dtype=np.uint16)
            counts[:n_old, :n_old] = self.counts
        faced = np.zeros(n, dtype=np.int64)
        faced[:n_old] = self.faced
        seated = [index[p] for t in tables for p in t]
        if len(set(seated)) != len(seated):
            raise SeatingError("bad_table.twice")
        by_size: dict[int, list[list[int]]] = {}
        for t in tables:
            by_size.setdefault(len(t), []).append([index[p] for p in t])
        for size, group in by_size.items():
            g = np.asarray(group, dtype=np.intp)
            for i in range(size):
                for j in range(i + 1, size):
                    counts[g[:, i], g[:, j]] += 1
                    counts[g[:, j], g[:, i]] += 1
            faced[g.ravel()] += size - 1
        counts.flags.writeable = False  # fresh and now frozen: Meetings keeps it uncopied
        new = Meetings(tuple(players), counts)
        new.__dict__["faced"] = faced
        new.__dict__["index"] = index
        return new


# --- Table sizes, bounds and measures -----------------------------------------------------


def default_prefer(sizes: Iterable[int]) -> int:
    """The preferred table size when none is given: 4 if allowed, else the largest size."""
    allowed = sorted(set(sizes))
    if not allowed:
        raise SeatingError("bad_sizes")
    return 4 if 4 in allowed else allowed[-1]


def _check_sizes(sizes: Iterable[int], prefer: int | None) -> tuple[tuple[int, ...], int]:
    given = list(sizes)
    bad = [s for s in given if not isinstance(s, int | np.integer) or s < SIZE_MIN]
    if bad:
        raise SeatingError("bad_sizes.whole", params={"bad": bad})
    allowed = tuple(sorted({int(s) for s in given}))
    if not allowed:
        raise SeatingError("bad_sizes")
    chosen = default_prefer(allowed) if prefer is None else prefer
    if chosen not in allowed:
        raise SeatingError("bad_prefer", params={"prefer": chosen, "allowed": list(allowed)})
    return allowed, chosen


def check_seatable(
    players: int, sizes: Iterable[int], prefer: int | None = None
) -> tuple[tuple[int, ...], int]:
    """Whether ``players`` players can be seated at tables of the allowed ``sizes``: the one
    rule that :func:`seat_round` and :func:`plan_rounds` apply (through :func:`table_sizes`)
    and that the services check before they save a request that seats (asking for a round,
    seating it again, retrying a failed seating, a withdrawal).

    The rule: the seating lets sit out the players the sizes cannot seat (13 players at tables
    of exactly 4: one sits out; at tables of exactly 5: three), so any number of players from
    the smallest size up can be seated; fewer than the smallest table cannot (Rook at tables of
    exactly 5: 4 players cannot).

    Returns:
        The allowed sizes, ascending, and the preferred size (``prefer``, or
        :func:`default_prefer`).

    Raises:
        SeatingError: ``too_few_players`` (``players`` and ``smallest``), ``bad_sizes`` (no size,
            or one below 2), ``bad_prefer``.
    """
    allowed, prefer_ = _check_sizes(sizes, prefer)
    if players < allowed[0]:
        raise SeatingError("too_few_players", params={"players": players, "smallest": allowed[0]})
    return allowed, prefer_


def table_sizes(players: int, sizes: Iterable[int], prefer: int | None = None) -> Split:
    """How ``players`` players sit at tables of the allowed ``sizes``.

    The rule, in order: the fewest players sitting out (none unless the sizes cannot seat
    everyone: 13 players at tables of exactly 4 leave 1 out); then as many tables of the
    ``prefer`` size as possible; then the fewest tables of other sizes (among equally few,
    sizes closest to ``prefer``, then larger). Tables are listed largest first.

    Raises :class:`SeatingError` as :func:`check_seatable` does: ``too_few_players`` when
    ``players`` cannot fill even the smallest table, ``bad_sizes`` / ``bad_prefer`` for sizes
    below 2 or a ``prefer`` not allowed.
    """
    allowed, prefer_ = check_seatable(players, sizes, prefer)
    others = [s for s in allowed if s != prefer_]
    # best[r]: ((tables, distance from prefer, -largest), one table's size) for the best way to
    # seat r players at tables of the other sizes, or None; grown only as far as needed.
    best: list[tuple[tuple[int, int, int], int] | None] = [((0, 0, 0), 0)]

    def rest_of(r: int) -> tuple[int, ...] | None:
        while len(best) <= r:
            here = len(best)
            options = [
                ((prev[0][0] + 1, prev[0][1] + abs(s - prefer_), -s), s)
                for s in others
                if s <= here and (prev := best[here - s]) is not None
            ]
            best.append(min(options) if options else None)
        if best[r] is None:
            return None
        out: list[int] = []
        while r:
            s = best[r][1]  # type: ignore[index]
            out.append(s)
            r -= s
        return tuple(out)

    for out in range(players):
        seated = players - out
        for k in range(seated // prefer_, -1, -1):
            rest = rest_of(seated - k * prefer_)
            if rest is not None:
                return Split(tuple(sorted((prefer_,) * k + rest, reverse=True)), out)
    raise AssertionError("unreachable: the smallest table always fits")  # pragma: no cover


def split_of(seating: RoundSeating) -> Split:
    """The split a seated round used."""
    return Split(
        tuple(sorted((len(t.players) for t in seating.tables), reverse=True)),
        len(seating.sit_outs),
    )


def _pair_counts(rounds: Iterable[RoundSeating]) -> Counter[frozenset[Player]]:
    met: Counter[frozenset[Player]] = Counter()
    for r in rounds:
        for a, b in r.pairs():
            met[frozenset((a, b))] += 1
    return met


def pairs_seated(rounds: Iterable[RoundSeating]) -> int:
    """M: pairs seated together over ``rounds``, once per round they sit together."""
    return sum(sum(len(t.players) * (len(t.players) - 1) // 2 for t in r.tables) for r in rounds)


def excess(rounds: Iterable[RoundSeating]) -> int:
    """E: over every pair, the times it sat together beyond the first, summed."""
    return sum(m - 1 for m in _pair_counts(rounds).values())


def opponents_faced(rounds: Iterable[RoundSeating]) -> Counter[Player]:
    """Each player's opponents faced over ``rounds`` (table size - 1 per round played)."""
    faced: Counter[Player] = Counter()
    for r in rounds:
        for t in r.tables:
            for p in t.players:
                faced[p] += len(t.players) - 1
    return faced


def opponent_spread(rounds: Sequence[RoundSeating], players: Iterable[Player] = ()) -> int:
    """Max - min of the opponents faced over ``rounds``, over ``players`` (default: seated ones)."""
    faced = opponents_faced(rounds)
    everyone = set(players) | set(faced)
    values = [faced.get(p, 0) for p in everyone]
    return max(values) - min(values) if values else 0


@lru_cache(maxsize=256)
def _transfer_bound(before: Split, after: Split) -> int:
    """Fewest pairs of one round that must sit together again in the next round.

    The players of each table of the first round (and those sitting out) spread over the next
    round's tables (and sit-outs); ``k`` players of one first-round table at one next-round
    table repeat ``k (k - 1) / 2`` pairs. The least total over all spreads is a transport problem
    with convex costs, solved exactly by successive shortest paths, one player at a time.
    """
    rows = [*before.tables, before.sit_outs]
    cols = [*after.tables, after.sit_outs]
    nr, nc = len(rows), len(cols)
    flow = [[0] * nc for _ in range(nr)]
    supply, demand = rows[:], cols[:]

    def step(i: int, j: int) -> int:  # cost of one more player from row i at column j
        return flow[i][j] if i < nr - 1 and j < nc - 1 else 0

    total = 0
    for _ in range(sum(rows)):
        dist = [0.0 if supply[i] > 0 else math.inf for i in range(nr)] + [math.inf] * nc
        pred = [-1] * (nr + nc)
        for _ in range(nr + nc):
            changed = False
            for i in range(nr):
                if dist[i] < math.inf:
                    for j in range(nc):
                        if dist[i] + step(i, j) < dist[nr + j]:
                            dist[nr + j], pred[nr + j], changed = dist[i] + step(i, j), i, True
            for j in range(nc):
                if dist[nr + j] < math.inf:
                    for i in range(nr):
                        if flow[i][j] > 0:
                            back = dist[nr + j] - (step(i, j) - 1 if step(i, j) else 0)
                            if back < dist[i]:
                                dist[i], pred[i], changed = back, nr + j, True
            if not changed:
                break
        end = min((j for j in range(nc) if demand[j] > 0), key=lambda j: dist[nr + j])
        total += int(dist[nr + end])
        demand[end] -= 1
        node = nr + end
        while True:
            i = pred[node]
            flow[i][node - nr] += 1
            if pred[i] == -1:
                supply[i] -= 1
                break
            node = pred[i]
            flow[i][node - nr] -= 1
    return total


def lower_bound(players: int, splits: Sequence[Split]) -> int:
    """LB: no schedule of these rounds (``splits``, in order) for ``players`` has a smaller E.

    The larger of two bounds: ``max(0, M - N(N-1)/2)`` (at most every pair can meet once), and,
    for small fields (at most 12 tables a round), the sum over consecutive rounds of the fewest
    pairs of one round that must meet again in the next (:func:`_transfer_bound`).
    """
    m = sum(s.pairs for s in splits)
    pair_bound = max(0, m - players * (players - 1) // 2)
    small = all(len(s.tables) <= _TRANSFER_TABLES for s in splits)
    if not small or len(splits) < 2:
        return pair_bound
    spread_bound = sum(_transfer_bound(a, b) for a, b in pairwise(splits))
    return max(pair_bound, spread_bound)
