"""The search every method runs: pair costs, the tabu search on dense meeting matrices, the
row-wise repair pass for large fields, and the first seating they start from. Pure."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.random import Generator

from tournaments.seating.common import COST_CAP, STALL, SWISS_REPEAT_WEIGHT, Split

# --- Search ---------------------------------------------------------------------------------


def repeat_weights(kind: str) -> np.ndarray:
    """``w[m]``: the cost of seating together a pair that has met ``m`` times (``m`` capped)."""
    m = np.arange(COST_CAP + 1, dtype=np.float64)
    if kind == "excess":
        return (m >= 1).astype(np.float64)
    repeat = np.where(m >= 1, 16 + (m - 1) ** 2, 0.0)
    if kind == "swiss":
        return repeat * (SWISS_REPEAT_WEIGHT / 16)
    return repeat


class TabuSearch:
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
        return np.minimum(m, COST_CAP)

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
        rounds, players = np.nonzero((self.sd > 0) & (self.tabs >= 0))  # a 2-d array: 2 axes
        return rounds, players

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
            elif it - last_gain > STALL:
                # restart from the best, shaken harder the longer it has not improved
                restarts += 1
                self.restart(best_tabs, 2 + int(self.rng.integers(2 + restarts // 4)))
                last_gain = it
        self.tabs = best_tabs
        self.rebuild()
        return best_tabs


def repair(
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
        return weights[np.minimum(counts[ga, gb], COST_CAP)]

    def own_cost(members: np.ndarray) -> np.ndarray:
        sub = rows(members)[:, members]
        return weights[np.minimum(sub, COST_CAP)].sum(axis=1)

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
            row_a = weights[np.minimum(rows(np.array([a]))[0], COST_CAP)]
            s_a = np.bincount(tab, weights=row_a, minlength=tables)
            s_b = weights[np.minimum(rows(members[ta]), COST_CAP)].sum(axis=0)
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


def greedy_first_seating(
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
