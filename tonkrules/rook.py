"""Toonerville Rook: contracts, round checks and round points (rules/rook.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from .cards import RookCard, RookDeck
from .errors import ContractError, FormatError, NotOutError, SequenceError
from .games import (
    GameRules,
    HandScore,
    Options,
    TableSizes,
    TieBreak,
    cards_value,
    choice,
    forbid,
    gettext_noop,
    hand_object,
    hand_winners,
    obj,
    option,
    player_of,
    players_of,
    register,
    require,
    require_players,
    text,
    whole,
    whole_number,
    whole_or_none,
)
from .melds import MeldReading, count_kinds, read_meld

ROUNDS = 11
_NOBODY = frozenset({"", "none", "null", "nobody", "-"})


@dataclass(frozen=True, slots=True)
class Contract:
    """A round's contract (rules/rook.md, "Contracts").

    Attributes:
        round: 1 to 11.
        cards_dealt: cards dealt to each player.
        runs: runs the going-out player must lay down.
        sets: sets the going-out player must lay down.
        discard_allowed: False in round 11, where a player goes out without a discard.
    """

    round: int
    cards_dealt: int
    runs: int
    sets: int
    discard_allowed: bool = True

    def __str__(self) -> str:
        parts = []
        if self.runs:
            parts.append(f"{self.runs} run{'s' if self.runs > 1 else ''}")
        if self.sets:
            parts.append(f"{self.sets} set{'s' if self.sets > 1 else ''}")
        return " and ".join(parts)


CONTRACTS: Mapping[int, Contract] = {
    c.round: c
    for c in (
        Contract(1, 12, 0, 2),
        Contract(2, 12, 1, 1),
        Contract(3, 12, 2, 0),
        Contract(4, 12, 0, 3),
        Contract(5, 12, 1, 2),
        Contract(6, 12, 2, 1),
        Contract(7, 12, 0, 4),
        Contract(8, 12, 3, 0),
        Contract(9, 15, 0, 5),
        Contract(10, 16, 4, 0),
        Contract(11, 14, 2, 2, discard_allowed=False),
    )
}
"""Round number → contract."""


class ContractMode(StrEnum):
    """Whether the contract lay-down may include extra melds (house rule ``contract_mode``)."""

    EXACT = "exact"
    AT_LEAST = "at_least"


@dataclass(frozen=True)
class RookOptions(Options):
    """Toonerville Rook house rules (rules/rook.md, "House-rule options")."""

    decks: int | None = option(
        None, whole(1), gettext_noop("Copies of each card in play; by default one deck per player.")
    )
    contract_mode: ContractMode = option(
        ContractMode.EXACT,
        choice(ContractMode),
        gettext_noop(
            "exact: the lay-down is exactly the contract; at_least: extra melds are allowed."
        ),
    )
    min_natural_per_meld: int = option(
        1, whole(1), gettext_noop("Natural (non-Rook) cards every meld needs.")
    )
    max_rooks_per_meld: int | None = option(
        None, whole_or_none(0), gettext_noop("The most Rooks one meld may hold; none: no cap.")
    )

    def deck(self, players: int) -> RookDeck:
        """The decks in play at a table of ``players``."""
        return RookDeck(self.decks if self.decks is not None else players)


@dataclass(frozen=True, slots=True)
class RookRound:
    """One Toonerville Rook round as entered, checked.

    Attributes:
        round: 1 to 11.
        dealer: the dealer.
        out: who went out, or None when time was called before anyone went out.
        melds: player → melds laid down (each meld's cards as entered).
        held: player → cards left in hand.
        discard: the card ``out`` discarded to go out, if entered.
        readings: player → the reading of each of their melds (what each Rook stands for).
    """

    round: int
    dealer: str
    out: str | None
    melds: Mapping[str, tuple[tuple[RookCard, ...], ...]]
    held: Mapping[str, tuple[RookCard, ...]]
    discard: RookCard | None = None
    readings: Mapping[str, tuple[MeldReading, ...]] | None = None

    @property
    def contract(self) -> Contract:
        """This round's contract."""
        return CONTRACTS[self.round]

    def to_json(self) -> dict[str, object]:
        """The canonical round object of the score-sheet format."""
        out: dict[str, object] = {"round": self.round, "dealer": self.dealer, "out": self.out}
        if self.melds or self.out is not None:
            out["melds"] = {
                p: [[str(c) for c in m] for m in melds] for p, melds in self.melds.items()
            }
        if self.discard is not None:
            out["discard"] = str(self.discard)
        out["held"] = {p: [str(c) for c in cards] for p, cards in self.held.items()}
        return out


def round_points(cards: Sequence[RookCard]) -> int:
    """Points for cards left in hand: 1–9 → 5, 10–14 → 10, Rook → 25 (rules/rook.md, "Scoring")."""
    return sum(c.points for c in cards)


def contract_met(readings: Sequence[MeldReading], contract: Contract, mode: ContractMode) -> bool:
    """Whether melds make the contract. A meld that reads as both a set and a run counts as
    whichever the contract needs."""
    runs, sets, either = count_kinds(readings)
    if mode is ContractMode.EXACT:
        return (
            runs <= contract.runs
            and sets <= contract.sets
            and runs + sets + either == contract.runs + contract.sets
        )
    return max(0, contract.runs - runs) + max(0, contract.sets - sets) <= either


def verify_contract(
    readings: Sequence[MeldReading],
    contract: Contract,
    mode: ContractMode,
    *,
    player: str | None = None,
) -> None:
    """Check that the going-out player's melds make the round's contract.

    Raises:
        ContractError: too few, too many (``exact``) or the wrong kinds of melds.
    """
    if contract_met(readings, contract, mode):
        return
    runs, sets, either = count_kinds(readings)
    variant = "_".join(
        word
        for word, present in (
            ("nobody", player is None),
            ("at_least", mode is not ContractMode.EXACT),
            ("either", bool(either)),
        )
        if present
    )
    raise ContractError(
        f"contract.{variant}" if variant else "contract",
        player=player,
        cards=[c for r in readings for c in r.cards],
        params={
            "round": contract.round,
            "runs": runs,
            "sets": sets,
            "either": either,
            "contract": contract,
        },
    )


class Rook(GameRules[RookOptions, RookRound]):
    """Toonerville Rook, contract rummy for 3 to 5 players over 11 rounds (rules/rook.md)."""

    name = "rook"
    title = gettext_noop("Toonerville Rook")
    rules_version = "rook/1"
    min_players = 3
    max_players = 5
    lower_wins = True
    unit = gettext_noop("points")
    number_key = "round"
    schedule_length = ROUNDS
    tiebreaks = (
        TieBreak(
            "rounds_out",
            gettext_noop("Rounds out"),
            gettext_noop("Rounds in which the player went out; more is better."),
            higher_is_better=True,
            source="went_out",
        ),
        TieBreak(
            "best_round",
            gettext_noop("Best round"),
            gettext_noop("The player's lowest score in a single round; lower is better."),
            higher_is_better=False,
            source="best_round",
        ),
    )
    table_sizes = TableSizes(allowed=(3, 4, 5), preferred=4)
    default_hands_per_round = 1
    #: A tournament round is one contract round, dealt afresh at every table.
    max_hands_per_round = 1
    #: Round r plays contract r: at most 11 rounds, 11 by default.
    max_rounds = ROUNDS
    default_rounds = ROUNDS

    def cards_dealt(self, number: int) -> int:
        """Cards dealt to each player in round ``number`` (its contract, rules/rook.md)."""
        return CONTRACTS[number].cards_dealt

    def sequence_start(self, round_number: int, hands_per_round: int) -> int:
        """Tournament round ``r`` plays contract round ``r`` (one round per tournament round)."""
        return round_number

    options_type: ClassVar[type[Options]] = RookOptions

    def read_hand(
        self,
        raw: object,
        *,
        players: Sequence[str],
        options: RookOptions,
        previous: int | None = None,
    ) -> RookRound:
        """Read and check a round (rules/rook.md, "What is checked when a round is entered").

        Raises:
            FormatError, SequenceError, PlayerError, CardError, CopiesError, MeldError,
            NotOutError, ContractError: the first broken rule in the format's check order.
        """
        # bad_format
        h = hand_object(
            raw,
            allowed=("round", "dealer", "out", "melds", "discard", "held"),
            required=("round", "dealer", "out", "held"),
        )
        number = whole_number(h, "round")
        dealer = text(h, "dealer")
        out = None if h["out"] is None else text(h, "out")
        if out is not None:
            nobody = out.strip().lower() in _NOBODY
            require(h, "melds", "went_out_null" if nobody else "went_out")
        else:
            forbid(h, "discard", "nobody_out")
        raw_melds: dict[str, list[object]] = {}
        for p, melds in (obj(h, "melds") if "melds" in h else {}).items():
            if not isinstance(melds, list):
                raise FormatError("value_type.melds", player=p, params={"key": "melds"})
            for m in melds:
                cards_value(m, key="melds", player=p)
            raw_melds[p] = melds
        raw_held = obj(h, "held")
        for p, v in raw_held.items():
            cards_value(v, key="held", player=p)
        raw_discard = text(h, "discard") if "discard" in h else None

        # bad_sequence
        if not 1 <= number <= ROUNDS:
            raise SequenceError("out_of_range.rounds", params={"last": ROUNDS, "number": number})
        if previous is not None and number != previous + 1:
            raise SequenceError(
                "not_consecutive.rounds", params={"number": number, "previous": previous}
            )

        # bad_player
        dealer = player_of(dealer, players, role="dealer")
        if out is not None:
            out = player_of(out, players, role="out")
        raw_melds = players_of(raw_melds, players, key="melds")
        raw_held = players_of(raw_held, players, key="held")
        require_players(raw_held, [p for p in players if p != out], key="held")
        if out is not None:
            require_players(raw_melds, [out], key="melds")

        # bad_card, too_many_copies
        deck = options.deck(len(players))
        melds = {
            p: tuple(deck.parse_cards(m, player=p) for m in raw_melds[p])
            for p in players
            if p in raw_melds
        }
        held = {p: deck.parse_cards(raw_held[p], player=p) for p in players if p in raw_held}
        discard = (
            deck.parse_cards([raw_discard], player=out)[0] if raw_discard is not None else None
        )
        entries: list[tuple[str | None, RookCard]] = [
            (p, c) for p, ms in melds.items() for m in ms for c in m
        ]
        entries += [(p, c) for p, cards in held.items() for c in cards]
        if discard is not None:
            entries.append((out, discard))
        deck.verify_copies(entries)

        # bad_meld: every meld entered, the going-out player's first
        order = ([out] if out in melds else []) + [p for p in melds if p != out]
        readings = {
            p: tuple(
                read_meld(
                    m,
                    min_natural=options.min_natural_per_meld,
                    max_rooks=options.max_rooks_per_meld,
                    player=p,
                )
                for m in melds[p]
            )
            for p in order
        }
        readings = {p: readings[p] for p in melds}

        # not_out
        contract = CONTRACTS[number]
        if out is not None:
            if held.get(out):
                raise NotOutError(
                    "holds_cards",
                    player=out,
                    cards=held[out],
                )
            if discard is not None and not contract.discard_allowed:
                raise NotOutError(
                    "discard_in_last_round",
                    player=out,
                    cards=[discard],
                    params={"round": number},
                )
            # contract_not_met
            verify_contract(readings[out], contract, options.contract_mode, player=out)
        return RookRound(number, dealer, out, melds, held, discard, readings)

    def score_hand(
        self, hand: RookRound, *, players: Sequence[str], options: RookOptions
    ) -> HandScore:
        """Round points: 0 for the player who went out, else the cards left in hand
        (rules/rook.md, "Scoring a round")."""
        scores = {p: 0 if p == hand.out else round_points(hand.held.get(p, ())) for p in players}
        return HandScore(
            scores,
            went_out=(hand.out,) if hand.out is not None else (),
            won=hand_winners(scores, lower_wins=True),
            facts={"round": hand.round},
        )

    def hand_to_json(self, hand: RookRound) -> dict[str, object]:
        return hand.to_json()

    def schedule_number(self, hand: RookRound) -> int:
        return hand.round


ROOK_GAME = Rook()
register(ROOK_GAME)
