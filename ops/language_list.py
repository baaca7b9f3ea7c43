"""The list of languages, read from the one place it is written: ``settings.LANGUAGES``.

Models, forms, serializers, the Makefile (``make messages``: ``manage.py languages --translated``)
and the tests read it from here, so adding a language is one line in the settings (and its
catalogues in ``locale/<code>/``), with no migration: the models' ``choices`` is the callable
:func:`choices`, which a migration records by name, not by value. Imports nothing of the
project (``ops.models`` reads it).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.conf import settings
from django.conf.locale import LANG_INFO


def codes() -> list[str]:
    """The codes of ``settings.LANGUAGES``, in their order (``["en", "bn", …]``)."""
    return [code for code, _name in settings.LANGUAGES]


def translated_codes() -> list[str]:
    """The codes with a catalogue of their own: every one but ``settings.LANGUAGE_CODE``
    (English, the language of the source strings)."""
    return [code for code in codes() if code != settings.LANGUAGE_CODE]


def non_latin_codes() -> list[str]:
    """The languages whose own script is not Latin (Bengali, Tamil, Assamese), by the first
    letter of their own name (Django's ``LANG_INFO``; the settings add Filipino and Assamese):
    a Latin word in one of their sentences is English left untranslated."""
    return [
        code
        for code in translated_codes()
        if not unicodedata.name(str(LANG_INFO[code]["name_local"])[0]).startswith("LATIN")
    ]


def choices() -> list[tuple[str, Any]]:
    """``settings.LANGUAGES`` as model and form choices (code, name in the active language)."""
    return list(settings.LANGUAGES)
