"""Rounds: asking for a seating and computing it (``tournaments.seating``), publishing,
closing, seating again (what it keeps of the substitutes: ``tournaments.services.substitutes``),
a table's new links.

Every function is keyword-only; every write is one transaction; tasks are enqueued after
commit and are safe to run twice. The games of a round's tables are changed through the scoring
services with ``origin=ORIGIN`` (``tournaments.services.seam``): scoring does not announce those
changes back to this app, which does what follows them itself."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, cast

from django.db import IntegrityError, transaction
from django.utils import timezone

from ops import idempotency
from ops.background import enqueue
from scoring import services as scoring_services
from scoring.models import Game, Hand
from scoring.permissions import Actor
from tonkrules.messages import Listing
from tournaments import tasks
from tournaments.errors import TournamentConflict
from tournaments.models import (
    AuditEntry,
    Registration,
    Round,
    SeatResult,
    Table,
    Tournament,
)
from tournaments.services.audit import audit_record
from tournaments.services.events import players_to_seat, seatable_verify
from tournaments.services.keys import seat_replayed
from tournaments.services.order import last_round, players_locked
from tournaments.services.origin import ORIGIN
from tournaments.services.overlap import check_elsewhere, elsewhere_audit
from tournaments.services.results import results_mark_changed
from tournaments.services.seatings import seating_chosen
from tournaments.services.substitutes import (
    Substitution,
    audit_dropped,
    dropped_conflict,
    substitutions,
    substitutions_split,
)


@transaction.atomic
def round_seat(
    *,
    tournament: Tournament,
    by: Any = None,
    reason: object = "",
    idempotency_key: str | None = None,
    confirm_elsewhere: bool = False,
) -> tuple[Round, bool]:
    """Ask for the next round's seating; the seating itself runs as a task after commit. A
    round created now is kept in the audit (``seat``) with ``by`` (the director; None: the
    system) and ``reason``.

    One seating per (tournament, round), guarded by a database constraint: while the latest
    round is not yet published, asking again (or concurrently) returns it; a round still
    waiting for its seating (``planned``) has its task sent again (a request with a key is
    kept in the audit then too, ``seat`` with ``again``).

    A latest round whose seating failed (``failed``, ``Round.failure`` saying why) is asked
    again: the retry. Its players are checked again, then it is ``planned`` once more (no
    attempt counted, no failure, asked and sent now), kept in the audit (``seat`` with
    ``retry``) and its task sent.

    ``idempotency_key`` (the API's header, the dashboard's hidden key): every seat request
    keeps it in its audit entry with its fingerprint (``POST tournaments/<id>/rounds``, the
    reason). The same request again under the key (a double tap, a lost answer) changes
    nothing and answers with the round it asked for, as it is now; the key on another
    tournament or with another reason is refused, and so is the user's key of another
    create (``ops.idempotency.refuse_if_held_elsewhere``).

    Every request that would seat checks first that the active players can fill a table
    (``tournaments.seating.check_seatable``); nothing is saved when they cannot. It then
    checks that none of them sits at another of the club's tables at that time
    (``tournaments.services.overlap``): refused unless a director confirms it
    (``confirm_elsewhere``) with a ``reason``, kept in the audit entry (``elsewhere``); the
    seating task checks again (``round_seating_compute``).

    Returns:
        (the round, whether it was created now). Its state shows when it is seated.

    Raises:
        TournamentConflict: ``round_not_complete`` (round r is being played), ``all_seated``.
        TournamentConflict: ``idempotency_key_reused``: the key was used for another request.
        TournamentConflict: ``seated_elsewhere`` (naming the other tournament and table),
            ``too_few_players`` (fewer active players than the smallest table: "4 players
            cannot fill a table: the smallest table seats 5").
        TournamentError: ``bad_reason``, ``reason_needed`` (confirmed without a reason).
    """
    players_locked(tournament.pk)  # the latest round, then the tournament: one order
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    key = idempotency_key or ""
    body: dict[str, Any] = {"reason": str(reason or "")}
    if confirm_elsewhere:
        body["confirm_elsewhere"] = True
    fingerprint = idempotency.fingerprint("POST", f"tournaments/{tournament.pk}/rounds", body)
    if key:
        replayed = seat_replayed(by, key, fingerprint)
        if replayed is not None:
            return replayed, False
    keyed: dict[str, Any] = (
        {"idempotency_key": key, "request_fingerprint": fingerprint} if key else {}
    )
    last = last_round(tournament)
    if last is not None and last.state in (Round.State.PLANNED, Round.State.SEATED):
        if last.state == Round.State.PLANNED:  # its task may have been lost: ask again (idempotent)
            _seating_send(last)
        if keyed:  # the key answers with this round from now on
            audit_record(
                tournament.pk,
                AuditEntry.Action.SEAT,
                by=by,
                reason=reason,
                round_number=last.number,
                again=True,
                **keyed,
            )
        return last, False
    if last is not None and last.state == Round.State.FAILED:
        retried = _seating_retry(
            last, by=by, reason=reason, keyed=keyed, confirm_elsewhere=confirm_elsewhere
        )
        return retried, False
    if last is not None and last.state != Round.State.COMPLETE:
        raise TournamentConflict(
            "round_not_complete",
            round=last.number,
        )
    number = last.number + 1 if last is not None else 1
    if number > tournament.round_count:
        raise TournamentConflict("all_seated", params={"rounds": tournament.round_count})
    active = players_to_seat(tournament, number)
    seatable_verify(tournament, len(active))
    elsewhere = check_elsewhere(
        tournament=tournament,
        number=number,
        rnd=None,
        names=[r.player.name for r in active],
        confirm=confirm_elsewhere,
        reason=reason,
    )
    if elsewhere:
        keyed["elsewhere"] = [e.as_json() for e in elsewhere]
    now = timezone.now()
    try:
        with transaction.atomic():
            rnd = Round.objects.create(
                tournament=tournament,
                number=number,
                seat_asked_at=now,
                seat_sent_at=now,
                elsewhere_confirmed=bool(elsewhere),
            )
    except IntegrityError:  # a concurrent request created it first
        return Round.objects.get(tournament=tournament, number=number), False
    audit_record(
        tournament.pk,
        AuditEntry.Action.SEAT,
        by=by,
        reason=reason,
        round_number=number,
        **keyed,
    )
    enqueue(tasks.round_seat, rnd.pk)
    return rnd, True


def _seating_retry(
    rnd: Round, *, by: Any, reason: object, keyed: dict[str, Any], confirm_elsewhere: bool
) -> Round:
    """Ask again for failed round ``rnd``'s seating (its tournament's row locked):
    :func:`round_seat`'s retry, its players checked again (the table sizes, anyone sitting
    elsewhere then); ``keyed``: the request's key and fingerprint for its audit entry (none:
    empty)."""
    rnd = Round.objects.select_for_update().select_related("tournament").get(pk=rnd.pk)
    if rnd.state != Round.State.FAILED:
        return rnd
    active = players_to_seat(rnd.tournament, rnd.number)
    seatable_verify(rnd.tournament, len(active))
    elsewhere = check_elsewhere(
        tournament=rnd.tournament,
        number=rnd.number,
        rnd=rnd,
        names=[r.player.name for r in active],
        confirm=confirm_elsewhere,
        reason=reason,
    )
    _seating_asked_again(rnd)
    rnd.elsewhere_confirmed = bool(elsewhere)
    rnd.save(
        update_fields=(
            "state",
            "seat_asked_at",
            "seat_sent_at",
            "seat_attempts",
            "failure",
            "elsewhere_confirmed",
        )
    )
    details: dict[str, Any] = {"retry": True, **keyed}
    if elsewhere:
        details["elsewhere"] = [e.as_json() for e in elsewhere]
    audit_record(
        rnd.tournament_id,
        AuditEntry.Action.SEAT,
        by=by,
        reason=reason,
        round_number=rnd.number,
        **details,
    )
    return rnd


def _seating_asked_again(rnd: Round) -> None:
    """A round (its row locked, saved by the caller) asks for its seating again (a retry, a
    regenerate): planned, asked and sent now, no attempt and no failure yet; its task is sent
    once the transaction commits."""
    rnd.state = Round.State.PLANNED
    rnd.seat_asked_at = rnd.seat_sent_at = timezone.now()
    rnd.seat_attempts = 0
    rnd.failure = None
    enqueue(tasks.round_seat, rnd.pk)


def _seating_send(rnd: Round) -> None:
    """Send a planned round's seating task again after commit (its message may be lost; the
    task is safe to run twice), noting when. Not while its seating runs (the task holds the
    round's row): waiting for it here, with the tournament's row locked, could deadlock."""
    free = Round.objects.select_for_update(skip_locked=True).filter(pk=rnd.pk)
    if free.values_list("pk", flat=True).first() is None:
        return
    rnd.seat_sent_at = timezone.now()
    Round.objects.filter(pk=rnd.pk).update(seat_sent_at=rnd.seat_sent_at)
    enqueue(tasks.round_seat, rnd.pk)


@transaction.atomic
def round_publish(*, round: Round, by: Any = None, reason: object = "") -> Round:
    """Publish a seated round: its tables appear, their games open for hands, and its clock
    starts (deadline = now + minutes per round). Idempotent once published. Kept in the audit
    (``publish``) with ``by`` and ``reason``; the round in play changes, so the standings are
    refreshed (its players show as not reported yet).

    Raises:
        TournamentConflict: ``not_seated`` (still being seated).
        TournamentError: ``bad_reason``.
    """
    rnd = Round.objects.select_for_update().select_related("tournament").get(pk=round.pk)
    if rnd.state in (Round.State.PUBLISHED, Round.State.PLAYING, Round.State.COMPLETE):
        return rnd
    if rnd.state != Round.State.SEATED:
        raise TournamentConflict("not_seated", params={"round": rnd.number})
    scoring_services.games_open(
        game_ids=rnd.tables.values_list("game_id", flat=True), origin=ORIGIN
    )
    now = timezone.now()
    rnd.state = Round.State.PUBLISHED
    rnd.published_at = now
    minutes = rnd.tournament.minutes_per_round
    rnd.deadline = now + timedelta(minutes=minutes) if minutes else None
    rnd.save(update_fields=("state", "published_at", "deadline"))
    audit_record(
        rnd.tournament_id, AuditEntry.Action.PUBLISH, by=by, reason=reason, round_number=rnd.number
    )
    results_mark_changed(rnd.tournament_id)
    return rnd


def round_complete_locked(rnd: Round, by: Any = None) -> None:
    """Close a round (its row locked): every game is finished (corrections stay possible: a
    director's, with a reason), then tables with no hands are not played and the others
    reported, and the standings count the round. Kept in the audit (``complete``; ``by``
    None: completed by its last result). A few statements whatever the number of tables: the
    games locked and finished together (``scoring.services.games_finish``; no hand can arrive
    after that), the tables' states set by two updates."""
    scoring_services.games_finish(
        game_ids=rnd.tables.values_list("game_id", flat=True), origin=ORIGIN
    )
    rnd.tables.filter(game__current_hands=0).update(state=Table.State.NOT_PLAYED)
    rnd.tables.filter(game__current_hands__gt=0).exclude(state=Table.State.REPORTED).update(
        state=Table.State.REPORTED
    )
    rnd.state = Round.State.COMPLETE
    rnd.completed_at = timezone.now()
    rnd.save(update_fields=("state", "completed_at"))
    Tournament.objects.filter(pk=rnd.tournament_id, rounds_complete__lt=rnd.number).update(
        rounds_complete=rnd.number
    )
    audit_record(rnd.tournament_id, AuditEntry.Action.COMPLETE, by=by, round_number=rnd.number)
    results_mark_changed(rnd.tournament_id)


def _unconfirmed_tables(rnd: Round) -> list[int]:
    """``rnd``'s tables counting confirmed hands only with a hand provisional or disputed."""
    return list(
        rnd.tables.exclude(game__confirmation=Game.Confirmation.NONE)
        .filter(
            game__hands__state=Hand.State.CURRENT,
            game__hands__status__in=(Hand.Status.PROVISIONAL, Hand.Status.DISPUTED),
        )
        .order_by("number")
        .values_list("number", flat=True)
        .distinct()
    )


@transaction.atomic
def round_close(*, round: Round, by: Any = None, reason: object = "") -> Round:
    """The director closes a published round: tables that entered no hand are marked not
    played (their players score a missed round); the hands entered count (where the
    tournament requires confirmation, the confirmed ones). Idempotent. Kept in the audit
    (``close``, then ``complete``) with ``by`` and ``reason``.

    Where the tournament requires confirmation, a table with a current hand provisional or
    disputed refuses the close (it would be reported, its players scored as missing the
    round): its hands are confirmed or resolved first.

    Raises:
        TournamentConflict: ``not_published``; ``unconfirmed`` (``round``, ``tables``).
        TournamentError: ``bad_reason``.
    """
    rnd = Round.objects.select_for_update().get(pk=round.pk)
    if rnd.state == Round.State.COMPLETE:
        return rnd
    if rnd.state not in (Round.State.PUBLISHED, Round.State.PLAYING):
        raise TournamentConflict("not_published", params={"round": rnd.number})
    _games_locked(rnd)  # the hands being recorded now count (or are refused: game finished)
    if waiting := _unconfirmed_tables(rnd):
        raise TournamentConflict(
            "unconfirmed",
            params={"numbers": Listing(waiting), "count": len(waiting)},
            round=rnd.number,
            tables=waiting,
        )
    audit_record(
        rnd.tournament_id, AuditEntry.Action.CLOSE, by=by, reason=reason, round_number=rnd.number
    )
    round_complete_locked(rnd, by)
    return rnd


def _games_locked(rnd: Round) -> list[int]:
    """Lock the games of ``rnd``'s tables (its row locked), in id order so that two such
    requests never deadlock, and return their ids (one statement).

    A hand being recorded holds its game's lock until it commits: once this returns, every
    such hand has committed (and the statements that follow see it) or waits, and will find
    its game as this transaction leaves it (finished: 409; deleted: 404). So a close or a
    regenerate never decides on the hands as they were before a hand it then keeps or loses.
    """
    return list(
        Game.objects.select_for_update()
        .filter(pk__in=rnd.tables.values("game_id"))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


@transaction.atomic
def round_regenerate(
    *,
    round: Round,
    by: Any = None,
    reason: object = "",
    drop_substitutes: bool = False,
    confirm_elsewhere: bool = False,
) -> Round:
    """Seat a round again (after its standings or its players changed), while none of its
    results exist: its tables and games are removed and the seating task runs again. Kept in
    the audit (``regenerate``, with the substitutions ``kept`` and ``dropped``) with ``by`` and
    ``reason``. Refused, before anything changes, when the round's active players cannot fill
    a table (a withdrawal since it was seated): its tables stay as they are.

    What seating keeps (issue 24): each substitute whose absent player the new seating seats
    again takes that player's new seat (``tournaments.services.substitutes``). The new seating
    is computed here to know it (only when the round has substitutes; the task computes the
    same from the same inputs). A substitution whose player it leaves out (withdrawn since,
    sitting out) is dropped only when the director confirms it (``drop_substitutes``);
    otherwise the request is refused naming them. Each one dropped is kept in the audit
    (``drop_substitute``).

    Its players are checked as :func:`round_seat` checks them for anyone sitting at another
    of the club's tables at that time (``confirm_elsewhere`` with a ``reason``).

    Raises:
        TournamentConflict: ``results_exist``, ``complete``; ``substitutes_dropped`` (the
            ``substitutes`` it would drop); ``seated_elsewhere``; ``too_few_players`` ("4
            players cannot fill a table: the smallest table seats 5").
        TournamentError: ``bad_reason``, ``reason_needed``.
    """
    rnd = Round.objects.select_for_update().select_related("tournament").get(pk=round.pk)
    if rnd.state == Round.State.COMPLETE:
        raise TournamentConflict("complete", params={"round": rnd.number})
    if rnd.state == Round.State.PLANNED:
        return rnd
    games = _games_locked(rnd)
    if Game.objects.filter(pk__in=games, last_number__gt=0).exists():
        raise TournamentConflict(
            "results_exist",
            round=rnd.number,
        )
    active = players_to_seat(rnd.tournament, rnd.number)
    seatable_verify(rnd.tournament, len(active))
    found = substitutions(rnd)
    kept: list[Substitution] = []
    dropped: list[Substitution] = []
    if found:
        _by_id, chosen = seating_chosen(rnd.tournament, rnd.number)
        seated = {cast(int, i) for table in chosen.tables for i in table.players}
        kept, dropped = substitutions_split(found, seated)
        if dropped and not drop_substitutes:
            raise dropped_conflict(rnd, dropped)
    subbed = {s.registration: s.substitute for s in kept}
    elsewhere = check_elsewhere(
        tournament=rnd.tournament,
        number=rnd.number,
        rnd=None,  # to be seated now
        names=[subbed.get(r.pk, r.player.name) for r in active],
        confirm=confirm_elsewhere,
        reason=reason,
    )
    rnd.seats.all().delete()
    rnd.sit_outs.all().delete()
    # The players who withdrew while it was seated are seated in it no more (the seating
    # leaves them out): they withdrew after the round before.
    Registration.objects.filter(tournament_id=rnd.tournament_id, withdrawn_after=rnd.number).update(
        withdrawn_after=rnd.number - 1
    )
    rnd.tables.all().delete()
    SeatResult.objects.filter(game_id__in=games).delete()
    Game.objects.filter(pk__in=games).delete()
    rnd.superseded = False
    rnd.published_at = rnd.deadline = rnd.seated_at = rnd.time_called_at = None
    rnd.kept_substitutes = [
        {"registration": s.registration, "substitute": s.substitute} for s in kept
    ]
    rnd.elsewhere_confirmed = bool(elsewhere)
    _seating_asked_again(rnd)
    rnd.save()
    extra = elsewhere_audit(elsewhere)
    audit_record(
        rnd.tournament_id,
        AuditEntry.Action.REGENERATE,
        by=by,
        reason=reason,
        round_number=rnd.number,
        kept=[s.as_json() for s in kept],
        dropped=[s.as_json() for s in dropped],
        **extra,
    )
    audit_dropped(rnd, dropped, by=by, reason=reason)
    return rnd


@transaction.atomic
def table_links_rotate(*, table: Table, by: Any, reason: object = "") -> Table:
    """New private links for a table's game (its table link and every seat link: the old ones
    open nothing any more), through ``scoring.services.game_links_rotate`` as ``by`` (a
    director of the club: ``scoring.permissions`` decides). Kept in the audit (``rotate``)
    with ``by`` and ``reason``.

    Raises:
        NotAllowed: ``by`` may not rotate the game's links.
        TournamentError: ``bad_reason``.
    """
    table = Table.objects.select_related("game", "round").get(pk=table.pk)
    scoring_services.game_links_rotate(game=table.game, by=Actor(user=by))
    audit_record(
        table.round.tournament_id,
        AuditEntry.Action.ROTATE,
        by=by,
        reason=reason,
        round_number=table.round.number,
        table_number=table.number,
    )
    table.game.refresh_from_db()
    return table
