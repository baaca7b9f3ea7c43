"""What tournaments does when scoring announces a change to a game (the one seam between the
apps; see ``scoring.events``).

``TournamentsConfig.ready`` registers :func:`game_changed` under the name ``ORIGIN``; every
call this app makes to the scoring services passes ``origin=ORIGIN``, so scoring announces only
the changes made by others (a hand entered at a table, a correction, a void): what tournaments
does to its own games never comes back to it."""

from __future__ import annotations

from django.db import transaction

from scoring import selectors as scoring_selectors
from scoring.events import GameChanged
from scoring.models import Game, Hand
from tournaments.models import (
    Round,
    Table,
)
from tournaments.services.results import results_mark_changed, seat_results_write
from tournaments.services.rounds import round_complete_locked


def game_changed(event: GameChanged) -> None:
    """The scoring seam (registered in ``TournamentsConfig.ready``): a game changed, by
    someone other than this app (a hand recorded, corrected, voided, restored, confirmed or
    disputed at a table).

    Changes that leave the score lines and the hands' status as they were (a game finished by
    someone else) change nothing here. For a tournament table: its materialised results
    rewritten (:func:`seat_results_write`: the hands that count,
    ``scoring.selectors.counting_filter``), the table's state as its hands now stand
    (:func:`table_state`, in a round in play and in a complete one alike: a director's void
    or restore after the round completed moves it too), the round's (playing; complete when
    every table reported: the round's games are then finished here, with ``origin=ORIGIN``,
    so those changes are not announced back), later rounds already seated flagged as seated
    on superseded standings, and the standings refreshed: one results version and one
    refresh per event (a confirmation, a dispute and a restore too).

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
            confirmed_only=scoring_selectors.requires_confirmation(game),
        )
        in_play = rnd.state in (Round.State.PUBLISHED, Round.State.PLAYING)
        if in_play or rnd.state == Round.State.COMPLETE:
            state = table_state(game, round_complete=not in_play)
            if state != row.state:
                row.state = state
                row.save(update_fields=("state",))
        if in_play:
            if game.current_hands and rnd.state == Round.State.PUBLISHED:
                rnd.state = Round.State.PLAYING
                rnd.save(update_fields=("state",))
            if not rnd.tables.exclude(
                state__in=(Table.State.REPORTED, Table.State.NOT_PLAYED)
            ).exists():
                round_complete_locked(rnd)
                return
        Round.objects.filter(
            tournament_id=rnd.tournament_id,
            number__gt=rnd.number,
            state__in=(Round.State.SEATED, Round.State.PUBLISHED, Round.State.PLAYING),
        ).update(superseded=True)
        results_mark_changed(rnd.tournament_id)


def table_state(game: Game, *, round_complete: bool) -> str:
    """Where a tournament table stands (``Table.State``), from its game's hands as they are
    now (issue 24: the state follows the hands whenever they change).

    In a round in play: *reported* once its hand limit is reached and every current hand
    counts (``scoring.selectors.counting_filter``: where the tournament requires
    confirmation, every current hand confirmed, issue 12), else *playing* while it has a
    current hand, else *seated*. In a complete round (as ``rounds.round_complete_locked`` left it):
    *reported* while a hand counts, *not played* once none does (a director voided its only
    hand; restored, it is reported again).

    Args:
        game: the table's game, as read now (``current_hands``, ``hand_limit``,
            ``confirmation``).
        round_complete: whether the table's round is complete.
    """
    confirmed = scoring_selectors.requires_confirmation(game)
    counting = game.hands.filter(scoring_selectors.counting_filter(confirmed=confirmed))
    if round_complete:
        return Table.State.REPORTED if counting.exists() else Table.State.NOT_PLAYED
    if not game.current_hands:
        return Table.State.SEATED
    if game.hand_limit is not None and game.current_hands >= game.hand_limit:
        waiting = game.hands.filter(state=Hand.State.CURRENT).exclude(
            scoring_selectors.counting_filter(confirmed=confirmed)
        )
        if not waiting.exists():
            return Table.State.REPORTED
    return Table.State.PLAYING
