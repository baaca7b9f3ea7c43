"""Names sort by their language (issue 24): the one sort key of every list of names.

Every list of names a person reads (the register form's club players, the substitute form's
seats, a director's registrations and sit-outs, the new-game page's club players and clubs,
the standings' order among players tied on every score, the API's lists of registrations, the
exports) is ordered by :func:`sort_key`: the Unicode Collation Algorithm with CLDR's collation
of the language (ICU's ``Collator``, through PyICU: the ``pyicu-wheels`` package, which ships
ICU in its wheel, so ``pip`` installs it with no compiler and no system library). So:

- Assamese (``as``) puts ৰ right after য and ৱ after ল, and ক্ষ after হ (CLDR's ``as``
  tailoring); Bengali (``bn``) keeps ক্ষ among the ক words;
- Filipino (``fil``) puts ñ after n and *ng* after both (``Nico``, ``Ñora``, ``Ngo``);
- English (``en``) and every language sort accents after the plain letter, not after z
  (``Émile`` with the E words, ``Óscar`` before ``Zoë``);
- Tamil (``ta``) and every other script follow the UCA's order of letters (not code points).

Names in the language's own script come first, then the others in the UCA's script order.
Equal by the collation (the same letters at every level), names fall back to their code points
and then to the caller's tie-break (an id), so an order never depends on the database.

Which language: a tournament's lists use the tournament's language (:func:`tournament_language`:
its own, else the site's default), so every page, form, the API and the exports of one
tournament list its names alike whatever language the visitor reads them in (the standings'
tie-order also decides Swiss seating, which must not depend on who looks); lists outside a
tournament use the page's active language. Names are sorted in Python with this key, never by
the database's collation (PostgreSQL's and SQLite's differ, and neither knows the language).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import icu
from django.conf import settings
from django.utils import translation

__all__ = ["SortKey", "sort_key", "sorted_by_name", "tournament_language"]

T = TypeVar("T")

SortKey = tuple[bytes, str]
"""A name's sort key: the ICU collation key, then the name itself (equal keys: code points)."""

#: One collator per language and thread (an ICU collator is not shared between threads).
_local = threading.local()


def _collator(language: str) -> Any:
    collators: dict[str, Any] | None = getattr(_local, "collators", None)
    if collators is None:
        collators = _local.collators = {}
    collator = collators.get(language)
    if collator is None:
        collator = icu.Collator.createInstance(icu.Locale(translation.to_locale(language)))
        # names are NFC already; this makes canonically equivalent text sort alike anyway
        collator.setAttribute(icu.UCollAttribute.NORMALIZATION_MODE, icu.UCollAttributeValue.ON)
        collators[language] = collator
    return collator


def sort_key(language: str | None = None) -> Callable[[str], SortKey]:
    """The sort key of names in ``language`` (a Django language code: ``"bn"``, ``"as"``,
    ``"ta"``, ``"fil"``, ``"en"``; the active language when None): a function of a name to
    a key that sorts it by CLDR's collation of that language (see the module)."""
    collator = _collator(language or translation.get_language() or settings.LANGUAGE_CODE)

    def key(name: str) -> SortKey:
        return bytes(collator.getSortKey(name)), name

    return key


def sorted_by_name(
    items: Iterable[T],
    *,
    name: Callable[[T], str] = str,
    then: Callable[[T], Any] | None = None,
    language: str | None = None,
) -> list[T]:
    """``items`` in the order of their names (``name(item)``) by :func:`sort_key` of
    ``language``, items of equal names by ``then(item)`` (an id) where given."""
    key = sort_key(language)
    if then is None:
        return sorted(items, key=lambda item: key(name(item)))
    tie = then
    return sorted(items, key=lambda item: (key(name(item)), tie(item)))


def tournament_language(tournament: Any) -> str:
    """The language a tournament's lists of names sort by: its own language (``language``),
    else the site's default (``settings.LANGUAGE_CODE``)."""
    return str(getattr(tournament, "language", "") or settings.LANGUAGE_CODE)
