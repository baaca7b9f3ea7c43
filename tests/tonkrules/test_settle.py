"""Settling up a Tonk table in the fewest payments (tonkrules.settle)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tonkrules.settle import Payment, fewest_payments


def partitions(items: list[str]) -> Iterator[list[list[str]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]
        yield [[first], *part]


def brute_force_minimum(net: dict[str, int]) -> int:
    """k minus the most zero-sum groups, over every partition of the players with a balance."""
    names = [p for p, v in net.items() if v]
    if not names:
        return 0
    groups = max(
        len(part) for part in partitions(names) if all(sum(net[p] for p in g) == 0 for g in part)
    )
    return len(names) - groups


@st.composite
def balances(draw: st.DrawFn) -> dict[str, int]:
    n = draw(st.integers(2, 6))
    values = draw(st.lists(st.integers(-12, 12), min_size=n - 1, max_size=n - 1))
    values.append(-sum(values))
    return {f"P{i}": v for i, v in enumerate(values)}


@given(balances())
def test_payments_settle_every_balance_in_the_fewest_payments(net: dict[str, int]) -> None:
    payments = fewest_payments(net)
    left = dict(net)
    for p in payments:
        assert p.units > 0
        assert net[p.payer] < 0 < net[p.payee]
        left[p.payer] += p.units
        left[p.payee] -= p.units
    assert set(left.values()) <= {0}
    assert len(payments) == brute_force_minimum(net)


def test_worked_examples() -> None:
    assert fewest_payments({"Ana": -5, "Ben": 4, "Cy": 1}) == [
        Payment("Ana", "Ben", 4),
        Payment("Ana", "Cy", 1),
    ]
    # Two pairs that cancel: two payments, not three.
    assert len(fewest_payments({"A": -3, "B": 3, "C": -2, "D": 2})) == 2
    assert fewest_payments({"A": 0, "B": 0}) == []


def test_refuses_balances_that_do_not_sum_to_zero() -> None:
    with pytest.raises(ValueError):
        fewest_payments({"A": 1, "B": 0})
