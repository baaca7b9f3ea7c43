"""The public pages of a tournament (no sign-in): the standings, updating live; each round's
results; each player's history; a big-screen view for a wall projector.

Only published rounds appear: a round that is seated but not published, and one that does
not exist, answer the same 404 (no names in it). The standings fragment carries an ETag (the
results version, the rounds complete and the language): a poll while nothing changed is a 304.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.cache import patch_cache_control
from django.utils.translation import get_language
from django.views.decorators.http import condition, require_GET

from scoring.games import adapter_for
from tournaments import localtime, selectors
from tournaments.models import Registration, Round, Table, TableSeat, Tournament

#: Rounds whose tables the public may see.
SHOWN = (Round.State.PUBLISHED, Round.State.PLAYING, Round.State.COMPLETE)
POLL_SECONDS = 5


def _tournament(tournament_id: int) -> Tournament:
    return get_object_or_404(Tournament.objects.select_related("club"), pk=tournament_id)


def _current_round(tournament: Tournament) -> Round | None:
    """The latest round the public may see."""
    return tournament.round_set.filter(state__in=SHOWN).order_by("-number").first()


def _clock(tournament: Tournament, rnd: Round | None) -> dict[str, Any] | None:
    """The round's clock as shown: its deadline in the tournament's time zone, whether time
    is called."""
    if rnd is None:
        return None
    return {
        "round": rnd,
        "deadline": localtime.local(rnd.deadline, tournament.time_zone),
        "time_called": rnd.time_called_at is not None,
        "zone": tournament.time_zone,
    }


def _standings_context(tournament: Tournament) -> dict[str, Any]:
    standings = selectors.standings(tournament)
    adapter = adapter_for(tournament.kind)
    engine = adapter.rules
    return {
        "tournament": tournament,
        "adapter": adapter,
        "standings": standings,
        "title": adapter.label,
        "lower_wins": engine.lower_wins and tournament.basis == Tournament.Basis.TOTAL,
        "poll": POLL_SECONDS,
        "version": standings_version(tournament.pk),
        "clock": _clock(tournament, _current_round(tournament)),
    }


def standings_version(tournament_id: int) -> str | None:
    """What the standings fragment shows, as one string: the results version, the rounds
    complete, the latest public round and its clock, the language."""
    row = (
        Tournament.objects.filter(pk=tournament_id)
        .values_list("results_version", "rounds_complete")
        .first()
    )
    if row is None:
        return None
    latest = (
        Round.objects.filter(tournament_id=tournament_id, state__in=SHOWN)
        .order_by("-number")
        .values_list("number", "state", "deadline", "time_called_at")
        .first()
    )
    clock = "-".join(str(v.timestamp() if isinstance(v, datetime) else v) for v in latest or ())
    return f"standings-{tournament_id}-{row[0]}-{row[1]}-{clock}-{get_language()}"


def standings_etag(request: HttpRequest, tournament_id: int) -> str | None:
    """The standings fragment's ETag: :func:`standings_version`."""
    return standings_version(tournament_id)


@require_GET
def standings_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The tournament's standings with the tie-break columns and their explanation; the
    table refreshes itself (htmx polling with ETag)."""
    tournament = _tournament(tournament_id)
    context = _standings_context(tournament)
    rounds = list(tournament.round_set.filter(state__in=SHOWN).order_by("number"))
    context["rounds"] = rounds
    return render(request, "tournaments/standings.html", context)


@require_GET
@condition(etag_func=standings_etag)
def standings_fragment(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings table (and the round's clock) alone, for polling: 304 to a request
    carrying the ETag while nothing changed; 204 to a poll naming the version it shows (htmx
    then leaves the page as it is: no swap, focus and scroll kept)."""
    if request.GET.get("v") and request.GET.get("v") == standings_version(tournament_id):
        return HttpResponse(status=204)
    tournament = _tournament(tournament_id)
    response = render(request, "tournaments/_standings.html", _standings_context(tournament))
    # Revalidate every time: the ETag answers 304 until a result changes.
    patch_cache_control(response, no_cache=True)
    return response


@require_GET
def big_screen(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings in large type for a wall projector, with the round and its clock."""
    tournament = _tournament(tournament_id)
    return render(request, "tournaments/screen.html", _standings_context(tournament))


def _what_to_play(tournament: Tournament, table: Table) -> str:
    """What a table plays this round, in words (the game's adapter says)."""
    return adapter_for(tournament.kind).round_play_text(game=table.game, tournament=tournament)


@require_GET
def round_page(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    """A published round: each table's players in seat order (first dealer first), what it
    plays, its state and each player's score. Unpublished and missing rounds: the same 404."""
    tournament = _tournament(tournament_id)
    rnd = tournament.round_set.filter(number=number, state__in=SHOWN).first()
    if rnd is None:
        raise Http404
    tables = []
    for table in rnd.tables.select_related("game").prefetch_related("seats__registration__player"):
        totals = table.game.totals or {}
        seats = []
        for seat in table.seats.all():
            shown = seat.substitute or seat.registration.player.name
            seats.append(
                {
                    "name": shown,
                    "registration": seat.registration,
                    "substitute": bool(seat.substitute),
                    "for": seat.registration.player.name if seat.substitute else "",
                    "score": totals.get(shown),
                }
            )
        tables.append(
            {
                "number": table.number,
                "state": table.get_state_display(),
                "seats": seats,
                "plays": _what_to_play(tournament, table),
                "hands": table.game.current_hands,
            }
        )
    sit_outs = [s.registration for s in rnd.sit_outs.select_related("registration__player")]
    context = {
        "tournament": tournament,
        "title": adapter_for(tournament.kind).label,
        "round": rnd,
        "tables": tables,
        "sit_outs": sit_outs,
        "clock": _clock(tournament, rnd),
        "rounds": list(
            tournament.round_set.filter(state__in=SHOWN)
            .order_by("number")
            .values_list("number", flat=True)
        ),
    }
    return render(request, "tournaments/round.html", context)


@require_GET
def player_page(request: HttpRequest, tournament_id: int, registration_id: int) -> HttpResponse:
    """One player's tournament: round by round, their table, opponents and score (or the
    missed-round score), from published rounds only."""
    tournament = _tournament(tournament_id)
    registration = get_object_or_404(
        Registration.objects.select_related("player"), tournament=tournament, pk=registration_id
    )
    standings = selectors.standings(tournament)
    row = next((r for r in standings.rows if r.registration_id == registration.pk), None)
    seats = (
        TableSeat.objects.filter(registration=registration, round__state__in=SHOWN)
        .select_related("table__game", "round")
        .order_by("round__number")
    )
    history = []
    by_round = {seat.round.number: seat for seat in seats}
    numbers = sorted(set(by_round) | set(row.rounds if row else ()))
    tables = {seat.table_id for seat in seats}
    others: dict[int, list[str]] = {}
    for table_id, name, substitute, reg_id in TableSeat.objects.filter(
        table_id__in=tables
    ).values_list("table_id", "registration__player__name", "substitute", "registration_id"):
        if reg_id != registration.pk:
            others.setdefault(table_id, []).append(substitute or name)
    for number in numbers:
        seat = by_round.get(number)
        score = row.rounds.get(number) if row else None
        history.append(
            {
                "round": number,
                "table": seat.table.number if seat else None,
                "opponents": others.get(seat.table_id, []) if seat else [],
                "substitute": seat.substitute if seat else "",
                "score": score.score if score else None,
                "missed": score.missed if score else False,
            }
        )
    context = {
        "tournament": tournament,
        "title": adapter_for(tournament.kind).label,
        "registration": registration,
        "row": row,
        "history": history,
        "tiebreaks": list(zip(standings.tiebreaks, row.tiebreaks, strict=True)) if row else [],
    }
    return render(request, "tournaments/player.html", context)
