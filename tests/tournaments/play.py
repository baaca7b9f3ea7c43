"""Playing tournaments in tests: valid random hands for each game, a record of what the tables
entered, and the standings computed from that record INDEPENDENTLY of ``tournaments.standings``.

The hands are built from ``shared/rules/*.md`` (cards, contracts, bids, knocks), not from the
rules engine; the standings from the text of issue 6 ("Missed rounds", "Standings"):

- a player's **round score** is the sum of their points (Rook, Bluke) or stake units (Tonk) at
  their table that round; basis ``placement``: at a table of n seats, place p earns
  (n − p) / (n − 1), tied seats sharing the places they span (Rook: lowest points first);
- a **missed round** (sat out, entered late, withdrawn, a substitute in the seat, a table not
  played) is a complete round without a result; it scores ``average`` (the exact mean of the
  round scores of the registered players who played that round), ``zero`` or ``worst`` (the
  worst of those round scores);
- Rook totals: lowest wins; Bluke, Tonk and every placement total: highest wins;
- tie-breaks in order, each shown: Rook — rounds gone out, best single round (lowest round
  points); Bluke — bids made, best single hand (highest); Tonk — hands won (the best stake units
  of a hand, shared by ties, nobody when all are equal), best single round (highest). A player
  with no result has no best round or hand and ranks below any who has one;
- players equal on all three share a place, shown "2=", and are listed by name.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tonkrules.names import name_key

# --- cards ----------------------------------------------------------------------------------------

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
STANDARD_DECK = tuple(r + s for s in SUITS for r in RANKS)
ROOK_COLOURS = ("R", "Y", "G", "B")
ROOK_NUMBERS = range(1, 15)

#: Toonerville Rook contracts (rules/rook.md): round → (runs, sets).
ROOK_CONTRACTS = {
    1: (0, 2),
    2: (1, 1),
    3: (2, 0),
    4: (0, 3),
    5: (1, 2),
    6: (2, 1),
    7: (0, 4),
    8: (3, 0),
    9: (0, 5),
    10: (4, 0),
    11: (2, 2),
}
ROOK_LAST_ROUND = 11
BLUKE_HANDS = 25


def bluke_cards_dealt(hand: int) -> int:
    """Cards dealt to each player in Bluke hand ``hand`` (rules/bluke.md): |h − 13| + 1."""
    return abs(hand - 13) + 1


def bluke_hand_of(round_number: int, index: int, hands_per_round: int) -> int:
    """The Bluke hand number of the ``index``-th hand (0-based) of round ``round_number``: the
    rounds continue the sequence, which restarts after hand 25 (issue 6)."""
    return ((round_number - 1) * hands_per_round + index) % BLUKE_HANDS + 1


# --- valid random hands ---------------------------------------------------------------------------


def tonk_hand(rng: random.Random, players: list[str], dealer: str) -> dict[str, Any]:
    """A Tonk hand ending in a knock, a tonk out, an out on the discard or a stock out (never a
    tonk at the deal): every card once, at most five held."""
    deck = list(STANDARD_DECK)
    rng.shuffle(deck)
    end = rng.choice(("knock", "knock", "knock", "tonk_out", "out_on_discard", "stock_out"))
    by = rng.choice(players)
    held: dict[str, list[str]] = {}
    for p in players:
        if end in ("tonk_out", "out_on_discard") and p == by:
            held[p] = []
        else:
            held[p] = [deck.pop() for _ in range(rng.randint(1, 5))]
    hand: dict[str, Any] = {"dealer": dealer, "end": end, "held": held}
    if end != "stock_out":
        hand["by"] = by
    return hand


def bluke_hand(rng: random.Random, players: list[str], number: int, dealer: str) -> dict[str, Any]:
    """Bluke hand ``number``: bids from 1 to the cards dealt, tricks adding up to the cards
    dealt."""
    dealt = bluke_cards_dealt(number)
    tricks = Counter({p: 0 for p in players})
    for _ in range(dealt):
        tricks[rng.choice(players)] += 1
    bids = {}
    for p in players:
        # Near the tricks taken, so that bids are made and missed.
        bids[p] = max(1, min(dealt, tricks[p] + rng.choice((-1, 0, 0, 1))))
    return {
        "hand": number,
        "dealer": dealer,
        "trump": rng.choice(("S", "H", "D", "C", "none")),
        "bids": bids,
        "tricks": dict(tricks),
    }


def _rook_card(rng: random.Random) -> str:
    if rng.random() < 0.08:
        return "ROOK"
    return f"{rng.choice(ROOK_COLOURS)}{rng.choice(ROOK_NUMBERS)}"


def _rook_melds(rng: random.Random, runs: int, sets: int) -> list[list[str]]:
    melds: list[list[str]] = []
    for number in rng.sample(list(ROOK_NUMBERS), sets):
        size = rng.choice((3, 3, 4))
        meld = [f"{rng.choice(ROOK_COLOURS)}{number}" for _ in range(size)]
        if rng.random() < 0.25:
            meld[0] = "ROOK"  # the wild card stands for one of the set
        melds.append(meld)
    for _ in range(runs):
        colour = rng.choice(ROOK_COLOURS)
        length = rng.choice((4, 4, 5))
        start = rng.randint(1, 15 - length)
        meld = [f"{colour}{n}" for n in range(start, start + length)]
        if rng.random() < 0.25:
            meld[rng.randrange(length)] = "ROOK"  # the wild card fills a gap
        melds.append(meld)
    rng.shuffle(melds)
    return melds


def rook_round(
    rng: random.Random, players: list[str], number: int, dealer: str, *, nobody_out: bool = False
) -> dict[str, Any]:
    """Toonerville Rook round ``number``: somebody goes out laying down exactly the round's
    contract (runs of 4+ consecutive numbers of one colour, sets of 3+ of one number), the
    others hold a few cards; ``nobody_out``: time was called, everyone holds cards. No card
    appears more often than the decks in play (one per player) hold."""
    decks = len(players)
    while True:
        out = None if nobody_out else rng.choice(players)
        hand: dict[str, Any] = {"round": number, "dealer": dealer, "out": out}
        cards: list[str] = []
        if out is not None:
            runs, sets = ROOK_CONTRACTS[number]
            melds = _rook_melds(rng, runs, sets)
            hand["melds"] = {out: melds}
            cards += [c for m in melds for c in m]
            if number != ROOK_LAST_ROUND and rng.random() < 0.7:
                hand["discard"] = _rook_card(rng)
                cards.append(hand["discard"])
        held = {p: [_rook_card(rng) for _ in range(rng.randint(1, 6))] for p in players if p != out}
        hand["held"] = held
        cards += [c for h in held.values() for c in h]
        if max(Counter(cards).values()) <= decks:
            return hand


def rook_points(cards: list[str]) -> int:
    """Points for cards left in hand (rules/rook.md): 1–9 five, 10–14 ten, the Rook 25."""
    total = 0
    for card in cards:
        if card == "ROOK":
            total += 25
        else:
            total += 5 if int(card[1:]) <= 9 else 10
    return total


# --- what the tables entered ----------------------------------------------------------------------


@dataclass
class Entered:
    """One registered player: registration id, name, first round, withdrawn after."""

    registration: int
    name: str
    from_round: int = 1
    withdrawn_after: int | None = None


@dataclass
class HandResult:
    """One hand (or Rook round) as the API answered it: scores by seat name, and the facts the
    tie-breaks count, taken from the hand as entered."""

    scores: dict[str, int]
    went_out: frozenset[str] = frozenset()
    made: frozenset[str] = frozenset()

    @classmethod
    def of(cls, kind: str, entry: dict[str, Any], scores: dict[str, int]) -> HandResult:
        went_out: frozenset[str] = frozenset()
        made: frozenset[str] = frozenset()
        if kind == "rook" and entry.get("out"):
            went_out = frozenset([entry["out"]])
        if kind == "bluke":
            made = frozenset(p for p, bid in entry["bids"].items() if entry["tricks"][p] >= bid)
        return cls(dict(scores), went_out, made)


@dataclass
class PlayedTable:
    """A table of a round: its seats (seat name → registration id, ``None`` for a substitute)
    and the hands it entered."""

    round: int
    seats: dict[str, int | None]
    hands: list[HandResult] = field(default_factory=list)


@dataclass
class Record:
    """Everything entered in a tournament, to compute its standings from."""

    kind: str
    players: dict[int, Entered] = field(default_factory=dict)
    tables: list[PlayedTable] = field(default_factory=list)
    rounds_complete: int = 0


# --- the standings, computed from the record ------------------------------------------------------


def _placement(scores: dict[str, int], *, lower_wins: bool) -> dict[str, Fraction]:
    """Placement points of each seat: place p of n earns (n − p)/(n − 1); ties share."""
    n = len(scores)
    if n == 1:
        return {name: Fraction(1, 2) for name in scores}
    out = {}
    for name, mine in scores.items():
        better = sum(1 for v in scores.values() if (v < mine if lower_wins else v > mine))
        tied = sum(1 for v in scores.values() if v == mine)
        places = range(better + 1, better + tied + 1)
        out[name] = sum((Fraction(n - p, n - 1) for p in places), Fraction(0)) / tied
    return out


def expected_standings(
    record: Record, *, basis: str = "total", missed: str = "average"
) -> list[dict[str, Any]]:
    """The standings rows as the API shows them (place, registration, name, withdrawn, total,
    tiebreaks, rounds), best first; a player with no result yet has ``total`` and tie-breaks
    null."""
    kind = record.kind
    totals_lower = kind == "rook" and basis == "total"
    round_score: dict[tuple[int, int], Fraction] = {}  # (registration, round) → score
    points: dict[tuple[int, int], int] = defaultdict(int)
    first_tiebreak: Counter[int] = Counter()
    best_hand: dict[int, int] = {}
    last_round = record.rounds_complete
    for table in record.tables:
        if not table.hands:
            continue  # not played
        last_round = max(last_round, table.round)
        seat_points = {name: sum(h.scores[name] for h in table.hands) for name in table.seats}
        if basis == "placement":
            seat_scores = _placement(seat_points, lower_wins=kind == "rook")
        else:
            seat_scores = {name: Fraction(v) for name, v in seat_points.items()}
        for name, reg in table.seats.items():
            if reg is None:
                continue  # a substitute's results count for nobody registered
            round_score[(reg, table.round)] = seat_scores[name]
            points[(reg, table.round)] = seat_points[name]
            for hand in table.hands:
                if kind == "rook":
                    first_tiebreak[reg] += name in hand.went_out
                elif kind == "bluke":
                    first_tiebreak[reg] += name in hand.made
                    mine = hand.scores[name]
                    best_hand[reg] = max(best_hand.get(reg, mine), mine)
                else:
                    values = set(hand.scores.values())
                    first_tiebreak[reg] += len(values) > 1 and hand.scores[name] == max(values)

    missed_score: dict[int, Fraction] = {}
    for r in range(1, record.rounds_complete + 1):
        played = [s for (_reg, rr), s in round_score.items() if rr == r]
        if not played or missed == "zero":
            missed_score[r] = Fraction(0)
        elif missed == "average":
            missed_score[r] = sum(played, Fraction(0)) / len(played)
        else:
            missed_score[r] = max(played) if totals_lower else min(played)

    rows = []
    for reg, entered in record.players.items():
        rounds: dict[str, dict[str, Any]] = {}
        total = Fraction(0)
        for r in range(1, last_round + 1):
            if (reg, r) in round_score:
                score, was_missed = round_score[(reg, r)], False
            elif r <= record.rounds_complete:
                score, was_missed = missed_score[r], True
            else:
                continue
            total += score
            rounds[str(r)] = {"score": str(score), "missed": was_missed}
        my_rounds = [points[(reg, r)] for (g, r) in round_score if g == reg]
        if kind == "bluke":
            best = best_hand.get(reg)
        elif kind == "rook":
            best = min(my_rounds) if my_rounds else None
        else:
            best = max(my_rounds) if my_rounds else None
        rows.append(
            {
                "registration": reg,
                "name": entered.name,
                "withdrawn": entered.withdrawn_after is not None,
                "total": total,
                "tiebreaks": [first_tiebreak[reg], best],
                "rounds": rounds,
                # No score yet (no round, no result): not ranked, listed last (issue 12).
                "unranked": not rounds and not my_rounds,
            }
        )

    def key(row: dict[str, Any]) -> tuple[Any, ...]:
        first, best = row["tiebreaks"]
        best_key = 0 if best is None else (best if kind == "rook" else -best)
        total = row["total"] if totals_lower else -row["total"]
        return (row["unranked"], total, -first, best is None, best_key)

    rows.sort(key=lambda row: (key(row), name_key(row["name"]), row["registration"]))
    for i, row in enumerate(rows):
        shared = sum(1 for other in rows if key(other) == key(row)) > 1
        place = 1 + sum(1 for other in rows if key(other) < key(row))
        row["place"] = "" if row["unranked"] else f"{place}=" if shared else str(place)
        assert i + 1 >= place
    for row in rows:
        # No result yet: no total and no tie-breaks (null), never a leader's 0 (issue 24).
        row["total"] = None if row["unranked"] else str(row["total"])
        if row["unranked"]:
            row["tiebreaks"] = [None] * len(row["tiebreaks"])
        del row["unranked"]
    return rows


def comparable(api_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The API's standings rows, with the keys :func:`expected_standings` gives."""
    keys = ("place", "registration", "name", "withdrawn", "total", "tiebreaks", "rounds")
    return [{k: row[k] for k in keys} for row in api_rows]
