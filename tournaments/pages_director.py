"""The director's dashboard: a club's tournaments, creating one, and running it on the night
(registrations, late entries and withdrawals; seating, publishing, closing and regenerating
rounds; substitutes; the live grid of a round's tables with its clock; printable table cards).

Every page and action is for signed-in directors of the tournament's club only
(:func:`director_required`): anyone else signed in gets 404, so that other clubs'
tournaments cannot be discovered, and an anonymous request goes to sign-in. Views are thin:
they parse, call one service, and answer 303 back to the dashboard (htmx requests: an
``HX-Redirect``); a refusal of the service becomes a message, never a 500.

It stays one module: every view shares the access guard and the one reading of a round's
tables (the live grid with its flags, and the printed table cards with their links). The
audit page is :mod:`tournaments.pages_audit`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

import segno
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_htmx.http import HttpResponseClientRedirect

from ops import collation, idempotency, l10n
from ops.languages import hinted
from scoring.entry import new_idempotency_key
from scoring.errors import NotAllowed
from scoring.games import adapter_for
from scoring.htmx import HtmxHttpRequest
from scoring.models import Game, Hand, Seat
from tournaments import localtime, selectors, services
from tournaments.errors import TournamentError, failure_message
from tournaments.forms import (
    RegisterForm,
    SubstituteForm,
    TournamentForm,
    error_text,
    registered_text,
)
from tournaments.languages import tournament_language
from tournaments.models import Club, Registration, Round, Table, Tournament
from tournaments.pages_confirm import ask_first, confirmation_of

#: How often the live grid asks for news while a round is being seated or played (seconds).
GRID_POLL_SECONDS = 5

View = Callable[..., HttpResponse]


# --- access -----------------------------------------------------------------------------------


def director_required(*methods: str) -> Callable[[View], View]:
    """Let only signed-in directors of the club in, then only the given HTTP ``methods``.

    The view receives ``club`` (from ``club_id``) or ``tournament`` (from ``tournament_id``,
    with its club) in place of the id. Order matters: an anonymous request goes to sign-in and
    anyone else not directing the club gets 404 before the method is looked at, so that a
    wrong method tells a stranger nothing either.
    """

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapper(request: HtmxHttpRequest, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                login = redirect_to_login(request.get_full_path())
                if request.htmx:  # a poll after the session ended: the whole page signs in
                    return HttpResponseClientRedirect(login["Location"])
                return login
            if "tournament_id" in kwargs:
                tournament = get_object_or_404(
                    Tournament.objects.select_related("club"), pk=kwargs.pop("tournament_id")
                )
                club = tournament.club
                kwargs["tournament"] = tournament
            else:
                club = get_object_or_404(Club, pk=kwargs.pop("club_id"))
                kwargs["club"] = club
            if not services.is_director(request.user, club):
                raise Http404
            if request.method not in methods:
                return HttpResponseNotAllowed(methods)
            return view(request, **kwargs)

        wrapper.director_required = True  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _dashboard_url(tournament: Tournament, number: int | None = None) -> str:
    url = reverse("tournaments:manage", args=[tournament.pk])
    return f"{url}?round={number}" if number else url


def _back(
    request: HtmxHttpRequest, tournament: Tournament, number: int | None = None
) -> HttpResponse:
    """After an action: back to the dashboard (303; htmx: a client-side redirect)."""
    url = _dashboard_url(tournament, number)
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return HttpResponseRedirect(url, status=303)


def _refused(request: HtmxHttpRequest, exc: TournamentError, **params: object) -> None:
    messages.error(request, error_text(exc, **params))


def _reason(request: HtmxHttpRequest) -> str:
    """The optional reason a director gave for an action (kept in the tournament's audit)."""
    return request.POST.get("reason", "")


def _round(tournament: Tournament, number: int) -> Round:
    return get_object_or_404(Round, tournament=tournament, number=number)


# --- reading a round for the pages --------------------------------------------------------------


@dataclass
class SeatView:
    """A seat as the grid and the cards show it."""

    name: str
    registered: str
    substitute: str
    first_dealer: bool


@dataclass
class TableView:
    """A table of a round: its players in seat order, its state, its progress and its link."""

    table: Table
    seats: list[SeatView]
    hands: int
    limit: int | None
    url: str
    link: str = ""
    qr: str = ""
    play: dict[str, Any] = field(default_factory=dict)
    #: The first disputed hand's number (issue 12: the director resolves it), or None.
    disputed: int | None = None
    #: Its page at the table (where the resolve form is), or "".
    disputed_url: str = ""
    #: How many current hands wait for confirmation.
    provisional: int = 0
    #: Each seat's private link and its QR code (table cards): (seat name, link, QR svg).
    seat_links: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def first_dealer(self) -> str:
        return self.seats[0].name if self.seats else ""


def seat_url(seat_key: str) -> str:
    """The path of a seat's private link (``scoring:seat``, ``/s/<seat key>/``)."""
    return reverse("scoring:seat", kwargs={"seat_key": seat_key})


def hand_url(game: Game, number: int) -> str:
    """The page of hand ``number`` at a table, where a director resolves a dispute."""
    return reverse("scoring:hand-edit", kwargs={"key": game.table_key, "number": number})


def _unconfirmed(game_ids: list[int]) -> dict[int, list[tuple[int, str]]]:
    """Per game, its current hands that are not confirmed: (number, status), in order."""
    out: dict[int, list[tuple[int, str]]] = {}
    rows = (
        Hand.objects.filter(game_id__in=game_ids, state=Hand.State.CURRENT)
        .exclude(status=Hand.Status.CONFIRMED)
        .order_by("game_id", "number")
        .values_list("game_id", "number", "status")
    )
    for game_id, number, status in rows:
        out.setdefault(game_id, []).append((number, status))
    return out


def _tables(rnd: Round, request: HtmxHttpRequest | None = None) -> list[TableView]:
    """The round's tables (four queries, whatever their number; the seats as plain rows:
    ``selectors.round_tables``), each flagged with its disputed and provisional hands; with
    ``request``, each table's absolute link."""
    out = []
    tables = list(rnd.tables.select_related("game").order_by("number"))
    seated = {t.number: t.seats for t in selectors.round_tables(rnd)}
    waiting = _unconfirmed([t.game_id for t in tables])
    for table in tables:
        seats = [
            SeatView(
                name=seat.name,
                registered=seat.player,
                substitute=seat.substitute,
                first_dealer=i == 0,
            )
            for i, seat in enumerate(seated.get(table.number, ()))
        ]
        url = reverse("scoring:table", kwargs={"key": table.game.table_key})
        unconfirmed = waiting.get(table.game_id, [])
        disputed = next((n for n, s in unconfirmed if s == Hand.Status.DISPUTED), None)
        out.append(
            TableView(
                table=table,
                seats=seats,
                hands=table.game.current_hands,
                limit=table.game.hand_limit,
                url=url,
                link=request.build_absolute_uri(url) if request is not None else "",
                disputed=disputed,
                disputed_url=hand_url(table.game, disputed) if disputed is not None else "",
                provisional=sum(1 for _n, s in unconfirmed if s == Hand.Status.PROVISIONAL),
            )
        )
    return out


def _clock(rnd: Round, tournament: Tournament, now: datetime | None = None) -> dict[str, Any]:
    """The round clock in the tournament's time zone: the deadline, the time left, whether
    time is called."""
    if rnd.deadline is None:
        return {}
    now = now or timezone.now()
    deadline = localtime.local(rnd.deadline, tournament.time_zone)
    called = rnd.time_called_at is not None or rnd.deadline <= now
    minutes = max(0, math.ceil((rnd.deadline - now).total_seconds() / 60))
    return {
        "deadline": l10n.time(deadline, tournament.time_zone),
        "deadline_date": l10n.date(deadline, tournament.time_zone),
        "deadline_iso": deadline.isoformat(),
        "zone": tournament.time_zone,
        "called": called,
        "left": l10n.digits(
            ngettext("%(n)d minute left", "%(n)d minutes left", minutes) % {"n": minutes}
        ),
    }


def local_time_text(value: datetime | None, tournament: Tournament) -> str:
    """``value`` as the tournament's wall-clock date and time, in the active language's
    digits (``ops.l10n.date_time``); "" for None."""
    if value is None:
        return ""
    return l10n.date_time(value, tournament.time_zone)


def _round_context(tournament: Tournament, rnd: Round | None) -> dict[str, Any]:
    """What the round panel (``_grid.html``) shows: the round, its clock, its tables and
    sit-outs, which actions apply, and whether it polls."""
    last = tournament.round_set.order_by("-number").first()
    next_number = None
    if (last is None or last.state == Round.State.COMPLETE) and (
        last is None or last.number < tournament.round_count
    ):
        next_number = last.number + 1 if last is not None else 1
    context: dict[str, Any] = {
        "tournament": tournament,
        "round": rnd,
        "latest": rnd is not None and last is not None and rnd.pk == last.pk,
        "next_number": next_number if rnd is None or (last and rnd.pk == last.pk) else None,
        "tables": [],
        "sit_outs": [],
        "clock": {},
        "poll": False,
        "seat_key": new_idempotency_key(),  # the Seat round form's: a double send seats once
    }
    if rnd is None:
        return context
    seated = rnd.state not in (Round.State.PLANNED, Round.State.FAILED)
    context |= _seating_context(rnd, tournament, latest=bool(context["latest"]))
    context |= {
        "tables": _tables(rnd) if seated else [],
        "sit_outs": collation.sorted_by_name(
            [
                s.registration.player.name
                for s in rnd.sit_outs.select_related("registration__player")
            ],
            language=collation.tournament_language(tournament),
        )
        if seated
        else [],
        "clock": _clock(rnd, tournament),
        # A failed round waits for the director (Retry reloads the page): no poll re-announcing
        # its alert every few seconds.
        "poll": rnd.state not in (Round.State.COMPLETE, Round.State.FAILED),
        "can_publish": rnd.state == Round.State.SEATED,
        "can_close": rnd.state in (Round.State.PUBLISHED, Round.State.PLAYING),
        "can_regenerate": rnd.superseded
        and rnd.state in (Round.State.SEATED, Round.State.PUBLISHED, Round.State.PLAYING),
        "poll_seconds": GRID_POLL_SECONDS,
    }
    return context


def _seating_context(rnd: Round, tournament: Tournament, *, latest: bool) -> dict[str, Any]:
    """What the round panel says while a round waits for its seating or after it failed:
    since when it waits, whether it waits longer than the tick's resend delay
    (``BACKGROUND_RESEND_SECONDS``: "delayed", with a button that asks again), why it failed
    (``tournaments.errors.failure_message``, in the reader's language) with a Retry button,
    and the retry's idempotency key."""
    waiting = rnd.state == Round.State.PLANNED
    failed = rnd.state == Round.State.FAILED
    delayed = (
        waiting
        and rnd.seat_asked_at is not None
        and (timezone.now() - rnd.seat_asked_at).total_seconds()
        > settings.BACKGROUND_RESEND_SECONDS
    )
    return {
        "waiting_since": local_time_text(rnd.seat_asked_at, tournament) if waiting else "",
        "waiting_since_iso": rnd.seat_asked_at.isoformat() if waiting and rnd.seat_asked_at else "",
        "delayed": delayed,
        "failure": failure_message(rnd.failure) if failed and rnd.failure else "",
        "can_retry": latest and (failed or delayed),
        "retry_key": new_idempotency_key(),
    }


# --- the club's tournaments ---------------------------------------------------------------------


@director_required("GET")
def club_tournaments(request: HtmxHttpRequest, club: Club) -> HttpResponse:
    """The club's tournaments, newest first, with where each stands."""
    tournaments = club.tournaments.order_by("-created_at", "-id")
    return render(
        request, "tournaments/club.html", {"club": club, "tournaments": tournaments[:200]}
    )


@director_required("GET", "POST")
def tournament_new(request: HtmxHttpRequest, club: Club) -> HttpResponse:
    """Create a tournament; on success, 303 to its dashboard. A resubmitted form (the same
    idempotency key) goes to the tournament the first submission created."""
    status = 200
    if request.method == "POST":
        form = TournamentForm(request.POST, club=club)
        if form.is_valid():
            try:
                tournament, _created = services.tournament_create(
                    club=club, created_by=request.user, **form.create_arguments()
                )
            except TournamentError as exc:
                form.add_service_error(exc)
            else:
                return _back(request, tournament)
        status = idempotency.page_status(form, 422)
    else:
        form = TournamentForm(club=club)
    return render(request, "tournaments/new.html", {"club": club, "form": form}, status=status)


# --- the dashboard -------------------------------------------------------------------------------


@director_required("GET")
def manage(request: HtmxHttpRequest, tournament: Tournament) -> HttpResponse:
    """The dashboard: the rounds (the chosen one's live grid and clock, its actions and
    substitutes) and the players (register, late entries, withdraw)."""
    rounds = list(tournament.round_set.order_by("number"))
    rnd = rounds[-1] if rounds else None
    wanted = request.GET.get("round", "")
    if wanted.isdigit():
        rnd = next((r for r in rounds if r.number == int(wanted)), rnd)
    registrations = collation.sorted_by_name(
        tournament.registrations.select_related("player"),
        name=lambda r: r.player.name,
        then=lambda r: r.pk,
        language=collation.tournament_language(tournament),
    )
    context = _round_context(tournament, rnd) | {
        "rounds": rounds,
        "registrations": registrations,
        "active": sum(1 for r in registrations if not r.withdrawn),
        "register_form": RegisterForm(tournament=tournament),
        "substitute_form": SubstituteForm(round=rnd)
        if rnd is not None
        and rnd.state in (Round.State.SEATED, Round.State.PUBLISHED, Round.State.PLAYING)
        else None,
        "starts_at": local_time_text(tournament.starts_at, tournament),
        "next_entry": services.entry_round(tournament),
    }
    return render(request, "tournaments/manage.html", context)


@director_required("GET")
def round_grid(request: HtmxHttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The round panel alone (the dashboard polls it): state, clock, actions and tables."""
    rnd = _round(tournament, number)
    return render(request, "tournaments/_grid.html", _round_context(tournament, rnd))


@director_required("POST")
def register(request: HtmxHttpRequest, tournament: Tournament) -> HttpResponse:
    """Register club players and names (new names become club players); between rounds,
    late entries. Someone seated at another of the club's tables at that time: the
    confirmation step (:mod:`tournaments.pages_confirm`)."""
    form = RegisterForm(request.POST, tournament=tournament)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, cast(str, error))  # an ErrorList yields its messages
        return _back(request, tournament)
    try:
        result = form.save(
            by=request.user,
            reason=_reason(request),
            confirm_elsewhere=confirmation_of(request)["confirm_elsewhere"],
        )
    except TournamentError as exc:
        action = reverse("tournaments:register", args=[tournament.pk])
        if page := ask_first(request, tournament, exc, action=action):
            return page
        _refused(request, exc)
    else:
        for text in registered_text(result):
            messages.success(request, text)
    return _back(request, tournament)


@director_required("POST")
def withdraw(
    request: HtmxHttpRequest, tournament: Tournament, registration_id: int
) -> HttpResponse:
    """Withdraw a player: their results stay; they are never seated again."""
    registration = get_object_or_404(
        Registration.objects.select_related("player"), tournament=tournament, pk=registration_id
    )
    try:
        services.registration_withdraw(
            registration=registration, by=request.user, reason=_reason(request)
        )
    except TournamentError as exc:
        _refused(request, exc)
        return _back(request, tournament)
    messages.success(request, _("%(name)s is withdrawn.") % {"name": registration.player.name})
    return _back(request, tournament)


@director_required("POST")
def seat(request: HtmxHttpRequest, tournament: Tournament) -> HttpResponse:
    """Seat the next round (the seating runs as a task: at once in the embedded mode; the
    grid shows "seating…" meanwhile). Asking twice gives the same round. The same form asks
    again for a seating that waits too long, and retries one that failed (with its
    ``idempotency_key``: a double tap retries once). Someone seated at another of the club's
    tables at that time: the confirmation step (:mod:`tournaments.pages_confirm`)."""
    try:
        key = idempotency.clean_key(request.POST.get("idempotency_key"))
    except idempotency.KeyRefused as exc:
        return HttpResponseBadRequest(str(exc.message))
    try:
        rnd, _created = services.round_seat(
            tournament=tournament,
            by=request.user,
            reason=_reason(request),
            idempotency_key=key,
            confirm_elsewhere=confirmation_of(request)["confirm_elsewhere"],
        )
    except TournamentError as exc:
        action = reverse("tournaments:seat", args=[tournament.pk])
        if page := ask_first(request, tournament, exc, action=action, keyed=True):
            return page
        _refused(request, exc)
        return _back(request, tournament)
    return _back(request, tournament, rnd.number)


def _round_action(
    request: HtmxHttpRequest,
    tournament: Tournament,
    number: int,
    act: Callable[[Round], Round],
    done: str,
) -> HttpResponse:
    rnd = _round(tournament, number)
    try:
        act(rnd)
    except TournamentError as exc:
        _refused(request, exc, round=number)
    else:
        messages.success(request, l10n.sentence(str(done), {"round": number}))
    return _back(request, tournament, number)


@director_required("POST")
def publish(request: HtmxHttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Publish a seated round: its tables open and its clock starts."""
    return _round_action(
        request,
        tournament,
        number,
        lambda rnd: services.round_publish(round=rnd, by=request.user, reason=_reason(request)),
        _("Round %(round)d is published: the tables may play."),
    )


@director_required("POST")
def close(request: HtmxHttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Close a round: tables that entered no hand are not played. Refused (a message naming
    the tables) while a table has hands to confirm or resolve, where the tournament requires
    confirmation."""
    return _round_action(
        request,
        tournament,
        number,
        lambda rnd: services.round_close(round=rnd, by=request.user, reason=_reason(request)),
        _("Round %(round)d is closed."),
    )


@director_required("POST")
def regenerate(request: HtmxHttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Seat a round again on the current standings, while none of its results exist. The
    substitutes it would drop, or someone seated at another of the club's tables at that
    time: the confirmation step (:mod:`tournaments.pages_confirm`)."""
    rnd = _round(tournament, number)
    try:
        services.round_regenerate(
            round=rnd, by=request.user, reason=_reason(request), **confirmation_of(request)
        )
    except TournamentError as exc:
        action = reverse("tournaments:regenerate", args=[tournament.pk, number])
        if page := ask_first(request, tournament, exc, action=action, number=number):
            return page
        _refused(request, exc, round=number)
    else:
        messages.success(
            request,
            l10n.sentence(
                _("Round %(round)d is being seated again on the current standings."),
                {"round": number},
            ),
        )
    return _back(request, tournament, number)


@director_required("POST")
def substitute(request: HtmxHttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """A substitute plays a seated player's seat in this round. A substitute seated at another
    of the club's tables at that time: the confirmation step
    (:mod:`tournaments.pages_confirm`)."""
    rnd = _round(tournament, number)
    form = SubstituteForm(request.POST, round=rnd)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, cast(str, error))  # an ErrorList yields its messages
        return _back(request, tournament, number)
    registration = form.registration_object()
    name = form.cleaned_data["substitute"]
    try:
        services.substitute_set(
            round=rnd,
            registration=registration,
            substitute=name,
            by=request.user,
            reason=_reason(request),
            confirm_elsewhere=confirmation_of(request)["confirm_elsewhere"],
        )
    except TournamentError as exc:
        action = reverse("tournaments:substitute", args=[tournament.pk, number])
        if page := ask_first(request, tournament, exc, action=action, number=number):
            return page
        _refused(request, exc, name=name)
    else:
        messages.success(
            request,
            l10n.sentence(
                _("%(substitute)s plays for %(name)s in round %(round)d."),
                {"substitute": name, "name": registration.player.name, "round": number},
            ),
        )
    return _back(request, tournament, number)


@director_required("POST")
def table_links(
    request: HtmxHttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """New private links for a table (its table link and every seat link): the old ones
    open nothing any more. Print the table's card again."""
    rnd = _round(tournament, number)
    row = get_object_or_404(Table, round=rnd, number=table)
    try:
        services.table_links_rotate(table=row, by=request.user, reason=_reason(request))
    except TournamentError as exc:
        _refused(request, exc)
    except NotAllowed:
        messages.error(request, _("Only the club's directors change a table's links."))
    else:
        messages.success(
            request,
            l10n.sentence(
                _("Table %(table)d has new links: print its card again."), {"table": table}
            ),
        )
    return _back(request, tournament, number)


# --- table cards -------------------------------------------------------------------------------


def _what_to_play(tournament: Tournament, rnd: Round, view: TableView) -> dict[str, Any]:
    """What a table plays this round (issue 6, "What a round is"): the game's adapter says."""
    adapter = adapter_for(tournament.kind)
    return adapter.table_play(
        round_number=rnd.number,
        game=view.table.game,
        players=len(view.seats),
        options=adapter.rules.options(tournament.options or None),
        tournament=tournament,
    )


@hinted(tournament_language)
@director_required("GET")
def table_cards(request: HtmxHttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """A printable page of round ``number``'s table cards: one card per table with its
    players in seat order, the first dealer, what to play, a QR code of its table page, and
    each seat's private link with its QR code (issue 12: an entry says which seat made it)."""
    rnd = _round(tournament, number)
    tables = (
        _tables(rnd, request) if rnd.state not in (Round.State.PLANNED, Round.State.FAILED) else []
    )
    seats: dict[int, list[tuple[str, str]]] = {}
    for game_id, name, key in Seat.objects.filter(
        game_id__in=[v.table.game_id for v in tables]
    ).values_list("game_id", "name", "seat_key"):  # in seat order (Seat's ordering)
        seats.setdefault(game_id, []).append((name, key))
    for view in tables:
        view.qr = segno.make(view.link, error="m").svg_inline(scale=3)
        view.play = _what_to_play(tournament, rnd, view)
        for name, key in seats.get(view.table.game_id, []):
            link = request.build_absolute_uri(seat_url(key))
            view.seat_links.append((name, link, segno.make(link, error="m").svg_inline(scale=2)))
    context = {
        "tournament": tournament,
        "round": rnd,
        "tables": tables,
        "clock": _clock(rnd, tournament),
    }
    return render(request, "tournaments/cards.html", context)
