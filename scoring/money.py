"""The one money rule: what a Tonk game's or tournament's stake and currency may be.

Every way a stake and a currency come in (the new-game page and the API, the score-sheet import
and ``manage.py scoresheet``, the new-tournament page and the API, the games a tournament's
seating makes, the admin's forms through the services) goes through :func:`stake_verify`:

1. The stake, when given, is an amount written with digits and at most one decimal point, no
   sign (``"0.25"``; the score-sheet format's ``stake``), of at most :data:`MAX_STAKE_LENGTH`
   characters.
2. The currency, when given, is an ISO 4217 code of money (three letters, read in capitals:
   ``"usd"`` is ``USD``; ``ops.currencies``): ``ZZZ`` is refused, and so are the codes with
   no minor unit (gold ``XAU``, "no currency" ``XXX``).
3. A stake with a currency has no more decimals, as written, than the currency's minor unit
   (ISO 4217's): 0.25 USD, 0.50 HUF and 0.125 KWD are fine, 0.25 JPY is refused (the yen has
   no minor unit), and so is 0.250 USD (three decimals written: every amount the game shows is
   written with the stake's decimals).

A stake without a currency is checked by 1 only (the pages add the default currency first).
The amounts themselves are written by ``ops.l10n.money``, with CLDR's currency format of the
page's language.

This module needs no Django (``manage.py scoresheet`` uses it without setting Django up).
"""

from __future__ import annotations

from decimal import Decimal

from ops import currencies
from tonkrules.errors import FormatError
from tonkrules.messages import RULE_MESSAGES, Template, declare
from tonkrules.messages import gettext_noop as _
from tonkrules.sheet import parse_currency, parse_stake

__all__ = ["MAX_STAKE_LENGTH", "currency_digits", "currency_verify", "stake_verify"]

#: The most characters a stake's text may hold.
MAX_STAKE_LENGTH = 32

#: The sentences of the money rule's errors, added to the engine's catalogue.
MONEY_MESSAGES: dict[str, Template] = {
    "stake.length": _("a stake has at most %(max)s characters"),
    "currency.unknown": _(
        "%(currency)s is not a currency code: type an ISO 4217 code such as USD, BDT, INR or PHP"
    ),
    "stake.places": _(
        "a stake in %(currency)s has at most %(digits)s decimal places (the currency's minor "
        "unit), not %(stake)s"
    ),
    "stake.places_none": _(
        "%(currency)s has no minor unit: a stake in %(currency)s is a whole number, not %(stake)s"
    ),
}
declare(MONEY_MESSAGES, into=RULE_MESSAGES)


def currency_codes() -> frozenset[str]:
    """Every currency code :func:`currency_verify` accepts, in capitals: ISO 4217's codes of
    money with a minor unit (``ops.currencies``); for the API's schema."""
    return currencies.money_codes()


def currency_verify(value: object) -> str:
    """A currency code as stored: three letters in capitals, an ISO 4217 code CLDR knows.

    Raises:
        FormatError: ``currency`` (not three letters), ``currency.unknown`` (no such
            currency, with ``currency``: the code in capitals).
    """
    code = parse_currency(value)
    if currencies.minor_unit(code) is None:
        raise FormatError("currency.unknown", params={"currency": code})
    return code


def currency_digits(code: str) -> int:
    """The decimals of the currency's minor unit (ISO 4217): 2 for USD and HUF, 0 for JPY, 3
    for KWD. ``code`` is a code :func:`currency_verify` accepted."""
    return int(currencies.minor_unit(code) or 0)


def _decimals(stake: Decimal) -> int:
    exponent = stake.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def stake_verify(*, stake: object, currency: object) -> tuple[str, str]:
    """The stake and currency of a game or tournament as stored, once checked by the rule.

    Args:
        stake: the money value of one stake unit as sent or typed (a decimal string such as
            ``"0.25"``), or None for none.
        currency: a currency code as sent or typed, or None for none.

    Returns:
        ``(stake_text, currency_text)``: the stake as given and the code in capitals; ``""``
        for what was not given.

    Raises:
        FormatError: ``stake`` (not an amount), ``stake.length`` (longer than
            :data:`MAX_STAKE_LENGTH`), ``currency`` / ``currency.unknown`` (see
            :func:`currency_verify`), ``stake.places`` / ``stake.places_none`` (more decimals
            than the currency's minor unit; ``currency``, ``digits`` and ``stake`` name them).
    """
    stake_text = ""
    amount = None
    if stake is not None:
        amount = parse_stake(stake)
        stake_text = str(stake)
        if len(stake_text) > MAX_STAKE_LENGTH:
            raise FormatError("stake.length", params={"max": MAX_STAKE_LENGTH})
    currency_text = currency_verify(currency) if currency is not None else ""
    if amount is not None and currency_text:
        digits = currency_digits(currency_text)
        if _decimals(amount) > digits:
            raise FormatError(
                "stake.places" if digits else "stake.places_none",
                params={"currency": currency_text, "digits": digits, "stake": stake_text},
            )
    return stake_text, currency_text
