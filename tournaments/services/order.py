"""Which round a change to a tournament's players touches, and the order of the locks every
such change takes first (moved out of ``tournaments.services.events``, unchanged). Names
starting with ``_`` are shared within ``tournaments.services`` only."""

from __future__ import annotations

from tournaments.models import Round, Tournament


def last_round(tournament: Tournament) -> Round | None:
    """The tournament's round of the highest number, whatever its state; None before the
    first is seated."""
    return tournament.round_set.order_by("-number").first()


def last_seated_number(last: Round | None) -> int:
    """The number of the last round a player withdrawing now was seated in (0: none): the
    latest round, unless its seating is still to come (planned, or failed: it will be seated
    without them)."""
    if last is None:
        return 0
    if last.state in (Round.State.PLANNED, Round.State.FAILED):
        return last.number - 1
    return last.number


def players_locked(tournament_id: int) -> None:
    """Lock the tournament's latest round, if any, then the tournament: what every change to
    its players or to which round comes next locks first, in that order (the seating task,
    publishing and regenerating lock a round with its tournament; the scoring seam a round,
    then updates the tournament).

    A seating running now holds both: a late entry or a withdrawal waits for it, then sees the
    round seated (and flags it) instead of slipping in while the players are read. The
    tournament's lock also covers the round this one may have missed: one being created now
    (its creator holds the tournament), or round 1 (no round to lock yet)."""
    list(
        Round.objects.select_for_update()
        .filter(tournament_id=tournament_id)
        .order_by("-number")
        .values_list("pk", flat=True)[:1]
    )
    list(Tournament.objects.select_for_update().filter(pk=tournament_id).values_list("pk"))


def players_changed(tournament: Tournament) -> None:
    """The players changed while the latest round is seated but not published: its seating no
    longer fits them, so it is flagged to be seated again (while it has no results)."""
    Round.objects.filter(
        tournament=tournament, state=Round.State.SEATED, number=entry_round(tournament)
    ).update(superseded=True)


def entry_round(tournament: Tournament) -> int:
    """The first round a player registered now can play: the latest round while it is not
    yet published (its seating may be done again to take them: :func:`round_regenerate`; a
    failed seating's retry seats them), else the next one."""
    last = last_round(tournament)
    if last is None:
        return 1
    if last.state in (Round.State.PLANNED, Round.State.SEATED, Round.State.FAILED):
        return last.number
    return last.number + 1
