"""Standings: the ranking of a tournament's registered players, from their tables' results.

Pure: no Django, no database, no I/O, no clock. ``tournaments.selectors.standings`` reads the
registrations and the seat results (two queries; the seat results are materialised by
``tournaments.services.seam.game_changed``), calls :func:`compute_standings` and caches the
rows; anything else (a test, a command-line tool, the benchmark) can call it the same way.

Words used throughout (issue 6, "Standings" and "Missed rounds"):

- **result**: one seat's aggregate over the current hands of one game (a table of one round):
  :class:`SeatRecord`. A seat counts for the registered player whose player id it carries; a
  substitute's seat (no player id, or the id of a player who is not registered) counts for
  nobody, though it still takes a place at its table.
- **round score**: a player's score in one round. Basis ``total``: the sum of their points at
  their table that round (Rook and Bluke points, Tonk net stake units). Basis ``placement``: the
  placement points their table gave them (below).
- **placement points**: at a table of ``n`` seats with results, place ``p`` (1 = best by the
  table's round scores; Rook: lowest points is best) earns ``(n - p) / (n - 1)``: 1 for the
  winner, 0 for the last, so tables of different sizes compare fairly. Tied seats share: they
  split the points of the places they span equally (4 seats, two tied for 2nd: each gets
  (2/3 + 1/3) / 2 = 1/2). A table where only one seat has results (not possible with valid
  score lines) gives it 1/2.
- **missed round**: a round from 1 to ``rounds_complete`` in which a registered player has no
  result (sat out, entered late, withdrawn, absent with a substitute in the seat, or their table
  was not played). It scores ``missed_round_score``: ``average``, the exact mean of the round
  scores of the registered players who have a result in that round; ``zero``; ``worst``, the
  worst of those round scores (Rook totals: the highest; otherwise the lowest). A round nobody
  registered played scores 0 for everyone. Rounds after ``rounds_complete`` (in progress) count
  the results entered so far and give no missed rounds.
- **total**: the sum of the round scores, missed rounds included. Rook totals: lowest wins; every
  other case (Bluke, Tonk, and placement for every game): highest wins.
- **tie-breaks**, in order, each its own column, as the game's rules declare them
  (``GameRules.tiebreaks``, :class:`tonkrules.games.TieBreak`): Rook, rounds gone out
  (more is better) then best single round (the lowest round points of a round played); Bluke,
  bids made (more) then best single hand (the highest points of a hand); Tonk, hands won (more)
  then best single round (the highest round stake units). A count (``went_out``,
  ``bids_made``, ``won``) sums the flagged hands; a best round or hand takes the best end in the
  tie-break's direction. They count the player's own results only and always use points (or
  stake units), whatever the basis. A player with no result has no best round or hand
  (``None``) and ranks below any who has one.
- **place**: players equal on the total and both tie-breaks share a place, numbered like sports
  tables (1, 2=, 2=, 4) and listed by name within it.

Arithmetic is exact throughout: ints and :class:`fractions.Fraction`, never a float, never
rounded before comparing. Internally each round score is an integer numerator over one common
denominator (1 for totals; a multiple of every ``2 (n - 1)`` for placement), held in numpy
``int64`` matrices (players x rounds) so that 10,000 results take a few milliseconds; a
:class:`~fractions.Fraction` is made once per distinct round score and shared between the rows
(which also keeps the pickled rows small and quick to load from a cache). Totals are compared
as integers over their least common denominator (Python ints: no overflow).

The code is split in two: :mod:`~tournaments.standings.shapes`, what goes in and comes out;
:mod:`~tournaments.standings.compute`, :func:`compute_standings` and its steps. The public names
are importable from this package (``from tournaments.standings import compute_standings``).
"""

from tournaments.standings.compute import MAX_DENOMINATOR, compute_standings, placement_points
from tournaments.standings.shapes import (
    BASES,
    IN_PLAY,
    MISSED_SCORES,
    Entry,
    RoundScore,
    SeatColumns,
    SeatRecord,
    StandingRow,
    fields_read,
    place_label,
    rules_of,
    tiebreak_keys,
)

__all__ = [
    "BASES",
    "IN_PLAY",
    "MAX_DENOMINATOR",
    "MISSED_SCORES",
    "Entry",
    "RoundScore",
    "SeatColumns",
    "SeatRecord",
    "StandingRow",
    "compute_standings",
    "fields_read",
    "place_label",
    "placement_points",
    "rules_of",
    "tiebreak_keys",
]
