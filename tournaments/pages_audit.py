"""The director's audit page of a tournament (issue 12): every change to its rounds and
registrations merged with the hand trails of its tables' games, oldest first, with who, when,
what and why; filterable by round and table (a table's own trail).

For signed-in directors of the tournament's club only (``pages_director.director_required``:
anyone else signed in gets 404). The view parses the filters, calls one selector
(:func:`tournaments.selectors.tournament_audit`) and renders.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from ops import l10n
from scoring.htmx import HtmxHttpRequest
from scoring.models import HandEvent
from tournaments import selectors
from tournaments.models import AuditEntry, Table, Tournament
from tournaments.pages_director import director_required, local_time_text


def _hand_actions() -> dict[str, str]:
    """A hand step's action as people read it."""
    return {
        "enter": pgettext("audit", "Entered"),
        "correct": pgettext("audit", "Corrected"),
        **{value: str(label) for value, label in HandEvent.Action.choices},
    }


#: A director's resolution of a dispute, as people read it.
RESOLUTIONS = {
    "confirm": lambda: pgettext("resolution", "confirmed as entered"),
    "correct": lambda: pgettext("resolution", "corrected"),
    "void": lambda: pgettext("resolution", "voided"),
}


@dataclass(frozen=True)
class AuditRow:
    """A step of the audit as the page shows it."""

    at: str
    at_iso: str
    what: str
    where: str
    who: str
    system: bool
    reason: str
    hand: bool


def _where(line: selectors.AuditLine) -> str:
    parts = []
    if line.round_number is not None:
        parts.append(l10n.digits(_("round %(n)d") % {"n": line.round_number}))
    if line.table_number is not None:
        parts.append(l10n.digits(_("table %(n)d") % {"n": line.table_number}))
    if line.hand is not None:
        parts.append(
            l10n.digits(_("hand %(n)d, revision %(r)d") % {"n": line.hand, "r": line.revision or 0})
        )
    return " · ".join(parts)


def _who(line: selectors.AuditLine) -> str:
    if line.seat and line.user:
        return _("%(seat)s (seat), signed in as %(user)s") % {"seat": line.seat, "user": line.user}
    if line.seat:
        return _("%(seat)s (seat)") % {"seat": line.seat}
    if line.user:
        return line.user
    return _("the system")


def _what(line: selectors.AuditLine, actions: dict[str, str]) -> str:
    """What a step did, with what it kept, dropped or was confirmed despite (issue 24)."""
    text = _step(line, actions)
    details = line.details if line.source != "hand" else {}
    if details.get("kept") is True:
        text = _("%(what)s (kept when the round was seated again)") % {"what": text}
    if details.get("at_seating"):
        text = _("%(what)s (the new seating left its player out)") % {"what": text}
    if details.get("elsewhere"):
        where = [
            l10n.sentence(
                _("%(name)s: table %(table)s of %(tournament)s, round %(round)s"),
                {k: e.get(k, "") for k in ("name", "table", "tournament", "round")},
            )
            for e in details["elsewhere"]
        ]
        text = _("%(what)s; confirmed while seated elsewhere: %(where)s") % {
            "what": text,
            "where": "; ".join(where),
        }
    return text


def _step(line: selectors.AuditLine, actions: dict[str, str]) -> str:
    details = line.details
    if line.source == "hand":
        text = actions.get(line.action, line.action)
        resolution = RESOLUTIONS.get(str(details.get("resolution", "")))
        if line.action == "resolve" and resolution:
            return _("%(action)s: %(resolution)s") % {"action": text, "resolution": resolution()}
        return text
    # Whole sentences with placeholders, not pieces joined: a language may order them
    # otherwise.
    action = str(AuditEntry.Action(line.action).label)
    if details.get("substitute"):
        return _("%(action)s: %(substitute)s for %(player)s") % {
            "action": action,
            "substitute": details["substitute"],
            "player": details.get("player", ""),
        }
    if details.get("player") and details.get("late"):
        return _("%(action)s: %(player)s (late entry)") % {
            "action": action,
            "player": details["player"],
        }
    if details.get("player") or details.get("name"):
        return _("%(action)s: %(name)s") % {
            "action": action,
            "name": details.get("player") or details["name"],
        }
    return action


def _number(value: str) -> int | None:
    return int(value) if value.isdigit() else None


@director_required("GET")
def audit(request: HtmxHttpRequest, tournament: Tournament) -> HttpResponse:
    """The tournament's audit, oldest first; ``?round=N`` one round's, ``&table=M`` one
    table's."""
    round_number = _number(request.GET.get("round", ""))
    table_number = _number(request.GET.get("table", "")) if round_number is not None else None
    lines = selectors.tournament_audit(
        tournament, round_number=round_number, table_number=table_number
    )
    actions = _hand_actions()
    rows = [
        AuditRow(
            at=local_time_text(line.at, tournament),
            at_iso=line.at.isoformat(),
            what=_what(line, actions),
            where=_where(line),
            who=_who(line),
            system=line.system,
            reason=line.reason,
            hand=line.source == "hand",
        )
        for line in lines
    ]
    tables = list(
        Table.objects.filter(round__tournament=tournament)
        .order_by("round__number", "number")
        .values_list("round__number", "number")
    )
    context = {
        "tournament": tournament,
        "rows": rows,
        "round_number": round_number,
        "table_number": table_number,
        "rounds": sorted({number for number, _table in tables}),
        "tables": [t for number, t in tables if number == round_number],
    }
    return render(request, "tournaments/audit.html", context)
