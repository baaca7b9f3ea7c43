"""What tournaments does when scoring announces a change to a game (the one seam between the
apps; see ``scoring.events``).

``TournamentsConfig.ready`` registers :func:`game_changed` under the name ``ORIGIN``; every
call this app makes to the scoring services passes ``origin=ORIGIN``, so scoring announces only
the changes made by others (a hand entered at a table, a correction, a void): what tournaments
does to its own games never comes back to it."""

from __future__ import annotations

from django.db import transaction

from scoring.events import GameChanged
from scoring.models import Game, Hand
from tournaments.models import (
    Round,
    Table,
)
from tournaments.services.results import _results_changed, seat_results_write
from tournaments.services.rounds import _complete


def game_changed(event: GameChanged) -> None:
    """The scoring seam (registered in ``TournamentsConfig.ready``): a game changed, by
    someone other than this app (a hand recorded, corrected, voided, restored, confirmed or
    disputed at a table).

    Changes that leave the score lines and the hands' status as they were (a game finished by
    someone else) change nothing here. For a tournament table: its materialised results
    rewritten (:func:`seat_results_write`; a game that requires confirmation counts its
    confirmed hands only), the table's state (playing; reported once its hand limit is reached
    and, where confirmation is required, every current hand is confirmed), the round's
    (playing; complete when every table reported: the round's games are then finished here,
    with ``origin=ORIGIN``, so those changes are not announced back), later rounds already
    seated flagged as seated on superseded standings, and the standings refreshed: one
    results version and one refresh per event (a confirmation, a dispute and a restore too).

    Args:
        event: the change scoring announced, after its commit (``scoring.events``).
    """
    if not event.results_changed:  # no score line or hand status changed
        return
    game_id = event.game_id
    table = Table.objects.filter(game_id=game_id).values_list("pk", "round_id").first()
    if table is None:
        return
    table_id, round_id = table
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=round_id)
        row = Table.objects.select_related("game").get(pk=table_id)
        game = row.game
        seat_results_write(
            game_id=game_id,
            tournament_id=rnd.tournament_id,
            round_number=rnd.number,
            confirmed_only=game.confirmation != Game.Confirmation.NONE,
        )
        if rnd.state in (Round.State.PUBLISHED, Round.State.PLAYING):
            if game.current_hands and rnd.state == Round.State.PUBLISHED:
                rnd.state = Round.State.PLAYING
                rnd.save(update_fields=("state",))
            state = (
                Table.State.REPORTED
                if _reported(game)
                else (Table.State.PLAYING if game.current_hands else Table.State.SEATED)
            )
            if state != row.state:
                row.state = state
                row.save(update_fields=("state",))
            if not rnd.tables.exclude(
                state__in=(Table.State.REPORTED, Table.State.NOT_PLAYED)
            ).exists():
                _complete(rnd)
                return
        Round.objects.filter(
            tournament_id=rnd.tournament_id,
            number__gt=rnd.number,
            state__in=(Round.State.SEATED, Round.State.PUBLISHED, Round.State.PLAYING),
        ).update(superseded=True)
        _results_changed(rnd.tournament_id)


def _reported(game: Game) -> bool:
    """Whether a table's game has reported its round: its hand limit reached and, where the
    tournament requires confirmation, every current hand confirmed (issue 12)."""
    if game.hand_limit is None or game.current_hands < game.hand_limit:
        return False
    if game.confirmation == Game.Confirmation.NONE:
        return True
    return not (
        game.hands.filter(state=Hand.State.CURRENT).exclude(status=Hand.Status.CONFIRMED).exists()
    )
