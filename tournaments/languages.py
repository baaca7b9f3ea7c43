"""A tournament's language (issue 15): read as the API and the page send it, and found for a
page of the tournament (``ops.languages.hinted``: its public pages, big screen and table cards
are in it for a visitor who chose none)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ops import languages
from tonkrules.choices import one_of
from tonkrules.errors import FormatError
from tournaments.errors import TournamentError
from tournaments.models import Tournament


def language_read(value: object) -> str:
    """A tournament's language as given: "" (none) or one of ``settings.LANGUAGES``' codes
    exactly, read by the one reader of enumerated fields (``tonkrules.choices.one_of``).

    Raises:
        TournamentError: anything else (a code not ours, another case, spaces, not a string):
            ``bad_format`` (detail ``bad_choice``) naming the field, the codes and the value.
    """
    if value == "":
        return ""
    try:
        return one_of(value, languages.codes(), key="language")
    except FormatError as exc:
        raise TournamentError.because("bad_format", exc, field="language") from exc


def tournament_language(url_kwargs: Mapping[str, Any]) -> str | None:
    """The language a tournament's page asks for (``ops.languages.hinted``): the language of
    the tournament named by the URL's ``tournament_id``; None when it has none, or there is no
    such tournament (the view answers 404). One query."""
    pk = url_kwargs.get("tournament_id")
    if not isinstance(pk, int):
        return None
    language = Tournament.objects.filter(pk=pk).values_list("language", flat=True).first()
    return language or None
