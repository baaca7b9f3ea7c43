"""Local forms: numbers, signed points, money amounts, dates and times as each language writes
them (issue 15, "Local forms"). The one place a page or printout turns a value into text.

Everything follows CLDR through Babel (``babel.numbers``, ``babel.dates``), for the active
language (``django.utils.translation.get_language()``) unless one is given:

- **digits**: the locale's *default numbering system* (CLDR ``defaultNumberingSystem``:
  ``beng`` for Bengali and Assamese, so ০–৯; ``latn`` for English, Tamil and Filipino). Babel
  knows which system a locale uses and its symbols, but writes Latin digits whatever the
  system (it has no table of digits): :data:`DIGITS` holds the digits of each system we use
  (CLDR ``numberingSystems.xml``); a system not in it keeps Latin digits;
- **numbers**: the locale's decimal pattern (grouping included: ``1,234`` in English,
  ``১,২৩৪`` in Bengali, ``12,34,567`` in Tamil's Indian grouping), its minus and plus signs;
- **dates**: CLDR's *medium* date (``Mar 15, 2026``; ``১৫ মার্চ, ২০২৬``); **times**: the
  locale's 24-hour clock (CLDR skeleton ``Hm``: ``18:30``), as the round clocks always showed
  (a deadline is read across the room: no a.m./p.m.); **date-times**: the two joined by the
  locale's *medium* date-time pattern; all in the zone given (the tournament's), else UTC.

What stays as it is, in every language (the callers decide, by not calling this module): card
notation (``A K Q J 10 … 2``, suits, Rook ``R1``–``R14``), values inside form fields, data-*
attributes, URLs, the API's JSON and the score-sheet format (ASCII digits), ids used as keys.

Pure functions of their arguments and the active language: no database, no request, no clock.
"""

from __future__ import annotations

import copy
import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, tzinfo
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Literal, cast
from zoneinfo import ZoneInfo

from babel import Locale, UnknownLocaleError, dates, lists, numbers
from django.utils import translation
from django.utils.functional import lazy

from ops import currencies

#: The ten digits of each decimal numbering system our languages use by default (CLDR
#: ``common/supplemental/numberingSystems.xml``), by CLDR id. ``latn`` is the identity.
DIGITS: dict[str, str] = {
    "latn": "0123456789",
    "beng": "০১২৩৪৫৬৭৮৯",
    "tamldec": "௦௧௨௩௪௫௬௭௮௯",
    "deva": "०१२३४५६७८९",
}

#: What an unknown or missing language falls back to.
FALLBACK = "en"


def locale(language: str | None = None) -> Locale:
    """The Babel locale of a Django language code (``"bn"``, ``"fil"``, ``"en-us"``); the
    active language when None; English for a code CLDR does not know."""
    return _parse(translation.to_locale(language or translation.get_language() or FALLBACK))


@functools.cache
def _parse(code: str) -> Locale:
    try:
        return Locale.parse(code)
    except (UnknownLocaleError, ValueError):
        return Locale.parse(FALLBACK)


@functools.cache
def _digit_table(loc: Locale) -> dict[int, int] | None:
    native = DIGITS.get(loc.default_numbering_system, DIGITS["latn"])
    return None if native == DIGITS["latn"] else str.maketrans(DIGITS["latn"], native)


def _native(text: str, loc: Locale) -> str:
    table = _digit_table(loc)
    return text if table is None else text.translate(table)


def numbering_system(language: str | None = None) -> str:
    """The CLDR id of the language's default numbering system (``"beng"`` for Bengali and
    Assamese, ``"latn"`` for the others): what the page script asks ``Intl.NumberFormat`` for,
    since a browser's ICU may lack the locale (Chromium has no ``as``: Latin digits)."""
    return locale(language).default_numbering_system


def digits(text: str, *, language: str | None = None) -> str:
    """``text`` with its ASCII digits written in the language's default numbering system
    (``"12 minutes"`` → ``"১২ minutes"`` in Bengali; unchanged in English, Tamil, Filipino).

    Only for text that is a number, or a sentence whose only digits are numbers for people
    (never card notation, keys or URLs).
    """
    return _native(text, locale(language))


_WHOLE_PLACEHOLDER = re.compile(r"%\((\w+)\)d")


def sentence(text: str, values: Mapping[str, object], *, language: str | None = None) -> str:
    """``text % values`` with each whole number of ``values`` in the language's digits: a
    translated sentence naming counts, rounds, tables or limits (``"Round %(round)d is
    closed."`` → ``"রাউন্ড ৩ বন্ধ।"``), whatever else it names (a player's name stays as
    typed: only ``int`` values change). ``%(n)d`` and ``%(n)s`` both take a number.

    Raises what ``%`` raises: ``KeyError`` for a placeholder without a value.
    """
    loc = locale(language)
    shown = {
        name: _native(str(value), loc)
        if isinstance(value, int) and not isinstance(value, bool)
        else value
        for name, value in values.items()
    }
    return _WHOLE_PLACEHOLDER.sub(r"%(\1)s", text) % shown


def listing(
    items: Sequence[str],
    *,
    style: Literal["standard", "or"] = "standard",
    language: str | None = None,
) -> str:
    """``items`` (texts, each as it is to be shown: write numbers with :func:`digits` first)
    joined as the language lists them (CLDR list patterns through Babel): ``["41", "50"]``
    with ``style="or"`` → ``"41 or 50"``, ``"৪১ বা ৫০"`` from ``["৪১", "৫০"]`` in Bengali;
    ``"standard"`` names them all (``"2, 5, and 7"``, ``"2, 5 மற்றும் 7"``). Empty: ``""``."""
    if not items:
        return ""
    return lists.format_list(list(items), style=style, locale=locale(language))


def ascii_digits(text: str) -> str:
    """``text`` with every decimal digit of any script as its ASCII digit (``"০.২৫"`` →
    ``"0.25"``): what a form takes from a phone whose keyboard writes the language's digits,
    before the value is checked and stored in the one machine form."""
    return "".join(str(d) if (d := unicodedata.decimal(c, None)) is not None else c for c in text)


#: :func:`digits` of a lazy translation (a form's help text, made before any language is
#: active), done when the text is shown.
digits_lazy = lazy(lambda text: digits(str(text)), str)


def _pattern(loc: Locale, places: int | None) -> numbers.NumberPattern:
    """The locale's decimal pattern, with exactly ``places`` decimals when given."""
    pattern = cast(numbers.NumberPattern, loc.decimal_formats[None])
    if places is None:
        return pattern
    fixed: numbers.NumberPattern = copy.copy(pattern)
    fixed.frac_prec = (places, places)
    return fixed


def number(
    value: int | Decimal | Fraction | float | str,
    *,
    places: int | None = None,
    language: str | None = None,
) -> str:
    """A number as the language writes it: its digits, grouping, decimal sign and minus.

    Args:
        value: an ``int`` (points, stake units, counts, ranks), a ``Decimal`` or decimal
            string (money: ``"-0.75"``), a ``Fraction`` (placement points) or a float.
        places: decimals to show (rounded half-even); by default an int shows none, a decimal
            its own (``"1.50"`` keeps two), anything else up to three.
        language: a Django language code; the active language when None.

    Returns:
        ``1234`` → ``"1,234"`` (en), ``"১,২৩৪"`` (bn); ``-50`` → ``"-50"`` (ta).

    Raises:
        ValueError: ``value`` is a string that is not a decimal number.
    """
    loc = locale(language)
    if isinstance(value, str):
        try:
            value = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"not a decimal number: {value!r}") from None
    if isinstance(value, Fraction):
        value = Decimal(value.numerator) / Decimal(value.denominator)
    if places is None and isinstance(value, Decimal):
        exponent = value.as_tuple().exponent
        places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    text = _pattern(loc, places).apply(value, loc, numbering_system="default")
    return _native(text, loc)


def money(value: int | Decimal | str, currency: str | None, *, language: str | None = None) -> str:
    """A money amount in ``currency`` as the language writes it: CLDR's currency format of
    the locale (its symbol or code, where it stands, its spacing and minus), the currency's
    minor unit of decimals (ISO 4217: ``¥150``, ``US$1.50`` in Assamese' ``US$ 1.50``,
    ``KWD0.125``), the locale's digits (``১.৫০৳`` in Bengali).

    Args:
        value: the amount, an ``int``, ``Decimal`` or decimal string (``"-0.75"``).
        currency: an ISO 4217 code (``scoring.money`` admits only those); None or ``""``
            writes the number alone (:func:`number`, with its own decimals).
        language: a Django language code; the active language when None.

    Raises:
        ValueError: ``value`` is a string that is not a decimal number.
    """
    if not currency:
        return number(value, language=language)
    loc = locale(language)
    if isinstance(value, str):
        try:
            value = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"not a decimal number: {value!r}") from None
    digits = currencies.minor_unit(currency)
    if digits is None:
        text = numbers.format_currency(value, currency, locale=loc, numbering_system="default")
    else:  # ISO 4217's minor unit, where CLDR's may differ (HUF: 2, not 0)
        pattern = copy.copy(numbers.parse_pattern(loc.currency_formats["standard"]))
        pattern.frac_prec = (digits, digits)
        text = pattern.apply(
            value, loc, currency=currency, currency_digits=False, numbering_system="default"
        )
    return _native(text, loc)


def signed(value: int | Decimal | Fraction, *, language: str | None = None) -> str:
    """Points with their sign always shown (a hand's gain or loss): ``+30``, ``-50``, ``0``,
    with the locale's plus and minus signs and digits (``+৩০`` in Bengali)."""
    loc = locale(language)
    text = number(-value if value < 0 else value, language=language)
    if value > 0:
        return numbers.get_plus_sign_symbol(loc, numbering_system="default") + text
    if value < 0:
        return numbers.get_minus_sign_symbol(loc, numbering_system="default") + text
    return text


def score(value: int | Fraction | Decimal, *, language: str | None = None) -> str:
    """A standings score: a whole number as it is, any other to two decimals (``35/3`` →
    ``11.67``; ``১১.৬৭`` in Bengali)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        value = value.numerator
    if isinstance(value, int):
        return number(value, language=language)
    return number(value, places=2, language=language)


def fraction(value: int | Fraction, *, language: str | None = None) -> str:
    """A score exactly, as a fraction where it is one (``35/3``; ``৩৫/৩`` in Bengali)."""
    if isinstance(value, Fraction) and value.denominator != 1:
        top, bottom = (
            number(value.numerator, language=language),
            number(value.denominator, language=language),
        )
        return f"{top}/{bottom}"
    return number(int(value), language=language)


def _moment(moment: datetime, zone: str | tzinfo | None) -> datetime:
    """``moment`` as the clocks of ``zone`` show it; with no zone, in its own (a naive
    ``moment`` is taken as UTC, as Django stores instants)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if zone is None:
        return moment
    return moment.astimezone(ZoneInfo(zone) if isinstance(zone, str) else zone)


def date(moment: datetime, zone: str | tzinfo | None = None, *, language: str | None = None) -> str:
    """The day of ``moment`` in ``zone`` (an IANA name or tzinfo; the moment's own zone when
    None), CLDR medium date: ``Mar 15, 2026`` (en), ``১৫ মার্চ, ২০২৬`` (bn), ``২০২৬ মাৰ্চ ১৫`` (as)."""
    loc = locale(language)
    text = dates.format_date(_moment(moment, zone).date(), "medium", locale=loc)
    return _native(text, loc)


def time(moment: datetime, zone: str | tzinfo | None = None, *, language: str | None = None) -> str:
    """The time of day of ``moment`` in ``zone``, on the locale's 24-hour clock (CLDR
    skeleton ``Hm``): ``18:30`` (en, ta, fil), ``১৮:৩০`` (bn, as)."""
    loc = locale(language)
    local = _moment(moment, zone)
    text = dates.format_skeleton("Hm", local, tzinfo=local.tzinfo, locale=loc)
    return _native(text, loc)


def date_time(
    moment: datetime, zone: str | tzinfo | None = None, *, language: str | None = None
) -> str:
    """:func:`date` and :func:`time` joined by the locale's medium date-time pattern
    (``Mar 15, 2026, 18:30`` in English)."""
    loc = locale(language)
    pattern = str(dates.get_datetime_format("medium", locale=loc))
    text = pattern.replace("{1}", date(moment, zone, language=language)).replace(
        "{0}", time(moment, zone, language=language)
    )
    return text.replace("'", "")


def zone_place(zone: str, *, language: str | None = None) -> str:
    """The place a time zone is named after, in the language (CLDR exemplar city):
    ``"Asia/Kolkata"`` → ``"Kolkata"``, ``"কোলকাতা"`` in Bengali, ``"கொல்கத்தா"`` in Tamil; a
    zone CLDR names no place for (``"UTC"``, ``"Etc/GMT+5"``) or does not know: its id, its
    underscores as spaces."""
    fallback = zone.replace("_", " ")
    try:
        place = dates.get_timezone_location(zone, locale=locale(language), return_city=True)
    except (LookupError, ValueError):
        return fallback
    return place or fallback
