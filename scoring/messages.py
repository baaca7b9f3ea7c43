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
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, TypeVar

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from ops.l10n import digits, listing
from tonkrules.cards import Suit
from tonkrules.errors import DomainError
from tonkrules.messages import RULE_MESSAGES, Alternatives, Listing, Plural, Template, render

#: Parameters that hold an English word of the engine (marked for translation there), which
#: the sentence shows in the active language: a game's title.
TRANSLATED_PARAMS = ("title",)


#: Parameters that hold what a person typed, shown as typed (never in local digits).
AS_TYPED_PARAMS = ("value", "text", "char", "token", "key", "near")

_SHOWN_AS_TEXT = re.compile(r"%\((\w+)\)s")

#: The suits' names, for people: the card grid's rows, Bluke's trump, a sentence naming a suit.
SUIT_NAMES: Mapping[Suit, Any] = {
    Suit.SPADES: _("Spades"),
    Suit.HEARTS: _("Hearts"),
    Suit.DIAMONDS: _("Diamonds"),
    Suit.CLUBS: _("Clubs"),
}

T = TypeVar("T")
_WORDS: dict[type, Callable[[Any], object]] = {}


def words_for(kind: type[T]) -> Callable[[Callable[[T], object]], Callable[[T], object]]:
    """Register how a sentence words a parameter whose value is one of the engine's objects of
    type ``kind`` (a Rook round's ``Contract``, a ``Suit``), in the active language: the
    decorated function takes the value and returns its text. A game's adapter registers its
    own objects (``scoring.games.rook``); without one a value is shown as ``str(value)``, the
    engine's English."""

    def register(words: Callable[[T], object]) -> Callable[[T], object]:
        _WORDS[kind] = words
        return words

    return register


@words_for(Suit)
def suit_words(suit: Suit) -> str:
    """A suit as a sentence names it: its symbol and its name (``"♦ Diamonds"``)."""
    return f"{suit.symbol} {SUIT_NAMES[suit]}"


def _shown(value: object) -> object:
    """One value of a sentence as shown in the active language: registered objects in words,
    whole numbers in the language's digits, lists as the language lists them."""
    words = _WORDS.get(type(value))
    if words is not None:
        return words(value)
    if isinstance(value, Alternatives | Listing):
        items = [str(_shown(v)) for v in value]
        return listing(items, style="or") if isinstance(value, Alternatives) else listing(items)
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        return digits(str(value))
    return value


def translated_params(
    context: Mapping[str, object], template: Template | None = None
) -> dict[str, object]:
    """``context`` with the values of :data:`TRANSLATED_PARAMS` in the active language, and,
    where ``template`` is given, each number it shows as text (``%(n)s``: a count, a hand's
    number, a bid, points) in the active language's digits (``3`` → ``৩`` in Bengali and
    Assamese; unchanged in English, Tamil and Filipino), each list as the language lists
    (``41 or 50`` → ``৪১ বা ৫০``: :class:`~tonkrules.messages.Alternatives`,
    :class:`~tonkrules.messages.Listing`) and each engine object in words (:func:`words_for`:
    a round's contract, a suit). Cards are strings and stay as printed on the cards; what a
    person typed (:data:`AS_TYPED_PARAMS`) stays as typed."""
    texts = (template.singular, template.plural) if isinstance(template, Plural) else (template,)
    as_text = {name for text in texts if text for name in _SHOWN_AS_TEXT.findall(text)}
    out: dict[str, object] = {}
    for name, value in context.items():
        if name in TRANSLATED_PARAMS and isinstance(value, str):
            value = gettext(value)
        elif name in AS_TYPED_PARAMS:
            pass
        elif type(value) in _WORDS or isinstance(value, Alternatives | Listing):
            value = _shown(value)  # always text, whatever the template
        elif name in as_text:
            value = _shown(value)
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


def warning_message(warning: Mapping[str, object]) -> str:
    """The sentence of a hand's warning (``{"code", "player", "cards", "message"}``, as the
    engine stores it: Tonk's ``concealed_spread``) in the active language; the stored English
    ``message`` when its code has no sentence."""
    template = RULE_MESSAGES.get(str(warning.get("code")))
    cards = warning.get("cards")
    context = {
        "player": warning.get("player"),
        "cards": " ".join(str(c) for c in cards) if isinstance(cards, list | tuple) else "",
    }
    if template is None:
        return str(warning.get("message", ""))
    try:
        return render(template, context, gettext=gettext, ngettext=ngettext)
    except (KeyError, TypeError, ValueError):
        return str(warning.get("message", ""))
