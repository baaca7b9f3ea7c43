"""How a caller reaches a game through the API: a signed-in user (session or token) sees the
games of their clubs and the games they created; a table device holds the game's private table
key (``Authorization: Table <key>``) and a player's phone their seat's private key
(``Authorization: Seat <key>``): each reaches that one game only. A table key reads its game;
a seat key also writes as that seat. What each may change there is :mod:`scoring.permissions`'
(a table key alone: nothing, since every change records who made it)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token
from rest_framework.request import Request

from ops.guessing import KeyGuessGuard
from scoring.models import Game, Hand, Seat
from scoring.permissions import Actor, device_digest
from scoring.selectors import games_visible_to


@dataclass(frozen=True)
class TableAccess:
    """The credentials of a table device (or a seat's phone): the one game its key opens, and
    the seat a seat key stands for."""

    game_id: int
    seat_id: int | None = None
    #: The seat a seat key stands for, as read to authenticate (its position, name and
    #: player): the answer naming who entered a hand needs no second read.
    seat: Seat | None = None


class _TableKeyLookup(authentication.BaseAuthentication):
    """``Authorization: Table <key>``: the game's private table key."""

    keyword = "Table"

    def authenticate(self, request: Request) -> tuple[AnonymousUser, TableAccess] | None:
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(_("Give the table key after 'Table'."))
        game_id = (
            Game.objects.filter(table_key=parts[1].decode(errors="replace"))
            .values_list("pk", flat=True)
            .first()
        )
        if game_id is None:
            raise exceptions.AuthenticationFailed(_("No game has this table key."))
        return AnonymousUser(), TableAccess(game_id)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class _SeatKeyLookup(authentication.BaseAuthentication):
    """``Authorization: Seat <key>``: one seat's private key (its player's phone)."""

    keyword = "Seat"

    def authenticate(self, request: Request) -> tuple[AnonymousUser, TableAccess] | None:
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(_("Give the seat key after 'Seat'."))
        seat = (
            Seat.objects.filter(seat_key=parts[1].decode(errors="replace"))
            .only("pk", "game_id", "position", "name", "player_id", "seat_key")
            .first()
        )
        if seat is None:
            raise exceptions.AuthenticationFailed(_("No seat has this key."))
        return AnonymousUser(), TableAccess(seat.game_id, seat_id=seat.pk, seat=seat)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class TableKeyAuthentication(KeyGuessGuard, _TableKeyLookup):
    """``Authorization: Table <key>``, with refused keys counted against the caller's address
    (``ops.guessing.KeyGuessGuard``: 429 once they are too many)."""


class SeatKeyAuthentication(KeyGuessGuard, _SeatKeyLookup):
    """``Authorization: Seat <key>``, with refused keys counted against the caller's address
    (``ops.guessing.KeyGuessGuard``: 429 once they are too many)."""


def is_table(request: Request) -> bool:
    """Whether the caller is a table device or a seat's phone (a key, no user)."""
    return isinstance(request.auth, TableAccess)


def known_seat(request: Request, hand: Hand) -> Hand:
    """``hand`` with its ``entered_seat`` set from the seat that authenticated the request, when
    that seat entered it (no second read of the seat for the answer)."""
    access = request.auth
    seat = access.seat if isinstance(access, TableAccess) else None
    if seat is not None and hand.entered_seat_id == seat.pk:
        hand.entered_seat = seat
    return hand


def actor_of(request: Request) -> Actor:
    """Who makes a change through the API (:class:`scoring.permissions.Actor`)."""
    auth = request.auth
    if isinstance(auth, TableAccess):
        return Actor(
            seat_id=auth.seat_id,
            table=auth.seat_id is None,
            device=device_digest("seat", auth.seat.seat_key) if auth.seat is not None else "",
        )
    if isinstance(auth, Token):
        return Actor(user=request.user, device=device_digest("token", auth.key))
    session = getattr(request, "session", None)
    key = session.session_key if session is not None else None
    return Actor(user=request.user, device=device_digest("session", key or ""))


def game_for(request: Request, game_id: int, *, load: bool = True) -> Game:
    """The game ``game_id`` if the caller may see and change it.

    With ``load=False`` a table device gets the game by id only, unread (a write service locks
    and reads the row itself); a user's game is read to check that they may reach it.

    Raises:
        NotAuthenticated: no user and no table key.
        Http404: the game does not exist or is not the caller's (the same answer, so that
            other clubs' games cannot be discovered).
    """
    if isinstance(request.auth, TableAccess):
        if request.auth.game_id != game_id:
            raise Http404
        return Game.objects.get(pk=game_id) if load else Game(pk=game_id)
    if not request.user or not request.user.is_authenticated:
        raise exceptions.NotAuthenticated
    game = games_visible_to(request.user).filter(pk=game_id).first()
    if game is None:
        raise Http404
    return game
