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

from django.utils.translation import gettext, ngettext

from tonkrules.errors import DomainError
from tonkrules.messages import render


def error_message(error: DomainError) -> str:
    """The sentence of ``error`` in the active language: its template through gettext, with
    its parameters (players, cards, numbers, keys) filled in.

    Falls back to the English ``error.message`` when the translation does not fit the
    parameters (a catalogue naming a placeholder the error lacks), so that a bad translation
    never turns a refusal into a server error.
    """
    try:
        return render(error.template, error.context(), gettext=gettext, ngettext=ngettext)
    except (KeyError, TypeError, ValueError):
        return error.message


def error_body(error: DomainError, body: dict[str, object]) -> dict[str, object]:
    """``body`` (an error's JSON object, with its ``message`` key) with the message in the
    active language; the keys and their order stay as they are."""
    return {**body, "message": error_message(error)}
