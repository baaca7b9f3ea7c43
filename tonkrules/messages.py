"""The English sentence of each rule error, declared once, keyed by its message key.

A rule error carries a stable ``detail`` code and the parameters its sentence names; the
sentence is made from them at the edge: :func:`render` in English (command line, logs,
``RuleError.message``), ``scoring.messages.error_message`` through gettext (pages, API).

Keys are the ``detail`` codes of ``shared/formats/scoresheet.md``'s errors, followed by
``.variant`` where one detail has several sentences (``value_type.spreads``). Placeholders are
named, in Python's ``%`` style (``%(player)s``, ``%(key)r``): ``player`` and ``cards`` (the
cards concerned, separated by spaces) come from the error, the others from its ``params``.

The templates are marked with :func:`gettext_noop` and :func:`ngettext_lazy`, local no-op
markers named as Django's ``makemessages`` expects, so that they land in the catalogues
without this package importing Django.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple


class Plural(NamedTuple):
    """A sentence with a singular and a plural form, chosen by the parameter ``number``."""

    singular: str
    plural: str
    number: str


Template = str | Plural
"""An English sentence template: one ``%``-style string, or a :class:`Plural`."""


class Alternatives(tuple[object, ...]):
    """A parameter naming values any one of which would do (Tonk's totals at the deal,
    ``41 or 50``): English joins them with "or"; the edge words them as the active language
    lists alternatives (``scoring.messages``: CLDR's "or" list, the language's digits)."""

    __slots__ = ()

    def __str__(self) -> str:
        return " or ".join(str(v) for v in self)


class Listing(tuple[object, ...]):
    """A parameter naming several values together (the tables still waiting, ``2, 5``):
    English joins them with commas; the edge words them as the active language lists them
    (CLDR's "standard" list, the language's digits)."""

    __slots__ = ()

    def __str__(self) -> str:
        return ", ".join(str(v) for v in self)


def gettext_noop(message: str) -> str:
    """Mark ``message`` for extraction into the catalogues; returns it unchanged."""
    return message


def ngettext_lazy(singular: str, plural: str, number: str) -> Plural:
    """Mark a sentence with a plural form for extraction; ``number`` names the parameter
    whose value chooses the form (translated later, at the edge)."""
    return Plural(singular, plural, number)


def render(
    template: Template,
    context: Mapping[str, object],
    *,
    gettext: Callable[[str], str] | None = None,
    ngettext: Callable[[str, str, int], str] | None = None,
    shown: Mapping[str, object] | None = None,
) -> str:
    """The sentence of ``template`` with ``context``'s values.

    Args:
        template: a template of :data:`RULE_MESSAGES` (or of another family's messages).
        context: the values of its placeholders.
        gettext, ngettext: the translation functions; none (the default): English.
        shown: the values as the sentence shows them, where they differ from ``context``'s
            (a count in a language's own digits); ``context`` still chooses the plural form.

    Raises:
        KeyError: a placeholder without a value.
    """
    if isinstance(template, Plural):
        count = context.get(template.number)
        n = count if isinstance(count, int) else 0
        if ngettext is None:
            text = template.singular if n == 1 else template.plural
        else:
            text = ngettext(template.singular, template.plural, n)
    else:
        text = template if gettext is None else gettext(template)
    return text % dict(context if shown is None else shown)


_ = gettext_noop

RULE_MESSAGES: dict[str, Template] = {
    # --- bad_format: the sheet, the hand object and its values ------------------------------
    "not_json": _("not JSON: %(reason)s"),
    "not_json.encoding": _("not UTF-8 text (byte %(position)s: %(reason)s)"),
    "not_json.bom": _("the text starts with a byte-order mark: save it as UTF-8 without one"),
    "not_json.duplicate_key": _("the key %(key)r is named twice in one object (at %(path)s)"),
    "not_json.constant": _("%(value)s is not a JSON number (numbers are finite)"),
    "not_json.nested": _("the JSON is nested more than %(max)s levels deep"),
    "not_text": _("the text holds a NUL or an unpaired \\u surrogate (at %(path)s)"),
    "bad_choice": _("%(key)r must be one of %(allowed)s exactly, not %(value)s"),
    "bad_choice.any_case": _(
        "%(key)r must be one of %(allowed)s (letter case aside, nothing else), not %(value)s"
    ),
    "not_an_object.hand": _("a hand must be a JSON object"),
    "not_an_object.sheet": _("a score sheet must be a JSON object"),
    "unknown_key": _("unknown key %(key)r"),
    "missing_key": _("the key %(key)r is required"),
    "missing_key.end": _("the key %(key)r is required when the hand ends by %(end)s"),
    "missing_key.went_out": _("the key %(key)r is required when a player went out"),
    "missing_key.went_out_null": _(
        "the key %(key)r is required when a player went out (when nobody went out, 'out' is null)"
    ),
    "missing_key.no_play": _("the key %(key)r is required unless the play is entered"),
    "missing_key.double_rule": _(
        "the key %(key)r is required on a tonk_out under the double_requires_new_spread house rule"
    ),
    "key_not_allowed.end": _("the key %(key)r is not allowed when the hand ends by %(end)s"),
    "key_not_allowed.nobody_out": _("the key %(key)r is not allowed when nobody went out"),
    "key_not_allowed.not_tonk_out": _("the key %(key)r is not allowed except on a tonk_out"),
    "key_not_allowed.stakes_only": _(
        "%(key)r is only for a game played for stakes, which %(title)s is not"
    ),
    "value_type.string": _("%(key)r must be a string"),
    "value_type.whole": _("%(key)r must be a whole number"),
    "value_type.whole_from": _("%(key)r must be a whole number of at least %(minimum)s"),
    "value_type.whole_of": _("%(key)r of %(player)s must be a whole number, not %(value)r"),
    "value_type.object": _("%(key)r must be an object"),
    "value_type.list": _("%(key)r must be a list"),
    "value_type.names": _("%(key)r must be a list of names"),
    "value_type.bool": _("%(key)r must be true or false"),
    "value_type.cards": _("%(key)r must hold a list of cards or one string of cards"),
    "value_type.spreads": _("%(key)r must be a list of spreads"),
    "value_type.melds": _("the melds of %(player)s must be a list of melds"),
    "value_type.tricks": _("%(key)r must be a list of tricks"),
    "cards_type": _("%(what)s must be a list of cards or one string of cards, not %(type)s"),
    "options_type": _("options must be an object"),
    "unknown_option": _("%(title)s has no house rule %(key)r"),
    "option_value": _("house rule %(key)r must be a whole number of at least %(minimum)s"),
    "option_value.bool": _("house rule %(key)r must be true or false"),
    "option_value.totals": _("house rule %(key)r must be a list of whole numbers"),
    "stake": _("'stake' must be an amount such as \"0.25\": digits, a point, no sign"),
    "currency": _("'currency' must be a three-letter code such as \"USD\""),
    # --- bad_sequence -----------------------------------------------------------------------
    "out_of_range.rounds": _("rounds are numbered 1 to %(last)s, not %(number)s"),
    "out_of_range.hands": _("hands are numbered 1 to %(last)s, not %(number)s"),
    "not_consecutive.rounds": _("round %(number)s cannot follow round %(previous)s"),
    "not_consecutive.hands": _("hand %(number)s cannot follow hand %(previous)s"),
    # --- bad_player -------------------------------------------------------------------------
    "unknown_player": _("%(player)r (%(role)s) is not a player of this game"),
    "unknown_player.near": _(
        "%(player)r (%(role)s) is not a player of this game (did you mean %(near)r?)"
    ),
    "unknown_player.in_key": _("%(player)r (in %(key)r) is not a player of this game"),
    "unknown_player.in_key_near": _(
        "%(player)r (in %(key)r) is not a player of this game (did you mean %(near)r?)"
    ),
    "missing_player": _("%(key)r must name %(player)s"),
    "player_count": _("%(title)s is played by %(min)s to %(max)s players, not %(count)s"),
    "blank_name": _("a name cannot be blank"),
    "duplicate_name": _("%(player)r and %(other)r are the same name"),
    "name_too_long": _("a name has at most %(max)s characters"),
    "name_invisible": _(
        "the name %(player)r holds an invisible or direction-control character, %(char)s "
        "(character %(position)s): type the name without it"
    ),
    # --- bad_card, too_many_copies ----------------------------------------------------------
    "not_in_deck.standard": _("%(token)r is not a card of the 52-card deck"),
    "not_in_deck.rook": _("%(token)r is not a card of the Rook deck"),
    "not_in_deck.bluke": _("%(token)r is not a card of the Bluke deck"),
    "not_a_card": _("%(token)s is not a card"),
    "copies": ngettext_lazy(
        "%(cards)s is entered %(count)s times but only %(limit)s copy is in play",
        "%(cards)s is entered %(count)s times but only %(limit)s copies are in play",
        "limit",
    ),
    # --- hand_size --------------------------------------------------------------------------
    "deal_size": _("%(player)s was dealt %(size)s cards, not %(count)s"),
    "held_too_many": _(
        "%(player)s holds %(count)s cards; nobody holds more than %(size)s between turns"
    ),
    "trick_count": ngettext_lazy(
        "hand %(number)s deals %(dealt)s card each, so the play has %(dealt)s trick, not %(count)s",
        "hand %(number)s deals %(dealt)s cards each, so the play has %(dealt)s tricks, "
        "not %(count)s",
        "dealt",
    ),
    "trick_size": ngettext_lazy(
        "trick %(trick)s has %(count)s card; each of the %(players)s players plays one",
        "trick %(trick)s has %(count)s cards; each of the %(players)s players plays one",
        "count",
    ),
    # --- bad_meld: Tonk spreads -------------------------------------------------------------
    "spread_too_short": _("a spread needs at least 3 cards"),
    "book_too_long": _("a book holds at most 4 cards"),
    "mixed.spread": _("a book needs one rank and a run needs one suit"),
    "run_repeats.spread": _("a run cannot hold the same rank twice"),
    "run_wraps.spread": _("the ace is low only: a run cannot go past the king"),
    "run_gap.spread": _("a run needs consecutive ranks, with no gap"),
    # --- bad_meld: Toonerville Rook melds ---------------------------------------------------
    "too_many_rooks": ngettext_lazy(
        "a meld may hold at most %(max)s Rook under the house rules",
        "a meld may hold at most %(max)s Rooks under the house rules",
        "max",
    ),
    "too_few_naturals": ngettext_lazy(
        "a meld needs at least %(min)s natural card",
        "a meld needs at least %(min)s natural cards",
        "min",
    ),
    "too_few_naturals.none": _("a meld needs at least one natural card"),
    "mixed": _("a set needs one number and a run needs one colour"),
    "set_too_short": _("a set needs at least 3 cards"),
    "run_too_short": _("a run needs at least 4 cards"),
    "run_too_long": _("a run holds at most 14 cards"),
    "run_repeats": _("a run cannot hold the same number twice"),
    "run_wraps": _("a run cannot wrap from 14 to 1"),
    "run_gap": _("the numbers of a run must be consecutive (with the Rooks filling gaps)"),
    # --- bad_trump --------------------------------------------------------------------------
    "turned_disagrees": _("%(cards)s was turned up, so trump is %(trump)s"),
    "turned_disagrees.none": _("%(cards)s was turned up, so trump is none"),
    # --- bad_total --------------------------------------------------------------------------
    "deal_tonk_total": _("%(player)s claims a tonk at the deal on %(total)s; it needs %(totals)s"),
    "deal_tonk_total.off": _(
        "%(player)s claims a tonk at the deal on %(total)s; "
        "it needs no total (tonks at the deal are off)"
    ),
    "deal_tonk_is_tie": _("%(player)s also holds %(total)s: that is a tie at the deal, not a tonk"),
    "deal_tie_total": _("a tie at the deal needs two players holding %(totals)s"),
    "deal_tie_total.held": _(
        "a tie at the deal needs two players holding %(totals)s; %(player)s holds %(total)s"
    ),
    "deal_tie_total.off": _(
        "a tie at the deal needs two players holding no total (tonks at the deal are off)"
    ),
    "deal_tie_total.off_held": _(
        "a tie at the deal needs two players holding no total (tonks at the deal are off); "
        "%(player)s holds %(total)s"
    ),
    # --- warnings (the hand is scored; the house rules flag it) -----------------------------
    "concealed_spread": _("%(player)s still holds a spread: %(cards)s"),
    # --- not_out ----------------------------------------------------------------------------
    "holds_cards": _("%(player)s went out but still holds cards"),
    "discard_in_last_round": _(
        "in round %(round)s a player goes out without a discard; %(player)s discarded %(cards)s"
    ),
    # --- contract_not_met -------------------------------------------------------------------
    "contract": _(
        "round %(round)s needs %(contract)s; %(player)s laid down %(runs)s run(s), %(sets)s set(s)"
    ),
    "contract.either": _(
        "round %(round)s needs %(contract)s; %(player)s laid down %(runs)s run(s), "
        "%(sets)s set(s) and %(either)s meld(s) that read either way"
    ),
    "contract.at_least": _(
        "round %(round)s needs at least %(contract)s; %(player)s laid down %(runs)s run(s), "
        "%(sets)s set(s)"
    ),
    "contract.at_least_either": _(
        "round %(round)s needs at least %(contract)s; %(player)s laid down %(runs)s run(s), "
        "%(sets)s set(s) and %(either)s meld(s) that read either way"
    ),
    "contract.nobody": _(
        "round %(round)s needs %(contract)s; the player laid down %(runs)s run(s), %(sets)s set(s)"
    ),
    "contract.nobody_either": _(
        "round %(round)s needs %(contract)s; the player laid down %(runs)s run(s), "
        "%(sets)s set(s) and %(either)s meld(s) that read either way"
    ),
    "contract.nobody_at_least": _(
        "round %(round)s needs at least %(contract)s; the player laid down %(runs)s run(s), "
        "%(sets)s set(s)"
    ),
    "contract.nobody_at_least_either": _(
        "round %(round)s needs at least %(contract)s; the player laid down %(runs)s run(s), "
        "%(sets)s set(s) and %(either)s meld(s) that read either way"
    ),
    # --- bad_bid, tricks_mismatch, illegal_play ---------------------------------------------
    "bid_range": _("%(player)s bid %(bid)s; in hand %(number)s a bid is %(low)s to %(high)s"),
    "negative": _("%(player)s cannot take %(tricks)s tricks"),
    "tricks_sum": ngettext_lazy(
        "tricks add up to %(total)s, but hand %(number)s deals %(dealt)s card each",
        "tricks add up to %(total)s, but hand %(number)s deals %(dealt)s cards each",
        "dealt",
    ),
    "tricks_disagree_with_play": ngettext_lazy(
        "%(player)s took %(played)s trick in the play, but %(entered)s are entered",
        "%(player)s took %(played)s tricks in the play, but %(entered)s are entered",
        "played",
    ),
    "revoke": _(
        "trick %(trick)s: %(player)s played %(card)s but holds %(suit)s (%(held)s) "
        "and must follow suit"
    ),
    "turned_card_played": _(
        "trick %(trick)s: %(player)s played %(cards)s, the turned-up card, which is out of play"
    ),
}
"""Each rule error's English sentence template, by message key."""

del _


def declare(messages: Mapping[str, Template], *, into: dict[str, Template]) -> None:
    """Add the templates of another layer's errors (e.g. the scoring services' rule errors)
    to the catalogue ``into``.

    Raises:
        ValueError: a key already declared with another template.
    """
    for key, template in messages.items():
        if into.get(key, template) != template:
            raise ValueError(f"the message key {key!r} is already declared")
        into[key] = template
