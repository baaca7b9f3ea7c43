"""The one reader of the score-sheet format's enumerated fields (shared/formats/scoresheet.md:
"A field with a fixed set of values must be one of them exactly, letter case aside where the
tables say case-insensitive; surrounding spaces are allowed in card notation only").

The fields it reads, each by :func:`one_of`:

- ``format``: ``tabletally.scoresheet/1``;
- ``game``: the registered games (``tonk``, ``rook``, ``bluke``);
- Tonk ``end``: ``deal_tonk``, ``deal_tonk_tie``, ``tonk_out``, ``out_on_discard``, ``knock``,
  ``stock_out``;
- Bluke ``trump``: ``S``, ``H``, ``D``, ``C``, ``none``, the only case-insensitive one;
- every house-rule option with fixed values (``caught_low_bonus``, ``stock_tie``,
  ``contract_mode``, ``bluke_lead_rule``: ``tonkrules.games.choice``).

No stripping, no Unicode folding: ``" H"``, ``"H "``, ``"Ｈ"`` (full width), ``"Н"`` (Cyrillic)
and ``""`` are refused, and so is a value that is not a string.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .errors import FormatError

_SHOWN = 40
"""The most characters of a refused value the error repeats."""


def one_of(value: object, allowed: Sequence[str], *, key: str, any_case: bool = False) -> str:
    """The allowed value ``value`` names, in its canonical spelling (as written in ``allowed``).

    Args:
        value: the JSON value as given.
        allowed: the values of the field, canonical spelling, ASCII.
        key: the field's name, for the error.
        any_case: the format says the field is case-insensitive: ASCII letter case is ignored
            (only ASCII: ``"ſ"`` is not ``"s"``, nor the Kelvin sign ``"K"``).

    Raises:
        FormatError: ``bad_format`` (``bad_choice``, or ``bad_choice.any_case``) naming the
            field, the allowed values and the value given (as JSON, so a space or a look-alike
            letter shows).
    """
    if isinstance(value, str):
        if value in allowed:
            return value
        if any_case and value.isascii():
            folded = {a.lower(): a for a in allowed}
            if value.lower() in folded:
                return folded[value.lower()]
    shown = json.dumps(value)
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 1] + "…"
    raise FormatError(
        "bad_choice.any_case" if any_case else "bad_choice",
        params={"key": key, "allowed": ", ".join(allowed), "value": shown},
    )
