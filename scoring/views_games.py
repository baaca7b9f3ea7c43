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

from scoring import games as game_adapters
from scoring import selectors, services
from scoring.errors import IdempotencyKeyReused
from scoring.forms import GameStartForm
from tonkrules.sheet import SheetError

GAMES_PER_PAGE = 25


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The home page: what the service does, and every registered game with its one-sentence
    description (``GameAdapter.description``), in the registry's order."""
    return render(request, "home.html", {"games": game_adapters.all_adapters()})


@login_required
@require_GET
def game_list(request: HttpRequest) -> HttpResponse:
    """The games the signed-in user may see (their clubs' and their own), newest first: the
    tournament tables apart from the casual games, each list paged on its own (``?tables=``,
    ``?page=``)."""
    games = (
        selectors.games_visible_to(request.user)
        .select_related("club")
        .order_by("-created_at", "-id")
    )
    tables, casual = selectors.games_split(games)
    context = {
        "tables": Paginator(tables, GAMES_PER_PAGE).get_page(request.GET.get("tables")),
        "page": Paginator(casual, GAMES_PER_PAGE).get_page(request.GET.get("page")),
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
    return render(request, "scoring/game_new.html", {"form": form})
