"""The Django side of each game: one adapter per game, in one registry.

The engine's :class:`~tonkrules.games.GameRules` declares what a game *is* (players, schedule,
who wins, tie-breaks, table sizes, options); its adapter says how the service *shows and takes*
it: the entry form, the template partials, the "what comes next" line, the tie-break columns
of the standings, a table card's "what to play". Pages, forms, selectors and templates ask the
adapter (``adapter_for(game.kind)``, ``game.adapter``) and never compare a game's name; the
list of games is :func:`all_adapters` (the model choices come from :func:`choices`).

The way python-chess registers its variants and Tabbycat its standings metrics: a new game is
a rules object in ``tonkrules``, an adapter module here and its partials under
``templates/scoring/games/<name>/``; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

from django.utils.functional import Promise, lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ops import l10n
from tonkrules.games import GameRules

if TYPE_CHECKING:
    from scoring.entry import CardGrid, EntryForm


@dataclass(frozen=True)
class TiebreakColumn:
    """A tie-break column of the standings: its key (``TieBreak.key``), its title and a
    one-line explanation (both translated lazily, in the language of the request)."""

    key: str
    title: Promise
    explanation: Promise


def _translated(text: str) -> str:
    return gettext(text)


#: The engine's English labels, translated when shown (the catalogues hold them: the engine
#: marks them with ``gettext_noop``). ``lazy`` returns a lazy proxy (a ``Promise``); the stubs
#: type it as the wrapped function.
translated_lazy = cast(Callable[[str], Promise], lazy(_translated, str))


#: The JSON Schema (OpenAPI 3.0) of cards in a hand (:func:`cards_value`): a list of card
#: tokens, or one string of tokens separated by spaces. Which tokens are cards of the game's
#: deck is the rules' check (``bad_card``), not the shape's.
CARDS_SCHEMA: Mapping[str, Any] = {
    "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
    "description": "Cards: a list of card tokens, or one string of tokens separated by spaces.",
}
#: A player named in a hand: spelled as in the game's ``players`` (``bad_player`` otherwise).
#: ``x-player``: the schema's maker adds the characters a name may hold (the name rule's).
PLAYER_SCHEMA: Mapping[str, Any] = {
    "type": "string",
    "x-player": True,
    "description": "A player of the game, spelled as in `players`.",
}


def by_player(values: Mapping[str, Any]) -> dict[str, object]:
    """The schema of an object keyed by player (``held``, ``bids``): each value ``values``."""
    return {"type": "object", "additionalProperties": dict(values)}


def hand_shape(
    properties: Mapping[str, Mapping[str, Any]],
    variants: Sequence[tuple[Mapping[str, Mapping[str, Any] | None], Sequence[str]]],
) -> dict[str, object]:
    """A hand's JSON Schema (OpenAPI 3.0) as :func:`hand_object`, :func:`require` and
    :func:`forbid` read it: one of ``variants``, each the ``properties`` shared by all, its own
    (a key's schema narrowed, a key only it allows, or None: a key it forbids) and its
    required keys; no other key."""
    out = []
    for own, required in variants:
        merged = {**properties, **own}
        out.append(
            {
                "type": "object",
                "properties": {k: v for k, v in merged.items() if v is not None},
                "required": list(required),
                "additionalProperties": False,
            }
        )
    return {"oneOf": out}


class GameAdapter:
    """One game on the Django side. Subclass it once per game and :func:`register` an
    instance; the defaults follow the rules object: a game without a schedule plays each
    tournament round as a fresh sitting of ``hands_per_round`` hands, a game with one
    (``rules.schedule_length``) continues its hand sequence from round to round; the default
    is a game without cards to tap.

    Attributes:
        rules: the engine's rules object of the game (``tonkrules.find_game(name)``).
        entry_form: the table page's entry form class (a :class:`scoring.entry.EntryForm`).
        template_dir: where its ``entry.html`` partial is (the entry form's game-specific
            fields); by default ``scoring/games/<name>``.
        play_template: a table card's "what to play" partial.
        next_template: the table page's "Next" panel partial (what the next hand is).
        description: one sentence saying what the game is, for the home page (translated
            lazily).
        error_headlines: the game's own headlines of rule errors, by error code.
    """

    rules: GameRules[Any, Any]
    entry_form: type[EntryForm]
    template_dir: str = ""
    #: The partial saying what a table plays this round (printed table cards), given the
    #: ``play`` of :meth:`table_play`; by default "``count`` hands".
    play_template: str = "scoring/games/_play.html"
    #: The partial listing the table page's "Next" facts before the dealer, given the
    #: ``next`` of :meth:`next_info` (and ``adapter``); by default the schedule's number and
    #: the cards dealt when the game has a schedule, else nothing.
    next_template: str = "scoring/games/_next.html"
    #: One sentence saying what the game is, for the home page's list of games (translated
    #: lazily); none by default.
    #: The JSON Schema (OpenAPI 3.0) of a hand object as the engine's ``read_hand`` reads its
    #: shape (keys, types, which key each way of ending needs; :func:`hand_shape`), which
    #: ``scoring.schema`` documents; what depends on the table (the players, the cards, the
    #: rules) is the rules' to check. By default any object.
    hand_schema: ClassVar[Mapping[str, Any]] = {"type": "object"}
    description: ClassVar[Any] = ""
    #: The game's own headline of a rule error, by error code (``ErrorCode``), translated
    #: lazily; a code not here takes the common headline (``scoring.entry.ERROR_HEADLINES``).
    error_headlines: ClassVar[Mapping[str, Any]] = {}
    #: Each house rule's label people read, by option key (translated lazily); an option
    #: without one shows its key. The explanation is the engine's help, through gettext.
    option_labels: ClassVar[Mapping[str, Any]] = {}
    #: What an option whose default is ``null`` means, by option key ("none" otherwise).
    no_default_texts: ClassVar[Mapping[str, Any]] = {}
    #: What each value of a choice option means, by (option key, value).
    choice_texts: ClassVar[Mapping[tuple[str, str], Any]] = {}

    # --- who the game is ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The game's key (``Game.kind``, ``Tournament.kind``)."""
        return self.rules.name

    @property
    def label(self) -> str:
        """The game's name as people know it, translated."""
        return gettext(self.rules.title)

    @property
    def unit_label(self) -> str:
        """What scores count, translated: "stake units" or "points"."""
        return gettext(self.rules.unit)

    @property
    def hands_are_rounds(self) -> bool:
        """Each hand of the game is called a round (Rook's numbered rounds)."""
        return self.rules.number_key == "round"

    @property
    def has_stakes(self) -> bool:
        """Played for stakes: stake, currency and settling up (``GameRules.has_stakes``)."""
        return self.rules.has_stakes

    @property
    def entry_template(self) -> str:
        """The partial holding the entry form's game-specific fields."""
        return f"{self.template_dir or 'scoring/games/' + self.name}/entry.html"

    # --- the table page ----------------------------------------------------------------------

    def grid(self, grid: CardGrid, *, players: int, options: Any) -> None:
        """Fill the card grid (rows, extra cards, copies) of the game's deck; the default is
        a game without cards: no grid."""

    def next_info(
        self, *, number: int | None, dealer: int, names: Sequence[str], options: Any
    ) -> dict[str, Any]:
        """What the table page says about the next hand besides its dealer (shown by
        :attr:`next_template`): for a numbered game the number under its ``number_key`` and
        under ``"number"`` (``{"round": 3, "number": 3, ...}``) and the cards dealt
        (``"cards"``, None when the rules do not say). ``number``: the next round (hand)
        number, None for a game without a schedule."""
        if number is None or self.rules.number_key is None:
            return {}
        return {
            self.rules.number_key: number,
            "number": number,
            "cards": self.rules.cards_dealt(number),
        }

    def entry_data(self, *, names: Sequence[str], options: Any) -> dict[str, Any]:
        """What the table page's script needs besides the grid's copies: for a numbered game,
        ``cards_dealt`` (round/hand number → cards dealt to each player)."""
        length = self.rules.schedule_length
        if length is None:
            return {"cards_dealt": None}
        return {"cards_dealt": {n: self.rules.cards_dealt(n) for n in range(1, length + 1)}}

    def hand_summary(self, entry: Mapping[str, Any]) -> str:
        """One short line saying what happened in a hand, for the sheet."""
        return ""

    # --- tournaments -------------------------------------------------------------------------

    def tiebreak_columns(self) -> tuple[TiebreakColumn, ...]:
        """The standings' tie-break columns (``GameRules.tiebreaks``), titles translated."""
        return tuple(
            TiebreakColumn(t.key, translated_lazy(t.label), translated_lazy(t.explanation))
            for t in self.rules.tiebreaks
        )

    def rounds_help(self) -> str:
        """The new-tournament form's line explaining the number of rounds."""
        return l10n.sentence(
            gettext("Required: how many rounds, 1 to %(max)d."), {"max": self.rules.max_rounds}
        )

    def hands_help(self) -> str:
        """The new-tournament form's line explaining the hands per round: a fresh sitting of
        that many hands, or, for a game with a schedule (``rules.schedule_length``), a
        continuation of its hand sequence (starting again after the last hand when
        ``rules.schedule_wraps``)."""
        length = self.rules.schedule_length
        default = self.rules.default_hands_per_round
        if length is None:
            return l10n.sentence(
                gettext("Each round is a fresh sitting of this many hands. Default: %(default)d."),
                {"default": default},
            )
        if self.rules.schedule_wraps:
            return l10n.sentence(
                gettext(
                    "A whole game is %(hands)d hands. With fewer, each round continues where the "
                    "last stopped (hands 1–5, 6–10, …), starting again after %(hands)d. "
                    "Default: %(default)d."
                ),
                {"hands": length, "default": default},
            )
        return l10n.sentence(
            gettext(
                "A whole game is %(hands)d hands. With fewer, each round continues where the "
                "last stopped (hands 1–5, 6–10, …). Default: %(default)d."
            ),
            {"hands": length, "default": default},
        )

    def table_hands(self, start: int, count: int) -> list[int]:
        """The hand numbers of the schedule a table plays: ``count`` from ``start`` (1-based),
        hand 1 again after the last when ``rules.schedule_wraps``; ``[]`` for a game without
        a schedule."""
        length = self.rules.schedule_length
        if length is None:
            return []
        if self.rules.schedule_wraps:
            return [(start - 1 + i) % length + 1 for i in range(count)]
        return [start + i for i in range(count)]

    def table_play(
        self, *, round_number: int, game: Any, players: int, options: Any, tournament: Any
    ) -> dict[str, Any]:
        """What a table plays this round, for its printed card (:attr:`play_template`):
        ``count`` hands by default; for a game with a schedule also the hands it plays
        (``hands``, as spans: ``"21–25, 1–5"``) and the cards dealt in each (``cards``).
        ``game``: the table's ``scoring.Game``."""
        count = game.hand_limit or tournament.hands_per_round
        if self.rules.schedule_length is None:
            return {"count": count}
        hands = self.table_hands(game.sequence_from or 1, count)
        return {
            "hands": spans(hands),
            "count": len(hands),
            "cards": ", ".join(str(self.rules.cards_dealt(h)) for h in hands),
        }

    def round_play_text(self, *, game: Any, tournament: Any) -> str:
        """What a table plays this round, in words (the public round page): "``n`` hands", or
        for a game with a schedule "Hands ``first`` to ``last``"."""
        count = game.hand_limit or tournament.hands_per_round
        if self.rules.schedule_length is None or not game.sequence_from:
            return l10n.sentence(gettext("%(n)d hands"), {"n": count})
        hands = self.table_hands(game.sequence_from, game.hand_limit or 1)
        return l10n.sentence(
            gettext("Hands %(first)d to %(last)d"), {"first": hands[0], "last": hands[-1]}
        )


def spans(numbers: Sequence[int]) -> str:
    """Consecutive numbers as spans: ``[21, …, 25, 1, 2]`` → ``"21–25, 1–2"``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{s[0]}–{s[-1]}" if len(s) > 1 else str(s[0]) for s in runs)


_ADAPTERS: dict[str, GameAdapter] = {}


def register(adapter: GameAdapter) -> GameAdapter:
    """Add a game's adapter to the registry under its rules' name (replacing any)."""
    _ADAPTERS[adapter.name] = adapter
    return adapter


def unregister(name: str) -> None:
    """Remove the adapter of game ``name`` (a test's own game); no error when absent."""
    _ADAPTERS.pop(name, None)


def adapter_for(kind: object) -> GameAdapter:
    """The adapter of game ``kind`` (``Game.kind``).

    Raises:
        LookupError: no game of that name is registered.
    """
    adapter = _ADAPTERS.get(str(kind))
    if adapter is None:
        raise LookupError(f"no game {kind!r} is registered")
    return adapter


def all_adapters() -> tuple[GameAdapter, ...]:
    """Every registered game's adapter, in the order they were registered."""
    return tuple(_ADAPTERS.values())


def names() -> tuple[str, ...]:
    """Every registered game's name, in order."""
    return tuple(_ADAPTERS)


def choices() -> list[tuple[str, Any]]:
    """The registered games as model and form choices: (name, translated label), lazily
    translated. The ``choices=`` callable of ``scoring.Game.kind`` and
    ``tournaments.Tournament.kind``."""
    return [(a.name, _(a.rules.title)) for a in _ADAPTERS.values()]


def label_of(kind: object) -> str:
    """The translated label of game ``kind``, or ``kind`` itself when it is not registered."""
    adapter = _ADAPTERS.get(str(kind))
    return adapter.label if adapter is not None else str(kind)
