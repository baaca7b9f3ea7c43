"""The score-sheet interchange format, version 1 (shared/formats/scoresheet.md).

:func:`read_sheet` checks a whole sheet (top level first, then each hand in order, reporting
the first error); :func:`score_sheet` scores it; :func:`score_sheet_json` is what
``manage.py scoresheet score`` prints: ``(0, result)`` or ``(2, {"error": ...})``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Any

from .choices import one_of
from .errors import DomainError, FormatError, RuleError
from .games import GameRules, HandScore, Options, find_game, hand_object
from .jsontext import hand_position, read_json
from .messages import Template
from .names import clean_names

FORMAT = "tabletally.scoresheet/1"
RESULT_FORMAT = "tabletally.result/1"
TOP_KEYS = frozenset({"format", "game", "players", "options", "stake", "currency", "hands"})
REQUIRED_TOP_KEYS = ("format", "game", "players", "hands")
_STAKE = re.compile(r"[0-9]+(\.[0-9]+)?")
_CURRENCY = re.compile(r"[A-Za-z]{3}")


class SheetError(DomainError):
    """A score sheet that breaks a rule or the format: a :class:`RuleError` and where it is.

    It has the rule error's ``code``, message key and parameters (so its sentence is the rule
    error's), plus the hand at fault.

    Args:
        error: the rule error.
        hand: the 1-based position in ``hands`` of the hand at fault; None for a top-level error.
        number: where a service stores hands under numbers that differ from their position
            (after a void), the hand's number; printed as an extra ``number`` key.
    """

    def __init__(
        self, error: RuleError, hand: int | None = None, *, number: int | None = None
    ) -> None:
        self.error = error
        self.hand = hand
        self.number = number
        self.code = error.code
        super().__init__(error.key, params=error.params)

    @property
    def template(self) -> Template:
        """The rule error's sentence template."""
        return self.error.template

    def context(self) -> dict[str, object]:
        """The rule error's values (its ``params``, player and cards)."""
        return self.error.context()

    def to_json(self) -> dict[str, object]:
        """The error object the format prints: ``{"error": {"hand", "code", ...}}``."""
        body: dict[str, object] = {}
        if self.hand is not None:
            body["hand"] = self.hand
        if self.number is not None:
            body["number"] = self.number
        body.update(self.error.to_dict())
        return {"error": body}


@dataclass(frozen=True)
class Sheet:
    """A checked score sheet: the game, the seated players, the house rules and the hands."""

    game: GameRules[Any, Any]
    players: tuple[str, ...]
    options: Options
    hands: tuple[Any, ...]
    stake: Decimal | None = None
    currency: str | None = None
    options_given: dict[str, object] | None = None

    def to_json(self) -> dict[str, object]:
        """The canonical score sheet (canonical card notation, the format's keys only)."""
        out: dict[str, object] = {
            "format": FORMAT,
            "game": self.game.name,
            "players": list(self.players),
        }
        if self.options_given:
            out["options"] = self.options_given
        if self.stake is not None:
            out["stake"] = str(self.stake)
        if self.currency is not None:
            out["currency"] = self.currency
        out["hands"] = [self.game.hand_to_json(h) for h in self.hands]
        return out


@dataclass(frozen=True)
class SheetResult:
    """The scores of a sheet: per hand, totals, ranking and (Tonk with a stake) money."""

    sheet: Sheet
    hands: tuple[HandScore, ...]
    totals: dict[str, int]
    ranking: list[list[str]]
    money: dict[str, Decimal] | None = None

    def to_json(self) -> dict[str, object]:
        """The result object of the format."""
        hands: list[dict[str, object]] = []
        for score in self.hands:
            entry: dict[str, object] = {"scores": dict(score.scores)}
            if score.warnings:
                entry["warnings"] = [w.to_json() for w in score.warnings]
            hands.append(entry)
        out: dict[str, object] = {
            "format": RESULT_FORMAT,
            "game": self.sheet.game.name,
            "players": list(self.sheet.players),
            "hands": hands,
            "totals": self.totals,
            "ranking": self.ranking,
        }
        if self.money is not None:
            out["money"] = {p: format(v, "f") for p, v in self.money.items()}
        return out


def _top(
    data: object,
) -> tuple[GameRules[Any, Any], tuple[str, ...], Options, Decimal | None, str | None, list[object]]:
    data = hand_object(data, allowed=TOP_KEYS, required=REQUIRED_TOP_KEYS, kind="sheet")
    one_of(data["format"], (FORMAT,), key="format")
    game = find_game(data["game"])
    players = data["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise FormatError("value_type.names", params={"key": "players"})
    if not isinstance(data["hands"], list):
        raise FormatError("value_type.list", params={"key": "hands"})
    stake = currency = None
    if not game.has_stakes:
        for key in ("stake", "currency"):
            if key in data:
                raise FormatError(
                    "key_not_allowed.stakes_only", params={"key": key, "title": game.title}
                )
    if "stake" in data:
        stake = parse_stake(data["stake"])
    if "currency" in data:
        currency = parse_currency(data["currency"])
    if "options" in data and not isinstance(data["options"], dict):
        raise FormatError("value_type.object", params={"key": "options"})
    options = game.options(data.get("options"))
    players = clean_names(players)
    game.verify_players(players)
    return game, players, options, stake, currency, data["hands"]


def parse_stake(value: object) -> Decimal:
    """The money value of one Tonk stake unit, from a decimal string such as ``"0.25"``.

    Raises:
        FormatError: not a string of digits with an optional decimal point.
    """
    if not isinstance(value, str) or not _STAKE.fullmatch(value):
        raise FormatError("stake")
    return Decimal(value)


def parse_currency(value: object) -> str:
    """A currency code: three ASCII letters, returned in capitals (``"usd"`` → ``"USD"``).

    Raises:
        FormatError: anything else (``"dollars"``).
    """
    if not isinstance(value, str) or not _CURRENCY.fullmatch(value):
        raise FormatError("currency")
    return value.upper()


def read_sheet(data: object) -> Sheet:
    """Check a score sheet, top level first, then each hand in order.

    Args:
        data: the parsed JSON of a score sheet.

    Raises:
        SheetError: the first error, with the 1-based hand position where it is in a hand.
    """
    try:
        game, players, options, stake, currency, raw_hands = _top(data)
    except RuleError as exc:
        raise SheetError(exc) from exc
    hands = []
    previous = None
    for i, raw in enumerate(raw_hands, 1):
        try:
            hand = game.read_hand(raw, players=players, options=options, previous=previous)
        except RuleError as exc:
            raise SheetError(exc, i) from exc
        hands.append(hand)
        previous = game.schedule_number(hand)
    assert isinstance(data, dict)
    given = data.get("options") or None
    return Sheet(game, players, options, tuple(hands), stake, currency, given)


def score(sheet: Sheet) -> SheetResult:
    """Score a checked sheet: each hand, the totals, the ranking and the money."""
    game, players = sheet.game, sheet.players
    scores = tuple(game.score_hand(h, players=players, options=sheet.options) for h in sheet.hands)
    totals = {p: sum(s.scores[p] for s in scores) for p in players}
    amounts = None
    if sheet.stake is not None:
        amounts = {p: money(sheet.stake, totals[p]) for p in players}
    return SheetResult(sheet, scores, totals, game.rank(totals, players), amounts)


def money(stake: Decimal, units: int) -> Decimal:
    """``units`` (stake units) times ``stake`` (money), exactly, with the stake's decimal
    places; never ``-0``."""
    with localcontext() as ctx:
        ctx.prec = len(stake.as_tuple().digits) + len(str(abs(units))) + 2
        amount = stake * units
    return abs(amount) if amount == 0 else amount


def score_sheet(data: object) -> SheetResult:
    """Check and score a score sheet (the parsed JSON).

    Raises:
        SheetError: the sheet breaks a rule or the format.
    """
    return score(read_sheet(data))


def score_sheet_json(data: object) -> tuple[int, dict[str, object]]:
    """What ``manage.py scoresheet score`` prints: ``(0, result object)`` or
    ``(2, {"error": {...}})``."""
    try:
        return 0, score_sheet(data).to_json()
    except SheetError as exc:
        return 2, exc.to_json()


def parse_json(text: str | bytes) -> object:
    """Parse a score sheet's JSON text with the one strict reader
    (:func:`tonkrules.jsontext.read_json`: UTF-8 without a byte-order mark, no key named twice,
    no NaN, no NUL or unpaired surrogate, not nested too deep).

    Raises:
        SheetError: ``bad_format``; a fault inside a hand carries that hand's position.
    """
    try:
        return read_json(text)
    except FormatError as exc:
        raise SheetError(exc, hand_position(exc)) from exc
