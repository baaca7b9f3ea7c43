"""Tonk: hand ends, checks and payouts in stake units (rules/tonk.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from .cards import STANDARD_DECK, Card
from .choices import one_of
from .errors import FormatError, HandSizeError, NotOutError, TotalError
from .games import (
    GameRules,
    HandScore,
    Options,
    TableSizes,
    TieBreak,
    Warning,
    boolean,
    cards_value,
    choice,
    described,
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
)
from .melds import find_spread, verify_spread
from .messages import RULE_MESSAGES, Alternatives, render

HAND_SIZE = 5
"""Cards dealt to each player, and the most a player holds between turns."""


class TonkEnd(StrEnum):
    """How a hand ended (rules/tonk.md, "How a hand ends, and who pays")."""

    DEAL_TONK = "deal_tonk"
    DEAL_TONK_TIE = "deal_tonk_tie"
    TONK_OUT = "tonk_out"
    OUT_ON_DISCARD = "out_on_discard"
    KNOCK = "knock"
    STOCK_OUT = "stock_out"


ENDS_WITH_BY = frozenset(
    {TonkEnd.DEAL_TONK, TonkEnd.TONK_OUT, TonkEnd.OUT_ON_DISCARD, TonkEnd.KNOCK}
)
ENDS_HOLDING_ALL = frozenset({TonkEnd.KNOCK, TonkEnd.STOCK_OUT})
ENDS_AT_DEAL = frozenset({TonkEnd.DEAL_TONK, TonkEnd.DEAL_TONK_TIE})
ENDS_GOING_OUT = frozenset({TonkEnd.TONK_OUT, TonkEnd.OUT_ON_DISCARD})


class CaughtLowBonus(StrEnum):
    """Who pays the lowest hand 1 after a catch (house rule ``caught_low_bonus``)."""

    ALL_OTHERS = "all_others"
    NON_KNOCKERS = "non_knockers"
    NONE = "none"


class StockTie(StrEnum):
    """Tied lowest totals when the stock runs out (house rule ``stock_tie``)."""

    ALL_TIED_COLLECT = "all_tied_collect"
    NO_PAYMENT = "no_payment"


def _totals(key: str, value: object) -> tuple[int, ...]:
    if not isinstance(value, list) or any(
        isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in value
    ):
        raise FormatError("option_value.totals", params={"key": key})
    return tuple(value)


described(_totals, {"type": "array", "items": {"type": "integer", "minimum": 0}})


@dataclass(frozen=True)
class TonkOptions(Options):
    """Tonk house rules (rules/tonk.md, "House-rule options")."""

    initial_tonk_totals: tuple[int, ...] = option(
        (49, 50), _totals, gettext_noop("Totals of the five dealt cards that win at the deal.")
    )
    caught_low_bonus: CaughtLowBonus = option(
        CaughtLowBonus.ALL_OTHERS,
        choice(CaughtLowBonus),
        gettext_noop(
            "After a catch, who pays the lowest hand 1: everyone outside the lowest group, "
            "only the other non-knockers, or nobody."
        ),
    )
    stock_tie: StockTie = option(
        StockTie.ALL_TIED_COLLECT,
        choice(StockTie),
        gettext_noop(
            "When the stock runs out and several players tie for lowest: "
            "each collects, or nobody pays."
        ),
    )
    double_requires_new_spread: bool = option(
        False,
        boolean,
        gettext_noop("A tonk out pays double only if that turn laid down a new spread."),
    )
    must_lay_down_spreads: bool = option(
        False,
        boolean,
        gettext_noop(
            "Warn when a knock or stock-out hand still holds a spread (three aces excepted)."
        ),
    )
    upcard: bool = option(
        True,
        boolean,
        gettext_noop("The card after the deal starts the discard pile (recorded only)."),
    )


@dataclass(frozen=True, slots=True)
class TonkHand:
    """One Tonk hand as entered, checked.

    Attributes:
        dealer: the dealer.
        end: how the hand ended.
        by: who tonked at the deal, went out or knocked; None for a tie or a stock-out.
        held: player → cards held when play ended (only the players entered).
        spreads: the spreads on the table.
        new_spread: whether the going-out turn laid down a new spread (``tonk_out`` only).
    """

    dealer: str
    end: TonkEnd
    by: str | None
    held: Mapping[str, tuple[Card, ...]]
    spreads: tuple[tuple[Card, ...], ...] = ()
    new_spread: bool | None = None

    def to_json(self) -> dict[str, object]:
        """The canonical hand object of the score-sheet format."""
        out: dict[str, object] = {"dealer": self.dealer, "end": self.end.value}
        if self.by is not None:
            out["by"] = self.by
        if self.held:
            out["held"] = {p: [str(c) for c in cards] for p, cards in self.held.items()}
        if self.spreads:
            out["spreads"] = [[str(c) for c in s] for s in self.spreads]
        if self.new_spread is not None:
            out["new_spread"] = self.new_spread
        return out


def hand_total(cards: Sequence[Card]) -> int:
    """The total of held cards: ace 1, 2–10 face value, J Q K 10 (rules/tonk.md)."""
    return sum(c.rank.tonk_value for c in cards)


def lowest(totals: Mapping[str, int], among: Sequence[str]) -> list[str]:
    """The players of ``among`` with the lowest total, in the order given."""
    low = min(totals[p] for p in among)
    return [p for p in among if totals[p] == low]


class _Ledger:
    """Stake units paid between players; every payment keeps the sum at zero."""

    def __init__(self, players: Sequence[str]) -> None:
        self.units = dict.fromkeys(players, 0)

    def pay(self, payer: str, payee: str, units: int) -> None:
        self.units[payer] -= units
        self.units[payee] += units

    def each_pays(self, payers: Sequence[str], payee: str, units: int) -> None:
        for payer in payers:
            if payer != payee:
                self.pay(payer, payee, units)


def tonk_payouts(hand: TonkHand, *, players: Sequence[str], options: TonkOptions) -> dict[str, int]:
    """Stake units won (+) and paid (−) by each player for one hand; they sum to zero.

    Implements the payout table of rules/tonk.md, "How a hand ends, and who pays", with the
    house rules ``caught_low_bonus``, ``stock_tie`` and ``double_requires_new_spread``.

    Args:
        hand: a hand checked by :meth:`Tonk.read_hand` (knock and stock-out hands hold every
            player's cards).
        players: seat order.
        options: the house rules.
    """
    ledger = _Ledger(players)
    others = [p for p in players if p != hand.by]
    if hand.end is TonkEnd.DEAL_TONK:
        assert hand.by is not None
        ledger.each_pays(others, hand.by, 2)
    elif hand.end is TonkEnd.TONK_OUT:
        assert hand.by is not None
        double = not options.double_requires_new_spread or bool(hand.new_spread)
        ledger.each_pays(others, hand.by, 2 if double else 1)
    elif hand.end is TonkEnd.OUT_ON_DISCARD:
        assert hand.by is not None
        ledger.each_pays(others, hand.by, 1)
    elif hand.end is TonkEnd.KNOCK:
        assert hand.by is not None
        _knock(ledger, hand.by, others, _held_totals(hand), options)
    elif hand.end is TonkEnd.STOCK_OUT:
        totals = _held_totals(hand)
        low = lowest(totals, players)
        if len(low) < len(players) and (
            len(low) == 1 or options.stock_tie is StockTie.ALL_TIED_COLLECT
        ):
            outside = [p for p in players if p not in low]
            for winner in low:
                ledger.each_pays(outside, winner, 1)
    return ledger.units


def _held_totals(hand: TonkHand) -> dict[str, int]:
    return {p: hand_total(cards) for p, cards in hand.held.items()}


def _knock(
    ledger: _Ledger,
    knocker: str,
    others: Sequence[str],
    totals: Mapping[str, int],
    options: TonkOptions,
) -> None:
    mine = totals[knocker]
    catchers = [p for p in others if totals[p] <= mine]
    if not catchers:
        ledger.each_pays(others, knocker, 1)
        return
    for p in catchers:  # (a) the caught knocker pays 2 to each player at or below
        ledger.pay(knocker, p, 2)
    if options.caught_low_bonus is CaughtLowBonus.NONE:
        return
    low = lowest(totals, others)  # (b) the lowest non-knocker(s) collect 1
    if options.caught_low_bonus is CaughtLowBonus.ALL_OTHERS:
        payers = [knocker, *(p for p in others if p not in low)]
    else:
        payers = [p for p in others if p not in low]
    for winner in low:
        ledger.each_pays(payers, winner, 1)


class Tonk(GameRules[TonkOptions, TonkHand]):
    """Tonk, knock rummy for 2 to 4 players, scored in stake units (rules/tonk.md)."""

    name = "tonk"
    title = gettext_noop("Tonk")
    rules_version = "tonk/1"
    min_players = 2
    max_players = 4
    lower_wins = False
    unit = gettext_noop("stake units")
    has_stakes = True
    number_key = None
    tiebreaks = (
        TieBreak(
            "hands_won",
            gettext_noop("Hands won"),
            gettext_noop("Hands the player won; more is better."),
            higher_is_better=True,
            source="won",
        ),
        TieBreak(
            "best_round",
            gettext_noop("Best round"),
            gettext_noop(
                "The player's highest net stake units in a single round; higher is better."
            ),
            higher_is_better=True,
            source="best_round",
        ),
    )
    table_sizes = TableSizes(allowed=(2, 3), preferred=3)
    default_hands_per_round = 10
    options_type: ClassVar[type[Options]] = TonkOptions
    deck = STANDARD_DECK

    def read_hand(
        self,
        raw: object,
        *,
        players: Sequence[str],
        options: TonkOptions,
        previous: int | None = None,
    ) -> TonkHand:
        """Read and check a Tonk hand (rules/tonk.md, "What is checked when a hand is entered").

        Raises:
            FormatError, PlayerError, CardError, CopiesError, HandSizeError, MeldError,
            TotalError, NotOutError: the first broken rule in the format's check order.
        """
        # bad_format
        h = hand_object(
            raw,
            allowed=("dealer", "end", "by", "held", "spreads", "new_spread"),
            required=("dealer", "end"),
        )
        dealer = text(h, "dealer")
        end = TonkEnd(one_of(h["end"], tuple(e.value for e in TonkEnd), key="end"))
        if end in ENDS_WITH_BY:
            require(h, "by", "end", end=end.value)
        else:
            forbid(h, "by", "end", end=end.value)
        by = text(h, "by") if "by" in h else None
        if end in ENDS_HOLDING_ALL or end in ENDS_AT_DEAL:
            require(h, "held", "end", end=end.value)
        raw_held = obj(h, "held") if "held" in h else {}
        for p, v in raw_held.items():
            cards_value(v, key="held", player=p)
        raw_spreads = h.get("spreads", [])
        if not isinstance(raw_spreads, list):
            raise FormatError("value_type.spreads", params={"key": "spreads"})
        for s in raw_spreads:
            cards_value(s, key="spreads")
        if end is not TonkEnd.TONK_OUT:
            forbid(h, "new_spread", "not_tonk_out")
        elif options.double_requires_new_spread:
            require(h, "new_spread", "double_rule")
        new_spread = h.get("new_spread")
        if "new_spread" in h and not isinstance(new_spread, bool):
            raise FormatError("value_type.bool", params={"key": "new_spread"})

        # bad_player
        dealer = player_of(dealer, players, role="dealer")
        if by is not None:
            by = player_of(by, players, role="by")
        raw_held = players_of(raw_held, players, key="held")
        if end in ENDS_HOLDING_ALL:
            require_players(raw_held, players, key="held")
        elif end is TonkEnd.DEAL_TONK:
            assert by is not None
            require_players(raw_held, [by], key="held")

        # bad_card, too_many_copies
        held = {p: self.deck.parse_cards(raw_held[p], player=p) for p in players if p in raw_held}
        spreads = tuple(self.deck.parse_cards(s) for s in raw_spreads)
        self.deck.verify_copies(
            [(p, c) for p, cards in held.items() for c in cards]
            + [(None, c) for s in spreads for c in s]
        )

        # hand_size
        for p, cards in held.items():
            if end in ENDS_AT_DEAL and len(cards) != HAND_SIZE:
                raise HandSizeError(
                    "deal_size",
                    player=p,
                    cards=cards,
                    params={"count": len(cards), "size": HAND_SIZE},
                )
            if end in ENDS_HOLDING_ALL and len(cards) > HAND_SIZE:
                raise HandSizeError(
                    "held_too_many",
                    player=p,
                    cards=cards,
                    params={"count": len(cards), "size": HAND_SIZE},
                )

        # bad_meld
        for s in spreads:
            verify_spread(s)

        # bad_total
        allowed_totals = set(options.initial_tonk_totals)
        if end is TonkEnd.DEAL_TONK:
            assert by is not None
            total = hand_total(held[by])
            if total not in allowed_totals:
                raise TotalError(
                    "deal_tonk_total" if allowed_totals else "deal_tonk_total.off",
                    player=by,
                    cards=held[by],
                    params={"total": total, "totals": _or(options.initial_tonk_totals)},
                )
            for p, cards in held.items():
                if p != by and hand_total(cards) in allowed_totals:
                    raise TotalError(
                        "deal_tonk_is_tie",
                        player=p,
                        cards=cards,
                        params={"total": hand_total(cards)},
                    )
        elif end is TonkEnd.DEAL_TONK_TIE:
            tied = [p for p, cards in held.items() if hand_total(cards) in allowed_totals]
            if len(tied) < 2:
                # Name a player entered as tied whose total is not one that wins at the deal.
                culprit = next((p for p in held if p not in tied), tied[0] if tied else None)
                held_total = hand_total(held[culprit]) if culprit is not None else None
                variants = ("off" if not allowed_totals else "") + (
                    "_held" if culprit is not None else ""
                )
                raise TotalError(
                    f"deal_tie_total.{variants.lstrip('_')}" if variants else "deal_tie_total",
                    player=culprit,
                    cards=held[culprit] if culprit is not None else (),
                    params={"total": held_total, "totals": _or(options.initial_tonk_totals)},
                )

        # not_out
        if end in ENDS_GOING_OUT:
            assert by is not None
            if held.get(by):
                raise NotOutError(
                    "holds_cards",
                    player=by,
                    cards=held[by],
                )
        return TonkHand(
            dealer, end, by, held, spreads, new_spread if isinstance(new_spread, bool) else None
        )

    def score_hand(
        self, hand: TonkHand, *, players: Sequence[str], options: TonkOptions
    ) -> HandScore:
        """Payouts in stake units (:func:`tonk_payouts`), with ``concealed_spread`` warnings under
        ``must_lay_down_spreads``, and who went out and who won."""
        units = tonk_payouts(hand, players=players, options=options)
        warnings: list[Warning] = []
        if options.must_lay_down_spreads and hand.end in ENDS_HOLDING_ALL:
            for p in players:
                spread = find_spread(hand.held[p])
                if spread is not None:
                    cards = tuple(str(c) for c in spread)
                    text = render(
                        RULE_MESSAGES["concealed_spread"], {"player": p, "cards": " ".join(cards)}
                    )
                    warnings.append(Warning("concealed_spread", p, cards, text))
        went_out = (hand.by,) if hand.end in ENDS_GOING_OUT and hand.by is not None else ()
        return HandScore(
            units,
            tuple(warnings),
            went_out=went_out,
            won=hand_winners(units, lower_wins=False),
            facts={"end": hand.end.value},
        )

    def hand_to_json(self, hand: TonkHand) -> dict[str, object]:
        return hand.to_json()


def _or(values: Sequence[int]) -> Alternatives:
    """The totals that tonk at the deal, any one of them (``41 or 50`` in English; empty:
    none, and the sentence says so)."""
    return Alternatives(values)


TONK = Tonk()
register(TONK)
