"""Seating: who sits at which table in a round, with as few repeat meetings as possible.

Pure: no Django, no database, no I/O. numpy holds the meeting matrix. The same input and the
same seed give the same seating, on any machine with the same numpy (the only clock read is
:func:`plan_rounds` timing its rounds for ``Plan.seconds``, which never changes a seating).

Words used throughout:

- **players**: any hashable ids (ints, strings, primary keys), given in a sequence whose order
  only breaks ties; a player appears once.
- **meetings**: how often each pair of players has sat at the same table so far
  (:class:`Meetings`, or a mapping ``{(a, b): count}``).
- **split**: the table sizes of one round and the number of players sitting out
  (:func:`table_sizes`).
- **M**: the number of pairs seated together over a schedule, counted once per round they sit
  together (a table of 4 seats 6 pairs).
- **E** (excess): the meetings beyond each pair's first, summed over all pairs:
  ``sum(max(0, m - 1))`` where ``m`` is how often the pair sat together (:func:`excess`).
- **LB**: a lower bound on E for any schedule with the same splits (:func:`lower_bound`).
- **opponents faced**: the sum over a player's rounds of (table size - 1); sitting out faces
  none. Its spread (max - min over the players) measures fairness when table sizes differ.

Methods:

- ``balanced`` (default): one round at a time. Table sizes come from :func:`table_sizes`;
  players who have faced the most opponents take the smaller tables; then a search swaps
  players between tables to minimise the cost of the pairs seated together: a pair that has
  met ``m >= 1`` times costs ``16 + (m - 1) ** 2`` (every repeat adds one to E, so repeats weigh
  nearly alike, and the pairs that met least are seated together again first). Fields of up to
  ``_LOOKAHEAD_MAX`` players search a few equally good rounds from different starts and keep
  the one whose next round can be seated with the fewest repeats.
- ``swiss``: one round at a time, king of the hill: players in standings order fill the tables
  from the top; the same search then avoids repeats, at a cost of ``d ** 2`` for a player moved
  ``d`` tables from the seat the standings gave (a first repeat costs 4: as much as moving two
  players one table each, or one player two tables).
- ``plan``: the whole schedule for a fixed number of rounds at once (no results needed): the
  rounds are seated ``balanced``, then a tabu search over every round minimises E itself,
  stopping early at LB. It finds the known repeat-free designs (16 players in fours for 5
  rounds, 9 in threes for 4, 15 in threes for 7: Kirkman's schoolgirls). Above ``DENSE_MAX``
  players it keeps the balanced rounds.

The search: a round of more than ``_ROUND_DENSE_MAX`` players first gets a repair pass that
moves each player in a repeat to the best swap over the whole field at once (numpy rows, never a
Python loop over the players); a round of at most ``DENSE_MAX`` players with a repeat left, and
every ``plan``, then get a tabu search on dense ``(n, n)`` matrices: each step makes the best
swap of a player in a repeat with any player at another table of that round, the moved players
stay put for a few steps, and a stalled search restarts from its best seating, shaken by a few
random swaps (more, the longer it stalls).

Fairness rule: a swap between tables of different sizes is allowed only if afterwards the
spread of opponents faced (history plus the rounds so far, after every round) is at most 2, or
no larger than it already was. The first seating gives the larger tables to the players who
have faced the fewest opponents, which never widens a spread beyond max(previous spread, 1)
when a round's sizes differ by one.

Dealers: in :func:`seat_round`, at each table the player with the fewest first-dealer turns so
far deals first (ties broken by the seed); :func:`plan_rounds` then balances the turns over the
whole plan. A :class:`Table` lists its players in seat order starting with that first dealer:
``table.players[0] == table.first_dealer``.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise
from typing import TypeAlias

import numpy as np
from numpy.random import Generator, default_rng

Player: TypeAlias = Hashable

METHODS = ("balanced", "swiss", "plan")
SIZE_MIN = 2
DENSE_MAX = 160
"""Fields of up to this many players are searched with whole meeting matrices (tabu search);
larger ones with the row-wise repair pass only."""
_ROUND_DENSE_MAX = 48  # one round: above this many players the repair pass runs first

_COST_CAP = 64  # meeting counts above this cost as much as this one (only the order matters)
_SWISS_REPEAT_WEIGHT = 4.0  # swiss: a first repeat costs as much as moving 2 players 1 table
_PLAN_ITERATIONS = 40_000  # plan: most tabu steps over the whole schedule
_PLAN_PATIENCE = 6_000  # plan: stop after this many steps without a better schedule
_TRANSFER_TABLES = 12  # lower_bound: the transfer bound is computed up to this many tables
_ROUND_STEPS = 200  # balanced, swiss: tabu steps per round (plus 8 a player)
_ROUND_PATIENCE = 40  # balanced, swiss: stop after this many steps without a better round
# (plus 2 a player)
_LOOKAHEAD_MAX = 32  # balanced: fields up to this size compare candidate rounds
_LOOKAHEAD_CANDIDATES = 4
_STALL = 60  # tabu: restart from the best seating after this many steps without a better one


class SeatingError(ValueError):
    """Input that cannot be seated, with a stable ``code`` and a plain-English message.

    Codes: ``bad_sizes``, ``bad_prefer``, ``too_few_players``, ``duplicate_player``,
    ``bad_method``, ``bad_rounds``, ``bad_meetings``, ``bad_table``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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
            raise SeatingError(
                "bad_table", "a table seats at least 2 players, the first dealer first"
            )

    def pairs(self) -> Iterator[tuple[Player, Player]]:
        """Every pair of players at this table, once."""
        for i, a in enumerate(self.players):
            for b in self.players[i + 1 :]:
                yield a, b


@dataclass(frozen=True)
class RoundSeating:
    """One round: the tables (in table-number order) and the players sitting out."""

    tables: tuple[Table, ...]
    sit_outs: tuple[Player, ...] = ()

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
            raise SeatingError("bad_meetings", f"meeting counts must be {n} x {n}")
        if len(set(self.players)) != n:
            raise SeatingError("duplicate_player", "a player appears twice in the meetings")
        if counts.dtype != np.uint16:  # from outside: check what uint16 would hide
            if counts.size and (counts.min() < 0 or counts.max() > np.iinfo(np.uint16).max):
                raise SeatingError("bad_meetings", "meeting counts must be 0 to 65535")
            if not (counts == counts.T).all() or counts.diagonal().any():
                raise SeatingError("bad_meetings", "meeting counts must be symmetric, 0 diagonal")
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
                raise SeatingError("bad_meetings", f"bad meeting {a!r}-{b!r}: {times}")
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
            raise SeatingError("bad_table", "a player sits twice in one round")
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
        raise SeatingError("bad_sizes", "no table size allowed")
    return 4 if 4 in allowed else allowed[-1]


def _check_sizes(sizes: Iterable[int], prefer: int | None) -> tuple[tuple[int, ...], int]:
    given = list(sizes)
    bad = [s for s in given if not isinstance(s, int | np.integer) or s < SIZE_MIN]
    if bad:
        raise SeatingError("bad_sizes", f"table sizes must be whole numbers of at least 2: {bad}")
    allowed = tuple(sorted({int(s) for s in given}))
    if not allowed:
        raise SeatingError("bad_sizes", "no table size allowed")
    chosen = default_prefer(allowed) if prefer is None else prefer
    if chosen not in allowed:
        raise SeatingError(
            "bad_prefer", f"the preferred size {chosen} is not an allowed size {list(allowed)}"
        )
    return allowed, chosen


def table_sizes(players: int, sizes: Iterable[int], prefer: int | None = None) -> Split:
    """How ``players`` players sit at tables of the allowed ``sizes``.

    The rule, in order: the fewest players sitting out (none unless the sizes cannot seat
    everyone: 13 players at tables of exactly 4 leave 1 out); then as many tables of the
    ``prefer`` size as possible; then the fewest tables of other sizes (among equally few,
    sizes closest to ``prefer``, then larger). Tables are listed largest first.

    Raises :class:`SeatingError` (``too_few_players``) when ``players`` cannot fill even the
    smallest table, ``bad_sizes`` / ``bad_prefer`` for sizes below 2 or a ``prefer`` not allowed.
    """
    allowed, prefer_ = _check_sizes(sizes, prefer)
    if players < allowed[0]:
        raise SeatingError(
            "too_few_players",
            f"{players} players cannot fill a table: the smallest table seats {allowed[0]}",
        )
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


# --- Search ---------------------------------------------------------------------------------


def _weights(kind: str) -> np.ndarray:
    """``w[m]``: the cost of seating together a pair that has met ``m`` times (``m`` capped)."""
    m = np.arange(_COST_CAP + 1, dtype=np.float64)
    if kind == "excess":
        return (m >= 1).astype(np.float64)
    repeat = np.where(m >= 1, 16 + (m - 1) ** 2, 0.0)
    if kind == "swiss":
        return repeat * (_SWISS_REPEAT_WEIGHT / 16)
    return repeat


class _Tabu:
    """Tabu search over the free rounds of a small field, on dense ``(n, n)`` matrices.

    ``tabs[r, u]`` is the table of local player ``u`` in free round ``r`` (-1: sits out). The cost
    is ``sum over pairs of F(m)`` plus, for swiss, each player's displacement cost, where ``m`` is
    the pair's meetings (``base`` plus the free rounds) and ``F(m) = w[0] + ... + w[m - 1]``.
    Swapping ``a`` (table A) and ``b`` (table B) of round ``r`` changes the cost by
    ``X[r, a, b] + X[r, b, a] - SD[r, a] - SD[r, b]`` where ``X[r, u, v]`` sums ``w[m]`` of ``u``
    with ``v``'s tablemates and ``SD[r, u]`` sums ``w[m - 1]`` of ``u`` with its own tablemates;
    both are kept up to date move by move.
    """

    def __init__(
        self,
        base: np.ndarray,
        tabs: np.ndarray,
        seat_values: Sequence[np.ndarray],
        weights: np.ndarray,
        rng: Generator,
        *,
        faced: np.ndarray | None = None,
        fair: bool = False,
        displacement: np.ndarray | None = None,
    ) -> None:
        self.n = base.shape[0]
        self.rounds = tabs.shape[0]
        self.base = base.astype(np.int64)
        self.tabs = tabs.astype(np.int64)
        tmax = max(len(v) for v in seat_values)
        # seat value per (round, table); the extra last column is "sits out": 0 opponents
        self.values = np.zeros((self.rounds, tmax + 1), dtype=np.int64)
        for r, v in enumerate(seat_values):
            self.values[r, : len(v)] = v
        self.w_up = weights
        self.w_down = np.concatenate(([0.0], weights[:-1]))
        self.f = np.concatenate(([0.0], np.cumsum(weights)))[: len(weights)]
        self.rng = rng
        self.faced = np.zeros(self.n, dtype=np.int64) if faced is None else faced.astype(np.int64)
        self.fair = fair
        self.displacement = displacement  # (R, n, tmax) or None
        self.eye = np.eye(self.n, dtype=bool)
        self.rebuild()

    def _cap(self, m: np.ndarray) -> np.ndarray:
        return np.minimum(m, _COST_CAP)

    def seat_value(self) -> np.ndarray:
        t = np.where(self.tabs >= 0, self.tabs, self.values.shape[1] - 1)
        return np.take_along_axis(self.values, t, axis=1)

    def rebuild(self) -> None:
        t = self.tabs
        same = (t[:, :, None] == t[:, None, :]) & (t >= 0)[:, :, None] & ~self.eye
        self.same = same.astype(np.float64)
        self.m = self.base + same.sum(axis=0, dtype=np.int64)
        mc = self._cap(self.m)
        self.up = self.w_up[mc]
        self.down = self.w_down[mc]
        self.x = np.matmul(self.up, self.same)
        self.sd = (self.down[None] * self.same).sum(axis=2)
        self.sv = self.seat_value()
        iu = np.triu_indices(self.n, 1)
        self.cost = float(self.f[mc[iu]].sum())
        if self.displacement is not None:
            tt = np.where(t >= 0, t, 0)
            cd = np.take_along_axis(self.displacement, tt[:, :, None], axis=2)[:, :, 0]
            self.cd = np.where(t >= 0, cd, 0.0)
            self.cost += float(self.cd.sum())

    def floor(self) -> float:
        """The cost with no pair meeting again in the free rounds and nobody displaced."""
        iu = np.triu_indices(self.n, 1)
        return float(self.f[self._cap(self.base[iu])].sum())

    def conflicts(self) -> tuple[np.ndarray, np.ndarray]:
        """(round, player) of every seated player in a repeat: the players a step may move
        (swapping with anyone, at any table of that round)."""
        return np.nonzero((self.sd > 0) & (self.tabs >= 0))

    def best_move(
        self, rk: np.ndarray, ak: np.ndarray, it: int, best: float, tabu: np.ndarray
    ) -> tuple[float, int, int, int] | None:
        """The best allowed swap of a conflicting player (ties drawn at random), or None."""
        tk = self.tabs[rk, ak]
        tr = self.tabs[rk]
        d = self.x[rk, ak, :] + self.x[rk, :, ak] - self.sd[rk, ak][:, None] - self.sd[rk]
        ok = (tr >= 0) & (tr != tk[:, None])
        if self.fair:
            # opponents faced after each round k; a swap in round r changes rounds r, r+1, ...
            after = self.faced[None, :] + np.cumsum(self.sv, axis=0)  # (R, n)
            lo, hi = after.min(axis=1), after.max(axis=1)
            limit = np.maximum(2, hi - lo)
            diff = (self.sv[rk] - self.sv[rk, ak][:, None])[:, :, None]  # (K, n, 1)
            na = after[:, ak].T[:, None, :] + diff  # (K, n, R)
            nb = after.T[None, :, :] - diff
            spread = np.maximum(np.maximum(na, nb), hi) - np.minimum(np.minimum(na, nb), lo)
            later = (np.arange(self.rounds)[None, :] >= rk[:, None])[:, None, :]
            ok &= ~((spread > limit) & later).any(axis=2)
        if self.displacement is not None:
            disp = self.displacement
            trc = np.where(tr >= 0, tr, 0)
            d += np.take_along_axis(disp[rk, ak], trc, axis=1) - self.cd[rk, ak][:, None]
            d += disp[rk, :, tk] - self.cd[rk]
        free = (tabu[rk] <= it) & (tabu[rk, ak] <= it)[:, None]
        allowed = ok & (free | (self.cost + d < best - 1e-9))
        if not allowed.any():
            return None
        d = np.where(allowed, d, np.inf)
        low = d.min()
        hits = np.flatnonzero(d <= low + 1e-9)
        k, b = divmod(int(hits[self.rng.integers(hits.size)]), self.n)
        return float(low), int(rk[k]), int(ak[k]), b

    def swap(self, r: int, a: int, b: int) -> None:
        """Swap ``a`` and ``b`` (at different tables) in free round ``r``; update the state."""
        t = self.tabs[r]
        ta, tb = int(t[a]), int(t[b])
        rest_a = np.flatnonzero(t == ta)
        rest_a = rest_a[rest_a != a]
        rest_b = np.flatnonzero(t == tb)
        rest_b = rest_b[rest_b != b]
        m = self.m
        m[a, rest_a] -= 1
        m[rest_a, a] -= 1
        m[b, rest_a] += 1
        m[rest_a, b] += 1
        m[b, rest_b] -= 1
        m[rest_b, b] -= 1
        m[a, rest_b] += 1
        m[rest_b, a] += 1
        rows = np.concatenate(([a, b], rest_a, rest_b))
        mc = self._cap(m[rows])
        new_up, new_down = self.w_up[mc], self.w_down[mc]
        d_up, d_down = new_up - self.up[rows], new_down - self.down[rows]
        self.up[rows], self.up[:, rows] = new_up, new_up.T
        self.down[rows], self.down[:, rows] = new_down, new_down.T
        # every pair that changed has both players in rows: X and SD change in those rows only
        self.x[:, rows, :] += np.matmul(d_up, self.same)
        self.sd[:, rows] += (d_down[None] * self.same[:, rows, :]).sum(axis=2)
        # then the round's own two tables change
        t[a], t[b] = tb, ta
        same = self.same[r]
        same[[a, b], :] = 0.0
        same[:, [a, b]] = 0.0
        same[a, rest_b] = same[rest_b, a] = 1.0
        same[b, rest_a] = same[rest_a, b] = 1.0
        for members in (np.append(rest_a, b), np.append(rest_b, a)):
            col = self.up[:, members].sum(axis=1)
            self.x[r][:, members] = col[:, None] - self.up[:, members]
            self.sd[r, members] = self.down[np.ix_(members, members)].sum(axis=1)
        sv = self.sv[r]
        sv[a], sv[b] = sv[b], sv[a]
        if self.displacement is not None:
            self.cd[r, a] = self.displacement[r, a, tb]
            self.cd[r, b] = self.displacement[r, b, ta]

    def restart(self, tabs: np.ndarray, swaps: int) -> None:
        """Go back to ``tabs`` and make ``swaps`` random swaps of players at tables of one size."""
        self.tabs = tabs.copy()
        for _ in range(swaps):
            r = int(self.rng.integers(self.rounds))
            t = self.tabs[r]
            a, b = self.rng.choice(np.flatnonzero(t >= 0), size=2, replace=False)
            if t[a] != t[b] and self.values[r, t[a]] == self.values[r, t[b]]:
                t[a], t[b] = t[b], t[a]
        self.rebuild()

    def run(self, *, iterations: int, target: float, patience: int) -> np.ndarray:
        """Search; returns the best ``tabs`` found (also left in ``self``)."""
        tabu = np.zeros((self.rounds, self.n), dtype=np.int64)
        best, best_tabs = self.cost, self.tabs.copy()
        if (self.tabs.max(axis=1) <= 0).all():
            return best_tabs  # one table a round: no swap to make
        last_best = last_gain = restarts = 0
        tenure_hi = 10 + self.n // 8
        for it in range(1, iterations + 1):
            if best <= target + 1e-9 or it - last_best > patience:
                break
            rk, ak = self.conflicts()
            if rk.size == 0:
                break  # no repeat left: moving anyone only costs
            move = self.best_move(rk, ak, it, best, tabu)
            if move is None:  # every useful swap is tabu or unfair
                tabu[:] = 0
                self.restart(best_tabs, 1 + int(self.rng.integers(3)))
                last_gain = it
                continue
            delta, r, a, b = move
            self.swap(r, a, b)
            self.cost += delta
            tabu[r, a] = it + self.rng.integers(2, tenure_hi + 1)
            tabu[r, b] = it + self.rng.integers(2, tenure_hi + 1)
            if self.cost < best - 1e-9:
                best, best_tabs = self.cost, self.tabs.copy()
                last_best = last_gain = it
                restarts = 0
            elif it - last_gain > _STALL:
                # restart from the best, shaken harder the longer it has not improved
                restarts += 1
                self.restart(best_tabs, 2 + int(self.rng.integers(2 + restarts // 4)))
                last_gain = it
        self.tabs = best_tabs
        self.rebuild()
        return best_tabs


def _repair(
    counts: np.ndarray,
    g: np.ndarray | None,
    tab: np.ndarray,
    seat_values: np.ndarray,
    weights: np.ndarray,
    rng: Generator,
    *,
    faced: np.ndarray,
    fair: bool,
    home: np.ndarray | None = None,
    passes: int = 3,
) -> tuple[np.ndarray, bool]:
    """One round of a large field: move every player in a repeat to the best swap available.

    ``counts`` is the full meeting matrix and ``g`` maps local players to its rows (``None``:
    the identity). Each player ``a`` at a table with a repeat is compared with every other player
    ``b`` at once (numpy rows): the swap's change of cost is
    ``S[b, A] - 2 c(a, b) + S[a, B] - cur[a] - cur[b]`` where ``c`` is the pair cost, ``S[u, T]``
    the cost of ``u`` with table ``T`` and ``cur[u]`` the cost of ``u`` with its own table; for
    swiss ``home`` (each player's king-of-the-hill table) adds one per table moved, squared.
    """
    n = tab.size
    tables = seat_values.size

    def rows(local: np.ndarray) -> np.ndarray:
        if g is None:
            return counts[local]
        return counts[np.ix_(g[local], g)]

    def pair_cost(local_a: np.ndarray, local_b: np.ndarray) -> np.ndarray:
        ga, gb = (local_a, local_b) if g is None else (g[local_a], g[local_b])
        return weights[np.minimum(counts[ga, gb], _COST_CAP)]

    def own_cost(members: np.ndarray) -> np.ndarray:
        sub = rows(members)[:, members]
        return weights[np.minimum(sub, _COST_CAP)].sum(axis=1)

    order = np.argsort(tab, kind="stable")
    members: list[np.ndarray] = np.split(order, np.cumsum(np.bincount(tab, minlength=tables))[:-1])
    cur = np.zeros(n)
    for size in sorted(set((seat_values + 1).tolist())):
        group = np.stack([members[t] for t in np.flatnonzero(seat_values + 1 == size)])
        for i in range(size):
            for j in range(i + 1, size):
                c = pair_cost(group[:, i], group[:, j])
                cur[group[:, i]] += c
                cur[group[:, j]] += c
    sv = seat_values[tab]
    deg = faced + sv
    disp = None if home is None else (np.arange(tables)[tab] - home).astype(np.float64) ** 2

    for _ in range(passes):
        queue = np.flatnonzero(cur > 0)
        if queue.size == 0:
            break
        moved = False
        for a in rng.permutation(queue).tolist():
            if cur[a] <= 0:
                continue
            ta = int(tab[a])
            row_a = weights[np.minimum(rows(np.array([a]))[0], _COST_CAP)]
            s_a = np.bincount(tab, weights=row_a, minlength=tables)
            s_b = weights[np.minimum(rows(members[ta]), _COST_CAP)].sum(axis=0)
            delta = s_b - 2 * row_a + s_a[tab] - cur[a] - cur
            if disp is not None and home is not None:
                delta += (tab - home[a]) ** 2 - disp[a] + (ta - home) ** 2 - disp
            delta[members[ta]] = np.inf
            if fair:
                lo, hi = int(deg.min()), int(deg.max())
                diff = sv - sv[a]
                na, nb = deg[a] + diff, deg - diff
                spread = np.maximum(np.maximum(na, nb), hi) - np.minimum(np.minimum(na, nb), lo)
                delta[spread > max(2, hi - lo)] = np.inf
            low = delta.min()
            if not low < -1e-9:
                continue
            hits = np.flatnonzero(delta <= low + 1e-9)
            b = int(hits[rng.integers(hits.size)])
            tb = int(tab[b])
            tab[a], tab[b] = tb, ta
            members[ta] = np.append(members[ta][members[ta] != a], b)
            members[tb] = np.append(members[tb][members[tb] != b], a)
            cur[members[ta]] = own_cost(members[ta])
            cur[members[tb]] = own_cost(members[tb])
            sv[a], sv[b] = sv[b], sv[a]
            deg[a] += sv[a] - sv[b]
            deg[b] += sv[b] - sv[a]
            if disp is not None and home is not None:
                disp[a] = float(tb - home[a]) ** 2
                disp[b] = float(ta - home[b]) ** 2
            moved = True
        if not moved:
            break
    return tab, bool((cur > 0).any())


# --- One round --------------------------------------------------------------------------


def _check_players(players: Sequence[Player]) -> tuple[Player, ...]:
    ps = tuple(players)
    if len(set(ps)) != len(ps):
        seen: set[Player] = set()
        twice = [p for p in ps if p in seen or seen.add(p)]  # type: ignore[func-returns-value]
        raise SeatingError("duplicate_player", f"players listed twice: {twice[:5]}")
    return ps


def _ranks(players: tuple[Player, ...], standing: Sequence[Player] | None) -> dict[Player, int]:
    """Standings position of each player (0 = top); players not listed follow in given order."""
    present = set(players)
    listed = [p for p in dict.fromkeys(standing or ()) if p in present]
    rank = {p: i for i, p in enumerate(listed)}
    for p in players:
        if p not in rank:
            rank[p] = len(rank)
    return rank


def _choose_sit_outs(
    players: tuple[Player, ...],
    k: int,
    sit_outs_so_far: Mapping[Player, int],
    rank: dict[Player, int] | None,
    tiebreak: Mapping[Player, float],
) -> tuple[Player, ...]:
    """The ``k`` players who sit out: fewest sit-outs so far first; among equals the lowest in
    the standings (``rank``), or, without standings, the order drawn from the seed."""
    if k == 0:
        return ()
    if rank is None:
        key: Callable[[Player], tuple[int, float]] = lambda p: (  # noqa: E731
            sit_outs_so_far.get(p, 0),
            tiebreak[p],
        )
    else:
        key = lambda p: (sit_outs_so_far.get(p, 0), -rank[p])  # noqa: E731
    return tuple(sorted(players, key=key)[:k])


def _first_seating(
    split: Split,
    faced: np.ndarray,
    priority: np.ndarray,
    order: np.ndarray | None = None,
) -> np.ndarray:
    """Tables of the first seating (local players ``0..n-1``, tables ``0..T-1`` largest first).

    The players who have faced the fewest opponents take the seats facing the most (ties by
    ``priority``); within one table size, players go in ``priority`` order, or, for swiss, in
    standings ``order`` (a rank per player), filling the tables from the top.
    """
    n = faced.size
    sizes = np.asarray(split.tables)
    seats = np.repeat(np.arange(sizes.size), sizes)  # largest tables first
    by_need = np.lexsort((priority, faced))
    size_of = np.empty(n, dtype=np.int64)
    size_of[by_need] = sizes[seats]
    tab = np.empty(n, dtype=np.int64)
    for size in sorted(set(split.tables)):
        who = np.flatnonzero(size_of == size)
        key = priority[who] if order is None else order[who]
        who = who[np.argsort(key, kind="stable")]
        tab[who] = np.repeat(np.flatnonzero(sizes == size), size)
    return tab


def _local_counts(meetings: Meetings, active: Sequence[Player]) -> tuple[np.ndarray, np.ndarray]:
    """The meetings among ``active`` (dense copy) and each one's opponents faced."""
    n = len(active)
    idx = np.array([meetings.index.get(p, -1) for p in active], dtype=np.intp)
    known = idx >= 0
    local = np.zeros((n, n), dtype=np.int64)
    kn = np.flatnonzero(known)
    local[np.ix_(kn, kn)] = meetings.counts[np.ix_(idx[kn], idx[kn])]
    faced = np.zeros(n, dtype=np.int64)
    faced[kn] = meetings.faced[idx[kn]]
    return local, faced


def _as_meetings(
    meetings: Meetings | Mapping[tuple[Player, Player], int] | None, players: Sequence[Player]
) -> Meetings:
    if meetings is None:
        return Meetings.none(players)
    if isinstance(meetings, Meetings):
        return meetings
    return Meetings.from_pairs(meetings, players)


def _seat_local(
    split: Split,
    meetings: Meetings,
    active: tuple[Player, ...],
    method: str,
    rank: dict[Player, int],
    priority: np.ndarray,
    rng: Generator,
    lookahead: bool = True,
) -> np.ndarray:
    """The table of each of ``active`` (by position), tables numbered in report order."""
    n = len(active)
    fair = len(set(split.tables)) > 1
    values = np.asarray(split.tables, dtype=np.int64) - 1
    idx = np.array([meetings.index.get(p, -1) for p in active], dtype=np.intp)
    identity = idx.size == len(meetings.players) and bool((idx == np.arange(idx.size)).all())
    known = idx >= 0
    faced = np.zeros(n, dtype=np.int64)
    faced[known] = meetings.faced[idx[known]]
    swiss = method == "swiss"
    tables = len(split.tables)
    home = None
    if swiss:
        order = np.array([rank[p] for p in active], dtype=np.int64)
        tab = _first_seating(split, faced, order, order)
        # number the tables from the top of the standings: by their best-ranked player
        top = np.full(tables, np.iinfo(np.int64).max)
        np.minimum.at(top, tab, order)
        table_order = np.argsort(top, kind="stable")
        position = np.empty(tables, dtype=np.int64)
        position[table_order] = np.arange(tables)
        tab = position[tab]
        values = values[table_order]
        home = tab.copy()
    else:
        tab = _first_seating(split, faced, priority)
    weights = _weights("swiss" if swiss else "balanced")
    if n > _ROUND_DENSE_MAX:
        if identity:
            counts, g = meetings.counts, None
        elif known.all():
            counts, g = meetings.counts, idx
        else:
            counts, g = _local_counts(meetings, active)[0], None
        tab, repeats_left = _repair(
            counts, g, tab, values, weights, rng, faced=faced, fair=fair, home=home
        )
        if not repeats_left or n > DENSE_MAX:
            return tab
    local, faced_local = _local_counts(meetings, active)
    displacement = None
    if home is not None:
        moved = np.arange(tables)[None, :] - home[:, None]
        displacement = (moved.astype(np.float64) ** 2)[None]

    def search(
        start: np.ndarray, base: np.ndarray, faced_: np.ndarray, effort: int = 1
    ) -> tuple[np.ndarray, float]:
        tabu = _Tabu(
            base,
            start[None],
            [values],
            weights,
            rng,
            faced=faced_,
            fair=fair,
            displacement=displacement,
        )
        floor = tabu.floor()
        # no round can cost less than its pairs' cheapest possible costs: stop there
        iu = np.triu_indices(n, 1)
        cheapest = np.sort(weights[np.minimum(base[iu], _COST_CAP)])[: split.pairs].sum()
        steps, patience = _ROUND_STEPS + 8 * n, (_ROUND_PATIENCE + 2 * n) // effort
        best = tabu.run(iterations=steps, target=floor + cheapest, patience=patience)[0]
        return best, tabu.cost - floor

    best, cost = search(tab, local, faced_local)
    if not lookahead or swiss or n > _LOOKAHEAD_MAX or not local.any():
        return best

    # Small fields: among a few equally good seatings (each searched from its own start), keep
    # the one whose next round can be seated with the fewest repeats.
    def tables_of(tab: np.ndarray) -> frozenset[frozenset[int]]:
        return frozenset(frozenset(np.flatnonzero(tab == t).tolist()) for t in range(tables))

    candidates, seen = [best], {tables_of(best)}
    for _ in range(_LOOKAHEAD_CANDIDATES - 1):
        start = _first_seating(split, faced, rng.permutation(n))
        other, other_cost = search(start, local, faced_local)
        if other_cost < cost - 1e-9:
            candidates, cost, seen = [other], other_cost, {tables_of(other)}
        elif other_cost <= cost + 1e-9 and tables_of(other) not in seen:
            candidates.append(other)
            seen.add(tables_of(other))
    if len(candidates) == 1:
        return candidates[0]
    scores = []
    for cand in candidates:  # a quicker search of the next round is enough to compare them
        after = local + ((cand[:, None] == cand[None, :]) & ~np.eye(n, dtype=bool))
        faced_after = faced_local + values[cand]
        start = _first_seating(split, faced_after, rng.permutation(n))
        scores.append(search(start, after, faced_after, effort=2)[1])
    return candidates[int(np.argmin(scores))]


def _dealt_tables(
    active: tuple[Player, ...],
    tab: np.ndarray,
    tables: int,
    dealer_counts: Mapping[Player, int],
    tiebreak: Mapping[Player, float],
) -> tuple[Table, ...]:
    """Tables in number order, each starting with its first dealer: the fewest first-dealer
    turns so far, ties by the seed's order; the other players follow in the seed's order."""
    seated: list[list[Player]] = [[] for _ in range(tables)]
    for i, t in enumerate(tab.tolist()):
        seated[t].append(active[i])
    result = []
    for group in seated:
        group.sort(key=lambda p: tiebreak[p])
        dealer = min(group, key=lambda p: (dealer_counts.get(p, 0), tiebreak[p]))
        rest = [p for p in group if p != dealer]
        result.append(Table((dealer, *rest), dealer))
    return tuple(result)


def seat_round(
    players: Sequence[Player],
    meetings: Meetings | Mapping[tuple[Player, Player], int] | None = None,
    *,
    sizes: Iterable[int],
    prefer: int | None = None,
    method: str = "balanced",
    standing: Sequence[Player] | None = None,
    sit_outs_so_far: Mapping[Player, int] | None = None,
    dealer_counts: Mapping[Player, int] | None = None,
    seed: int | Sequence[int] = 0,
) -> RoundSeating:
    """Seat one round.

    Args:
        players: the players to seat this round (ids, each once).
        meetings: who met whom so far: a :class:`Meetings` or ``{(a, b): times}``; players
            missing from it have met nobody. Their row sums are the opponents faced so far.
        sizes: the allowed table sizes (each at least 2).
        prefer: the preferred size (default :func:`default_prefer`: 4 if allowed, else the
            largest).
        method: ``"balanced"`` or ``"swiss"`` (``"plan"`` seats whole schedules: use
            :func:`plan_rounds`).
        standing: the players best first, for swiss and for choosing sit-outs; players not
            listed rank below those listed, in ``players`` order.
        sit_outs_so_far: rounds each player has sat out (default none).
        dealer_counts: first-dealer turns each player has had (default none).
        seed: any int or sequence of ints; the same seed and input give the same seating.

    Returns:
        The tables (largest first; for swiss, the top of the standings first), each in seat order
        from its first dealer, and the players sitting out.

    Raises:
        SeatingError: ``too_few_players`` (fewer players than the smallest table), ``bad_sizes``,
            ``bad_prefer``, ``bad_method``, ``duplicate_player``, ``bad_meetings``.

    The rules: :func:`table_sizes` decides the tables and how many sit out; the sit-outs are the
    players with the fewest sit-outs so far, among equals the lowest in the standings (without
    standings, an order drawn from the seed); then the method's search (module docstring).
    """
    ps = _check_players(players)
    if method not in ("balanced", "swiss"):
        raise SeatingError(
            "bad_method",
            f"unknown method {method!r} for one round: balanced or swiss (plan: plan_rounds)",
        )
    split = table_sizes(len(ps), sizes, prefer)
    rng = default_rng(seed)
    return _seat_one(
        ps,
        _as_meetings(meetings, ps),
        split,
        method,
        standing,
        sit_outs_so_far or {},
        dealer_counts or {},
        rng,
    )


def _seat_one(
    ps: tuple[Player, ...],
    meetings: Meetings,
    split: Split,
    method: str,
    standing: Sequence[Player] | None,
    sit_outs_so_far: Mapping[Player, int],
    dealer_counts: Mapping[Player, int],
    rng: Generator,
    lookahead: bool = True,
) -> RoundSeating:
    draw = rng.permutation(len(ps))
    tiebreak = {p: float(draw[i]) for i, p in enumerate(ps)}
    rank = _ranks(ps, standing) if standing is not None or method == "swiss" else None
    out = _choose_sit_outs(ps, split.sit_outs, sit_outs_so_far, rank, tiebreak)
    out_set = set(out)
    active = tuple(p for p in ps if p not in out_set)
    priority = np.array([tiebreak[p] for p in active])
    tab = _seat_local(split, meetings, active, method, rank or {}, priority, rng, lookahead)
    tables = _dealt_tables(active, tab, len(split.tables), dealer_counts, tiebreak)
    return RoundSeating(tables, tuple(p for p in ps if p in out_set))


# --- Whole schedules ----------------------------------------------------------------------


def plan_rounds(
    players: Sequence[Player],
    rounds: int,
    *,
    sizes: Iterable[int],
    prefer: int | None = None,
    method: str = "plan",
    standing: Sequence[Player] | None = None,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> Plan:
    """Seat ``rounds`` rounds of ``players`` from scratch (nobody has met yet).

    ``method``: ``"plan"`` (the whole schedule at once, minimising E; see the module docstring),
    ``"balanced"`` (round after round), ``"swiss"`` (round after round with the fixed
    ``standing``, default the players' order: a dry run has no results). Sit-outs rotate as in
    :func:`seat_round`; first-dealer turns are balanced over the whole plan (nobody deals first
    more than ``ceil(tables / players)`` times where the seating allows). ``clock`` only times
    the rounds (``Plan.seconds``); it never changes the seating.

    Raises :class:`SeatingError` as :func:`seat_round` does, and ``bad_rounds`` when ``rounds``
    is below 1.
    """
    ps = _check_players(players)
    if method not in METHODS:
        raise SeatingError("bad_method", f"unknown method {method!r}: one of {', '.join(METHODS)}")
    if rounds < 1:
        raise SeatingError("bad_rounds", f"a plan needs at least 1 round, not {rounds}")
    split = table_sizes(len(ps), sizes, prefer)
    round_method = "swiss" if method == "swiss" else "balanced"
    if method == "swiss" and standing is None:
        standing = ps
    meetings = Meetings.none(ps)
    sat_out: Counter[Player] = Counter()
    dealt: Counter[Player] = Counter()
    seated: list[RoundSeating] = []
    seconds: list[float] = []
    start = clock()
    for r in range(rounds):
        begin = clock()
        seating = _seat_one(
            ps,
            meetings,
            split,
            round_method,
            standing,
            sat_out,
            dealt,
            default_rng((seed, r)),
            lookahead=method != "plan",  # plan improves the whole schedule afterwards
        )
        seconds.append(clock() - begin)
        seated.append(seating)
        meetings = meetings.after(seating)
        sat_out.update(seating.sit_outs)
        dealt.update(t.first_dealer for t in seating.tables)
    if method == "plan" and len(ps) <= DENSE_MAX and rounds > 1:
        seated = _improve_schedule(ps, seated, split, default_rng((seed, rounds)))
    seated = _balance_dealers(ps, seated)
    if method == "plan":
        total = clock() - start
        seconds = [total / rounds] * rounds
    return Plan(ps, tuple(seated), method, tuple(seconds))


def _balance_dealers(ps: tuple[Player, ...], seated: list[RoundSeating]) -> list[RoundSeating]:
    """First dealers for a whole plan: nobody deals first more than ``ceil(tables / players)``
    times where the seating allows it (then one more), by augmenting paths over the tables."""
    slots = [t.players for r in seated for t in r.tables]
    first = [t.first_dealer for r in seated for t in r.tables]
    order = {p: i for i, p in enumerate(ps)}
    cap = -(-len(slots) // len(ps))
    while True:
        owner = _assign_dealers(slots, first, order, cap)
        if owner is not None:
            break
        cap += 1
    result, at = [], 0
    for r in seated:
        tables = []
        for t in r.tables:
            dealer = owner[at]
            rest = tuple(p for p in t.players if p != dealer)
            tables.append(Table((dealer, *rest), dealer))
            at += 1
        result.append(RoundSeating(tuple(tables), r.sit_outs))
    return result


def _assign_dealers(
    slots: list[tuple[Player, ...]],
    first: list[Player],
    order: Mapping[Player, int],
    cap: int,
) -> list[Player] | None:
    """One dealer per table, each player at most ``cap`` times (None if impossible); keeps the
    round-by-round choice ``first`` where it can."""
    owner: list[Player | None] = [None] * len(slots)
    held: dict[Player, list[int]] = {}
    for s, members in enumerate(slots):
        free = [p for p in members if len(held.get(p, ())) < cap]
        if free:
            pick = (
                first[s]
                if first[s] in free
                else min(free, key=lambda p: (len(held.get(p, ())), order[p]))
            )
            owner[s] = pick
            held.setdefault(pick, []).append(s)
            continue
        # breadth-first: a full player of this table hands one of their tables to a tablemate
        came_from: dict[Player, tuple[int, Player] | None] = {p: None for p in members}
        queue = list(members)
        found = None
        while queue and found is None:
            p = queue.pop(0)
            for s2 in held.get(p, ()):
                for q in slots[s2]:
                    if q not in came_from:
                        came_from[q] = (s2, p)
                        if len(held.get(q, ())) < cap:
                            found = q
                            break
                        queue.append(q)
                if found is not None:
                    break
        if found is None:
            return None
        q = found
        while came_from[q] is not None:
            s2, p = came_from[q]  # type: ignore[misc]
            owner[s2] = q
            held.setdefault(q, []).append(s2)
            held[p].remove(s2)
            q = p
        owner[s] = q
        held.setdefault(q, []).append(s)
    return owner  # type: ignore[return-value]


def _improve_schedule(
    ps: tuple[Player, ...],
    seated: list[RoundSeating],
    split: Split,
    rng: Generator,
) -> list[RoundSeating]:
    """Tabu search over every round at once for the least E; keeps each round's sit-outs."""
    n, rounds = len(ps), len(seated)
    index = {p: i for i, p in enumerate(ps)}
    sizes = sorted(set(split.tables), reverse=True)
    tabs = np.full((rounds, n), -1, dtype=np.int64)
    values = []
    for r, seating in enumerate(seated):
        for t, table in enumerate(seating.tables):
            tabs[r, [index[p] for p in table.players]] = t
        values.append(np.array([len(t.players) - 1 for t in seating.tables], dtype=np.int64))
    target = lower_bound(n, [split] * rounds)
    if excess(seated) <= target:
        return seated
    search = _Tabu(
        np.zeros((n, n), dtype=np.int64),
        tabs,
        values,
        _weights("excess"),
        rng,
        fair=len(sizes) > 1,
    )
    best = search.run(iterations=_PLAN_ITERATIONS, target=float(target), patience=_PLAN_PATIENCE)
    dealt: Counter[Player] = Counter()
    draw = rng.permutation(n)
    tiebreak = {p: float(draw[i]) for i, p in enumerate(ps)}
    result = []
    for r, seating in enumerate(seated):
        active_idx = np.flatnonzero(best[r] >= 0)
        active = tuple(ps[i] for i in active_idx.tolist())
        tables = _dealt_tables(active, best[r][active_idx], len(values[r]), dealt, tiebreak)
        dealt.update(t.first_dealer for t in tables)  # then _balance_dealers evens them out
        result.append(RoundSeating(tables, seating.sit_outs))
    if excess(result) > excess(seated):  # pragma: no cover - the search keeps its best
        return seated
    return result
