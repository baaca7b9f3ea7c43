"""The one place where a domain error becomes the sentence a person reads, translated.

Every domain error (``tonkrules.errors.DomainError``: the engine's rule errors, score-sheet
errors, the scoring conflicts, the tournaments' refusals) carries a stable code, a message key
and its parameters; its English template is declared once, beside its family
(``tonkrules.messages.RULE_MESSAGES``, ``scoring.errors.CONFLICT_MESSAGES``,
``tournaments.errors.TOURNAMENT_MESSAGES``). Pages, forms and the API render it here, through
gettext in the active language; the command line renders the same template in English
(``err.message``).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext, ngettext

from tonkrules.errors import DomainError
from tonkrules.messages import render

#: Parameters that hold an English word of the engine (marked for translation there), which
#: the sentence shows in the active language: a game's title.
TRANSLATED_PARAMS = ("title",)


def translated_params(context: Mapping[str, object]) -> dict[str, object]:
    """``context`` with the values of :data:`TRANSLATED_PARAMS` in the active language."""
    return {
        name: gettext(value) if name in TRANSLATED_PARAMS and isinstance(value, str) else value
        for name, value in context.items()
    }


def error_message(error: DomainError) -> str:
    """The sentence of ``error`` in the active language: its template through gettext, with
    its parameters (players, cards, numbers, keys) filled in.

    Falls back to the English ``error.message`` when the translation does not fit the
    parameters (a catalogue naming a placeholder the error lacks), so that a bad translation
    never turns a refusal into a server error.
    """
    try:
        return render(
            error.template, translated_params(error.context()), gettext=gettext, ngettext=ngettext
        )
    except (KeyError, TypeError, ValueError):
        return error.message


def error_body(error: DomainError, body: dict[str, object]) -> dict[str, object]:
    """``body`` (an error's JSON object, with its ``message`` key) with the message in the
    active language; the keys and their order stay as they are."""
    return {**body, "message": error_message(error)}
