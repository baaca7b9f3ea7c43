"""The table pages of trust at the table (issue 12): a seat's private link and the seat chooser,
confirming and disputing a hand, a director's resolution, voiding with a reason and restoring,
new private links, and a table's audit page.

Who acts is the holder of the table link with the seat this device chose (the session's
:data:`scoring.table_trust.SEATS_SESSION_KEY`) and the signed-in user, if any; whether they may
is :mod:`scoring.permissions`, asked by the services. A refusal is a 403 page with the sentence
(``NotAllowed``), a missing reason the form again with the error (409), any other conflict a
409 page; nothing changes. Each form carries an idempotency key; the writes here are
idempotent by nature (a second confirmation or dispute by the same seat, a second void or
restore changes nothing) and a resolution by correction replays by its key. Views stay thin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ops import idempotency
from scoring import selectors, services
from scoring.entry import new_idempotency_key
from scoring.errors import HandNotFound, NotAllowed, ReasonRequired, ScoringConflict
from scoring.games import adapter_for
from scoring.htmx import HtmxHttpRequest
from scoring.messages import error_message
from scoring.models import Game, Hand, HandEvent, Seat
from scoring.pages import ROBOTS, conflict_text, game_of_table_key
from scoring.permissions import MAX_REASON_LENGTH, may_see_audit
from scoring.table_trust import (
    actor_of,
    choose_seat,
    chosen_seat_id,
    hand_page_trust,
    who_acted,
)


class ReasonForm(idempotency.KeyedForm):
    """Why: a dispute's, a resolution's, a void's, a restore's or a confirmation's reason
    (required where ``required``)."""

    idempotency_key = idempotency.KeyField()
    #: The revision the page showed: one no longer current is refused (409, nothing changed).
    revision = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=MAX_REASON_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args: Any, required: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"idempotency_key": new_idempotency_key()})
        super().__init__(*args, **kwargs)
        self.fields["reason"].required = required


def _refused(request: HtmxHttpRequest, game: Game, exc: ScoringConflict) -> HttpResponse:
    """A refusal as a page: 403 for who may not, 409 for the game's state; nothing changed."""
    return render(
        request,
        "scoring/message.html",
        {"game": game, "message": conflict_text(exc), "robots": ROBOTS},
        status=403 if isinstance(exc, NotAllowed) else 409,
    )


def _hand_context(game: Game, number: int) -> dict[str, Any]:
    adapter = adapter_for(game.kind)
    hand = game.hands.filter(number=number).order_by("-revision").first()
    if hand is None:
        raise Http404
    return {
        "game": game,
        "adapter": adapter,
        "title": adapter.label,
        "number": number,
        "hand": hand,
        "robots": ROBOTS,
    }


# --- the seat this device is ------------------------------------------------------------------


@require_GET
def seat(request: HtmxHttpRequest, seat_key: str) -> HttpResponse:
    """A seat's private link: this device is that seat at that game from now on (its session
    remembers it), and goes on to the table page."""
    chosen = get_object_or_404(Seat.objects.select_related("game"), seat_key=seat_key)
    try:
        choose_seat(request, chosen.game, chosen, by_link=True)
    except NotAllowed as exc:
        return _refused(request, chosen.game, exc)
    return redirect("scoring:table", key=chosen.game.table_key)


class SeatChoiceForm(idempotency.KeyedForm):
    """Which seat this device is (the table link asks once)."""

    idempotency_key = idempotency.KeyField()
    seat = forms.IntegerField(required=False)

    def __init__(self, *args: Any, game: Game, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game

    def clean_seat(self) -> Seat | None:
        value = self.cleaned_data["seat"]
        if value is None:
            return None
        found = Seat.objects.filter(game_id=self.game.pk, pk=value).first()
        if found is None:
            raise forms.ValidationError(_("Choose one of this table's seats."))
        return found


@require_http_methods(["GET", "POST"])
def seat_choose(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """Which seat this device is: the chooser (GET), or the choice remembered in the session
    and back to the table (POST; an empty choice forgets it)."""
    game = game_of_table_key(key)
    status = 200
    if request.method == "POST":
        form = SeatChoiceForm(request.POST, game=game)
        if form.is_valid():
            try:
                choose_seat(request, game, form.cleaned_data["seat"])
            except NotAllowed as exc:
                return _refused(request, game, exc)
            return redirect("scoring:table", key=key)
        status = idempotency.page_status(form, 422)
    adapter = adapter_for(game.kind)
    seats = list(Seat.objects.filter(game_id=game.pk).order_by("position"))
    context = {
        "game": game,
        "adapter": adapter,
        "title": adapter.label,
        "names": [name for name, _seat in game.seating],
        "trust": {
            "seats": seats,
            "seat": next((s for s in seats if s.pk == chosen_seat_id(request, game)), None),
            "form_key": new_idempotency_key(),
            "offer_choice": True,
            "choosing": True,
        },
        "errors": form.errors if request.method == "POST" else None,
        "robots": ROBOTS,
    }
    return render(request, "scoring/seat_choice.html", context, status=status)


@require_POST
def links_rotate(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """New private links for the table and every seat (a director; a casual game's creator):
    the old ones open nothing any more. Goes on to the table's new link."""
    game = game_of_table_key(key)
    try:
        game = services.game_links_rotate(game=game, by=actor_of(request, game))
    except NotAllowed as exc:
        return _refused(request, game, exc)
    return redirect("scoring:table", key=game.table_key)


# --- confirm, dispute, resolve, void, restore ----------------------------------------------------

#: A trust step of the services, taking the game, the hand's number, who acts, a reason and the
#: device's idempotency key (and, for a resolution, its action).
Step = Callable[..., Hand]


def _step(
    request: HtmxHttpRequest, game: Game, number: int, form: ReasonForm, step: Step, **extra: Any
) -> HttpResponse | bool:
    """Take ``step`` with the valid ``form``'s reason and key, as this device's actor.

    Returns:
        True when it was kept; False when it needs a reason (the form now says so); the
        refusal page when the actor may not or the game's state refuses it.

    Raises:
        Http404: no such hand.
    """
    try:
        step(
            game=game,
            number=number,
            by=actor_of(request, game),
            reason=form.cleaned_data["reason"],
            idempotency_key=form.cleaned_data["idempotency_key"] or None,
            revision=form.cleaned_data.get("revision"),
            **extra,
        )
    except HandNotFound as exc:
        raise Http404 from exc
    except ReasonRequired as exc:
        form.add_error("reason", error_message(exc))
        return False
    except ScoringConflict as exc:
        return _refused(request, game, exc)
    return True


def _reason_page(
    request: HtmxHttpRequest, game: Game, number: int, form: ReasonForm, action: str, status: int
) -> HttpResponse:
    """The small form asking why, for ``action`` on hand ``number``."""
    context = _hand_context(game, number) | {"form": form, "action": action}
    return render(request, "scoring/hand_reason.html", context, status=status)


def _invalid_status(form: ReasonForm) -> int:
    """A refused step form's status: 400 for a key the rule refuses (:mod:`ops.idempotency`),
    else 409 (the reason it needs)."""
    return idempotency.page_status(form, 409)


def _optional_reason_post(
    request: HtmxHttpRequest, key: str, number: int, step: Step, action: str
) -> HttpResponse:
    """A step whose reason is optional but where a complete tournament round needs one: back
    to the table once kept; without the reason it needs, the small form asking for it."""
    game = game_of_table_key(key)
    form = ReasonForm(request.POST, required=False)
    if form.is_valid():
        kept = _step(request, game, number, form, step)
        if kept is True:
            return redirect("scoring:table", key=key)
        if kept is not False:
            return kept
    return _reason_page(request, game, number, form, action, _invalid_status(form))


@require_POST
def hand_confirm(request: HtmxHttpRequest, key: str, number: int) -> HttpResponse:
    """This seat (or a director) confirms a provisional hand, with an optional reason (a
    director confirming a hand of a complete tournament round gives one: without it, the
    small form again asking for it)."""
    return _optional_reason_post(request, key, number, services.hand_confirm, "confirm")


@require_http_methods(["GET", "POST"])
def hand_dispute(request: HtmxHttpRequest, key: str, number: int) -> HttpResponse:
    """Dispute a hand, with a reason (any seat of the table): the small form (GET), or the
    dispute kept (POST); without a reason, the form again with the error."""
    game = game_of_table_key(key)
    if request.method != "POST":
        return _reason_page(request, game, number, ReasonForm(), "dispute", 200)
    form = ReasonForm(request.POST)
    if form.is_valid():
        kept = _step(request, game, number, form, services.hand_dispute)
        if kept is True:
            return redirect("scoring:table", key=key)
        if kept is not False:
            return kept
    return _reason_page(request, game, number, form, "dispute", _invalid_status(form))


@require_POST
def hand_resolve(request: HtmxHttpRequest, key: str, number: int) -> HttpResponse:
    """A director resolves a disputed hand: confirms it as it stands or voids it, with a
    reason (a correction goes through the hand page's correction form). Without a reason,
    the hand page's resolve form again with the error."""
    game = game_of_table_key(key)
    action = request.POST.get("action")
    if action not in ("confirm", "void"):
        raise Http404
    form = ReasonForm(request.POST)
    if form.is_valid():
        kept = _step(request, game, number, form, services.hand_resolve, action=action)
        if kept is True:
            return redirect("scoring:hand-edit", key=key, number=number)
        if kept is not False:
            return kept
    # Only a director reaches the resolve form: others are refused before a missing reason.
    if not hand_page_trust(request, game, selectors.hand_history(game, number))["resolving"]:
        raise PermissionDenied
    return _reason_page(request, game, number, form, "resolve", _invalid_status(form))


@require_POST
def hand_void(request: HtmxHttpRequest, key: str, number: int) -> HttpResponse:
    """Void a hand (Tonk: any; Rook and Bluke: the latest only), with a reason: optional,
    except once a tournament round is complete (a director's, for the record). It stays on
    the sheet struck through, with who voided it and why."""
    return _optional_reason_post(request, key, number, services.hand_void, "void")


@require_POST
def hand_restore(request: HtmxHttpRequest, key: str, number: int) -> HttpResponse:
    """Make a voided hand count again (Tonk: any; Rook and Bluke: while it still follows the
    hands that count), with a reason: optional, except once a tournament round is complete
    (a director's, for the record: without it, the small form again asking for it)."""
    return _optional_reason_post(request, key, number, services.hand_restore, "restore")


# --- the audit --------------------------------------------------------------------------------

#: What each step of the trail was, as the audit page says it.
STEP_LABELS = {
    "enter": gettext_lazy("Entered"),
    "correct": gettext_lazy("Corrected"),
    **{action.value: action.label for action in HandEvent.Action},
}


@require_GET
def audit(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """A table's audit: every step of its hands' trail (entered, corrected, confirmed,
    disputed, resolved, voided, restored) with who, when and why; a club director's, and a
    casual game's creator's. Anyone else: 403."""
    game = game_of_table_key(key)
    if not may_see_audit(actor_of(request, game), game):
        raise PermissionDenied
    adapter = adapter_for(game.kind)
    steps = []
    for step in selectors.game_audit([game.pk]):
        if step.seat is not None:
            who = step.seat
        elif step.user is not None:
            who = step.user
        elif step.via == Hand.Via.IMPORT:
            who = _("score sheet import")
        elif step.via is None:
            who = _("table link or the system")
        else:
            who = who_acted(request, None, None)
        resolution = step.details.get("resolution")
        steps.append(
            {
                "step": step,
                "what": STEP_LABELS.get(step.action, step.action),
                "resolution": STEP_LABELS.get(resolution, resolution) if resolution else "",
                "who": who,
            }
        )
    context = {
        "game": game,
        "adapter": adapter,
        "title": adapter.label,
        "names": [name for name, _seat in game.seating],
        "steps": steps,
        "robots": ROBOTS,
    }
    return render(request, "scoring/audit.html", context)
