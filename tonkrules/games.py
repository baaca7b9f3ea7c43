"""What the three games share: the game registry, house-rule options, hand reading helpers,
scores, warnings and rankings.

A game is a registered object (:func:`find_game`); its house rules are a frozen dataclass
validated against declared keys, so a variant is an option, never a copy of the code. Each game
has a ``rules_version`` that is stored with every scored hand.

It stays one module (about 580 lines): it is the one base every game module builds on, and
its four short sections (options, hand reading, results, the rules class and its registry) are
read together with :class:`GameRules`, whose methods use them all.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar, Generic, Literal, TypeVar

from .choices import one_of
from .errors import FormatError, PlayerError
from .messages import gettext_noop as gettext_noop  # games' labels are marked with it
from .names import same_name, seated_name

# --- house-rule options ---------------------------------------------------------------------

OptionParser = Callable[[str, object], object]


def option(default: object, parse: OptionParser, help: str) -> Any:
    """Declare one house-rule option of a game's options dataclass.

    Args:
        default: the value when the key is absent (the rules' **(default)**).
        parse: turns the JSON value into the option's value, raising ``FormatError``.
        help: one line for people choosing the option.
    """
    return field(default=default, metadata={"parse": parse, "help": help})


def boolean(key: str, value: object) -> bool:
    """Parse a ``true``/``false`` option."""
    if not isinstance(value, bool):
        raise FormatError("option_value.bool", params={"key": key})
    return value


def _whole(key: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise FormatError("option_value", params={"key": key, "minimum": minimum})
    return value


def described(parser: OptionParser, schema: Mapping[str, object]) -> OptionParser:
    """``parser``, with the JSON Schema (OpenAPI 3.0) of the values it accepts as its
    ``json_schema`` attribute: the API's schema of a game's options is made from them
    (:meth:`Options.json_schema`)."""
    parser.json_schema = dict(schema)  # type: ignore[attr-defined]
    return parser


described(boolean, {"type": "boolean"})


def whole(minimum: int) -> OptionParser:
    """Parser of a whole-number option of at least ``minimum``."""
    return described(
        lambda key, value: _whole(key, value, minimum), {"type": "integer", "minimum": minimum}
    )


def whole_or_none(minimum: int) -> OptionParser:
    """Parser of an option that is a whole number of at least ``minimum``, or ``null``."""
    return described(
        lambda key, value: None if value is None else _whole(key, value, minimum),
        {"type": "integer", "minimum": minimum, "nullable": True},
    )


E = TypeVar("E", bound=Enum)


def choice(enum: type[E]) -> OptionParser:
    """Parser of an option that takes one of an enum's values, exactly
    (:func:`tonkrules.choices.one_of`)."""

    def parse(key: str, value: object) -> E:
        return enum(one_of(value, tuple(str(m.value) for m in enum), key=key))

    return described(parse, {"type": "string", "enum": [str(m.value) for m in enum]})


@dataclass(frozen=True)
class Options:
    """Base of each game's house-rule options (a frozen dataclass of :func:`option` fields)."""

    @classmethod
    def from_json(cls, raw: object, *, game: str) -> Options:
        """Build the options from a JSON object; absent keys take their defaults.

        Raises:
            FormatError: not an object, an unknown key (an option the game does not have),
                or a value of the wrong type.
        """
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise FormatError("options_type")
        known = {f.name: f for f in fields(cls)}
        values: dict[str, object] = {}
        for key, value in raw.items():
            if key not in known:
                raise FormatError("unknown_option", params={"title": game, "key": key})
            values[key] = known[key].metadata["parse"](key, value)
        return cls(**values)

    def to_json(self) -> dict[str, object]:
        """Every option with its value, as JSON."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def json_schema(cls) -> dict[str, object]:
        """The JSON Schema (OpenAPI 3.0) of the options object :meth:`from_json` reads: each
        option's key with the schema its parser declares (:func:`described`), its default and
        help; no other key."""
        properties: dict[str, object] = {}
        for f in fields(cls):
            schema = dict(getattr(f.metadata["parse"], "json_schema", {}))
            schema["description"] = f.metadata["help"]
            if f.default is not None:
                schema["default"] = _jsonable(f.default)
            properties[f.name] = schema
        return {"type": "object", "properties": properties, "additionalProperties": False}

    @classmethod
    def describe(cls) -> list[dict[str, object]]:
        """Each option's key, default and one-line explanation (for pages and docs)."""
        return [
            {"key": f.name, "default": _jsonable(f.default), "help": f.metadata["help"]}
            for f in fields(cls)
        ]


def _jsonable(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


# --- reading a hand as entered ------------------------------------------------------------


def hand_object(
    raw: object,
    *,
    allowed: Collection[str],
    required: Collection[str],
    kind: Literal["hand", "sheet"] = "hand",
) -> dict[str, object]:
    """Check an object's keys (a hand, or the sheet itself: ``kind``): an object, no unknown
    key, every required key present.

    Raises:
        FormatError: not an object, an unknown key, or a required key missing.
    """
    if not isinstance(raw, dict):
        raise FormatError("not_an_object.sheet" if kind == "sheet" else "not_an_object.hand")
    for key in raw:
        if key not in allowed:
            raise FormatError("unknown_key", params={"key": key})
    for key in required:
        if key not in raw:
            raise FormatError("missing_key", params={"key": key})
    return raw


def forbid(raw: Mapping[str, object], key: str, why: str, **params: object) -> None:
    """Raise ``FormatError`` when ``key`` is given where the format does not allow it.

    ``why`` is the variant of ``key_not_allowed`` saying when (``end``: when the hand ends
    by ``params["end"]``); ``params`` are the values its sentence names.
    """
    if key in raw:
        raise FormatError(f"key_not_allowed.{why}", params={"key": key, **params})


def require(raw: Mapping[str, object], key: str, why: str, **params: object) -> None:
    """Raise ``FormatError`` when ``key`` is absent where the format requires it.

    ``why`` is the variant of ``missing_key`` saying when (``end``: when the hand ends by
    ``params["end"]``); ``params`` are the values its sentence names.
    """
    if key not in raw:
        raise FormatError(f"missing_key.{why}", params={"key": key, **params})


def text(raw: Mapping[str, object], key: str) -> str:
    """A string value. Raises ``FormatError`` otherwise."""
    value = raw[key]
    if not isinstance(value, str):
        raise FormatError("value_type.string", params={"key": key})
    return value


def whole_number(raw: Mapping[str, object], key: str) -> int:
    """A whole-number value (``true`` is not a number). Raises ``FormatError`` otherwise."""
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError("value_type.whole", params={"key": key})
    return value


def obj(raw: Mapping[str, object], key: str) -> dict[str, object]:
    """An object value (player → something). Raises ``FormatError`` otherwise."""
    value = raw[key]
    if not isinstance(value, dict):
        raise FormatError("value_type.object", params={"key": key})
    return value


def cards_value(value: object, *, key: str, player: str | None = None) -> object:
    """Check that a list of cards is a JSON list or one string. Raises ``FormatError``."""
    if not isinstance(value, (list, str)):
        raise FormatError("value_type.cards", player=player, params={"key": key})
    return value


_V = TypeVar("_V")


def player_of(
    name: str, players: Sequence[str], *, role: str = "", in_key: str | None = None
) -> str:
    """The seated player ``name`` names, spelled exactly as seated once NFC-normalised
    (``tonkrules.names.seated_name``: "José" with a decomposed accent names the seat
    "José").

    ``role`` says what the name is (``dealer``, ``by``, ``out``); ``in_key``, the key of the
    player → value object the name is a key of, instead.

    Returns:
        The seated player's name, as seated.

    Raises:
        PlayerError: ``name`` holds an invisible or direction-control character
            (``name_invisible``), or is not a seated player's spelling (``unknown_player``;
            the message suggests the seated player whose name is the same name by
            ``tonkrules.names.name_key``: letter case or spaces aside).
    """
    if name in players:
        return name
    seated = seated_name(name, players)
    if seated is not None:
        return seated
    near = [p for p in players if same_name(p, name)]
    params: dict[str, object] = {"role": role}
    variants = []
    if in_key is not None:
        params["key"] = in_key
        variants.append("in_key")
    if near:
        params["near"] = near[0]
        variants.append("near")
    variant = "_".join(variants)
    key = f"unknown_player.{variant}" if variant else "unknown_player"
    raise PlayerError(key, player=name, params=params)


def players_of(mapping: Mapping[str, _V], players: Sequence[str], *, key: str) -> dict[str, _V]:
    """A player → value object keyed by the seated names (:func:`player_of` for each key).

    Raises:
        PlayerError: a key is not a player; two keys name the same player
            (``duplicate_name``, naming both).
    """
    out: dict[str, _V] = {}
    given: dict[str, str] = {}
    for name, value in mapping.items():
        seated = player_of(name, players, in_key=key)
        if seated in out:
            raise PlayerError("duplicate_name", player=name, params={"other": given[seated]})
        out[seated] = value
        given[seated] = name
    return out


def require_players(mapping: Mapping[str, object], needed: Sequence[str], *, key: str) -> None:
    """Check that a player → value object names every player in ``needed``.

    Raises:
        PlayerError: a needed player is missing; the error names them.
    """
    for name in needed:
        if name not in mapping:
            raise PlayerError("missing_player", player=name, params={"key": key})


# --- results ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Warning:
    """Something the house rules flag without rejecting the hand (Tonk ``concealed_spread``)."""

    code: str
    player: str | None
    cards: tuple[str, ...]
    message: str

    def to_json(self) -> dict[str, object]:
        """The warning object of the result format."""
        return {
            "code": self.code,
            "player": self.player,
            "cards": list(self.cards),
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class HandScore:
    """The scores of one hand or round, with the facts tie-breaks need.

    Attributes:
        scores: player → points (Rook, Bluke) or stake units (Tonk), in seat order.
        warnings: house-rule warnings.
        went_out: who went out (Rook: ``out``; Tonk: ``by`` on a tonk out or out on the
            discard); empty otherwise.
        made: Bluke: the players who made their bid; None for the other games.
        won: who won the hand: the best score of the hand (highest; lowest for Rook), shared
            by ties; nobody when every player scored the same.
        facts: further per-game details for pages, e.g. ``{"tricks": {...}}`` (Bluke).
    """

    scores: Mapping[str, int]
    warnings: tuple[Warning, ...] = ()
    went_out: tuple[str, ...] = ()
    made: tuple[str, ...] | None = None
    won: tuple[str, ...] = ()
    facts: Mapping[str, object] = field(default_factory=dict)


def hand_winners(scores: Mapping[str, int], *, lower_wins: bool) -> tuple[str, ...]:
    """The players with the best score of a hand, in seat order; nobody when all are equal."""
    values = set(scores.values())
    if len(values) <= 1:
        return ()
    best = min(values) if lower_wins else max(values)
    return tuple(p for p, v in scores.items() if v == best)


def rank_players(
    totals: Mapping[str, int], players: Sequence[str], *, lower_wins: bool
) -> list[list[str]]:
    """Players best first, tied players together in seat order.

    Args:
        totals: player → total.
        players: seat order.
        lower_wins: True for Rook (lowest total wins), False for Tonk and Bluke.
    """
    values = sorted({totals[p] for p in players}, reverse=not lower_wins)
    return [[p for p in players if totals[p] == v] for v in values]


@dataclass(frozen=True, slots=True)
class TieBreak:
    """One tie-break column of a game's tournament standings, applied after the total.

    Attributes:
        key: the column's stable key (``"rounds_out"``).
        label: its title, plain English marked with :func:`gettext_noop`.
        explanation: one line saying what it counts and which way is better (English).
        higher_is_better: the direction: True when more is better.
        source: what it is computed from, per player over their own results:
            ``"went_out"``, ``"bids_made"`` or ``"won"``: the number of hands with that fact
            (:class:`HandScore`); ``"best_round"``: the best total of one round at one table
            (``higher_is_better`` says which end is best); ``"best_hand"``: the best single
            hand's score.
    """

    key: str
    label: str
    explanation: str
    higher_is_better: bool
    source: str


#: The values :attr:`TieBreak.source` may take: counts of flagged hands, then bests.
TIEBREAK_COUNTS = ("went_out", "bids_made", "won")
TIEBREAK_BESTS = ("best_round", "best_hand")


@dataclass(frozen=True, slots=True)
class TableSizes:
    """A tournament's default table sizes for a game: the sizes a table may seat
    (``allowed``, players, ascending) and the one seating makes as many of as it can."""

    allowed: tuple[int, ...]
    preferred: int


OptionsT = TypeVar("OptionsT", bound=Options)
HandT = TypeVar("HandT")


class GameRules(ABC, Generic[OptionsT, HandT]):
    """The rules of one game, as a registered object: everything the rest of the project
    needs to know about the game, its options, its hand reader and its scorer.

    ``read_hand`` makes every check of the game's "What is checked" section, in the order of
    the format's check list, and returns an immutable hand record; ``score_hand`` turns a
    record into scores. The class attributes declare the rest (labels are plain English marked
    with :func:`gettext_noop`, translated by the Django layer):

    - ``name`` (the registry key, ``"rook"``) and ``title`` (its label, ``"Toonerville Rook"``);
    - ``min_players``..``max_players``;
    - the schedule: ``number_key`` (``"round"``, ``"hand"``; None when hands are not numbered,
      Tonk) and ``schedule_length`` (the rounds or hands of a whole game; None for Tonk),
      :meth:`cards_dealt`, ``schedule_wraps`` (a tournament's rounds continue the sequence,
      starting again at 1 after the last) and :meth:`sequence_start`;
    - who wins: ``lower_wins``; the tie-breaks: ``tiebreaks`` (:class:`TieBreak`, in order);
    - the tournament defaults: ``table_sizes`` (:class:`TableSizes`),
      ``default_hands_per_round``, ``max_hands_per_round``, ``max_rounds``,
      ``default_rounds``;
    - ``unit`` (``"stake units"`` or ``"points"``) and ``has_stakes`` (played for money:
      a stake, a currency and settling up);
    - ``options_type``: the house-rule options.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    rules_version: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    lower_wins: ClassVar[bool]
    unit: ClassVar[str]
    """``"stake units"`` or ``"points"``."""
    has_stakes: ClassVar[bool] = False
    """Played for stakes: a game may carry a stake and a currency, and be settled up. Such a
    game's hands must score zero-sum (stake units paid between the players, as Tonk's do:
    rules/tonk.md, "Every hand's payouts sum to zero"): settling up pays the nets off."""
    number_key: ClassVar[str | None]
    """The key numbering hands (``"round"``, ``"hand"``), or None when hands are not numbered."""
    schedule_length: ClassVar[int | None] = None
    """The rounds (hands) of a whole game of a numbered game; None when there is no schedule."""
    schedule_wraps: ClassVar[bool] = False
    """A tournament's rounds continue the schedule, hand 1 again after the last (Bluke)."""
    tiebreaks: ClassVar[tuple[TieBreak, ...]] = ()
    """The tie-break columns of the tournament standings, in the order they are applied."""
    table_sizes: ClassVar[TableSizes]
    """A tournament's default table sizes."""
    default_hands_per_round: ClassVar[int] = 1
    """Hands a tournament round plays unless the director says otherwise."""
    max_hands_per_round: ClassVar[int] = 99
    """The most hands a tournament round may play (Rook: 1, one contract round)."""
    max_rounds: ClassVar[int] = 99
    """The most rounds a tournament of this game may have."""
    default_rounds: ClassVar[int | None] = None
    """A tournament's rounds unless the director says otherwise; None: the director must say
    (Rook: 11, one per contract)."""
    options_type: ClassVar[type[Options]]

    @property
    def label(self) -> str:
        """The game's name as people know it (English; translate it with gettext)."""
        return self.title

    def options(self, raw: object = None) -> OptionsT:
        """The game's house rules from a JSON object (missing keys take their defaults).

        Raises:
            FormatError: an unknown key or a bad value.
        """
        return self.options_type.from_json(raw, game=self.title)  # type: ignore[return-value]

    def verify_players(self, players: Sequence[str]) -> None:
        """Check the number of seated players.

        Raises:
            PlayerError: too few or too many players for the game.
        """
        n = len(players)
        if not self.min_players <= n <= self.max_players:
            raise PlayerError(
                "player_count",
                params={
                    "count": n,
                    "title": self.title,
                    "min": self.min_players,
                    "max": self.max_players,
                },
            )

    def cards_dealt(self, number: int) -> int | None:
        """Cards dealt to each player in round (hand) ``number`` of the schedule; None for a
        game without a schedule."""
        return None

    def sequence_start(self, round_number: int, hands_per_round: int) -> int | None:
        """The first round (hand) number that tournament round ``round_number`` (1, 2, ...)
        plays when each round plays ``hands_per_round`` of them; None for a game without a
        schedule (each round is a fresh sitting). By default round ``r`` continues where
        round ``r - 1`` stopped, starting again at 1 after the last when
        ``schedule_wraps``."""
        if self.schedule_length is None:
            return None
        start = (round_number - 1) * hands_per_round
        if self.schedule_wraps:
            start %= self.schedule_length
        return start + 1

    @abstractmethod
    def read_hand(
        self, raw: object, *, players: Sequence[str], options: OptionsT, previous: int | None = None
    ) -> HandT:
        """Read and check one hand (or round) as entered.

        Args:
            raw: the hand object of the score-sheet format.
            players: the seated players, in seat order.
            options: the game's house rules.
            previous: the number of the hand (round) before it in the sheet, if any; numbered
                games check that hands are consecutive.

        Raises:
            RuleError: the first rule broken, in the format's check order.
        """

    @abstractmethod
    def score_hand(self, hand: HandT, *, players: Sequence[str], options: OptionsT) -> HandScore:
        """Score a hand record returned by :meth:`read_hand`."""

    @abstractmethod
    def hand_to_json(self, hand: HandT) -> dict[str, object]:
        """The canonical hand object of the format (canonical card notation, no extra keys)."""

    def schedule_number(self, hand: HandT) -> int | None:
        """The hand's place in the game's schedule (its round or hand number), for numbered
        games; None otherwise. Not the order of entry (``scoring``'s ``Hand.number``)."""
        return None

    def rank(self, totals: Mapping[str, int], players: Sequence[str]) -> list[list[str]]:
        """Players best first (see :func:`rank_players`)."""
        return rank_players(totals, players, lower_wins=self.lower_wins)


_GAMES: dict[str, GameRules[Any, Any]] = {}


def register(game: GameRules[Any, Any]) -> GameRules[Any, Any]:
    """Add a game to the registry under ``game.name``."""
    _GAMES[game.name] = game
    return game


def unregister(name: str) -> None:
    """Remove the game called ``name`` from the registry (a test's own game); no error when
    it is not there."""
    _GAMES.pop(name, None)


def find_game(name: object) -> GameRules[Any, Any]:
    """The registered game called ``name`` (``"tonk"``, ``"rook"``, ``"bluke"``).

    Raises:
        FormatError: no such game, spelled exactly (:func:`tonkrules.choices.one_of`).
    """
    return _GAMES[one_of(name, sorted(_GAMES), key="game")]


def all_games() -> tuple[GameRules[Any, Any], ...]:
    """Every registered game."""
    return tuple(_GAMES.values())
