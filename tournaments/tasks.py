"""Celery tasks of the tournaments app: each takes ids, calls one service, and is safe to run
twice."""

from celery import shared_task


@shared_task
def round_seat(round_id: int) -> None:
    """Seat round ``round_id`` if it is still planned; a refusal marks it failed
    (:func:`tournaments.services.round_seating_run`)."""
    from tournaments.services import round_seating_run

    round_seating_run(round_id=round_id)


@shared_task
def standings_refresh(tournament_id: int) -> None:
    """Recompute and cache the standings, unless they are already for the latest results
    (:func:`tournaments.services.standings_update`). The task keeps its name, which is its
    name on the queue."""
    from tournaments.services import standings_update

    standings_update(tournament_id=tournament_id)
