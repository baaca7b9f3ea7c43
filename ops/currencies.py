"""ISO 4217 currency data: which codes are money and how many decimals their minor unit has.
Plain Python (no Django), from the ``iso4217`` package's copy of the standard's table, so that
the money rule (``scoring.money``) and the amounts written on pages (``ops.l10n.money``) read
one table."""

from __future__ import annotations

from iso4217 import Currency


def minor_unit(code: str) -> int | None:
    """ISO 4217's minor unit of the currency ``code`` (any case): its decimals, 2 for USD and
    HUF, 0 for JPY, 3 for KWD; None for a code ISO 4217 does not list, or one with no minor
    unit (gold ``XAU``, "no currency" ``XXX``)."""
    try:
        return Currency(code.upper()).exponent
    except ValueError:
        return None


def money_codes() -> frozenset[str]:
    """Every ISO 4217 code of money with a minor unit, in capitals."""
    return frozenset(c.code for c in Currency if c.exponent is not None)
