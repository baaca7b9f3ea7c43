"""Seating: who sits at which table in a round, with as few repeat meetings as possible.

Pure: no Django, no database, no I/O. numpy holds the meeting matrix. The same input and the
same seed give the same seating, on any machine with the same numpy (the only clock read is
:func:`plan_rounds` timing its rounds for ``Plan.seconds``, which never changes a seating).

Words used throughout:

- **players**: any hashable ids (ints, strings, primary keys), given in a sequence whose order
  only breaks ties; a player appears once.
- **meetings**: how often each pair of players has sat at the same table so far
  (:class:`Meetings`, or a mapping ``{(a, b): count}``).
- **split**: the table sizes of one round and the number of players sitting out
  (:func:`table_sizes`); whether a number of players can be seated at all:
  :func:`check_seatable` (fewer than the smallest table cannot).
- **M**: the number of pairs seated together over a schedule, counted once per round they sit
  together (a table of 4 seats 6 pairs).
- **E** (excess): the meetings beyond each pair's first, summed over all pairs:
  ``sum(max(0, m - 1))`` where ``m`` is how often the pair sat together (:func:`excess`).
- **LB**: a lower bound on E for any schedule with the same splits (:func:`lower_bound`).
- **opponents faced**: the sum over a player's rounds of (table size - 1); sitting out faces
  none. Its spread (max - min over the players) measures fairness when table sizes differ.

Methods:

- ``balanced`` (default): one round at a time. Table sizes come from :func:`table_sizes`;
  players who have faced the most opponents take the smaller tables; then a search swaps
  players between tables to minimise the cost of the pairs seated together: a pair that has
  met ``m >= 1`` times costs ``16 + (m - 1) ** 2`` (every repeat adds one to E, so repeats weigh
  nearly alike, and the pairs that met least are seated together again first). Fields of up to
  ``LOOKAHEAD_MAX`` players search a few equally good rounds from different starts and keep
  the one whose next round can be seated with the fewest repeats.
- ``swiss``: one round at a time, lexicographic (:mod:`~tournaments.seating.swiss`): first the
  fewest repeat meetings (none whenever the table sizes allow it), then the standings in the
  Swiss pair-down order (the best-ranked free player opens the next table with the best-ranked
  free players who have met nobody there; backtracking when the rest cannot be seated). An
  exact depth-first search with a step budget; it looks ahead over the rounds still to play
  (``later``) so no round forces a later repeat where it can be avoided. Past its budget it
  falls back to king of the hill repaired by the shared search (a repeat costs more than any
  move of ``d`` tables, costed ``d ** 2``) and marks the round ``proven=False``.
- ``plan``: the whole schedule for a fixed number of rounds at once (no results needed): the
  rounds are seated ``balanced``, then a tabu search over every round minimises E itself,
  stopping early at LB. It finds the known repeat-free designs (16 players in fours for 5
  rounds, 9 in threes for 4, 15 in threes for 7: Kirkman's schoolgirls). Above ``DENSE_MAX``
  players it keeps the balanced rounds.

The search: a round of more than ``ROUND_DENSE_MAX`` players first gets a repair pass that
moves each player in a repeat to the best swap over the whole field at once (numpy rows, never a
Python loop over the players); a round of at most ``DENSE_MAX`` players with a repeat left, and
every ``plan``, then get a tabu search on dense ``(n, n)`` matrices: each step makes the best
swap of a player in a repeat with any player at another table of that round, the moved players
stay put for a few steps, and a stalled search restarts from its best seating, shaken by a few
random swaps (more, the longer it stalls).

Fairness rule: a swap between tables of different sizes is allowed only if afterwards the
spread of opponents faced (history plus the rounds so far, after every round) is at most 2, or
no larger than it already was. The first seating gives the larger tables to the players who
have faced the fewest opponents, which never widens a spread beyond max(previous spread, 1)
when a round's sizes differ by one.

Dealers: in :func:`seat_round`, at each table the player with the fewest first-dealer turns so
far deals first (ties broken by the seed); :func:`plan_rounds` then balances the turns over the
whole plan. A :class:`Table` lists its players in seat order starting with that first dealer:
``table.players[0] == table.first_dealer``.

Modules (as Tabbycat's ``draw/generator/``): :mod:`~tournaments.seating.common` (the value
objects, table sizes, the bound and the measures), :mod:`~tournaments.seating.search` (the
tabu search and the repair pass), :mod:`~tournaments.seating.round` (one round, whatever the
method), one module per method (:mod:`~tournaments.seating.balanced`,
:mod:`~tournaments.seating.swiss`, :mod:`~tournaments.seating.plan`). The public names are
importable from this package.
"""

from tournaments.seating.common import (
    DENSE_MAX,
    METHODS,
    SEATING_MESSAGES,
    SIZE_MIN,
    Meetings,
    Plan,
    Player,
    RoundSeating,
    SeatingError,
    Split,
    Table,
    check_seatable,
    default_prefer,
    excess,
    lower_bound,
    opponent_spread,
    opponents_faced,
    pairs_seated,
    split_of,
    table_sizes,
)
from tournaments.seating.plan import plan_rounds
from tournaments.seating.round import seat_round

__all__ = [
    "DENSE_MAX",
    "METHODS",
    "SEATING_MESSAGES",
    "SIZE_MIN",
    "Meetings",
    "Plan",
    "Player",
    "RoundSeating",
    "SeatingError",
    "Split",
    "Table",
    "check_seatable",
    "default_prefer",
    "excess",
    "lower_bound",
    "opponent_spread",
    "opponents_faced",
    "pairs_seated",
    "plan_rounds",
    "seat_round",
    "split_of",
    "table_sizes",
]
