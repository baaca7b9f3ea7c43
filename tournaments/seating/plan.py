"""The ``plan`` method and whole schedules: every round seated, then a tabu search over the
whole schedule for the least E; first-dealer turns balanced over the plan. Pure."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
from numpy.random import Generator, default_rng

from tournaments.seating.common import (
    DENSE_MAX,
    METHODS,
    PLAN_ITERATIONS,
    PLAN_PATIENCE,
    Meetings,
    Plan,
    Player,
    RoundSeating,
    SeatingError,
    Split,
    Table,
    excess,
    lower_bound,
    table_sizes,
)
from tournaments.seating.round import check_players, dealt_tables, seat_one
from tournaments.seating.search import TabuSearch, repeat_weights

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
    ``standing``, default the players' order: a dry run has no results; each round looks
    ahead over the rest of the plan, so no round makes a later one repeat where the search can
    avoid it; if the plan is still above LB and the ``plan`` method's schedule has fewer
    repeats, that schedule is used, renamed to start from the swiss first round). Sit-outs
    rotate as in
    :func:`seat_round`; first-dealer turns are balanced over the whole plan (nobody deals first
    more than ``ceil(tables / players)`` times where the seating allows). ``clock`` only times
    the rounds (``Plan.seconds``); it never changes the seating.

    Raises :class:`SeatingError` as :func:`seat_round` does, and ``bad_rounds`` when ``rounds``
    is below 1.
    """
    ps = check_players(players)
    sizes = tuple(sizes)  # read twice when swiss falls back to the plan method's schedule
    if method not in METHODS:
        raise SeatingError("bad_method", params={"method": method, "methods": ", ".join(METHODS)})
    if rounds < 1:
        raise SeatingError("bad_rounds", params={"rounds": rounds})
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
        seating = seat_one(
            ps,
            meetings,
            split,
            round_method,
            standing,
            sat_out,
            dealt,
            default_rng((seed, r)),
            lookahead=method != "plan",  # plan improves the whole schedule afterwards
            later=rounds - r - 1,  # swiss: keep every later round of the plan repeat-free
        )
        seconds.append(clock() - begin)
        seated.append(seating)
        meetings = meetings.after(seating)
        sat_out.update(seating.sit_outs)
        dealt.update(t.first_dealer for t in seating.tables)
    if method == "plan" and len(ps) <= DENSE_MAX and rounds > 1:
        seated = _improve_schedule(ps, seated, split, default_rng((seed, rounds)))
    if (
        method == "swiss"
        and len(ps) <= DENSE_MAX
        and rounds > 1
        and excess(seated) > lower_bound(len(ps), [split] * rounds)
    ):
        renamed = _swiss_from_plan(ps, seated, rounds, sizes, prefer, seed, standing or ps)
        if renamed is not seated:
            seated = renamed
            seconds = [(clock() - start) / rounds] * rounds  # the whole schedule's time
    seated = _balance_dealers(ps, seated)
    if method == "plan":
        total = clock() - start
        seconds = [total / rounds] * rounds
    return Plan(ps, tuple(seated), method, tuple(seconds))


def _swiss_from_plan(
    ps: tuple[Player, ...],
    seated: list[RoundSeating],
    rounds: int,
    sizes: Iterable[int],
    prefer: int | None,
    seed: int,
    standing: Sequence[Player],
) -> list[RoundSeating]:
    """A swiss plan whose round-by-round search left more repeats than the ``plan`` method
    does: that plan, its players renamed so that its first round is the swiss first round
    (tables of the same size matched in order), each round's tables listed from the top of the
    standings. Any renaming keeps E, so the result has the ``plan`` method's E; kept only when
    that is fewer. A round without a repeat is proven; the others are not."""
    other = plan_rounds(ps, rounds, sizes=sizes, prefer=prefer, method="plan", seed=seed)
    if other.excess >= excess(seated):
        return seated
    rank = {p: i for i, p in enumerate(dict.fromkeys([*standing, *ps]))}
    ours, theirs = seated[0], other.rounds[0]
    rename: dict[Player, Player] = dict(zip(theirs.sit_outs, ours.sit_outs, strict=True))
    for size in set(len(t.players) for t in ours.tables):
        mine = [t.players for t in ours.tables if len(t.players) == size]
        other_tables = [t.players for t in theirs.tables if len(t.players) == size]
        for a, b in zip(other_tables, mine, strict=True):
            rename.update(zip(a, b, strict=True))
    result = []
    for r in other.rounds:
        tables = sorted(
            (tuple(sorted((rename[p] for p in t.players), key=rank.__getitem__)) for t in r.tables),
            key=lambda t: rank[t[0]],
        )
        renamed = RoundSeating(
            tuple(Table(t, t[0]) for t in tables), tuple(rename[p] for p in r.sit_outs)
        )
        result.append(renamed)
    met: Counter[frozenset[Player]] = Counter()
    proven = []
    for r in result:
        pairs = [frozenset(pair) for pair in r.pairs()]
        proven.append(RoundSeating(r.tables, r.sit_outs, not any(met[p] for p in pairs)))
        met.update(pairs)
    return proven


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
        result.append(RoundSeating(tuple(tables), r.sit_outs, r.proven))
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
    return owner


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
    search = TabuSearch(
        np.zeros((n, n), dtype=np.int64),
        tabs,
        values,
        repeat_weights("excess"),
        rng,
        fair=len(sizes) > 1,
    )
    best = search.run(iterations=PLAN_ITERATIONS, target=float(target), patience=PLAN_PATIENCE)
    dealt: Counter[Player] = Counter()
    draw = rng.permutation(n)
    tiebreak = {p: float(draw[i]) for i, p in enumerate(ps)}
    result = []
    for r, seating in enumerate(seated):
        active_idx = np.flatnonzero(best[r] >= 0)
        active = tuple(ps[i] for i in active_idx.tolist())
        tables = dealt_tables(active, best[r][active_idx], len(values[r]), dealt, tiebreak)
        dealt.update(t.first_dealer for t in tables)  # then _balance_dealers evens them out
        result.append(RoundSeating(tables, seating.sit_outs))
    if excess(result) > excess(seated):  # pragma: no cover - the search keeps its best
        return seated
    return result
