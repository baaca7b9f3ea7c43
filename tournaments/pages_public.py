"""The public pages of a tournament (no sign-in): the standings, updating live; each round's
results; each player's history; a big-screen view for a wall projector.

Only published rounds appear: a round that is seated but not published, and one that does
not exist, answer the same 404 (no names in it). The standings fragment carries an ETag, a
digest of the fragment as rendered (``ops.etags``: everything it shows, in the language shown):
a poll while nothing it shows changed is a 304 (or a 204, naming the version in ``?v=``).

Every page here is in the tournament's language unless the visitor chose one
(``ops.languages``: the views are marked with :func:`ops.languages.hinted`).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET

from ops import collation
from ops.etags import conditional_response, render_memoised
from ops.languages import hinted
from scoring import selectors as scoring_selectors
from scoring.games import adapter_for
from tournaments import localtime, selectors
from tournaments.languages import tournament_language
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
        "clock": _clock(tournament, _current_round(tournament)),
    }


def standings_fragment_html(context: dict[str, Any]) -> tuple[SafeString, str]:
    """The standings fragment (the table and the round's clock) rendered for ``context``, and
    its version: the digest of what it shows, which the fragment names in its poll's ``?v=``
    and which is its ETag. Rendered once per change of its context in a process
    (``ops.etags.render_memoised``): 1,000 rows take hundreds of ms to render."""
    parts, version = render_memoised(("tournaments/_standings.html",), context)
    return parts[0], version


@hinted(tournament_language)
@require_GET
def standings_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The tournament's standings with the tie-break columns and their explanation; the
    table refreshes itself (htmx polling with ETag)."""
    tournament = _tournament(tournament_id)
    context = _standings_context(tournament)
    context["standings_html"], _version = standings_fragment_html(context)
    rounds = list(tournament.round_set.filter(state__in=SHOWN).order_by("number"))
    context["rounds"] = rounds
    return render(request, "tournaments/standings.html", context)


@hinted(tournament_language)
@require_GET
def standings_fragment(request: HttpRequest, tournament_id: int) -> HttpResponseBase:
    """The standings table (and the round's clock) alone, for polling: 304 to a request whose
    ``If-None-Match`` names its ETag, 204 to a poll naming its version in ``?v=`` (htmx then
    leaves the page as it is: no swap, focus and scroll kept), while nothing it shows changed
    (the version is the digest of the fragment: ``ops.etags``). 404 for no such tournament."""
    tournament = _tournament(tournament_id)
    html, version = standings_fragment_html(_standings_context(tournament))
    return conditional_response(request, html, version, poll_param="v")


@hinted(tournament_language)
@require_GET
def big_screen(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The standings in large type for a wall projector, with the round and its clock."""
    tournament = _tournament(tournament_id)
    context = _standings_context(tournament)
    context["standings_html"], _version = standings_fragment_html(context)
    return render(request, "tournaments/screen.html", context)


def _what_to_play(tournament: Tournament, table: Table) -> str:
    """What a table plays this round, in words (the game's adapter says)."""
    return adapter_for(tournament.kind).round_play_text(game=table.game, tournament=tournament)


@hinted(tournament_language)
@require_GET
def round_page(request: HttpRequest, tournament_id: int, number: int) -> HttpResponse:
    """A published round: each table's players in seat order (first dealer first), what it
    plays, its state and each player's score over the hands that count
    (``scoring.selectors.counting_filter``: "—" while none does), and how many of its hands
    do not count yet (provisional, disputed). Unpublished and missing rounds: the same 404."""
    tournament = _tournament(tournament_id)
    rnd = tournament.round_set.filter(number=number, state__in=SHOWN).first()
    if rnd is None:
        raise Http404
    rows = list(rnd.tables.select_related("game").prefetch_related("seats__registration__player"))
    totals = scoring_selectors.counted_totals_by_game([t.game for t in rows])
    tallies = scoring_selectors.hand_tally_by_game([t.game_id for t in rows])
    tables = []
    for table in rows:
        tally = tallies[table.game_id]
        seats = []
        for seat in table.seats.all():
            shown = seat.substitute or seat.registration.player.name
            seats.append(
                {
                    "name": shown,
                    "registration": seat.registration,
                    "substitute": bool(seat.substitute),
                    "for": seat.registration.player.name if seat.substitute else "",
                    "score": totals[table.game_id].get(shown) if tally.counted else None,
                }
            )
        tables.append(
            {
                "number": table.number,
                "state": table.get_state_display(),
                "seats": seats,
                "plays": _what_to_play(tournament, table),
                "hands": table.game.current_hands,
                "tally": tally,
            }
        )
    sit_outs = collation.sorted_by_name(
        [s.registration for s in rnd.sit_outs.select_related("registration__player")],
        name=lambda r: r.player.name,
        then=lambda r: r.pk,
        language=collation.tournament_language(tournament),
    )
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


@hinted(tournament_language)
@require_GET
def player_page(request: HttpRequest, tournament_id: int, registration_id: int) -> HttpResponse:
    """One player's tournament: round by round, their table, opponents and score (or the
    missed-round score), from published rounds only; the round in play marked as the
    standings mark it (provisional, not reported). No total ("—") before a first result."""
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
    in_play = {seat.round.number for seat in seats if seat.round.state != Round.State.COMPLETE}
    for number in numbers:
        seat = by_round.get(number)
        score = row.rounds.get(number) if row else None
        history.append(
            {
                # The round in play's mark (its table's hands not all counting yet, or none
                # entered), as the standings show it.
                "in_play": row.in_play if row and number in in_play else "",
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
