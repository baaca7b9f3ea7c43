"""Template filters for the local forms of :mod:`ops.l10n`, registered as builtins
(``TEMPLATES["OPTIONS"]["builtins"]``): every template has them without ``{% load %}``.

- ``{{ total|num }}``: a number people read (points, totals, counts, ranks, table and seat
  numbers shown): ``1,234`` / ``১,২৩৪``. An ``int`` comes back as a :class:`Numeral`, an ``int``
  that prints in local digits, so that ``{% blocktranslate count n=x|num %}`` still picks
  the plural form from the number;
- ``{{ points|signed }}``: ``+30``, ``-50``;
- ``{{ money|amount }}``: a decimal amount (``"1.50"``), its decimals kept;
- ``{{ label|digits }}``: text made of numbers only (``2=``, ``1–5``), its digits local;
- ``{{ when|when:zone }}``, ``{{ when|when_date:zone }}``, ``{{ when|when_time:zone }}``: a
  date-time, a date, a 24-hour time in ``zone`` (an IANA name; without one, in the value's
  own zone: UTC for what the database gives);
- ``{{ zone|zone_place }}``: a time zone as the place it is named after (``কোলকাতা``).

Never for card notation, values of form fields, data-* attributes, URLs or ids used as keys:
those keep ASCII. A value that is not a number (``None``, ``""``, ``"—"``) is shown as it is.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from django import template
from django.utils.safestring import SafeString

from ops import l10n

register = template.Library()


class Numeral(int):
    """An ``int`` whose text is its local form (captured in the language active when it was
    made): ``str(Numeral(12))`` is ``"১২"`` under Bengali. Arithmetic and comparisons are the
    int's; only its text changes. Django's ``localize()`` passes an int through unchanged
    (no thousand separator is set), so the template prints ``__str__``.
    """

    text: str

    def __new__(cls, value: int) -> Numeral:
        self = super().__new__(cls, value)
        self.text = l10n.number(int(value))
        return self

    def __str__(self) -> str:
        return self.text

    def __html__(self) -> SafeString:
        return SafeString(self.text)


def _numeric(value: object) -> int | Decimal | Fraction | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, Decimal, Fraction, float)):
        return value
    if isinstance(value, str):
        try:
            return Decimal(value.strip()) if value.strip() else None
        except ArithmeticError:
            return None
    return None


@register.filter
def num(value: object) -> object:
    """A number as the active language writes it; anything else as it is."""
    n = _numeric(value)
    if n is None:
        return value
    if isinstance(n, int):
        return Numeral(n)
    return l10n.number(n)


@register.filter
def signed(value: object) -> object:
    """Points with their sign always shown: ``+30``, ``-50``, ``0``."""
    n = _numeric(value)
    if n is None or isinstance(n, float):
        return value
    return l10n.signed(n)


@register.filter
def amount(value: object) -> object:
    """A money amount, a decimal string with its own decimals (``"-0.75"``), in local form."""
    n = _numeric(value)
    if n is None:
        return value
    return l10n.number(n)


@register.filter
def money(value: object, currency: str | None = None) -> object:
    """A money amount in ``currency`` (an ISO 4217 code) in CLDR's currency format of the
    active language (``US$1.50``, ``১.৫০৳``); without a currency, as :func:`amount`."""
    n = _numeric(value)
    if n is None or isinstance(n, float | Fraction):
        return value
    return l10n.money(n, currency or None)


@register.filter
def when(value: object, zone: str | None = None) -> object:
    """A date-time in ``zone``: ``Mar 15, 2026, 18:30``."""
    return l10n.date_time(value, zone or None) if isinstance(value, datetime) else value


@register.filter
def when_date(value: object, zone: str | None = None) -> object:
    """The date of a date-time in ``zone``: ``Mar 15, 2026``."""
    return l10n.date(value, zone or None) if isinstance(value, datetime) else value


@register.filter
def when_time(value: object, zone: str | None = None) -> object:
    """The 24-hour time of a date-time in ``zone``: ``18:30``."""
    return l10n.time(value, zone or None) if isinstance(value, datetime) else value


@register.filter
def digits(value: object) -> object:
    """Text made of numbers for people (a place ``2=``, a range ``1–5``, sizes ``3, 4``) with
    its digits in the active language's numbering system. Never for card notation."""
    if value is None:
        return value
    return l10n.digits(str(value))


@register.filter
def numbering(language: object) -> str:
    """The CLDR numbering system of a language code (``<html data-numbering>``): ``"beng"``."""
    return l10n.numbering_system(str(language) if language else None)


@register.filter
def zone_place(zone: object) -> object:
    """A time zone's id (``Asia/Kolkata``) as the place it is named after, in the active
    language (``কোলকাতা``); nothing for no zone."""
    return l10n.zone_place(str(zone)) if zone else zone
