"""Substitutes: who plays a registered player's seat in a round (``substitute_set``), and what
seating the round again keeps of them (issue 24, "What seating keeps").

Seating a round again keeps each substitution whose absent player is seated again: the
substitute takes that player's new seat, the way :func:`substitute_set` puts them in (a new
seat key: the seat's link is its player's, and the absent player's phone opens nothing). A
substitution whose player is seated no more (withdrawn since, or sitting out) is dropped, and
the audit says so (``drop_substitute``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from scoring import services as scoring_services
from scoring.errors import SeatsFixed
from scoring.services import SeatSpec
from tonkrules.errors import PlayerError
from tonkrules.messages import Listing
from tonkrules.names import clean_name, name_key
from tonkrules.sheet import SheetError
from tournaments.errors import TournamentConflict, TournamentError
from tournaments.models import AuditEntry, Registration, Round, TableSeat
from tournaments.services.audit import audit_record
from tournaments.services.origin import ORIGIN
from tournaments.services.overlap import check_elsewhere, elsewhere_audit
from tournaments.services.results import results_mark_changed


@dataclass(frozen=True)
class Substitution:
    """A substitute playing a registered player's seat: the registration, the player's name,
    the substitute's, and the table (of the seating it was set on)."""

    registration: int
    player: str
    substitute: str
    table: int

    def as_json(self) -> dict[str, Any]:
        """As the API and the audit give it."""
        return {
            "registration": self.registration,
            "player": self.player,
            "substitute": self.substitute,
            "table": self.table,
        }


@transaction.atomic
def substitute_set(
    *,
    round: Round,
    registration: Registration,
    substitute: str,
    by: Any = None,
    reason: object = "",
    confirm_elsewhere: bool = False,
) -> TableSeat:
    """A substitute plays ``registration``'s seat in ``round``: the hands are recorded under
    the substitute, and the registered player misses the round. Kept in the audit
    (``substitute``, with the table) with ``by`` and ``reason``.

    A substitute who sits at another of the club's tables at that time (another tournament's
    round overlapping this one: ``tournaments.services.overlap``) is refused unless a director
    confirms it (``confirm_elsewhere``) with a reason; the audit entry then names where
    (``elsewhere``).

    Raises:
        TournamentError: ``bad_name`` (a name the name rule refuses,
            ``tonkrules.names.clean_name``), ``bad_reason``, ``reason_needed`` (confirmed
            without a reason).
        TournamentConflict: ``not_seated`` (the player has no seat that round),
            ``already_seated`` (the substitute already sits in this round), ``registered``
            (the substitute is a registered player of the tournament); both by the name rule
            (``tonkrules.names.name_key``), the ``.alike`` variants naming both spellings;
            ``results_exist`` (the table has hands), ``complete``, ``seated_elsewhere``
            (naming the other tournament and table).
    """
    rnd = (
        Round.objects.select_for_update(of=("self",)).select_related("tournament").get(pk=round.pk)
    )
    if rnd.state == Round.State.COMPLETE:
        raise TournamentConflict("complete", params={"round": rnd.number})
    if not (substitute or "").strip():
        raise TournamentError("bad_name.substitute", field="substitute")
    try:
        name = clean_name(substitute)
    except PlayerError as exc:
        raise TournamentError.because("bad_name", exc, field="substitute") from exc
    seat = (
        TableSeat.objects.select_related("table__game")
        .filter(round=rnd, registration=registration)
        .first()
    )
    if seat is None:
        raise TournamentConflict(
            "not_seated.player", params={"name": registration.player.name, "round": rnd.number}
        )
    refusal = substitute_refusal(rnd, name, names=names_in_round(rnd))
    if refusal is not None:
        raise refusal
    elsewhere = check_elsewhere(
        tournament=rnd.tournament,
        number=rnd.number,
        rnd=rnd,
        names=[name],
        confirm=confirm_elsewhere,
        reason=reason,
    )
    seat_substituted(seat, name)
    if rnd.state in (Round.State.PUBLISHED, Round.State.PLAYING):
        # the round in play: who plays the seat is what the standings show of its tables
        results_mark_changed(rnd.tournament_id)
    extra = elsewhere_audit(elsewhere)
    audit_record(
        rnd.tournament_id,
        AuditEntry.Action.SUBSTITUTE,
        by=by,
        reason=reason,
        round_number=rnd.number,
        table_number=seat.table.number,
        player=registration.player.name,
        substitute=name,
        **extra,
    )
    return seat


def substitute_refusal(rnd: Round, name: str, *, names: Iterable[str]) -> TournamentConflict | None:
    """Why ``name`` (cleaned) may not substitute in ``rnd`` where ``names`` sit (None: it
    may): someone of that name (by the name rule) already sits in the round, or is registered
    in the tournament."""
    key = name_key(name)
    taken = [n for n in names if name_key(n) == key]
    if taken and taken[0] == name:
        return TournamentConflict(
            "already_seated", params={"name": name, "round": rnd.number}, field="substitute"
        )
    if taken:
        return TournamentConflict(
            "already_seated.alike",
            params={"name": name, "other": taken[0], "round": rnd.number},
            field="substitute",
        )
    registered = (
        Registration.objects.filter(tournament_id=rnd.tournament_id, player__name_key=key)
        .values_list("player__name", flat=True)
        .first()
    )
    if registered == name:
        return TournamentConflict("registered", params={"name": name}, field="substitute")
    if registered is not None:
        return TournamentConflict(
            "registered.alike", params={"name": name, "other": registered}, field="substitute"
        )
    return None


def seat_substituted(seat: TableSeat, name: str) -> None:
    """Put substitute ``name`` in ``seat`` (its game's row locked through
    ``scoring.services.seat_replace``: the seat gets a new seat key, no club player).

    Raises:
        TournamentConflict: ``results_exist`` (the table has hands).
        TournamentError: ``bad_name`` (a name the game cannot take at that table).
    """
    try:
        scoring_services.seat_replace(
            game=seat.table.game,
            position=seat.position,
            # No player id: a substitute's results count for nobody in these standings, even if
            # they register later.
            seat=SeatSpec(name),
            origin=ORIGIN,
        )
    except SeatsFixed as exc:
        raise TournamentConflict("results_exist.table") from exc
    except SheetError as exc:
        raise TournamentError.because("bad_name", exc.error, field="substitute") from exc
    seat.substitute = name
    seat.save(update_fields=("substitute",))


def names_in_round(rnd: Round) -> list[str]:
    """Everyone sitting in a round: the registered players and the substitutes."""
    names = []
    for player_name, substitute in TableSeat.objects.filter(round=rnd).values_list(
        "registration__player__name", "substitute"
    ):
        names.append(substitute or player_name)
    return names


def substitutions(rnd: Round) -> list[Substitution]:
    """The substitutions of ``rnd``'s seating, by table and seat."""
    return [
        Substitution(registration_id, player, substitute, table)
        for registration_id, player, substitute, table in TableSeat.objects.filter(round=rnd)
        .exclude(substitute="")
        .order_by("table__number", "position")
        .values_list("registration_id", "registration__player__name", "substitute", "table__number")
    ]


def substitutions_split(
    found: list[Substitution], seated: Collection[int]
) -> tuple[list[Substitution], list[Substitution]]:
    """``found`` as (kept, dropped): kept where the absent player (their registration id) is
    in ``seated``, the registrations the new seating seats."""
    kept = [s for s in found if s.registration in seated]
    return kept, [s for s in found if s.registration not in seated]


def dropped_conflict(rnd: Round, dropped: list[Substitution]) -> TournamentConflict:
    """The refusal asking to confirm the substitutions seating ``rnd`` again drops."""
    return TournamentConflict(
        "substitutes_dropped",
        params={"names": Listing([s.player for s in dropped]), "count": len(dropped)},
        round=rnd.number,
        substitutes=[s.as_json() for s in dropped],
    )


def audit_dropped(
    rnd: Round, dropped: Iterable[Substitution], *, by: Any, reason: object, **details: Any
) -> None:
    """Keep each substitution dropped from ``rnd`` in the audit (``drop_substitute``)."""
    for s in dropped:
        audit_record(
            rnd.tournament_id,
            AuditEntry.Action.DROP_SUBSTITUTE,
            by=by,
            reason=reason,
            round_number=rnd.number,
            table_number=s.table or None,
            player=s.player,
            substitute=s.substitute,
            registration=s.registration,
            **details,
        )


def substitutes_carried(rnd: Round) -> None:
    """The seating task's last step: put the substitutes kept when ``rnd`` was seated again
    (``Round.kept_substitutes``) in their players' new seats, kept in the audit
    (``substitute`` by the system, ``kept``); one whose player the seating left out after all,
    or whom the round can no longer take (a registered player of that name since), is dropped
    (``drop_substitute``, ``at_seating``). Empties the list; the caller saves the round."""
    carried = {int(c["registration"]): str(c["substitute"]) for c in rnd.kept_substitutes or []}
    rnd.kept_substitutes = []
    if not carried:
        return
    seats = {
        s.registration_id: s
        for s in TableSeat.objects.filter(round=rnd, registration_id__in=carried).select_related(
            "table__game", "registration__player"
        )
    }
    players = dict(Registration.objects.filter(pk__in=carried).values_list("pk", "player__name"))
    for registration_id, name in sorted(carried.items()):
        seat = seats.get(registration_id)
        refusal: TournamentError | None = (
            substitute_refusal(rnd, name, names=names_in_round(rnd)) if seat is not None else None
        )
        if seat is not None and refusal is None:
            try:
                seat_substituted(seat, name)
            except TournamentError as exc:
                refusal = exc
        if seat is None or refusal is not None:
            gone = Substitution(registration_id, players.get(registration_id, ""), name, 0)
            why = {"refused": refusal.code} if refusal is not None else {}
            audit_dropped(rnd, [gone], by=None, reason="", at_seating=True, **why)
            continue
        audit_record(
            rnd.tournament_id,
            AuditEntry.Action.SUBSTITUTE,
            round_number=rnd.number,
            table_number=seat.table.number,
            player=seat.registration.player.name,
            substitute=name,
            kept=True,
        )
