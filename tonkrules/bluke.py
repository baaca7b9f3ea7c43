"""Bluke: the hand schedule, trump, trick winners, follow-suit legality, bids and scores
(rules/bluke.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from .cards import BLUKE_DECK, Bluke, BlukeCard, Card, Suit
from .choices import one_of
from .errors import (
    BidError,
    FormatError,
    HandSizeError,
    PlayError,
    SequenceError,
    TricksError,
    TrumpError,
)
from .games import (
    GameRules,
    HandScore,
    Options,
    TableSizes,
    TieBreak,
    boolean,
    cards_value,
    choice,
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
    whole_number,
)

HANDS = 25


def cards_dealt(hand: int) -> int:
    """Cards dealt to each player in hand ``hand`` (1–25): ``|hand − 13| + 1``, so
    13, 12, …, 2, 1, 2, …, 13 (rules/bluke.md, "Hands")."""
    return abs(hand - 13) + 1


class BlukeLeadRule(StrEnum):
    """What must be followed after a Bluke is led (house rule ``bluke_lead_rule``)."""

    FREE = "free"
    NEXT_CARD_SETS_SUIT = "next_card_sets_suit"


@dataclass(frozen=True)
class BlukeOptions(Options):
    """Bluke house rules (rules/bluke.md, "House-rule options")."""

    allow_zero_bid: bool = option(
        False, boolean, gettext_noop("Bids may be 0; a bid of 0 scores 1 per trick taken.")
    )
    bluke_lead_rule: BlukeLeadRule = option(
        BlukeLeadRule.FREE,
        choice(BlukeLeadRule),
        gettext_noop(
            "When a Bluke is led: free (no suit to follow) or the next card played sets the suit."
        ),
    )


TRUMPS: Mapping[str, Suit | None] = {
    "S": Suit.SPADES,
    "H": Suit.HEARTS,
    "D": Suit.DIAMONDS,
    "C": Suit.CLUBS,
    "none": None,
}
"""The values of a hand's ``trump`` (case-insensitive, read by ``tonkrules.choices.one_of``)."""


def trump_of_turned(card: BlukeCard) -> Suit | None:
    """The trump a turned-up card sets: its suit, or no trump for a Bluke (rules/bluke.md)."""
    return None if isinstance(card, Bluke) else card.suit


def trick_winner(cards: Sequence[BlukeCard], trump: Suit | None, *, led: Suit | None = None) -> int:
    """The index (in play order) of the card that wins a trick.

    The High Bluke if played, else the Low Bluke, else the highest trump, else the highest card
    of the suit led (rules/bluke.md, "Ranking"). ``led`` defaults to the first card's suit.
    """
    if Bluke.HIGH in cards:
        return cards.index(Bluke.HIGH)
    if Bluke.LOW in cards:
        return cards.index(Bluke.LOW)
    plain = [(i, c) for i, c in enumerate(cards) if isinstance(c, Card)]
    trumps = [(i, c) for i, c in plain if c.suit == trump]
    if trumps:
        return max(trumps, key=lambda ic: ic[1].rank.trick_order)[0]
    if led is None:
        led = plain[0][1].suit
    return max((ic for ic in plain if ic[1].suit == led), key=lambda ic: ic[1].rank.trick_order)[0]


def suit_to_follow(trick_so_far: Sequence[BlukeCard], rule: BlukeLeadRule) -> Suit | None:
    """The suit the next player must follow, or None when any card may be played.

    A plain card led sets the suit. When a Bluke is led no suit is set (``free``), or the first
    non-Bluke card played sets it (``next_card_sets_suit``) (rules/bluke.md, "Play").
    """
    if not trick_so_far:
        return None
    first = trick_so_far[0]
    if isinstance(first, Card):
        return first.suit
    if rule is BlukeLeadRule.NEXT_CARD_SETS_SUIT:
        for c in trick_so_far[1:]:
            if isinstance(c, Card):
                return c.suit
    return None


def is_legal_play(
    card: BlukeCard,
    hand: Sequence[BlukeCard],
    trick_so_far: Sequence[BlukeCard],
    rule: BlukeLeadRule,
) -> bool:
    """Whether ``card`` may be played from ``hand`` onto ``trick_so_far``: a player follows the
    suit led when able, except that a Bluke may always be played (rules/bluke.md, "Play")."""
    if isinstance(card, Bluke):
        return True
    led = suit_to_follow(trick_so_far, rule)
    if led is None or card.suit == led:
        return True
    return not any(isinstance(c, Card) and c.suit == led for c in hand if c != card)


def legal_plays(
    hand: Sequence[BlukeCard], trick_so_far: Sequence[BlukeCard], rule: BlukeLeadRule
) -> tuple[BlukeCard, ...]:
    """The cards of ``hand`` that may be played onto ``trick_so_far`` (for pages to grey out
    the rest)."""
    return tuple(c for c in hand if is_legal_play(c, hand, trick_so_far, rule))


def bid_score(bid: int, tricks: int) -> int:
    """Points for one player's hand (rules/bluke.md, "Scoring a hand").

    Made (tricks ≥ bid): 10 × bid + 1 per overtrick; set (tricks < bid): −10 × bid; a bid of 0
    (``allow_zero_bid``) scores 1 per trick and cannot be set. Bid 6 take 8: 62; bid 5 take 3: −50.
    """
    if tricks >= bid:
        return 10 * bid + (tricks - bid)
    return -10 * bid


@dataclass(frozen=True, slots=True)
class Trick:
    """One trick as replayed: who led, each (player, card) in play order, and who won."""

    leader: str
    plays: tuple[tuple[str, BlukeCard], ...]
    winner: str


def replay(
    play: Sequence[Sequence[BlukeCard]], *, players: Sequence[str], dealer: str, trump: Suit | None
) -> tuple[Trick, ...]:
    """Who played each card and who won each trick.

    The player left of the dealer leads the first trick; the winner of each trick leads the
    next; play goes clockwise (seat order). Each trick must hold one card per player.
    """
    n = len(players)
    leader = (players.index(dealer) + 1) % n
    tricks = []
    for cards in play:
        seats = [players[(leader + k) % n] for k in range(n)]
        won = trick_winner(
            cards, trump, led=suit_to_follow(cards, BlukeLeadRule.NEXT_CARD_SETS_SUIT)
        )
        tricks.append(Trick(seats[0], tuple(zip(seats, cards, strict=True)), seats[won]))
        leader = players.index(seats[won])
    return tuple(tricks)


def verify_follow_suit(tricks: Sequence[Trick], *, rule: BlukeLeadRule) -> None:
    """Check every play against the follow-suit rule, judged against the player's whole hand
    (the cards the play record shows them playing from that trick on).

    Raises:
        PlayError: a player did not follow the suit led while holding it.
    """
    for t, trick in enumerate(tricks):
        cards = [c for _, c in trick.plays]
        for k, (player, card) in enumerate(trick.plays):
            hand = [c for later in tricks[t:] for p, c in later.plays if p == player]
            if not is_legal_play(card, hand, cards[:k], rule):
                led = suit_to_follow(cards[:k], rule)
                assert led is not None
                held = [c for c in hand if isinstance(c, Card) and c.suit == led]
                raise PlayError(
                    "revoke",
                    player=player,
                    cards=[card, *held],
                    params={
                        "trick": t + 1,
                        "card": str(card),
                        "suit": led.symbol,
                        "held": " ".join(str(c) for c in held),
                    },
                )


@dataclass(frozen=True, slots=True)
class BlukeHand:
    """One Bluke hand as entered, checked.

    Attributes:
        hand: 1 to 25.
        dealer: the dealer.
        trump: the trump suit, or None for no trump.
        turned: the turned-up card, if entered.
        bids: player → bid.
        tricks: player → tricks taken (derived from ``play`` when only the play was entered).
        play: the tricks in order, each the cards in the order played, if entered.
        tricks_entered: whether ``tricks`` was entered (rather than derived).
    """

    hand: int
    dealer: str
    trump: Suit | None
    turned: BlukeCard | None
    bids: Mapping[str, int]
    tricks: Mapping[str, int]
    play: tuple[tuple[BlukeCard, ...], ...] | None = None
    tricks_entered: bool = True

    @property
    def cards_dealt(self) -> int:
        """Cards dealt to each player in this hand."""
        return cards_dealt(self.hand)

    def to_json(self) -> dict[str, object]:
        """The canonical hand object of the score-sheet format."""
        out: dict[str, object] = {
            "hand": self.hand,
            "dealer": self.dealer,
            "trump": "none" if self.trump is None else self.trump.value,
        }
        if self.turned is not None:
            out["turned"] = str(self.turned)
        out["bids"] = dict(self.bids)
        if self.tricks_entered:
            out["tricks"] = dict(self.tricks)
        if self.play is not None:
            out["play"] = [[str(c) for c in trick] for trick in self.play]
        return out


class BlukeGame(GameRules[BlukeOptions, BlukeHand]):
    """Bluke, bid-and-tricks for 2 to 4 players over 25 hands (rules/bluke.md)."""

    name = "bluke"
    title = gettext_noop("Bluke")
    rules_version = "bluke/1"
    min_players = 2
    max_players = 4
    lower_wins = False
    unit = gettext_noop("points")
    number_key = "hand"
    schedule_length = HANDS
    schedule_wraps = True
    tiebreaks = (
        TieBreak(
            "bids_made",
            gettext_noop("Bids made"),
            gettext_noop("Hands in which the player made their bid; more is better."),
            higher_is_better=True,
            source="bids_made",
        ),
        TieBreak(
            "best_hand",
            gettext_noop("Best hand"),
            gettext_noop("The player's highest score in a single hand; higher is better."),
            higher_is_better=True,
            source="best_hand",
        ),
    )
    table_sizes = TableSizes(allowed=(3, 4), preferred=4)
    default_hands_per_round = HANDS
    max_hands_per_round = HANDS

    def cards_dealt(self, number: int) -> int:
        """Cards dealt to each player in hand ``number`` (rules/bluke.md, "Hands")."""
        return cards_dealt(number)

    options_type: ClassVar[type[Options]] = BlukeOptions
    deck = BLUKE_DECK

    def read_hand(
        self,
        raw: object,
        *,
        players: Sequence[str],
        options: BlukeOptions,
        previous: int | None = None,
    ) -> BlukeHand:
        """Read and check a Bluke hand (rules/bluke.md, "What is checked when a hand is entered").

        Raises:
            FormatError, SequenceError, PlayerError, CardError, CopiesError, HandSizeError,
            TrumpError, BidError, TricksError, PlayError: the first broken rule in the
            format's check order.
        """
        # bad_format
        h = hand_object(
            raw,
            allowed=("hand", "dealer", "trump", "turned", "bids", "tricks", "play"),
            required=("hand", "dealer", "trump", "bids"),
        )
        if "play" not in h:
            require(h, "tricks", "no_play")
        number = whole_number(h, "hand")
        dealer = text(h, "dealer")
        trump = TRUMPS[one_of(h["trump"], tuple(TRUMPS), key="trump", any_case=True)]
        raw_turned = text(h, "turned") if "turned" in h else None
        raw_bids = _numbers(h, "bids")
        raw_tricks = _numbers(h, "tricks") if "tricks" in h else None
        raw_play = h.get("play")
        if raw_play is not None or "play" in h:
            if not isinstance(raw_play, list):
                raise FormatError("value_type.tricks", params={"key": "play"})
            for trick in raw_play:
                cards_value(trick, key="play")

        # bad_sequence
        if not 1 <= number <= HANDS:
            raise SequenceError("out_of_range.hands", params={"last": HANDS, "number": number})
        if previous is not None and number != previous + 1:
            raise SequenceError(
                "not_consecutive.hands", params={"number": number, "previous": previous}
            )
        dealt = cards_dealt(number)

        # bad_player
        dealer = player_of(dealer, players, role="dealer")
        raw_bids = players_of(raw_bids, players, key="bids")
        require_players(raw_bids, players, key="bids")
        if raw_tricks is not None:
            raw_tricks = players_of(raw_tricks, players, key="tricks")
            require_players(raw_tricks, players, key="tricks")

        # bad_card, too_many_copies (the turned card is out of play: it is not counted here)
        turned = BLUKE_DECK.parse_cards([raw_turned])[0] if raw_turned is not None else None
        play = (
            tuple(BLUKE_DECK.parse_cards(t) for t in raw_play)
            if isinstance(raw_play, list)
            else None
        )
        n = len(players)
        if play is not None:
            # Name who played each card where the play's shape allows (each trick's winner
            # leads the next); the shape itself is checked below, under hand_size.
            whole = all(len(trick) == n for trick in play)
            seats = replay(play, players=players, dealer=dealer, trump=trump) if whole else ()
            entries: list[tuple[str | None, BlukeCard]] = [
                (p, c) for trick in seats for p, c in trick.plays
            ] or [(None, c) for trick in play for c in trick]
            BLUKE_DECK.verify_copies(entries)

            # hand_size
            if len(play) != dealt:
                raise HandSizeError(
                    "trick_count",
                    params={"count": len(play), "dealt": dealt, "number": number},
                )
            for t, trick in enumerate(play, 1):
                if len(trick) != n:
                    raise HandSizeError(
                        "trick_size",
                        cards=trick,
                        params={"trick": t, "count": len(trick), "players": n},
                    )

        # bad_trump
        if turned is not None and trump_of_turned(turned) != trump:
            expected = trump_of_turned(turned)
            raise TrumpError(
                "turned_disagrees" if expected is not None else "turned_disagrees.none",
                cards=[turned],
                params={"trump": expected},
            )

        # bad_bid
        lowest_bid = 0 if options.allow_zero_bid else 1
        for p in players:
            bid = raw_bids[p]
            if not lowest_bid <= bid <= dealt:
                raise BidError(
                    "bid_range",
                    player=p,
                    params={"bid": bid, "low": lowest_bid, "high": dealt, "number": number},
                )

        # tricks_mismatch
        tricks_played = (
            replay(play, players=players, dealer=dealer, trump=trump) if play is not None else None
        )
        derived = None
        if tricks_played is not None:
            derived = {p: sum(1 for t in tricks_played if t.winner == p) for p in players}
        if raw_tricks is not None:
            for p in players:
                if raw_tricks[p] < 0:
                    raise TricksError("negative", player=p, params={"tricks": raw_tricks[p]})
            total = sum(raw_tricks[p] for p in players)
            if total != dealt:
                raise TricksError(
                    "tricks_sum",
                    params={"total": total, "dealt": dealt, "number": number},
                )
            if derived is not None:
                for p in players:
                    if raw_tricks[p] != derived[p]:
                        raise TricksError(
                            "tricks_disagree_with_play",
                            player=p,
                            params={"entered": raw_tricks[p], "played": derived[p]},
                        )

        # illegal_play
        if tricks_played is not None:
            if turned is not None:
                for t, trick in enumerate(tricks_played, 1):
                    for p, c in trick.plays:
                        if c == turned:
                            raise PlayError(
                                "turned_card_played",
                                player=p,
                                cards=[c],
                                params={"trick": t},
                            )
            verify_follow_suit(tricks_played, rule=options.bluke_lead_rule)

        tricks = {p: raw_tricks[p] for p in players} if raw_tricks is not None else derived
        assert tricks is not None
        return BlukeHand(
            number,
            dealer,
            trump,
            turned,
            {p: raw_bids[p] for p in players},
            tricks,
            play,
            tricks_entered=raw_tricks is not None,
        )

    def score_hand(
        self, hand: BlukeHand, *, players: Sequence[str], options: BlukeOptions
    ) -> HandScore:
        """Bid scores (:func:`bid_score`), who made their bid, and the tricks taken."""
        scores = {p: bid_score(hand.bids[p], hand.tricks[p]) for p in players}
        made = tuple(p for p in players if hand.tricks[p] >= hand.bids[p])
        return HandScore(
            scores,
            made=made,
            won=hand_winners(scores, lower_wins=False),
            facts={"hand": hand.hand, "tricks": dict(hand.tricks)},
        )

    def hand_to_json(self, hand: BlukeHand) -> dict[str, object]:
        return hand.to_json()

    def schedule_number(self, hand: BlukeHand) -> int:
        return hand.hand


def _numbers(h: Mapping[str, object], key: str) -> dict[str, int]:
    numbers: dict[str, int] = {}
    for p, v in obj(h, key).items():
        if isinstance(v, bool) or not isinstance(v, int):
            raise FormatError("value_type.whole_of", player=p, params={"key": key, "value": v})
        numbers[p] = v
    return numbers


BLUKE = BlukeGame()
register(BLUKE)
