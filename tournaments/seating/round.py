"""One round, whatever the method: sit-outs, the method's first seating and search, the first
dealers. ``balanced`` and ``swiss`` differ in their modules (:mod:`tournaments.seating.balanced`,
:mod:`tournaments.seating.swiss`). Pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
from numpy.random import Generator, default_rng

from tournaments.seating import balanced
from tournaments.seating import swiss as swiss_method
from tournaments.seating.common import (
    COST_CAP,
    DENSE_MAX,
    LOOKAHEAD_MAX,
    PLAN_PATIENCE,
    ROUND_DENSE_MAX,
    ROUND_PATIENCE,
    ROUND_STEPS,
    SWISS_TABU_STEPS,
    SWISS_TIGHT,
    Meetings,
    Player,
    RoundSeating,
    SeatingError,
    Split,
    Table,
    lower_bound,
    table_sizes,
)
from tournaments.seating.search import TabuSearch, greedy_first_seating, repair, repeat_weights

# --- One round --------------------------------------------------------------------------


def check_players(players: Sequence[Player]) -> tuple[Player, ...]:
    """The players as a tuple, in the given order.

    Raises:
        SeatingError: ``duplicate_player`` when a player is listed twice (the first five named).
    """
    ps = tuple(players)
    if len(set(ps)) != len(ps):
        seen: set[Player] = set()
        twice = [p for p in ps if p in seen or seen.add(p)]  # type: ignore[func-returns-value]
        raise SeatingError("duplicate_player", params={"names": twice[:5]})
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
        tab, values, home = swiss_method.first_seating(split, faced, active, rank, values)
    else:
        tab = balanced.first_seating(split, faced, priority)
    weights = repeat_weights("swiss" if swiss else "balanced")
    if n > ROUND_DENSE_MAX:
        if identity:
            counts, g = meetings.counts, None
        elif known.all():
            counts, g = meetings.counts, idx
        else:
            counts, g = _local_counts(meetings, active)[0], None
        tab, repeats_left = repair(
            counts, g, tab, values, weights, rng, faced=faced, fair=fair, home=home
        )
        if not repeats_left or n > DENSE_MAX:
            return tab
    local, faced_local = _local_counts(meetings, active)
    displacement = None if home is None else swiss_method.displacement(home, tables)

    def search(
        start: np.ndarray, base: np.ndarray, faced_: np.ndarray, effort: int = 1
    ) -> tuple[np.ndarray, float]:
        tabu = TabuSearch(
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
        cheapest = np.sort(weights[np.minimum(base[iu], COST_CAP)])[: split.pairs].sum()
        steps, patience = ROUND_STEPS + 8 * n, (ROUND_PATIENCE + 2 * n) // effort
        best = tabu.run(iterations=steps, target=floor + cheapest, patience=patience)[0]
        return best, tabu.cost - floor

    best, cost = search(tab, local, faced_local)
    if not lookahead or swiss or n > LOOKAHEAD_MAX or not local.any():
        return best

    return balanced.best_of_candidates(
        split, faced, local, faced_local, values, best, cost, search, rng
    )


def dealt_tables(
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
    later: int = 1,
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
        later: swiss only: how many later rounds the round must leave seatable without a
            repeat where it can (the rounds still to play; default 1).

    Returns:
        The tables (largest first; for swiss, the top of the standings first), each in seat order
        from its first dealer, and the players sitting out; for swiss, ``proven`` says whether
        the round's repeat meetings are proven the fewest possible.

    Raises:
        SeatingError: ``too_few_players`` (fewer players than the smallest table), ``bad_sizes``,
            ``bad_prefer``, ``bad_method``, ``duplicate_player``, ``bad_meetings``.

    The rules: :func:`table_sizes` decides the tables and how many sit out; the sit-outs are the
    players with the fewest sit-outs so far, among equals the lowest in the standings (without
    standings, an order drawn from the seed); then the method's search (module docstring;
    swiss: :mod:`tournaments.seating.swiss`, fewest repeats first, then the standings).
    """
    ps = check_players(players)
    if method not in ("balanced", "swiss"):
        raise SeatingError("bad_method.round", params={"method": method})
    split = table_sizes(len(ps), sizes, prefer)
    rng = default_rng(seed)
    return seat_one(
        ps,
        _as_meetings(meetings, ps),
        split,
        method,
        standing,
        sit_outs_so_far or {},
        dealer_counts or {},
        rng,
        later=later,
    )


def seat_one(
    ps: tuple[Player, ...],
    meetings: Meetings,
    split: Split,
    method: str,
    standing: Sequence[Player] | None,
    sit_outs_so_far: Mapping[Player, int],
    dealer_counts: Mapping[Player, int],
    rng: Generator,
    lookahead: bool = True,
    later: int = 1,
) -> RoundSeating:
    """Seat one round of ``ps`` at the tables of ``split`` by ``method``, fewest repeats first.

    ``meetings`` counts earlier meetings of each pair; ``standing`` orders the players for swiss
    (None: no standings); sit-outs go to those who sat out least (``sit_outs_so_far``) and each
    table's first dealer to those who dealt first least (``dealer_counts``). ``lookahead`` lets
    the choice look at ``later`` rounds still to seat. Draws only from ``rng``.
    """
    draw = rng.permutation(len(ps))
    tiebreak = {p: float(draw[i]) for i, p in enumerate(ps)}
    rank = _ranks(ps, standing) if standing is not None or method == "swiss" else None
    out = _choose_sit_outs(ps, split.sit_outs, sit_outs_so_far, rank, tiebreak)
    out_set = set(out)
    active = tuple(p for p in ps if p not in out_set)
    proven: bool | None = None
    tab = None
    at_least = 0
    if method == "swiss" and rank is not None:
        tab, proven, at_least = _swiss_tab(
            ps, meetings, split, active, rank, sit_outs_so_far, later, rng
        )
    if tab is None:
        priority = np.array([tiebreak[p] for p in active])
        tab = _seat_local(split, meetings, active, method, rank or {}, priority, rng, lookahead)
        if method == "swiss":  # the fallback: proven only if it meets what the search proved
            local = _local_counts(meetings, active)[0]
            repeats = int(((tab[:, None] == tab[None, :]) & (local > 0)).sum()) // 2
            proven = repeats <= at_least
    tables = dealt_tables(active, tab, len(split.tables), dealer_counts, tiebreak)
    return RoundSeating(tables, tuple(p for p in ps if p in out_set), proven)


def _met_masks(meetings: Meetings, order: Sequence[Player]) -> tuple[list[int], list[int]]:
    """Per player of ``order``: the bit mask (bit ``j``: ``order[j]``) of who they have met,
    and the opponents faced so far."""
    n = len(order)
    idx = np.array([meetings.index.get(p, -1) for p in order], dtype=np.intp)
    known = np.flatnonzero(idx >= 0)
    met_any = meetings.counts > 0
    if known.size == n:
        met = met_any[idx][:, idx]
    else:
        met = np.zeros((n, n), dtype=bool)
        met[np.ix_(known, known)] = met_any[np.ix_(idx[known], idx[known])]
    packed = np.packbits(met, axis=1, bitorder="little")
    masks = [int.from_bytes(row.tobytes(), "little") for row in packed]
    faced = np.zeros(n, dtype=np.int64)
    faced[known] = meetings.faced[idx[known]]
    return masks, faced.tolist()


def _swiss_tab(
    ps: tuple[Player, ...],
    meetings: Meetings,
    split: Split,
    active: tuple[Player, ...],
    rank: dict[Player, int],
    sit_outs_so_far: Mapping[Player, int],
    later: int,
    rng: Generator,
) -> tuple[np.ndarray | None, bool, int]:
    """A swiss round by the exact search (:func:`tournaments.seating.swiss.seat_round`): the
    table of each of ``active`` (tables numbered from the top), or None when the search ran out
    of budget first (then the caller falls back); whether its repeats are proven fewest; and
    the fewest repeats the search proved any seating needs.

    The look-ahead rounds (``later`` of them; none above ``DENSE_MAX`` players) seat the
    players who would sit out then by the same rule, with the same standings.
    """
    order = sorted(ps, key=lambda p: rank[p])
    pos = {p: i for i, p in enumerate(order)}
    met, faced = _met_masks(meetings, order)

    def mask(players: Iterable[Player]) -> int:
        out = 0
        for p in players:
            out |= 1 << pos[p]
        return out

    # a later round that no schedule can seat without a repeat (LB > 0) is not looked for
    while later and lower_bound(len(ps), [split] * (later + 1)) > 0:
        later -= 1
    rounds = [swiss_method.Round(mask(active), split.tables)]
    sat = Counter(sit_outs_so_far)
    seated = set(active)
    out = [p for p in ps if p not in seated]
    no_tiebreak = {p: 0.0 for p in ps}
    for _ in range(later if len(active) <= DENSE_MAX else 0):
        sat.update(out)
        out = list(_choose_sit_outs(ps, split.sit_outs, sat, rank, no_tiebreak))
        sitting = set(out)
        rounds.append(swiss_method.Round(mask(p for p in ps if p not in sitting), split.tables))
    found = swiss_method.seat_round(met, faced, rounds)
    if found.tables is None:
        return None, False, found.at_least
    local = {p: i for i, p in enumerate(active)}
    n = len(active)
    unmet = (
        n * (n - 1) // 2
        - sum((met[i] & rounds[0].active).bit_count() for i in _positions(rounds[0].active)) // 2
    )
    tight = (later + 1) * split.pairs >= SWISS_TIGHT * unmet  # a design, or nearly
    if found.ahead < later and split.sit_outs == 0 and n <= LOOKAHEAD_MAX and tight:
        # the exact look-ahead gave up: the plan method's search may still find later rounds
        ahead = _tabu_ahead(meetings, split, active, later, rng)
        fresh = unmet == n * (n - 1) // 2 and len({faced[pos[p]] for p in active}) == 1
        if ahead is not None and not fresh:
            best = {p: min(rank[q] for q in active if ahead[local[q]] == ahead[local[p]])
                    for p in active}  # fmt: skip
            tops = sorted(set(best.values()))
            return np.array([tops.index(best[p]) for p in active], dtype=np.int64), True, 0
        # fresh (nobody has met, all alike): every seating of this round is the same up to
        # renaming the players, so the rule's first one also has the continuation found
    tab = np.empty(len(active), dtype=np.int64)
    for t, members in enumerate(found.tables):
        for j in members:
            tab[local[order[j]]] = t
    return tab, found.proven, found.at_least


def _positions(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _tabu_ahead(
    meetings: Meetings,
    split: Split,
    active: tuple[Player, ...],
    later: int,
    rng: Generator,
) -> np.ndarray | None:
    """This round and ``later`` more with the same players, none repeating a meeting, found by
    the tabu search of the ``plan`` method (which finds designs such as Kirkman's schoolgirls
    that the depth-first search does not reach in its budget): this round's table of each of
    ``active``, or None when it found no such schedule."""
    n = len(active)
    local, faced = _local_counts(meetings, active)
    rounds = later + 1
    tabs = np.stack([greedy_first_seating(split, faced, rng.permutation(n)) for _ in range(rounds)])
    values = np.asarray(split.tables, dtype=np.int64) - 1
    search = TabuSearch(
        local,
        tabs,
        [values] * rounds,
        repeat_weights("excess"),
        rng,
        faced=faced,
        fair=len(set(split.tables)) > 1,
    )
    floor = search.floor()
    best = search.run(iterations=SWISS_TABU_STEPS, target=floor, patience=PLAN_PATIENCE)
    if search.cost > floor + 1e-9:
        return None
    first: np.ndarray = best[0]
    return first
