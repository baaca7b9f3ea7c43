"""The table page and its actions, reached by the game's private table link (``/t/<key>/``).

Whoever holds the link sees that one game; every change records who made it (issue 12), so
entering, correcting and voiding hands takes a seat (chosen once on the device, or its seat
link), the game's signed-in creator or a club director (:mod:`scoring.permissions`). Without
a seat the page shows the seat chooser in place of the entry form.
Views stay thin: the entry forms (``scoring.entry``) build the hand object, the services check,
score and record it, the selectors read the sheet. With htmx a submission swaps the table's main
region in place; without it the form posts and the page reloads (303 after a write).

Every phone at the table keeps its sheet up to date by polling :func:`live` (the "Next" facts
and the sheet, never the form): its ETag is the digest of the rows the region is built from
and of the viewer (:mod:`scoring.live`: everything it shows, to this viewer, in this language),
a 304 while none of them changed, answered without building the region.

It stays one module (about 620 lines): every view serves the one audience of a table link and
shares its lookup and page context (``game_of_table_key``, ``_context``, ``_render_main``).
"""

from __future__ import annotations

import io
from typing import Any, cast

import segno
from django.http import Http404, HttpResponse, HttpResponseBase, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
)
from django_htmx.http import HttpResponseClientRedirect

from ops import idempotency
from ops.etags import conditional_response
from scoring import selectors, services
from scoring.entry import (
    CardGrid,
    EntryForm,
    entry_changes,
    hand_summary,
    new_idempotency_key,
    next_defaults,
)
from scoring.errors import (
    GameFinished,
    GameNotFound,
    GameNotOpen,
    HandLimitReached,
    HandNotFound,
    HandNotNext,
    HandNumberRequired,
    IdempotencyKeyReused,
    NotAllowed,
    ReasonRequired,
    ScoringConflict,
    StaleRevision,
    VoidRefused,
)
from scoring.games import adapter_for
from scoring.htmx import HtmxHttpRequest
from scoring.live import live_version
from scoring.messages import error_message, warning_message
from scoring.models import Game, Hand
from scoring.permissions import Actor
from scoring.table_trust import SEATS_SESSION_KEY as SEATS_SESSION_KEY
from scoring.table_trust import (
    actor_of,
    annotate_hands,
    hand_page_trust,
    table_trust,
    who_entered,
)
from tonkrules.sheet import SheetError

ROBOTS = "noindex, nofollow"
#: A rejected entry: 422, which htmx swaps in place (htmx-config in base.html) and which
#: django-htmx's debug script leaves alone (it takes over 400, 403, 404 and 500 pages).
REJECTED = 422
#: How often a table page asks whether the sheet changed (the issue: within 5 s on every phone).
POLL_SECONDS = 3


def game_of_table_key(key: str) -> Game:
    """The game a table link opens (404 for any other key)."""
    return get_object_or_404(Game, table_key=key)


def _who(request: HtmxHttpRequest, game: Game) -> dict[str, Any]:
    """Who is writing: the holder of the table link, with the seat this device chose (if
    any, :data:`SEATS_SESSION_KEY`) and the signed-in user (if any)."""
    return {"by": actor_of(request, game)}


def _form_class(game: Game) -> type[EntryForm]:
    return adapter_for(game.kind).entry_form


def _next(
    game: Game, names: list[str], last: dict[str, Any] | None, *, played: int = 0
) -> dict[str, Any]:
    return next_defaults(
        game.kind,
        names,
        last,
        start=game.sequence_from,
        wraps=game.sequence_wraps,
        limit=game.hand_limit,
        played=played,
    )


def _new_form(
    game: Game, names: list[str], options: Any, last: dict[str, Any] | None, *, played: int = 0
) -> EntryForm:
    """An empty entry form for the next hand, with the next dealer and number filled in."""
    nxt = _next(game, names, last, played=played)
    initial: dict[str, Any] = {
        "idempotency_key": new_idempotency_key(),
        "dealer": nxt["dealer"],
        "after": game.last_number,
    }
    number_key = adapter_for(game.kind).rules.number_key
    if number_key is not None:
        initial[number_key] = nxt["number"]
    return _form_class(game)(names=names, options=options, initial=initial)


def _sheet(game: Game, hands: list[Hand], names: list[str]) -> dict[str, Any]:
    """The score sheet hand by hand: every current hand (``hands``) with its scores and its
    status; the running totals, the totals and the leaders over the hands that count
    (``selectors.hand_counts``: where confirmation is required, a provisional or disputed
    hand is shown, marked "not counted yet", and counts for nobody). ``counted``: whether any
    hand counts (none yet: the totals are "—", never 0)."""
    counted = [hand for hand in hands if selectors.hand_counts(game, hand)]
    # The result object of the score-sheet format (``selectors.game_results`` documents its keys).
    results = selectors.game_results(game, counted)
    by_number = {r["number"]: r for r in cast(list[dict[str, Any]], results["hands"])}
    rows: list[dict[str, Any]] = []
    for hand in hands:
        result = by_number.get(hand.number)
        scores = result["scores"] if result else selectors.hand_scores(hand)
        entry = hand.entry if isinstance(hand.entry, dict) else {}
        rows.append(
            {
                "number": hand.number,
                "position": len(rows) + 1,
                "sequence": hand.sequence,
                "revision": hand.revision,
                "dealer": entry.get("dealer", ""),
                "summary": hand_summary(game.kind, entry),
                "cells": [(scores[n], result["running"][n] if result else None) for n in names],
                "counts": result is not None,
                "warnings": [{**w, "message": warning_message(w)} for w in hand.warnings],
                "hand": hand,
            }
        )
    totals = cast(dict[str, int], results["totals"])
    ranking = cast(list[list[str]], results["ranking"])
    leaders = ranking[0] if counted and len(ranking) > 1 else []
    money = cast(dict[str, str], results.get("money", {}) if counted else {})
    return {
        "rows": rows,
        "counted": bool(counted),
        "totals": [(n, totals[n], money.get(n), n in leaders) for n in names],
        "leaders": leaders,
        "currency": game.currency,
    }


def _context(
    request: HtmxHttpRequest,
    game: Game,
    form: EntryForm | None = None,
    *,
    recorded: Hand | None = None,
    live: bool = False,
) -> dict[str, Any]:
    """Everything the table page shows; with ``live``, what its live region shows (no QR
    codes or links to draw: every phone asks for it every few seconds)."""
    engine, options, _seats = services.engine_of(game)
    names = [name for name, _seat in game.seating]
    hands = selectors.current_hands(game)
    last = hands[-1].entry if hands and isinstance(hands[-1].entry, dict) else None
    nxt = _next(game, names, last, played=len(hands))
    if form is None:
        form = _new_form(game, names, options, last, played=len(hands))
    adapter = adapter_for(game.kind)
    next_info: dict[str, Any] = {"dealer": names[nxt["dealer"]], "done": nxt["done"]}
    if not nxt["done"]:
        next_info |= adapter.next_info(
            number=nxt["number"], dealer=nxt["dealer"], names=names, options=options
        )
    grid = CardGrid(game.kind, players=len(names), options=options)
    sheet = _sheet(game, hands, names)
    link = request.build_absolute_uri(reverse("scoring:table", kwargs={"key": game.table_key}))
    return {
        "game": game,
        "adapter": adapter,
        "title": adapter.label,
        "unit": adapter.unit_label,
        "lower_wins": engine.lower_wins,
        "names": names,
        "sheet": sheet,
        "next": next_info,
        "form": form,
        "grid": grid,
        "finished": game.state == Game.State.FINISHED,
        "waiting": game.state == Game.State.WAITING,
        "recorded": recorded,
        "link": link,
        "qr": ""
        if live
        else segno.make(link, error="m").svg_inline(scale=4, omitsize=True, title=_("Table link")),
        "settle": selectors.settle_up(game) if adapter.has_stakes and sheet["counted"] else None,
        # The live region shows nothing of the tournament (its version does not read it).
        "tournament": None if live else selectors.tournament_table_facts(game),
        "poll": POLL_SECONDS,
        "entry_data": {
            "copies": grid.copies,
            **grid.notation(),
            **adapter.entry_data(names=names, options=options),
        },
        "robots": ROBOTS,
        "trust": table_trust(request, game, hands, links=not live),
    }


def _render_main(
    request: HtmxHttpRequest,
    game: Game,
    form: EntryForm | None = None,
    *,
    status: int = 200,
    recorded: Hand | None = None,
) -> HttpResponse:
    """The table's main region for htmx, the whole page otherwise."""
    template = "scoring/_table_main.html" if request.htmx else "scoring/table.html"
    version = live_version(request, game)  # before the context (scoring.live)
    context = _with_live(request, _context(request, _fresh(game), form, recorded=recorded), version)
    return render(request, template, context, status=status)


def _fresh(game: Game) -> Game:
    """``game`` read again, after its live version: the region must not show an older row
    than its version digested (the next poll would then answer 304 to a stale page)."""
    return get_object_or_404(Game, pk=game.pk)


#: The live region's parts, in page order: the "Next" facts and the score sheet.
LIVE_PARTS = ("scoring/_next_panel.html", "scoring/_live_sheet.html")


def _with_live(request: HtmxHttpRequest, context: dict[str, Any], version: str) -> dict[str, Any]:
    """``context`` with the live region rendered (``live_next``, ``live_sheet``: HTML) showing
    ``version``: :func:`scoring.live.live_version`, read before ``context`` was, the version
    :func:`live` answers as its ETag while nothing the region is built from changed."""
    context["version"] = version
    context["live_next"], context["live_sheet"] = (
        render_to_string(name, context, request) for name in LIVE_PARTS
    )
    return context


def _page_context(request: HtmxHttpRequest, game: Game) -> dict[str, Any]:
    """The table page's context with its live region (its version read first)."""
    version = live_version(request, game)
    return _with_live(request, _context(request, _fresh(game)), version)


@require_GET
def table(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """The table page: the sheet with running totals, what comes next, and the entry form."""
    context = _page_context(request, game_of_table_key(key))
    return render(request, "scoring/table.html", context)


@require_GET
def sheet(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """The table's main region alone (another phone at the table refreshes it)."""
    context = _page_context(request, game_of_table_key(key))
    return render(request, "scoring/_table_main.html", context)


@require_GET
def live(request: HtmxHttpRequest, key: str) -> HttpResponseBase:
    """The table page's live region alone (the "Next" facts and the score sheet), which every
    phone at the table polls: 304 to a request whose ``If-None-Match`` names the version it
    shows, so that nothing is sent while nothing it shows changed. The version is
    :func:`scoring.live.live_version` (a digest of the rows the region is built from and of
    the viewer): a 304 reads those rows and neither builds the context nor renders. The entry
    form is never in it."""
    game = game_of_table_key(key)
    version = live_version(request, game)  # before the context (scoring.live)

    def region() -> str:
        context = _with_live(request, _context(request, _fresh(game), live=True), version)
        return str(context["live_next"] + "\n" + context["live_sheet"])

    return conditional_response(request, region, version)


@require_POST
def hand_new(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """Record the next hand (round) from the entry form; a rejected hand comes back with the
    error next to the player and cards concerned, the entry as typed, and nothing saved."""
    game = game_of_table_key(key)
    _engine, options, _seats = services.engine_of(game)
    names = [name for name, _seat in game.seating]
    form = _form_class(game)(request.POST, names=names, options=options)
    if not form.is_valid():
        return _render_main(request, game, form, status=idempotency.page_status(form, REJECTED))
    key_ = form.cleaned_data["idempotency_key"]
    after = form.cleaned_data.get("after")  # the last hand number the form was shown after
    try:
        hand, _created = services.hand_record(
            game=game,
            entry=form.entry(),
            number=None if after is None else after + 1,
            number_required=True,
            idempotency_key=key_,
            **_who(request, game),
        )
    except HandNumberRequired:
        # A form that does not say which hand it follows (a page cached before the field, a
        # script): which hand it is cannot be told, so nothing is saved; the cards typed stay
        # and the form follows the sheet as it is now, to be checked and sent again.
        form.add_error(
            None,
            _(
                "This page did not say which hand it follows, so nothing was saved: check the "
                "sheet as it is now, then send your hand again."
            ),
        )
        now = Game.objects.get(pk=game.pk)
        return _render_main(request, now, _fresh_key(form, now=now), status=409)
    except HandNotNext:
        # Another phone entered a hand since this form was shown: the same hand twice? The
        # cards typed stay; the form follows the hand that arrived, and asks before sending.
        form.add_error(
            None,
            _(
                "Another phone entered a hand meanwhile: it is on the sheet now. If yours is "
                "a different hand, send it again."
            ),
        )
        now = Game.objects.get(pk=game.pk)
        fresh = _fresh_key(form, now=now)
        arrived = selectors.current_hands(now)
        if arrived and isinstance(arrived[-1].entry, dict):  # the hand it may be, in words
            summary = hand_summary(now.kind, arrived[-1].entry)
            fresh.add_error(None, _("Entered meanwhile: %(summary)s.") % {"summary": summary})
        return _render_main(request, now, fresh, status=409)
    except SheetError as exc:
        form.add_rule_error(exc)
        return _render_main(request, game, form, status=REJECTED)
    except GameNotFound as exc:  # deleted while we waited (its round seated again)
        raise Http404 from exc
    except IdempotencyKeyReused:
        # A lost answer, then an edited retry: the first send was recorded.
        form.add_error(
            None,
            _(
                "Your first send was recorded (its answer was lost): check the sheet. If this "
                "is another hand, send it again."
            ),
        )
        # The game moved on with that first send: the form takes the hand that follows it.
        now = Game.objects.get(pk=game.pk)
        return _render_main(request, now, _fresh_key(form, now=now), status=409)
    except ScoringConflict as exc:
        form.add_error(None, conflict_text(exc))
        return _render_main(request, game, form, status=403 if isinstance(exc, NotAllowed) else 409)
    if not request.htmx:
        return redirect("scoring:table", key=key, permanent=False)
    return _render_main(request, Game.objects.get(pk=game.pk), recorded=hand)


def _fresh_key(form: EntryForm, *, now: Game | None = None) -> EntryForm:
    """The same entry and errors, with a new idempotency key so that sending it again is a new
    write. With ``now`` (another phone entered a hand meanwhile), the hand as the game stands
    now: the hand count it follows, the next dealer and the next round (hand) number; the
    cards typed are kept."""
    data = cast(QueryDict, form.data).copy()  # the form was bound to request.POST
    data["idempotency_key"] = new_idempotency_key()
    if now is not None:
        hands = selectors.current_hands(now)
        last = hands[-1].entry if hands and isinstance(hands[-1].entry, dict) else None
        nxt = _next(now, form.names, last, played=len(hands))
        data["after"] = str(now.last_number)
        data["dealer"] = str(nxt["dealer"])
        number_key = form.number_field_name
        if number_key is not None and nxt["number"] is not None:
            data[number_key] = str(nxt["number"])
    fresh = type(form)(data, names=form.names, options=form.game_options)
    fresh.is_valid()
    for error in form.non_field_errors():
        fresh.add_error(None, error)
    return fresh


@require_http_methods(["GET", "POST"])
def hand_edit(request: HtmxHttpRequest, key: str, number: int) -> HttpResponse:
    """One hand: its revision history (who, when, what changed) and the form to correct it."""
    game = game_of_table_key(key)
    _engine, options, _seats = services.engine_of(game)
    names = [name for name, _seat in game.seating]
    history = selectors.hand_history(game, number)
    if not history:
        raise Http404
    current = next((h for h in history if h.state == Hand.State.CURRENT), None)
    form_class = _form_class(game)
    status = 200
    if request.method == "POST":
        form, status = _correct(request, game, number, current, names, options)
        if form is None:
            url = reverse("scoring:table", kwargs={"key": key})
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
        if status == 409:  # show the hand as it stands now, to be corrected from there
            history = selectors.hand_history(game, number)
            current = next((h for h in history if h.state == Hand.State.CURRENT), None)
    else:
        initial: dict[str, Any] = {}
        if current is not None:
            initial = _correction_initial(form_class, current, names)
        form = form_class(names=names, options=options, initial=initial)
    revisions = []
    previous: dict[str, Any] | None = None
    for hand in history:
        entry = hand.entry if isinstance(hand.entry, dict) else {}
        revisions.append(
            {
                "hand": hand,
                "who": who_entered(request, hand),
                "changes": entry_changes(previous, entry) if previous is not None else [],
                "scores": selectors.hand_scores(hand),
            }
        )
        previous = entry
    adapter = adapter_for(game.kind)
    engine = adapter.rules
    grid = CardGrid(game.kind, players=len(names), options=options)
    context = {
        "game": game,
        "adapter": adapter,
        "title": adapter.label,
        "names": names,
        "number": number,
        "current": current,
        "revisions": revisions,
        "form": form,
        "grid": grid,
        "entry_data": {"copies": grid.copies, **grid.notation()},
        "can_void": current is not None
        and (engine.number_key is None or _is_latest(game, current)),
        "robots": ROBOTS,
        "trust": hand_page_trust(request, game, history),
    }
    return render(request, "scoring/hand.html", context, status=status)


def _correct(
    request: HtmxHttpRequest,
    game: Game,
    number: int,
    current: Hand | None,
    names: list[str],
    options: Any,
) -> tuple[EntryForm | None, int]:
    """Correct hand ``number`` from the posted form: (None, 303) when saved; else the form to
    show again with its errors and the status (400 a rejected entry, 409 a conflict: the hand
    changed or was voided meanwhile, the form then holds the hand as it stands now)."""
    form_class = _form_class(game)
    form = form_class(request.POST, names=names, options=options)
    if current is None:
        form.add_error(None, _("This hand is voided: it can no longer be corrected."))
        return form, 409
    if not form.is_valid():
        return form, idempotency.page_status(form, REJECTED)
    if form.cleaned_data["revision"] is None:
        form.add_error(None, _("Reload the page: this form does not say which revision it fixes."))
        return form, REJECTED
    # A director correcting a disputed hand resolves the dispute (the form says so).
    resolve = request.POST.get("resolve") == "correct" and current.status == Hand.Status.DISPUTED
    try:
        if resolve:
            services.hand_resolve(
                game=game,
                number=number,
                action="correct",
                revision=form.cleaned_data["revision"],
                entry=form.entry(),
                reason=request.POST.get("reason", ""),
                idempotency_key=form.cleaned_data["idempotency_key"],
                **_who(request, game),
            )
        else:
            services.hand_correct(
                game=game,
                number=number,
                revision=form.cleaned_data["revision"],
                entry=form.entry(),
                reason=request.POST.get("reason", ""),
                idempotency_key=form.cleaned_data["idempotency_key"],
                **_who(request, game),
            )
    except SheetError as exc:
        form.add_rule_error(exc)
        return form, REJECTED
    except NotAllowed as exc:
        form.add_error(None, error_message(exc))
        return form, 403
    except ReasonRequired as exc:
        form.add_error(None, error_message(exc))
        return form, 409
    except (StaleRevision, HandNotFound, IdempotencyKeyReused, GameFinished) as exc:
        if isinstance(exc, StaleRevision):
            fresh = next(
                h for h in selectors.hand_history(game, number) if h.state == Hand.State.CURRENT
            )
            form = form_class(
                _correction_initial(form_class, fresh, names), names=names, options=options
            )
        form.add_error(None, conflict_text(exc))
        return form, 409
    return None, 303


def _correction_initial(
    form_class: type[EntryForm], hand: Hand, names: list[str]
) -> dict[str, Any]:
    """The correction form's values for a hand's current revision, with a fresh key."""
    entry = hand.entry if isinstance(hand.entry, dict) else {}
    initial = form_class.initial_from(entry, names)
    return initial | {"idempotency_key": new_idempotency_key(), "revision": hand.revision}


def _is_latest(game: Game, hand: Hand) -> bool:
    latest = game.hands.filter(state=Hand.State.CURRENT).order_by("-number").first()
    return latest is not None and latest.pk == hand.pk


def conflict_text(exc: ScoringConflict) -> str:
    """The sentence a page shows for a refusal caused by the hand's state (a stale revision, a
    void of a hand that is not the latest, …), in the active language."""
    if isinstance(exc, StaleRevision):
        return _("Someone corrected this hand meanwhile: here it is as it stands now.")
    if isinstance(exc, VoidRefused):
        return _(
            "Only the latest round or hand can be voided, so that the sequence stays whole; "
            "correct this one instead."
        )
    if isinstance(exc, GameFinished):
        return _("The game is finished: no more hands.")
    if isinstance(exc, GameNotOpen):
        return _("This table's round is not open yet: wait until the director publishes it.")
    if isinstance(exc, HandLimitReached):
        return _("Every hand this table plays is entered: correct one if it is wrong.")
    return error_message(exc)


@require_POST
def finish(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """Finish the game: no new hands; corrections stay possible. A tournament table ends with
    its round, never here (403, as to anyone who may not)."""
    game = game_of_table_key(key)
    try:
        services.game_finish(game=game, **_who(request, game))
    except NotAllowed as exc:
        return render(
            request,
            "scoring/message.html",
            {"game": game, "message": error_message(exc), "robots": ROBOTS},
            status=403,
        )
    return redirect("scoring:table", key=key)


@require_GET
def settle_up(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """Tonk: each player's net in stake units and money, and the fewest payments."""
    game = game_of_table_key(key)
    adapter = adapter_for(game.kind)
    if not adapter.has_stakes:
        raise Http404
    context = {
        "game": game,
        "adapter": adapter,
        "title": adapter.label,
        "settle": selectors.settle_up(game),
        "robots": ROBOTS,
    }
    return render(request, "scoring/settle_up.html", context)


@require_GET
def print_sheet(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """The score sheet laid out for paper: each hand's status (provisional, confirmed,
    disputed, with a dispute's reason) as the table page shows it, without its buttons."""
    game = game_of_table_key(key)
    adapter = adapter_for(game.kind)
    names = [name for name, _seat in game.seating]
    hands = selectors.current_hands(game)
    annotate_hands(request, game, hands, Actor())  # no one acts on paper
    context = {
        "game": game,
        "adapter": adapter,
        "title": adapter.label,
        "unit": adapter.unit_label,
        "lower_wins": adapter.rules.lower_wins,
        "names": names,
        "sheet": _sheet(game, hands, names),
        "robots": ROBOTS,
    }
    return render(request, "scoring/print.html", context)


def _filename(game: Game, extension: str) -> str:
    return f"tabletally-{game.kind}-{game.pk}.{extension}"


@require_GET
def scoresheet_json(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """The canonical score sheet (shared/formats/scoresheet.md) as a download."""
    game = game_of_table_key(key)
    response = JsonResponse(
        selectors.scoresheet_export(game), json_dumps_params={"ensure_ascii": False, "indent": 2}
    )
    response["Content-Disposition"] = f'attachment; filename="{_filename(game, "json")}"'
    return response


@require_GET
def scoresheet_csv(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """The score sheet as CSV (one row per hand and player) as a download."""
    game = game_of_table_key(key)
    # The byte-order mark tells spreadsheet programs the file is UTF-8 (accents, Bengali, Tamil).
    response = HttpResponse(
        "\ufeff" + selectors.scoresheet_csv(game), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{_filename(game, "csv")}"'
    return response


@require_GET
def qr_svg(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """The table link as a QR code (SVG), to open the table on another phone."""
    game = game_of_table_key(key)
    link = request.build_absolute_uri(reverse("scoring:table", kwargs={"key": game.table_key}))
    # A standalone SVG document (XML declaration, SVG namespace): svg_inline() leaves the
    # namespace out, and browsers then do not draw the file.
    buffer = io.BytesIO()
    segno.make(link, error="m").save(buffer, kind="svg", scale=6, title=_("Table link"))
    return HttpResponse(buffer.getvalue(), content_type="image/svg+xml")
