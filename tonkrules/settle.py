"""Settling up a Tonk table: the fewest payments that clear everyone's net balance.

Each player's net is in stake units (a Tonk sheet's totals sum to zero). Clearing ``k``
non-zero balances takes at least ``k - g`` payments, where ``g`` is the largest number of groups
the players can be split into that each sum to zero; this module finds such a split exactly
(dynamic programming over subsets, for up to 16 players with a balance) and settles each group
with one payment fewer than its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

MAX_PLAYERS = 16


@dataclass(frozen=True, slots=True)
class Payment:
    """``payer`` pays ``payee`` ``units`` stake units (always positive)."""

    payer: str
    payee: str
    units: int


def _zero_sum_groups(names: list[str], net: Mapping[str, int]) -> list[list[str]]:
    k = len(names)
    full = (1 << k) - 1
    total = [0] * (1 << k)
    for mask in range(1, full + 1):
        low = (mask & -mask).bit_length() - 1
        total[mask] = total[mask & (mask - 1)] + net[names[low]]
    # best[mask]: the most zero prefix sums over orders of mask's players = zero-sum groups.
    best = [0] * (1 << k)
    for mask in range(1, full + 1):
        best[mask] = max(best[mask & ~(1 << i)] for i in range(k) if mask >> i & 1) + (
            1 if total[mask] == 0 else 0
        )
    groups: list[list[str]] = []
    current: list[str] = []
    mask = full
    while mask:
        gain = 1 if total[mask] == 0 else 0
        if gain and current:
            groups.append(current)
            current = []
        i = next(
            i for i in range(k) if mask >> i & 1 and best[mask & ~(1 << i)] + gain == best[mask]
        )
        current.append(names[i])
        mask &= ~(1 << i)
    if current:
        groups.append(current)
    return groups


def fewest_payments(net: Mapping[str, int]) -> list[Payment]:
    """The fewest payments that settle ``net`` (player → stake units won, negative if lost).

    Args:
        net: balances in stake units; they must sum to zero. Order gives the tie-break.

    Returns:
        Payments, each from a player who lost to one who won, largest first within each group.

    Raises:
        ValueError: the balances do not sum to zero, or more than 16 players have a balance.
    """
    if sum(net.values()) != 0:
        raise ValueError("balances must sum to zero")
    names = [p for p, units in net.items() if units]
    if len(names) > MAX_PLAYERS:
        raise ValueError(f"at most {MAX_PLAYERS} players with a balance")
    payments: list[Payment] = []
    for group in _zero_sum_groups(names, net):
        debt = {p: -net[p] for p in group if net[p] < 0}
        credit = {p: net[p] for p in group if net[p] > 0}
        while debt:
            payer = max(debt, key=lambda p: (debt[p], -names.index(p)))
            payee = max(credit, key=lambda p: (credit[p], -names.index(p)))
            units = min(debt[payer], credit[payee])
            payments.append(Payment(payer, payee, units))
            for book, who in ((debt, payer), (credit, payee)):
                book[who] -= units
                if not book[who]:
                    del book[who]
    return payments
