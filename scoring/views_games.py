"""The home page, and pages for signed-in club members: their games, and starting a game."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_safe

from ops import idempotency
from scoring import games as game_adapters
from scoring import selectors, services
from scoring.errors import IdempotencyKeyReused
from scoring.forms import GameStartForm
from scoring.models import Game
from tonkrules.sheet import SheetError

GAMES_PER_PAGE = 25


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The home page: what the service does, and every registered game with its one-sentence
    description (``GameAdapter.description``), in the registry's order."""
    return render(request, "home.html", {"games": game_adapters.all_adapters()})


def _row_links(user: User, games: list[Game]) -> list[tuple[Game, str, bool]]:
    """Each of ``games`` with where its row leads ``user`` and whether that is a public page:
    its table page for those who may hold its key (:func:`scoring.selectors.games_keyed_for`);
    else, for a tournament table, its round's public page at that table
    (``/tournaments/<id>/rounds/<n>/#table-<t>``); else (another member's casual game)
    nowhere: ``""``."""
    keyed = selectors.games_keyed_for(user, games)
    rows = []
    for game in games:
        link, public = "", False
        if game.pk in keyed:
            link = reverse("scoring:table", kwargs={"key": game.table_key})
        elif (facts := selectors.tournament_table_facts(game)) is not None:
            link = (
                reverse(
                    "tournaments:round",
                    kwargs={"tournament_id": facts["tournament_id"], "number": facts["round"]},
                )
                + f"#table-{facts['table']}"
            )
            public = True
        rows.append((game, link, public))
    return rows


@login_required
@require_GET
def game_list(request: HttpRequest) -> HttpResponse:
    """The games the signed-in user may see (their clubs' and their own), newest first: the
    tournament tables apart from the casual games, each list paged on its own (``?tables=``,
    ``?page=``). A row links to the game's table page only for those who may hold its key (a
    director, a casual game's creator, a player seated at it); another member reaches a
    tournament table's round on the public pages, and another member's casual game not at all
    (issue 12: the table link would let them act as any seat)."""
    user = cast(User, request.user)  # signed in: login_required
    games = selectors.games_visible_to(user).select_related("club").order_by("-created_at", "-id")
    tables, casual = selectors.games_split(games)
    table_page = Paginator(tables, GAMES_PER_PAGE).get_page(request.GET.get("tables"))
    casual_page = Paginator(casual, GAMES_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "tables": table_page,
        "page": casual_page,
        "table_rows": _row_links(user, list(table_page.object_list)),
        "casual_rows": _row_links(user, list(casual_page.object_list)),
    }
    return render(request, "scoring/game_list.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def game_new(request: HttpRequest) -> HttpResponse:
    """Start a game; on success, 303 to its table page, where its creator (signed in) may
    enter hands as themselves and is asked which seat they are (optional for them:
    ``scoring.table_trust``'s ``welcome``). A resubmitted form (the same idempotency key) goes
    to the game the first submission started."""
    user = cast(User, request.user)  # signed in: login_required
    if request.method == "POST":
        form = GameStartForm(request.POST, user=user)
        if form.is_valid():
            try:
                game, _created = services.game_start(
                    **form.start_arguments(), created_by=request.user
                )
            except (SheetError, IdempotencyKeyReused) as exc:
                form.add_start_error(exc)
            else:
                response = HttpResponseRedirect(
                    reverse("scoring:table", kwargs={"key": game.table_key})
                )
                response.status_code = 303
                return response
    else:
        form = GameStartForm(user=user)
    status = idempotency.page_status(form, 200)  # 400 for a refused key
    return render(request, "scoring/game_new.html", {"form": form}, status=status)
