"""One person, one table at a time (issue 24): when two of a club's rounds overlap in time, and
who of a round's people already sits at another of the club's tables then.

**What "overlap" means.** A round occupies its people during its *window*, from its start
until its end (half-open: a round ending at 20:00 and one starting at 20:00 do not overlap):

- its **start**: when it was published (its clock started, ``Round.published_at``); a round
  not published yet (to be seated, seated, or not even asked for) starts at its tournament's
  start time (``Tournament.starts_at``) when it is round 1 and that time is still to come,
  else *now* (the director may publish it at any moment);
- its **end**: when it completed (``Round.completed_at``); a round not complete ends at its
  deadline (``Round.deadline``) while the deadline is still to come; a round not published
  yet, at its start plus the tournament's minutes per round when it has them. A round without
  an end time (no clock, or its time called with a hand still being played) overlaps every
  later window until it completes.

Two windows overlap when each starts before the other ends. A person is a club player, or a
substitute, by the name rule (``tonkrules.names.name_key``): the people of a round are its
seated players and substitutes (a player whose seat a substitute plays is not at the table).
Only other tournaments' rounds with seats and not complete (seated, published, in play) can
hold someone now or later; the rounds of one tournament follow each other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from tonkrules.names import name_key
from tournaments.errors import TournamentConflict, TournamentError
from tournaments.models import Club, Round, TableSeat, Tournament

#: A window: its start and its end (None: no end time, until the round completes).
Window = tuple[datetime, datetime | None]

#: The states of a round whose seats hold their people now or later.
HOLDING = (Round.State.SEATED, Round.State.PUBLISHED, Round.State.PLAYING)


@dataclass(frozen=True)
class Elsewhere:
    """Someone who sits at another of the club's tables in an overlapping round."""

    name: str
    tournament: str
    tournament_id: int
    round: int
    table: int

    def as_json(self) -> dict[str, Any]:
        """As the API and the audit give it."""
        return {
            "name": self.name,
            "tournament": self.tournament,
            "tournament_id": self.tournament_id,
            "round": self.round,
            "table": self.table,
        }


def round_window(
    *, tournament: Tournament, number: int, rnd: Round | None, now: datetime
) -> Window:
    """The window of round ``number`` of ``tournament`` (``rnd``: the round, None when it is
    not asked for yet), as of ``now`` (the module's rule)."""
    if rnd is not None and rnd.state == Round.State.COMPLETE and rnd.completed_at is not None:
        start = rnd.published_at or rnd.seated_at or rnd.completed_at
        return start, rnd.completed_at
    if rnd is not None and rnd.published_at is not None:
        deadline = rnd.deadline
        return rnd.published_at, deadline if deadline is not None and deadline > now else None
    start = now
    if number == 1 and tournament.starts_at is not None and tournament.starts_at > now:
        start = tournament.starts_at
    minutes = tournament.minutes_per_round
    return start, start + timedelta(minutes=minutes) if minutes else None


def windows_overlap(a: Window, b: Window) -> bool:
    """Whether windows ``a`` and ``b`` overlap: each starts before the other ends."""
    return (b[1] is None or a[0] < b[1]) and (a[1] is None or b[0] < a[1])


def seated_elsewhere(
    *,
    tournament: Tournament,
    number: int,
    rnd: Round | None,
    names: Iterable[str],
    now: datetime | None = None,
) -> list[Elsewhere]:
    """Who of ``names`` (people by the name rule) sits at a table of another of the club's
    tournaments in a round overlapping round ``number`` of ``tournament`` (``rnd``: that
    round, None when not asked for yet), ordered by tournament, round and table.

    Args:
        names: club players' or substitutes' names.
        now: the time of the check (default: now).
    """
    keys = {name_key(n) for n in names}
    if not keys:
        return []
    now = now or timezone.now()
    window = round_window(tournament=tournament, number=number, rnd=rnd, now=now)
    rounds = {
        other.pk: other
        for other in Round.objects.filter(tournament__club_id=tournament.club_id, state__in=HOLDING)
        .exclude(tournament_id=tournament.pk)
        .select_related("tournament")
        if windows_overlap(
            window,
            round_window(tournament=other.tournament, number=other.number, rnd=other, now=now),
        )
    }
    if not rounds:
        return []
    found: list[Elsewhere] = []
    # One narrow row a seat: a club player's name key is stored; a substitute's is made here.
    for round_id, table, substitute, name, key in (
        TableSeat.objects.filter(round_id__in=rounds)
        .order_by("round__tournament_id", "round__number", "table__number", "position")
        .values_list(
            "round_id",
            "table__number",
            "substitute",
            "registration__player__name",
            "registration__player__name_key",
        )
    ):
        if (name_key(substitute) if substitute else key) not in keys:
            continue
        other = rounds[round_id]
        found.append(
            Elsewhere(
                substitute or name, other.tournament.name, other.tournament_id, other.number, table
            )
        )
    return found


def people_elsewhere(
    *, tournament: Tournament, number: int, rnd: Round | None, names: Iterable[str]
) -> list[Elsewhere]:
    """:func:`seated_elsewhere` now, the club's row locked first (the last of the caller's
    locks): two such checks of one club, and the seatings they allow, come one after the
    other."""
    list(Club.objects.select_for_update().filter(pk=tournament.club_id).values_list("pk"))
    return seated_elsewhere(tournament=tournament, number=number, rnd=rnd, names=names)


def check_elsewhere(
    *,
    tournament: Tournament,
    number: int,
    rnd: Round | None,
    names: Iterable[str],
    confirm: bool,
    reason: object,
) -> list[Elsewhere]:
    """Refuse to seat (or register for round ``number``) people who sit at another of the
    club's tables at that time (:func:`people_elsewhere`), unless a director confirms it
    (``confirm``) with a ``reason`` (the caller keeps both in the audit).

    Returns:
        The people found elsewhere (empty: none; else the director confirmed them).

    Raises:
        TournamentConflict: ``seated_elsewhere`` naming the first one (``name``,
            ``tournament`` and ``tournament_id``, ``round``, ``table``), every one in
            ``elsewhere``.
        TournamentError: ``reason_needed`` (confirmed without a reason; ``elsewhere`` as
            above).
    """
    found = people_elsewhere(tournament=tournament, number=number, rnd=rnd, names=names)
    if not found:
        return []
    if not confirm:
        raise elsewhere_conflict(found)
    if not isinstance(reason, str) or not reason.strip():
        raise TournamentError(
            "reason_needed.elsewhere", field="reason", elsewhere=[e.as_json() for e in found]
        )
    return found


def elsewhere_conflict(found: list[Elsewhere]) -> TournamentConflict:
    """The refusal naming who sits elsewhere (``found``: at least one)."""
    first = found[0]
    return TournamentConflict(
        "seated_elsewhere",
        name=first.name,
        tournament=first.tournament,
        tournament_id=first.tournament_id,
        round=first.round,
        table=first.table,
        elsewhere=[e.as_json() for e in found],
    )


def elsewhere_audit(elsewhere: Sequence[Elsewhere]) -> dict[str, Any]:
    """The audit entry's ``elsewhere`` field for a write a director confirmed although these
    people sit at another of the club's tables (``{}`` when nobody did)."""
    return {"elsewhere": [e.as_json() for e in elsewhere]} if elsewhere else {}
