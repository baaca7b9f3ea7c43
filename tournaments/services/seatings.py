"""The seating as background work: the task's run (attempts counted, a refusal recorded as a
failed round), computing a planned round's tables (through the pure ``tournaments.seating``),
and the tick's jobs that send a waiting seating again (``ops.background``)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable
from typing import Any

from django.db import transaction
from django.utils import timezone

from ops.background import resend_waiting
from scoring import services as scoring_services
from scoring.services import SeatSpec
from tonkrules.sheet import SheetError
from tournaments import seating, tasks
from tournaments.errors import TournamentError
from tournaments.models import (
    Registration,
    Round,
    SitOut,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.services.events import players_to_seat
from tournaments.services.origin import ORIGIN
from tournaments.services.overlap import elsewhere_conflict, people_elsewhere
from tournaments.services.substitutes import substitutes_carried

#: A seating whose task a worker started this many times without finishing (killed, timed
#: out, the database gone) is marked failed; a refusal by the rules fails it at once.
SEATING_ATTEMPTS = 5


def round_seating_run(*, round_id: int) -> Round | None:
    """The seating task's work: seat planned round ``round_id``
    (:func:`round_seating_compute`), counting the attempt first (in its own transaction, so a
    worker killed mid-way still counts it).

    A refusal by the rules (:class:`TournamentError`: the players cannot fill the tables) marks
    the round ``failed`` with the reason, shown to the director with a retry. Any other error
    is raised (the worker logs it; the tick sends the task again). After
    :data:`SEATING_ATTEMPTS` attempts that did not finish, whether they raised or their worker
    was killed (out of memory, the time limit, kill -9: nothing of theirs ran after), the round
    is marked failed instead of trying again. Safe to run twice: a round not planned is left as
    it is. Returns the round, or None when it no longer exists.
    """
    with transaction.atomic():
        rnd = Round.objects.select_for_update().filter(pk=round_id).first()
        if rnd is None or rnd.state != Round.State.PLANNED:
            return rnd
        if rnd.seat_attempts >= SEATING_ATTEMPTS:  # each started and never finished
            error = TournamentError("seating_unfinished", attempts=rnd.seat_attempts)
            return _seating_failed(round_id, error)
        rnd.seat_attempts += 1
        rnd.save(update_fields=("seat_attempts",))
        attempts = rnd.seat_attempts
    try:
        return round_seating_compute(round_id=round_id)
    except TournamentError as error:
        return _seating_failed(round_id, error)
    except Exception:
        if attempts >= SEATING_ATTEMPTS:
            _seating_failed(round_id, TournamentError("seating_unfinished", attempts=attempts))
        raise


@transaction.atomic
def _seating_failed(round_id: int, error: TournamentError) -> Round | None:
    """Mark planned round ``round_id`` failed with ``error`` (its code, its English sentence
    and the values it names: ``Round.failure``)."""
    rnd = Round.objects.select_for_update().filter(pk=round_id).first()
    if rnd is None or rnd.state != Round.State.PLANNED:
        return rnd
    rnd.state = Round.State.FAILED
    rnd.failure = {
        "code": error.code,
        "template": str(error.template),
        "params": {k: _as_json(v) for k, v in error.context().items()},
    }
    rnd.save(update_fields=("state", "failure"))
    return rnd


def _as_json(value: object) -> object:
    """A value a failure's sentence names, kept as JSON so that it renders the same from
    ``Round.failure`` (numbers and text as they are, lists as lists, objects as objects,
    anything else as text)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_as_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _as_json(v) for k, v in value.items()}
    return str(value)


def seating_resend(*, now: Any, resend_before: Any) -> int:
    """The tick's job: send again the seating of every planned round whose task was sent
    before ``resend_before``. Returns how many."""
    return resend_waiting(
        Round.objects.filter(state=Round.State.PLANNED),
        sent_at="seat_sent_at",
        task=tasks.round_seat,
        now=now,
        resend_before=resend_before,
    )


def seating_oldest() -> Any:
    """Since when the oldest planned round waits for its seating (None: none waits)."""
    return (
        Round.objects.filter(state=Round.State.PLANNED, seat_asked_at__isnull=False)
        .order_by("seat_asked_at")
        .values_list("seat_asked_at", flat=True)
        .first()
    )


def _history(
    tournament: Tournament, before: int
) -> tuple[
    dict[tuple[seating.Player, seating.Player], int],
    Counter[seating.Player],
    Counter[seating.Player],
]:
    """Meetings (pairs of registration ids → times), first-dealer turns and sit-outs of the
    rounds before ``before``, keyed as the seating takes them (``seating.Player``: here
    registration ids)."""
    tables: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for table_id, registration_id, position in TableSeat.objects.filter(
        round__tournament=tournament, round__number__lt=before
    ).values_list("table_id", "registration_id", "position"):
        tables[table_id].append((position, registration_id))
    meetings: Counter[tuple[seating.Player, seating.Player]] = Counter()
    dealers: Counter[seating.Player] = Counter()
    for seats in tables.values():
        seats.sort()
        dealers[seats[0][1]] += 1
        ids = [r for _p, r in seats]
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                meetings[(min(a, b), max(a, b))] += 1
    sit_outs: Counter[seating.Player] = Counter(
        SitOut.objects.filter(round__tournament=tournament, round__number__lt=before).values_list(
            "registration_id", flat=True
        )
    )
    return dict(meetings), dealers, sit_outs


def _standing_order(tournament: Tournament) -> list[int]:
    """Registration ids best first, by the current standings."""
    from tournaments import selectors

    return [row.registration_id for row in selectors.standings(tournament).rows]


def _schedule_part(tournament: Tournament, number: int) -> dict[str, Any]:
    """What a table of round ``number`` plays (issue rules, "What a round is"): Rook the one
    contract round ``number``; Bluke ``hands_per_round`` hands continuing the sequence (hand 1
    again after 25); Tonk ``hands_per_round`` hands of a fresh sitting."""
    hands = tournament.hands_per_round
    rules = tournament.adapter.rules
    part: dict[str, Any] = {"hand_limit": hands}
    start = rules.sequence_start(number, hands)
    if start is not None:
        part["sequence_from"] = start
    if rules.schedule_wraps:
        part["sequence_wraps"] = True
    return part


def seating_chosen(
    tournament: Tournament, number: int
) -> tuple[dict[Hashable, Registration], seating.RoundSeating]:
    """Round ``number``'s seating as the seating task chooses it now (the same inputs give the
    same seating): the active registrations by id (``seating.Player``: registration ids), and
    the seating. Computed, not saved (method ``plan``: the plan is saved when round 1 makes
    it)."""
    active = players_to_seat(tournament, number)
    meetings, dealers, sit_outs = _history(tournament, number)
    ids = [r.pk for r in active]
    standing = _standing_order(tournament)
    chosen = _seating_for(tournament, number, ids, meetings, dealers, sit_outs, standing)
    return {r.pk: r for r in active}, chosen


def round_seating_compute(*, round_id: int) -> Round:
    """Seat a planned round: choose the tables (``tournaments.seating``), start the tables'
    games (waiting until the round is published; ``scoring.services.games_start``), record
    tables, seats and sit-outs, each kind of row in one statement: the statements do not grow
    with the number of tables. Safe to run twice: a round already seated is returned as it
    is.

    Refused (nothing saved; the task marks the round failed with the reason) when someone it
    seats sits at another of the club's tables at that time
    (``tournaments.services.overlap``), unless a director confirmed it when asking
    (``Round.elsewhere_confirmed``). The substitutes kept when the round was seated again take
    their players' new seats (``tournaments.services.substitutes.substitutes_carried``).

    Raises:
        TournamentError: the seating's refusals; ``seated_elsewhere`` (above).
    """
    with transaction.atomic():
        rnd = Round.objects.select_for_update().select_related("tournament").get(pk=round_id)
        if rnd.state != Round.State.PLANNED:
            return rnd
        tournament = rnd.tournament
        by_id, chosen = seating_chosen(tournament, rnd.number)
        part = _schedule_part(tournament, rnd.number)
        seated = [[by_id[i] for i in table.players] for table in chosen.tables]
        carried = {int(c["registration"]): str(c["substitute"]) for c in rnd.kept_substitutes}
        people = [carried.get(r.pk, r.player.name) for regs in seated for r in regs]
        found = people_elsewhere(tournament=tournament, number=rnd.number, rnd=rnd, names=people)
        if found and not rnd.elsewhere_confirmed:
            raise elsewhere_conflict(found)
        try:
            games = scoring_services.games_start(
                kind=tournament.kind,
                tables=[[SeatSpec(r.player.name, r.player_id) for r in regs] for regs in seated],
                options=tournament.options or None,
                stake=tournament.stake or None,
                currency=tournament.currency or None,
                club=tournament.club,
                waiting=True,
                confirmation=tournament.confirmation,
                directed=True,
                origin=ORIGIN,
                **part,
            )
        except SheetError as exc:  # a table the game cannot take (names alike but for case)
            raise TournamentError.because("bad_names", exc.error) from exc
        # Ids, not instances: the rows are many, and each related instance costs.
        rows = Table.objects.bulk_create(
            Table(round_id=rnd.pk, number=number, game_id=game.pk)
            for number, game in enumerate(games, 1)
        )
        TableSeat.objects.bulk_create(
            TableSeat(table_id=row.pk, round_id=rnd.pk, position=i, registration_id=r.pk)
            for row, regs in zip(rows, seated, strict=True)
            for i, r in enumerate(regs)
        )
        SitOut.objects.bulk_create(
            SitOut(round_id=rnd.pk, registration_id=by_id[i].pk) for i in chosen.sit_outs
        )
        substitutes_carried(rnd)
        rnd.state = Round.State.SEATED
        rnd.seated_at = timezone.now()
        rnd.superseded = False
        rnd.based_on_version = tournament.results_version
        rnd.save(
            update_fields=(
                "state",
                "seated_at",
                "superseded",
                "based_on_version",
                "kept_substitutes",
            )
        )
        return rnd


def _seating_for(
    tournament: Tournament,
    number: int,
    ids: list[int],
    meetings: dict[tuple[seating.Player, seating.Player], int],
    dealers: Counter[seating.Player],
    sit_outs: Counter[seating.Player],
    standing: list[int],
) -> seating.RoundSeating:
    """Round ``number``'s tables: from the stored plan (method ``plan``, while the players are
    the plan's), else one round of ``balanced`` or ``swiss``."""
    if tournament.method == Tournament.Method.PLAN:
        if tournament.plan is None and number == 1:
            plan = seating.plan_rounds(
                ids,
                tournament.round_count,
                sizes=tournament.sizes,
                prefer=tournament.prefer,
                seed=tournament.seed,
            )
            tournament.plan = {
                "players": list(plan.players),
                "rounds": [
                    {"tables": [list(t.players) for t in r.tables], "sit_outs": list(r.sit_outs)}
                    for r in plan.rounds
                ],
            }
            tournament.save(update_fields=("plan",))
        planned = tournament.plan
        if (
            planned
            and sorted(planned["players"]) == sorted(ids)
            and number <= len(planned["rounds"])
        ):
            part = planned["rounds"][number - 1]
            return seating.RoundSeating(
                tables=tuple(seating.Table(tuple(t), t[0]) for t in part["tables"]),
                sit_outs=tuple(part["sit_outs"]),
            )
    method = "swiss" if tournament.method == Tournament.Method.SWISS else "balanced"
    seated = set(ids)
    try:
        return seating.seat_round(
            ids,
            meetings,
            sizes=tournament.sizes,
            prefer=tournament.prefer,
            method=method,
            standing=[i for i in standing if i in seated],
            sit_outs_so_far=sit_outs,
            dealer_counts=dealers,
            seed=[tournament.seed, number],
            later=max(0, tournament.round_count - number),  # swiss: keep later rounds seatable
        )
    except seating.SeatingError as exc:
        raise TournamentError.because(exc.code, exc) from exc
