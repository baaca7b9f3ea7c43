"""What the table pages show of trust at the table (issue 12): the seat this device is, each
hand's status and who entered it, the acts this viewer may take on it (confirm, dispute,
resolve, restore), the voided hands, and the seats' private links.

Reads only: the rules of who may do what are :mod:`scoring.permissions` (asked here once per
page, so that a button is shown exactly where the service would accept it), the writes are
:mod:`scoring.services`, the views :mod:`scoring.pages` and :mod:`scoring.pages_trust`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import segno
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from scoring import selectors
from scoring.entry import new_idempotency_key
from scoring.errors import NotAllowed, ReasonRequired
from scoring.messages import error_message
from scoring.models import Game, Hand, HandEvent, Seat
from scoring.permissions import (
    Act,
    Actor,
    Role,
    check,
    check_confirm,
    check_seat_change,
    closed,
    device_digest,
    is_director,
    may_see_audit,
    may_see_seat_links,
    role_of,
)

#: The session key holding, per game, the seat this device chose (``{game id: seat id}``).
SEATS_SESSION_KEY = "seats"


def chosen_seat_id(request: HttpRequest, game: Game) -> int | None:
    """The seat this device chose at ``game`` (the session's), or None."""
    seats = request.session.get(SEATS_SESSION_KEY, {})
    value = seats.get(str(game.pk)) if isinstance(seats, dict) else None
    return value if isinstance(value, int) else None


def choose_seat(
    request: HttpRequest, game: Game, seat: Seat | None, *, by_link: bool = False
) -> None:
    """Remember in this device's session that it is ``seat`` at ``game`` (None: forget it),
    chosen on the table link's chooser or (``by_link``) by opening the seat's own link.

    Raises:
        NotAllowed: as :func:`scoring.permissions.check_seat_change` says (one phone is one
            player; a seat that acts from another phone is taken up by its own link only).
    """
    current = chosen_seat_id(request, game)
    device = device_digest("session", request.session.session_key or "")
    check_seat_change(game, device, current, seat.pk if seat else None, by_link=by_link)
    seats = dict(request.session.get(SEATS_SESSION_KEY, {}))
    if seat is None:
        seats.pop(str(game.pk), None)
    else:
        seats[str(game.pk)] = seat.pk
    request.session[SEATS_SESSION_KEY] = seats


def actor_of(request: HttpRequest, game: Game) -> Actor:
    """Who acts from a table page: the table link's holder, with this device's seat (if
    chosen) and the signed-in user (if any)."""
    key = request.session.session_key or ""
    return Actor(
        user=request.user,
        seat_id=chosen_seat_id(request, game),
        table=True,
        device=device_digest("session", key),
    )


def allowed(act: Act, actor: Actor, game: Game, role: Role | None = None) -> Role | None:
    """The actor's role if :func:`scoring.permissions.check` lets them make ``act`` (without
    a reason: a director of a complete round still may, the form asks for one); else None."""
    try:
        return check(act, actor=actor, game=game, role=role)
    except ReasonRequired:
        return check(act, actor=actor, game=game, reason="-", role=role)
    except NotAllowed:
        return None


def _change_refused(actor: Actor, game: Game, role: Role) -> str:
    """Why ``actor`` may not correct a hand of ``game`` (:func:`scoring.permissions.check`'s
    sentence, translated), or "" when they may."""
    try:
        check(Act.CORRECT, actor=actor, game=game, reason="-", role=role)
    except NotAllowed as exc:
        return error_message(exc)
    return ""


def who_entered(request: HttpRequest, hand: Hand) -> str:
    """Who entered a revision, as this viewer may see it: the seat's name (with the member's
    username, for signed-in viewers, when a signed-in member held the seat); a member's username
    for signed-in viewers ("a signed-in member" through a table link alone); "table link"."""
    if hand.entered_seat_id is not None and hand.entered_seat is not None:
        if hand.entered_by is not None and request.user.is_authenticated:
            return f"{hand.entered_seat.name} ({hand.entered_by.get_username()})"
        return hand.entered_seat.name
    if hand.entered_by_id is not None and hand.entered_by is not None:
        if request.user.is_authenticated:
            return hand.entered_by.get_username()
        return _("a signed-in member")
    if hand.entered_via == Hand.Via.IMPORT:
        return _("score sheet import")
    return _("table link")


def who_acted(request: HttpRequest, seat: Seat | None, user: Any) -> str:
    """Who took a step of a hand's trail (a seat, a user or the system), as
    :func:`who_entered` says it."""
    if seat is not None:
        return seat.name
    if user is not None:
        return user.get_username() if request.user.is_authenticated else _("a signed-in member")
    return _("table link")


def _may_confirm(
    role: Role, actor: Actor, game: Game, hand: Hand, earlier: list[tuple[int | None, str]]
) -> bool:
    try:
        check_confirm(role, actor, game, hand, earlier)
    except NotAllowed:
        return False
    return True


@dataclass(frozen=True)
class HandTrust:
    """One hand as this viewer sees its trust: its status, who entered it, the dispute's
    reason, and whether they may confirm, dispute or resolve it."""

    status: str
    status_label: str
    who: str
    disputed_because: str
    can_confirm: bool
    can_dispute: bool
    can_resolve: bool


def _hand_trust(
    request: HttpRequest,
    game: Game,
    hand: Hand,
    *,
    actor: Actor,
    confirmer: Role | None,
    disputer: Role | None,
    resolver: Role | None,
    earlier: list[tuple[int | None, str]],
    disputes: dict[int, str],
) -> HandTrust:
    provisional = hand.status == Hand.Status.PROVISIONAL
    # The service's own rule (scoring.permissions.confirm_refusal), and not a second time
    # for a seat that confirmed already.
    can_confirm = (
        provisional
        and confirmer is not None
        and _may_confirm(confirmer, actor, game, hand, earlier)
        and (confirmer.referee or confirmer.seat_id not in {seat for seat, _d in earlier})
    )
    return HandTrust(
        status=hand.status,
        status_label=str(Hand.Status(hand.status).label),
        who=who_entered(request, hand),
        disputed_because=disputes.get(hand.pk, "") if hand.status == Hand.Status.DISPUTED else "",
        can_confirm=can_confirm,
        can_dispute=hand.status != Hand.Status.DISPUTED and disputer is not None,
        can_resolve=hand.status == Hand.Status.DISPUTED and resolver is not None,
    )


def annotate_hands(
    request: HttpRequest, game: Game, hands: list[Hand], actor: Actor, role: Role | None = None
) -> dict[int, HandTrust]:
    """Each hand's :class:`HandTrust` by hand id, also set on the hand as ``trust`` (the
    sheet's rows carry the hand). Three queries whatever the number of hands."""
    role = role if role is not None else role_of(actor, game)  # read once for every act
    confirmer = allowed(Act.CONFIRM, actor, game, role)
    disputer = allowed(Act.DISPUTE, actor, game, role)
    resolver = allowed(Act.RESOLVE, actor, game, role)
    ids = [hand.pk for hand in hands]
    events = HandEvent.objects.filter(
        hand_id__in=ids,
        action__in=(
            HandEvent.Action.CONFIRM,
            HandEvent.Action.DISPUTE,
            HandEvent.Action.RESTORE,
        ),
    ).order_by("created_at", "id")
    confirmed: dict[int, list[tuple[int | None, str]]] = {}
    disputes: dict[int, str] = {}
    for event in events:
        if event.action == HandEvent.Action.CONFIRM:
            confirmed.setdefault(event.hand_id, []).append((event.seat_id, event.device))
        elif event.action == HandEvent.Action.RESTORE:  # confirmed again from here
            confirmed[event.hand_id] = []
        elif event.action == HandEvent.Action.DISPUTE:
            disputes[event.hand_id] = event.reason
    seats = {seat.pk: seat for seat in Seat.objects.filter(game_id=game.pk)}
    users = {hand.entered_by_id for hand in hands if hand.entered_by_id is not None}
    if users:
        by_id = {u.pk: u for u in get_user_model().objects.filter(pk__in=users)}
        for hand in hands:
            if hand.entered_by_id in by_id:
                hand.entered_by = by_id[hand.entered_by_id]
    result: dict[int, HandTrust] = {}
    for hand in hands:
        if hand.entered_seat_id is not None:
            hand.entered_seat = seats.get(hand.entered_seat_id)
        trust = _hand_trust(
            request,
            game,
            hand,
            actor=actor,
            confirmer=confirmer,
            disputer=disputer,
            resolver=resolver,
            earlier=confirmed.get(hand.pk, []),
            disputes=disputes,
        )
        hand.trust = trust  # type: ignore[attr-defined]
        result[hand.pk] = trust
    return result


def seat_link(request: HttpRequest, seat: Seat) -> str:
    """A seat's private link (``/s/<seat key>/``), absolute."""
    return request.build_absolute_uri(reverse("scoring:seat", kwargs={"seat_key": seat.seat_key}))


def seat_qr(link: str, name: str) -> str:
    """A seat link's QR code as inline SVG (as the table link's)."""
    return segno.make(link, error="m").svg_inline(
        scale=3, omitsize=True, title=_("Seat link of %(name)s") % {"name": name}
    )


def table_trust(
    request: HttpRequest, game: Game, hands: list[Hand], *, links: bool = True
) -> dict[str, Any]:
    """What the table page shows of trust: the device's seat (or the chooser), each hand's
    status and acts (set on the hands), the voided hands with who and why, the seats' links
    (to those who may see them; none with ``links=False``: the live region shows none) and
    whether this viewer may make new links or read the audit.
    """
    actor = actor_of(request, game)
    seats = list(Seat.objects.filter(game_id=game.pk).order_by("position"))
    chosen = next((s for s in seats if s.pk == actor.seat_id), None)
    role = role_of(actor, game)  # read once for every act asked about
    annotate_hands(request, game, hands, actor, role)
    restorer = allowed(Act.RESTORE, actor, game, role)
    voided = []
    for hand in selectors.voided_hands(game):
        void = hand.void  # type: ignore[attr-defined]
        voided.append(
            {
                "hand": hand,
                "scores": selectors.hand_scores(hand),
                "who": who_acted(request, void.seat, void.user) if void else "",
                "reason": void.reason if void else "",
                "at": void.created_at if void else hand.voided_at,
                "can_restore": restorer is not None,
            }
        )
    writer = allowed(Act.ENTER, actor, game, role)
    seat_links = []
    if links and may_see_seat_links(actor, game):
        for seat in seats:
            link = seat_link(request, seat)
            seat_links.append({"seat": seat, "link": link, "qr": seat_qr(link, seat.name)})
    return {
        "seat": chosen,
        "seats": seats,
        # Every write records who made it: without a seat, the entry form waits for the
        # device's seat (a signed-in creator or director writes as themselves).
        "must_choose": chosen is None and writer is None,
        "offer_choice": chosen is None,
        # The creator of a new casual game is asked which seat they are (optional for them).
        "welcome": chosen is None
        and writer is not None
        and writer.creator
        and writer.seat_id is None
        and not hands,
        "can_finish": allowed(Act.FINISH, actor, game, role) is not None,
        "voided": voided,
        "seat_links": seat_links,
        "can_rotate": allowed(Act.ROTATE, actor, game, role) is not None,
        "can_audit": may_see_audit(actor, game, role),
        "closed": closed(game),
        "form_key": new_idempotency_key(),
    }


def hand_page_trust(request: HttpRequest, game: Game, history: list[Hand]) -> dict[str, Any]:
    """What a hand's page shows of trust: the current revision's status and acts (confirm,
    dispute, a director's resolve), or the void's who and why and the restore; whether a
    change needs a reason (a complete tournament round) and whether the viewer directs the
    club (their Confirm takes a reason)."""
    actor = actor_of(request, game)
    role = role_of(actor, game)  # read once for every act asked about
    current = next((h for h in history if h.state == Hand.State.CURRENT), None)
    trust = annotate_hands(request, game, [current], actor, role)[current.pk] if current else None
    void = None
    if current is None and history and history[-1].state == Hand.State.VOIDED:
        last = history[-1]
        event = (
            HandEvent.objects.filter(hand=last, action=HandEvent.Action.VOID)
            .select_related("seat", "user")
            .order_by("-created_at", "-id")
            .first()
        )
        void = {
            "who": who_acted(request, event.seat, event.user) if event else "",
            "reason": event.reason if event else "",
            "at": event.created_at if event else last.voided_at,
            "can_restore": allowed(Act.RESTORE, actor, game, role) is not None,
        }
    return {
        "hand": trust,
        "void": void,
        "closed": closed(game),
        # A director's confirmation takes a reason (required once the round is complete).
        "director": is_director(actor.signed_in, game.club_id),
        "resolving": trust is not None and trust.can_resolve,
        # Why this viewer may not correct or void the hand ("" when they may): the page says
        # it in place of the forms.
        "change_refused": _change_refused(actor, game, role),
        "seated": actor.seat_id is not None,
        "form_key": new_idempotency_key(),
    }
