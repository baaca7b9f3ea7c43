"""Who may change a game, the one place every entry point asks (pages, the API, the admin): the
rules of issue 12, for a tournament table and for a casual game.

Who acts is an :class:`Actor`: a signed-in user, a seat (its private seat link, or the table
link with the seat chosen on that device), both, or neither (the table link alone). Their
:class:`Role` at one game says what they are there: a club director, the seat they hold, the
game's creator, or the holder of its table link. Every change records who made it (issue 12):
a seat (and its player) or a signed-in user, so the table link alone only reads.

The rules (:func:`check`):

- A club director may do anything to the club's games; once a tournament table's round is
  complete (the game is ``directed`` and finished), only a director may change its hands, and
  each change needs a reason.
- A tournament table (``directed``): its seats, while the round is open; never the table link
  without a seat, never another member. It ends with its round (the tournament finishes it,
  ``by=None``): nobody finishes it from the table, a director included.
- A casual game: its seats and its creator (signed in); confirming and disputing need a seat.
  The table link without a seat chosen reads the game and changes nothing.
- Resolving a dispute is a director's; so is rotating a tournament table's links (a casual
  game's creator may rotate its own).

A service called with ``by=None`` acts for the system (a tournament's own step, a command, an
import) and is not checked here.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from scoring.errors import NotAllowed, ReasonRequired
from scoring.models import Game, Hand, HandEvent, Seat

#: The club role that directs a club's tournaments (``tournaments.Membership.Role.DIRECTOR``,
#: named here by value: scoring may not import tournaments).
DIRECTOR_ROLE = "director"

MAX_REASON_LENGTH = 500


class Act(enum.StrEnum):
    """A change someone may make to a game."""

    ENTER = "enter"
    CORRECT = "correct"
    VOID = "void"
    RESTORE = "restore"
    CONFIRM = "confirm"
    DISPUTE = "dispute"
    RESOLVE = "resolve"
    FINISH = "finish"
    ROTATE = "rotate"


#: The acts that change a hand's score lines or status (refused once a tournament round is
#: complete, except to a director with a reason).
HAND_ACTS = frozenset({Act.ENTER, Act.CORRECT, Act.VOID, Act.RESTORE, Act.CONFIRM, Act.DISPUTE})


@dataclass(frozen=True)
class Actor:
    """Who makes a change.

    Attributes:
        user: the signed-in user, or None.
        seat_id: the seat acting (a seat link, or the table link with a seat chosen), or None.
        table: whether they hold the game's table link (a table device).
        device: an opaque digest of the device acting (its session; the API's seat key or
            token), or "" when unknown: a hand is never confirmed from the device that entered
            it, nor twice from one device, whichever seats it claims.
    """

    user: AbstractBaseUser | AnonymousUser | None = None
    seat_id: int | None = None
    table: bool = False
    device: str = ""

    @property
    def signed_in(self) -> AbstractBaseUser | None:
        """The signed-in user, or None."""
        user = self.user
        return user if isinstance(user, AbstractBaseUser) and user.is_authenticated else None

    @property
    def via(self) -> str:
        """How an entry by this actor came (``Hand.Via``)."""
        if self.seat_id is not None:
            return Hand.Via.SEAT
        if self.signed_in is not None:
            return Hand.Via.USER
        return Hand.Via.TABLE


@dataclass(frozen=True)
class Role:
    """What an actor is at one game."""

    director: bool = False
    seat_id: int | None = None
    creator: bool = False
    table: bool = False

    @property
    def referee(self) -> bool:
        """A director not playing at this table: their word on a hand needs nobody else's
        (a director who plays is confirmed by the others, as every player is)."""
        return self.director and self.seat_id is None


def device_digest(kind: str, secret: str) -> str:
    """An opaque, stable name for a device (``Actor.device``) from what identifies it to the
    server: ``kind`` ``"session"`` (a browser's session key), ``"seat"`` (a seat key) or
    ``"token"`` (an API token); keyed with the project's secret, so the secret itself is never
    stored. "" without a secret."""
    if not secret:
        return ""
    message = f"{kind}:{secret}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:32]


def is_director(user: AbstractBaseUser | AnonymousUser | None, club_id: int | None) -> bool:
    """Whether ``user`` directs the club ``club_id`` (one query; False without either)."""
    if club_id is None or user is None or not user.is_authenticated:
        return False
    return (
        get_user_model()
        .objects.filter(pk=user.pk, memberships__club_id=club_id, memberships__role=DIRECTOR_ROLE)
        .exists()
    )


def role_of(actor: Actor, game: Game) -> Role:
    """What ``actor`` is at ``game``: a seat link's seat must be one of the game's (else no
    seat); a signed-in user whose club player sits at the game holds that seat; the creator of
    a game of no club stands for its director."""
    seat_ids = {seat_id for _name, seat_id in game.seating}
    seat_id = actor.seat_id if actor.seat_id in seat_ids else None
    user = actor.signed_in
    if seat_id is None and user is not None:
        seat_id = (
            Seat.objects.filter(game_id=game.pk, player__user_id=user.pk)
            .values_list("pk", flat=True)
            .first()
        )
    creator = user is not None and user.pk == game.created_by_id
    return Role(
        # A game of no club has no club director: its creator answers for it instead.
        director=is_director(user, game.club_id) or (game.club_id is None and creator),
        seat_id=seat_id,
        creator=creator,
        table=actor.table,
    )


def reason_text(reason: object) -> str:
    """A reason as kept: its text stripped, at most :data:`MAX_REASON_LENGTH` characters.

    Raises:
        ReasonRequired: a reason that is not text or is too long (``reason_too_long``).
    """
    if reason is None:
        return ""
    if not isinstance(reason, str):
        raise ReasonRequired()
    text = reason.strip()
    if len(text) > MAX_REASON_LENGTH:
        raise ReasonRequired("reason_too_long", params={"max": MAX_REASON_LENGTH})
    return text


def closed(game: Game) -> bool:
    """Whether a tournament table's round is complete: its hands are a director's alone."""
    return game.directed and game.state == Game.State.FINISHED


def check(
    act: Act, *, actor: Actor, game: Game, reason: str = "", role: Role | None = None
) -> Role:
    """Whether ``actor`` may make change ``act`` to ``game`` (issue 12: Permissions).

    ``game`` needs ``seating``, ``club_id``, ``created_by_id``, ``directed`` and ``state``.
    ``role``: the actor's role at the game when already known (:func:`role_of`), so that a
    page asking about many acts reads it once.

    Returns:
        The actor's role at the game.

    Raises:
        NotAllowed: they may not (the API answers 403); the key says why
            (``not_allowed.table_link``: the table link without a seat, at a casual game;
            ``not_allowed.ends_with_round``: finishing a tournament table).
        ReasonRequired: a director changing a complete round's hands without a reason.
    """
    if game.directed and act == Act.FINISH:
        raise NotAllowed("not_allowed.ends_with_round")
    role = role if role is not None else role_of(actor, game)
    if act == Act.RESOLVE and role.director and role.seat_id is not None:
        raise NotAllowed("not_allowed.referee")
    if role.director:
        # A new hand is refused by the finished game itself; every other change says why.
        if closed(game) and act in HAND_ACTS - {Act.ENTER} | {Act.RESOLVE} and not reason:
            raise ReasonRequired("reason_required.closed")
        return role
    if act == Act.RESOLVE:
        raise NotAllowed("not_allowed.director")
    if game.directed:
        if act == Act.ROTATE:
            raise NotAllowed("not_allowed.director")
        if role.seat_id is None:
            raise NotAllowed("not_allowed.seat")
        if closed(game):
            raise NotAllowed("not_allowed.round_complete")
        return role
    if act in (Act.CONFIRM, Act.DISPUTE):
        if role.seat_id is None:
            raise NotAllowed("not_allowed.seat")
        return role
    if act == Act.ROTATE:
        if not role.creator:
            raise NotAllowed("not_allowed.director")
        return role
    if role.seat_id is None and not role.creator:
        # Every write records who made it: the table link alone is a read credential.
        raise NotAllowed("not_allowed.table_link" if role.table else "not_allowed")
    return role


def check_confirm(
    role: Role,
    actor: Actor,
    game: Game,
    hand: Hand,
    earlier: Iterable[tuple[int | None, str]],
) -> None:
    """Whether ``actor`` (with ``role``, whom :func:`check` let confirm at ``game``) may
    confirm ``hand`` (issue 12: Confirmation). ``earlier``: (seat id, device) of each
    confirmation of the hand so far.

    A director not playing at the table always may. Nobody else confirms a hand from the
    seat that entered it, from the device that entered it or confirmed it as another seat
    (one phone is one player), or, where a director confirms each hand, at all.

    Raises:
        NotAllowed: ``.own_hand``, ``.same_device`` or ``.director_confirms``.
    """
    if role.referee:
        return
    if hand.entered_seat_id is not None and hand.entered_seat_id == role.seat_id:
        raise NotAllowed("not_allowed.own_hand")
    if actor.device and actor.device == hand.entered_device:
        raise NotAllowed("not_allowed.same_device")
    if game.confirmation == Game.Confirmation.DIRECTOR and not role.director:
        raise NotAllowed("not_allowed.director_confirms")
    if actor.device and any(d == actor.device and s != role.seat_id for s, d in earlier):
        raise NotAllowed("not_allowed.same_device")


def check_seat_change(
    game: Game, device: str, seat_id: int | None, chosen: int | None, *, by_link: bool = False
) -> None:
    """Whether a device may take seat ``chosen`` at ``game`` (None: no seat), by the table
    link's chooser or (``by_link``) by the seat's own private link.

    The table link asks once which seat a device is: it may choose again only until it has
    acted at the game as its seat ``seat_id`` (entered, confirmed or disputed a hand); then one
    phone stays one player. And the chooser does not hand out a seat that has already acted
    from another device: that seat is taken up again by its own link only.

    Raises:
        NotAllowed: ``.seat_taken`` (this device acted as another seat), ``.seat_in_use``
            (the chosen seat acts from another device).
    """
    if (
        device
        and seat_id is not None
        and chosen != seat_id
        and (
            Hand.objects.filter(game_id=game.pk, entered_device=device).exists()
            or HandEvent.objects.filter(game_id=game.pk, device=device).exists()
        )
    ):
        raise NotAllowed("not_allowed.seat_taken")
    if by_link or chosen is None or chosen == seat_id:
        return
    if (
        Hand.objects.filter(game_id=game.pk, entered_seat_id=chosen)
        .exclude(entered_device=device)
        .exists()
        or HandEvent.objects.filter(game_id=game.pk, seat_id=chosen).exclude(device=device).exists()
    ):
        raise NotAllowed("not_allowed.seat_in_use")


def may_see_seat_links(actor: Actor, game: Game) -> bool:
    """Whether ``actor`` is shown every seat's private link of ``game``: whoever may see its
    keys (:func:`may_see_keys`), and at a casual game whoever holds its table link (the
    people at the table, handing each other their links); a tournament table's seat links are
    on its printed cards, for the directors."""
    return may_see_keys(actor, game) or (not game.directed and actor.table)


def may_see_keys(actor: Actor, game: Game) -> bool:
    """Whether ``actor`` may see a game's table and seat keys: a club director; for a casual
    game also its creator. A member never sees another table's keys."""
    user = actor.signed_in
    if user is None:
        return False
    if not game.directed and user.pk == game.created_by_id:
        return True
    return is_director(user, game.club_id)


def may_see_audit(actor: Actor, game: Game, role: Role | None = None) -> bool:
    """Whether ``actor`` may read a game's audit trail (who did what, when, why): a club
    director; for a casual game also its creator and its seats (a seat link, or a signed-in
    user seated at it). A tournament table's trail is the directors' (its seats see the sheet);
    the table link alone never reads it. ``role``: as :func:`check` takes it."""
    role = role if role is not None else role_of(actor, game)
    if role.director:
        return True
    return not game.directed and (role.creator or role.seat_id is not None)
