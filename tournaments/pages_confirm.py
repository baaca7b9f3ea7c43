"""The dashboard's confirmation step (issue 24): a write that seating rules would refuse but a
director may confirm (someone seated at another of the club's tables at that time; the
substitutes seating a round again drops) is answered with a page that says why, lists them,
and asks first. Its form sends the same request again, with everything that was typed (hidden,
as typed), the confirmation and the reason (needed to seat someone at two tables at once); a
seat request carries a new idempotency key, as the dashboard's seat form does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from ops import l10n
from scoring.entry import new_idempotency_key
from scoring.htmx import HtmxHttpRequest
from tournaments.errors import TournamentError
from tournaments.forms import error_text
from tournaments.models import Tournament

#: The refusals a director may confirm, and the request field that confirms each (a
#: confirmation sent without its reason is asked again).
CONFIRMS = {
    "seated_elsewhere": "confirm_elsewhere",
    "reason_needed": "confirm_elsewhere",
    "substitutes_dropped": "drop_substitutes",
}

#: The fields of a request not sent again as typed (the page's own, or its confirmation's).
_OWN = frozenset({"csrfmiddlewaretoken", "idempotency_key", "reason", *CONFIRMS.values()})


@dataclass(frozen=True)
class Kept:
    """A field of the request as typed, sent again by the confirmation's form."""

    name: str
    value: str


def confirmation_of(request: HtmxHttpRequest) -> dict[str, Any]:
    """The confirmations a dashboard form sent (none: both false)."""
    return {flag: request.POST.get(flag) == "1" for flag in CONFIRMS.values()}


def ask_first(
    request: HtmxHttpRequest,
    tournament: Tournament,
    exc: TournamentError,
    *,
    action: str,
    number: int | None = None,
    keyed: bool = False,
) -> HttpResponse | None:
    """The confirmation page for refusal ``exc`` of the form posted to ``action``, when a
    director may confirm it (409: nothing was saved; 400: confirmed without the reason it
    needs); None for any other refusal.

    Args:
        number: the round the dashboard goes back to when the director cancels.
        keyed: the request carries an idempotency key (a new one for the confirmation).
    """
    flag = CONFIRMS.get(exc.code)
    context = exc.context()
    if flag is None or (exc.code == "reason_needed" and not context.get("elsewhere")):
        return None
    if flag == "confirm_elsewhere":
        lines = [
            l10n.sentence(
                _("%(name)s: table %(table)s of %(tournament)s, round %(round)s"),
                {k: e[k] for k in ("name", "table", "tournament", "round")},
            )
            for e in context.get("elsewhere", [])  # type: ignore[attr-defined]
        ]
        button = _("Seat them anyway")
    else:
        lines = [
            l10n.sentence(
                _("%(substitute)s for %(name)s (table %(table)s)"),
                {"substitute": s["substitute"], "name": s["player"], "table": s["table"]},
            )
            for s in context.get("substitutes", [])  # type: ignore[attr-defined]
        ]
        button = _("Drop them and seat the round again")
    kept = [
        Kept(name, value)
        for name, values in request.POST.lists()
        if name not in _OWN
        for value in values
    ]
    return render(
        request,
        "tournaments/confirm.html",
        {
            "tournament": tournament,
            "message": error_text(exc),
            "lines": lines,
            "action": action,
            "flag": flag,
            "kept": kept,
            "reason": request.POST.get("reason", ""),
            "reason_needed": flag == "confirm_elsewhere",
            "idempotency_key": new_idempotency_key() if keyed else "",
            "button": button,
            "back": number,
        },
        status=exc.status,
    )
