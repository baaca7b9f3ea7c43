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

import re
from collections.abc import Mapping
from decimal import Decimal

from django.utils.translation import gettext, ngettext

from ops.l10n import digits
from tonkrules.errors import DomainError
from tonkrules.messages import Plural, Template, render

#: Parameters that hold an English word of the engine (marked for translation there), which
#: the sentence shows in the active language: a game's title.
TRANSLATED_PARAMS = ("title",)


#: Parameters that hold what a person typed, shown as typed (never in local digits).
AS_TYPED_PARAMS = ("value", "text", "char", "token", "key", "near")

_SHOWN_AS_TEXT = re.compile(r"%\((\w+)\)s")


def translated_params(
    context: Mapping[str, object], template: Template | None = None
) -> dict[str, object]:
    """``context`` with the values of :data:`TRANSLATED_PARAMS` in the active language, and,
    where ``template`` is given, each number it shows as text (``%(n)s``: a count, a hand's
    number, a bid, points) in the active language's digits (``3`` → ``৩`` in Bengali and
    Assamese; unchanged in English, Tamil and Filipino). Cards are strings and stay as printed
    on the cards; what a person typed (:data:`AS_TYPED_PARAMS`) stays as typed."""
    texts = (template.singular, template.plural) if isinstance(template, Plural) else (template,)
    as_text = {name for text in texts if text for name in _SHOWN_AS_TEXT.findall(text)}
    out: dict[str, object] = {}
    for name, value in context.items():
        if name in TRANSLATED_PARAMS and isinstance(value, str):
            value = gettext(value)
        elif (
            name in as_text
            and name not in AS_TYPED_PARAMS
            and isinstance(value, int | Decimal)
            and not isinstance(value, bool)
        ):
            value = digits(str(value))
        out[name] = value
    return out


def error_message(error: DomainError) -> str:
    """The sentence of ``error`` in the active language: its template through gettext, with
    its parameters (players, cards, numbers in the language's digits, keys) filled in.

    Falls back to the English ``error.message`` when the translation does not fit the
    parameters (a catalogue naming a placeholder the error lacks), so that a bad translation
    never turns a refusal into a server error.
    """
    try:
        context = error.context()
        return render(
            error.template,
            context,
            gettext=gettext,
            ngettext=ngettext,
            shown=translated_params(context, error.template),
        )
    except (KeyError, TypeError, ValueError):
        return error.message


def error_body(error: DomainError, body: dict[str, object]) -> dict[str, object]:
    """``body`` (an error's JSON object, with its ``message`` key) with the message in the
    active language; the keys and their order stay as they are."""
    return {**body, "message": error_message(error)}
