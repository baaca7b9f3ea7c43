"""Reads of the scoring app: which games a caller may see, which hands count, a game's
results, its hands, its score sheet (JSON and CSV) and the Tonk settle-up. Every figure comes
from the score lines of the hands that count (:func:`counting_hands`, the one rule: issue 24)."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import BooleanField, ExpressionWrapper, Prefetch, Q, QuerySet

from scoring.models import Game, Hand, HandEvent, ScoreLine, Seat
from scoring.permissions import Actor, may_see_keys
from tonkrules import find_game
from tonkrules.settle import fewest_payments
from tonkrules.sheet import FORMAT, RESULT_FORMAT, money


def games_visible_to(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Game]:
    """Games of the user's clubs and games the user created; none for an anonymous user."""
    if not user.is_authenticated:
        return Game.objects.none()
    # A waiting game (a tournament round seated, not yet published) is its creator's alone:
    # its seating and table key are not out before the director publishes them.
    club_games = Q(club__members=user) & ~Q(state=Game.State.WAITING)
    return Game.objects.filter(club_games | Q(created_by=user)).distinct()


def games_split(games: QuerySet[Game]) -> tuple[QuerySet[Game], QuerySet[Game]]:
    """``games`` as (tournament tables, casual games): a tournament's table is a game with a
    ``tournament_table`` (the reverse relation, read by its name: this app imports nothing of
    ``tournaments``); the tables come with their round and tournament."""
    tables = games.filter(tournament_table__isnull=False).select_related(
        "tournament_table__round__tournament"
    )
    return tables, games.filter(tournament_table__isnull=True)


def games_keyed_for(user: AbstractBaseUser | AnonymousUser, games: Iterable[Game]) -> set[int]:
    """The ids of those of ``games`` whose table key ``user`` may hold (issue 12: a member
    never holds the key of a table they do not sit at): those
    :func:`scoring.permissions.may_see_keys` allows (a club director; a casual game's
    creator), and those where ``user``'s club player sits (``Seat.player.user``). Every page
    that shows members a game's table link (``/t/<table key>/``) asks here.

    One query for the seats, then ``may_see_keys`` (one query: the club's directors) once per
    club, kind of game (a tournament table or not) and whether ``user`` created it: all it
    reads of a game. None for an anonymous user."""
    games = list(games)
    if not user.is_authenticated or not games:
        return set()
    keyed = set(
        Seat.objects.filter(game_id__in=[g.pk for g in games], player__user_id=user.pk)
        .values_list("game_id", flat=True)
        .distinct()
    )
    actor = Actor(user=user)
    answers: dict[tuple[int | None, bool, bool], bool] = {}
    for game in games:
        if game.pk in keyed:
            continue
        facts = (game.club_id, game.directed, game.created_by_id == user.pk)
        if facts not in answers:
            answers[facts] = may_see_keys(actor, game)
        if answers[facts]:
            keyed.add(game.pk)
    return keyed


# --- what counts (issue 24: one rule for every page, total, export and standings read) -------


def requires_confirmation(game: Game) -> bool:
    """Whether only confirmed hands count at ``game``: it requires confirmation
    (``Game.confirmation`` is not ``none``). A tournament's table is started with its
    tournament's ``confirmation`` (``tournaments.services.seatings``), which never changes
    after, so this is the tournament's rule too."""
    return game.confirmation != Game.Confirmation.NONE


def counting_filter(prefix: str = "", *, confirmed: bool | None = None) -> Q:
    """The rule of which hands count, as a filter: a current revision (never a superseded or
    voided one), confirmed where its game requires confirmation (a provisional or disputed
    hand counts for nobody until it is confirmed or resolved), every current revision where
    it does not (a hand counts once entered).

    ``prefix`` names the hand from the model filtered: ``""`` for ``Hand``, ``"hand__"`` for
    ``ScoreLine``. ``confirmed``: for the hands of one game, its
    :func:`requires_confirmation`, when the caller holds the game (no join); None reads each
    hand's game. Every read of what counts goes through here: :func:`counting_hands`,
    :func:`counted_totals`, the results, exports and settle-up, and the tournaments' seat
    results, standings marks and table states.
    """
    current = Q(**{f"{prefix}state": Hand.State.CURRENT})
    is_confirmed = Q(**{f"{prefix}status": Hand.Status.CONFIRMED})
    if confirmed is not None:
        return current & is_confirmed if confirmed else current
    return current & (Q(**{f"{prefix}game__confirmation": Game.Confirmation.NONE}) | is_confirmed)


def counting_hands(game: Game) -> list[Hand]:
    """Which hands count for this table now (:func:`counting_filter`), in order, each with
    its score lines (and their seats): what its totals, "Leading", settle-up, results,
    exports and its tournament's standings count. Two queries."""
    return _with_lines(game.hands.filter(counting_filter(confirmed=requires_confirmation(game))))


def hand_counts(game: Game, hand: Hand) -> bool:
    """Whether ``hand`` (a revision of ``game``'s) counts now: the rule of
    :func:`counting_filter`, read from the objects (no query)."""
    if hand.state != Hand.State.CURRENT:
        return False
    return not requires_confirmation(game) or hand.status == Hand.Status.CONFIRMED


def counted_totals(game: Game) -> dict[str, int]:
    """Every seat's total over the hands that count (:func:`counting_hands`), in seat order;
    0 for a seat with no hand that counts (:func:`counted_totals_by_game` tells "no result
    yet" apart). Two queries."""
    totals = dict.fromkeys(_names(game), 0)
    for name, points in ScoreLine.objects.filter(
        counting_filter("hand__", confirmed=requires_confirmation(game)), game=game
    ).values_list("seat__name", "points"):
        totals[name] += points
    return totals


def counted_totals_by_game(games: Iterable[Game]) -> dict[int, dict[str, int]]:
    """Per game id, every seat's total over the hands that count, in seat order (0 for a seat
    with none: :func:`hand_tally_by_game` tells "no result yet" apart). Two queries whatever
    the number of games (a round's tables, a page of games)."""
    ids = [g.pk for g in games]
    out: dict[int, dict[str, int]] = {pk: {} for pk in ids}
    for game_id, name in (
        Seat.objects.filter(game_id__in=ids)
        .order_by("game_id", "position")
        .values_list("game_id", "name")
    ):
        out[game_id][name] = 0
    for game_id, name, points in ScoreLine.objects.filter(
        counting_filter("hand__"), game_id__in=ids
    ).values_list("game_id", "seat__name", "points"):
        out[game_id][name] += points
    return out


@dataclass(frozen=True)
class HandTally:
    """How a game's current hands stand: how many count (:func:`counting_filter`), and of
    those that do not count yet, how many are provisional and how many disputed."""

    counted: int = 0
    provisional: int = 0
    disputed: int = 0


def hand_tally_by_game(game_ids: Iterable[int]) -> dict[int, HandTally]:
    """Per game id, its :class:`HandTally` (one query whatever the number of games)."""
    ids = list(game_ids)
    counts: dict[int, dict[str, int]] = {pk: defaultdict(int) for pk in ids}
    rows = (
        Hand.objects.filter(game_id__in=ids, state=Hand.State.CURRENT)
        .annotate(counts=ExpressionWrapper(counting_filter(), output_field=BooleanField()))
        .order_by()
        .values_list("game_id", "counts", "status")
    )
    for game_id, counted, status in rows:
        counts[game_id]["counted" if counted else str(status)] += 1
    return {
        pk: HandTally(c["counted"], c[Hand.Status.PROVISIONAL], c[Hand.Status.DISPUTED])
        for pk, c in counts.items()
    }


def _with_lines(hands: QuerySet[Hand]) -> list[Hand]:
    lines = ScoreLine.objects.select_related("seat").order_by("seat__position")
    return list(hands.order_by("number").prefetch_related(Prefetch("lines", queryset=lines)))


def current_hands(game: Game) -> list[Hand]:
    """The game's current hands in order, each with its score lines (and their seats): what
    its sheet shows, each marked provisional, confirmed or disputed. Those that count are
    :func:`counting_hands`."""
    return _with_lines(game.hands.filter(state=Hand.State.CURRENT))


def hand_scores(hand: Hand) -> dict[str, int]:
    """Seat name → points (or stake units) of one hand revision, in seat order."""
    if hand.scores_cache is not None:
        return hand.scores_cache
    if "lines" in getattr(hand, "_prefetched_objects_cache", {}):
        lines = hand.lines.all()
    else:
        lines = hand.lines.select_related("seat").order_by("seat__position")
    return {line.seat.name: line.points for line in lines}


def _names(game: Game) -> list[str]:
    return list(game.seats.order_by("position").values_list("name", flat=True))


def game_results(game: Game, hands: list[Hand] | None = None) -> dict[str, object]:
    """The result object of the score-sheet format, from the score lines of the hands that
    count (:func:`counting_hands`; ``hands``: those, already read): per-hand scores (with
    number, revision and running totals), totals, ranking and, for Tonk with a stake, money.
    A provisional or disputed hand where confirmation is required is not in it."""
    names = _names(game)
    hands = counting_hands(game) if hands is None else hands
    running = dict.fromkeys(names, 0)
    out_hands = []
    for hand in hands:
        scores = hand_scores(hand)
        for name, points in scores.items():
            running[name] += points
        entry: dict[str, object] = {
            "number": hand.number,
            "revision": hand.revision,
            "scores": scores,
            "running": dict(running),
        }
        if hand.warnings:
            entry["warnings"] = hand.warnings
        out_hands.append(entry)
    result: dict[str, object] = {
        "format": RESULT_FORMAT,
        "game": game.kind,
        "players": names,
        "hands": out_hands,
        "totals": running,
        "ranking": find_game(game.kind).rank(running, names),
    }
    if game.stake:
        stake = Decimal(game.stake)
        result["money"] = {p: format(money(stake, running[p]), "f") for p in names}
    return result


def scoresheet_export(game: Game) -> dict[str, object]:
    """The game's canonical score sheet: canonical card notation and the format's keys only,
    the hands that count (:func:`counting_filter`). Scoring it gives the game's results;
    exporting an imported export gives the same text."""
    sheet: dict[str, object] = {"format": FORMAT, "game": game.kind, "players": _names(game)}
    if game.options:
        sheet["options"] = game.options
    if game.stake:
        sheet["stake"] = game.stake
    if game.currency:
        sheet["currency"] = game.currency
    sheet["hands"] = [
        json.loads(text)
        for text in game.hands.filter(counting_filter(confirmed=requires_confirmation(game)))
        .order_by("number")
        .values_list("record_text", flat=True)
    ]
    return sheet


CSV_COLUMNS = (
    "hand",
    "number",
    "revision",
    "round_or_hand",
    "seat",
    "player",
    "score",
    "running",
    "went_out",
    "bid_made",
    "won",
)


def scoresheet_csv(game: Game) -> str:
    """The score sheet as CSV: one row per hand that counts (:func:`counting_hands`) and
    player (points or stake units, the running total and the facts), hands in order."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    running: dict[str, int] = defaultdict(int)
    for position, hand in enumerate(counting_hands(game), 1):
        for line in hand.lines.all():
            running[line.seat.name] += line.points
            writer.writerow(
                (
                    position,
                    hand.number,
                    hand.revision,
                    "" if hand.sequence is None else hand.sequence,
                    line.seat.position + 1,
                    _cell(line.seat.name),
                    line.points,
                    running[line.seat.name],
                    int(line.went_out),
                    "" if line.bid_made is None else int(line.bid_made),
                    int(line.won),
                )
            )
    return out.getvalue()


def game_totals(game: Game) -> dict[str, int]:
    """Every seat's sum over every current hand, counted or not, in seat order: the ledger's
    bookkeeping, which ``Game.totals`` caches. Not what counts: every page, result and
    settle-up reads :func:`counted_totals`."""
    totals = dict.fromkeys(_names(game), 0)
    for name, points in ScoreLine.objects.filter(
        game=game, hand__state=Hand.State.CURRENT
    ).values_list("seat__name", "points"):
        totals[name] += points
    return totals


def _cell(text: str) -> str:
    """A text cell a spreadsheet will not run as a formula (OWASP CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def settle_up(game: Game) -> dict[str, Any]:
    """Each player's net in stake units (and money, with a stake) over the hands that count
    (:func:`counted_totals`), and the fewest payments that settle the table
    (``tonkrules.settle``)."""
    names = _names(game)
    net = counted_totals(game)
    stake = Decimal(game.stake) if game.stake else None
    payments = []
    for p in fewest_payments(net):
        row: dict[str, Any] = {"payer": p.payer, "payee": p.payee, "units": p.units}
        if stake is not None:
            row["amount"] = format(money(stake, p.units), "f")
        payments.append(row)
    out: dict[str, Any] = {"net": net, "payments": payments, "currency": game.currency or None}
    if stake is not None:
        out["money"] = {p: format(money(stake, net[p]), "f") for p in names}
    return out


def hand_history(game: Game, number: int) -> list[Hand]:
    """Every revision of hand ``number``, oldest first (who entered it, when, what)."""
    return list(
        game.hands.filter(number=number)
        .order_by("revision")
        .select_related("entered_by", "entered_seat")
    )


def tournament_table_facts(game: Game) -> dict[str, Any] | None:
    """Where a tournament's table plays, or None for a casual game: ``{"tournament"
    (the event's name), "tournament_id", "round" (its number), "table" (the table's number),
    "deadline" (an aware datetime or None), "time_zone"}``.

    Read through the reverse relation ``Game.tournament_table`` by its name, so that this app
    imports nothing of ``tournaments`` (the layers of the import contracts)."""
    prefix = "tournament_table__"
    fields = {
        "tournament": "round__tournament__name",
        "tournament_id": "round__tournament_id",
        "round": "round__number",
        "table": "number",
        "deadline": "round__deadline",
        "time_zone": "round__tournament__time_zone",
    }
    row = (
        Game.objects.filter(pk=game.pk, tournament_table__isnull=False)
        .values(*(prefix + f for f in fields.values()))
        .first()
    )
    if row is None:
        return None
    return {key: row[prefix + f] for key, f in fields.items()}


@dataclass(frozen=True)
class AuditStep:
    """One step of a game's trail (issue 12: Audit), as the audit page and API show it.

    Attributes:
        at: when.
        game_id: the game.
        number: the hand's number in the game.
        revision: the revision concerned.
        action: ``enter`` or ``correct`` (a revision written), or a ``HandEvent.Action``
            (``confirm``, ``dispute``, ``resolve``, ``void``, ``restore``).
        seat: the acting seat's name, or None.
        player_id: the acting seat's club player, or None.
        user: the acting signed-in user's username, or None.
        via: how an entry or correction came (``Hand.Via``), None for other steps.
        reason: why (blank when none was given).
        details: the step's facts (``resolution`` of a director's resolve).
    """

    at: datetime
    game_id: int
    number: int
    revision: int
    action: str
    seat: str | None
    player_id: int | None
    user: str | None
    via: str | None
    reason: str
    details: dict[str, Any]


def game_audit(games: Iterable[int]) -> list[AuditStep]:
    """Every step of the trail of the games ``games`` (ids), oldest first: each revision
    written (its entry or correction, by whom and why) and every confirmation, dispute,
    resolution, void and restore. Two queries."""
    ids = list(games)
    steps = [
        AuditStep(
            at=hand.created_at,
            game_id=hand.game_id,
            number=hand.number,
            revision=hand.revision,
            action="enter" if hand.replaces_id is None else "correct",
            seat=hand.entered_seat.name if hand.entered_seat else None,
            player_id=hand.entered_seat.player_id if hand.entered_seat else None,
            user=hand.entered_by.get_username() if hand.entered_by else None,
            via=hand.entered_via,
            reason=hand.reason,
            details={},
        )
        for hand in Hand.objects.filter(game_id__in=ids).select_related(
            "entered_seat", "entered_by"
        )
    ]
    steps += [
        AuditStep(
            at=event.created_at,
            game_id=event.game_id,
            number=event.number,
            revision=event.hand.revision,
            action=event.action,
            seat=event.seat.name if event.seat else None,
            player_id=event.seat.player_id if event.seat else None,
            user=event.user.get_username() if event.user else None,
            via=None,
            reason=event.reason,
            details=dict(event.details),
        )
        for event in HandEvent.objects.filter(game_id__in=ids).select_related(
            "seat", "user", "hand"
        )
    ]
    return sorted(steps, key=lambda s: (s.at, s.game_id, s.number, s.revision))


def voided_hands(game: Game) -> list[Hand]:
    """The game's voided hands (the last revision of each voided number), in number order,
    each with ``void`` set to its latest void step (who and why): the sheet shows them struck
    through, to be restored."""
    hands = list(
        game.hands.filter(state=Hand.State.VOIDED).order_by("number").prefetch_related("lines")
    )
    voids = {
        event.hand_id: event
        for event in HandEvent.objects.filter(game=game, action=HandEvent.Action.VOID)
        .select_related("seat", "user")
        .order_by("created_at", "id")
    }
    for hand in hands:
        hand.void = voids.get(hand.pk)  # type: ignore[attr-defined]
    return hands


def hand_void_step(game: Game, number: int) -> HandEvent | None:
    """While hand ``number`` is voided (its last revision), the step that voided it (who,
    when, why); None when it counts or was never voided."""
    last = game.hands.filter(number=number).order_by("-revision").first()
    if last is None or last.state != Hand.State.VOIDED:
        return None
    return (
        HandEvent.objects.filter(hand=last, action=HandEvent.Action.VOID)
        .select_related("seat", "user")
        .order_by("-created_at", "-id")
        .first()
    )
