"""Every page a player or a director sees, in one place, for the checks that run over all of
them in every language (issue 15: axe-core, nothing clipped or overlapping at 360 px).

:func:`site_build` fills the database through the services, as ``make run``'s demo does
(``tournaments.demo``): one game of each kind with hands entered, and a Toonerville Rook
tournament of nine players with rounds 1 and 2 played and complete and round 3 seated and
published with one table reported (standings, round pages, players, table cards). Each
:class:`SitePage` says who opens it: nobody signed in, the club's director, or a seat of a game
(through the seat's private link, which makes the phone that seat and shows the entry form).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.contrib.auth import get_user_model

from scoring.models import Game
from tournaments.demo import demo_club_ensure, demo_games_ensure, demo_tournament_ensure
from tournaments.models import Tournament

#: The director's sign-in, for the pages that need one.
DIRECTOR = ("dora", "a-long-director-secret")

Who = Literal["anonymous", "director"]


@dataclass(frozen=True)
class SitePage:
    """One page to check: ``name`` (for reports and screenshot files), ``path`` (from the site's
    root, e.g. ``/tournaments/1/``), and ``who`` opens it (``"director"``: signed in as
    :data:`DIRECTOR`). ``ready`` is a CSS selector visible once the page is drawn; ``grid``, on
    a table page, the cards field tapped to open the card grid (so that the grid is checked
    too), or None."""

    name: str
    path: str
    who: Who = "anonymous"
    ready: str = "main"
    grid: str | None = None


@dataclass(frozen=True)
class Site:
    """The data built by :func:`site_build` and the pages over it."""

    tournament: Tournament
    games: dict[str, Game]
    pages: tuple[SitePage, ...]

    def page(self, name: str) -> SitePage:
        """The page called ``name``; KeyError if there is none."""
        for page in self.pages:
            if page.name == name:
                return page
        raise KeyError(name)


def site_build() -> Site:
    """Fill the (empty) test database and list its pages.

    Writes through the services only (``tournaments.demo``): the director :data:`DIRECTOR`, the
    demo club, a Tonk, a Toonerville Rook and a Bluke game with two or three hands each, and
    the demo Rook tournament (rounds 1–2 complete, round 3 published, one table reported).
    Returns the :class:`Site`; each table page opens through seat 1's link (the entry form
    shown, its card grid opened), each tournament page with its real ids.
    """
    username, password = DIRECTOR
    director = get_user_model().objects.create_user(username=username, password=password)
    club, _created = demo_club_ensure(director=director)
    games = {game.kind: game for game, _created in demo_games_ensure(club=club, user=director)}
    tournament = demo_tournament_ensure(club=club, director=director)
    t = f"/tournaments/{tournament.pk}"
    player = tournament.registrations.order_by("pk").first()
    assert player is not None
    current = tournament.round_set.order_by("-number").first()
    assert current is not None
    pages = [
        *(
            SitePage(
                f"table-{kind}",
                f"/s/{games[kind].seats.get(position=0).seat_key}/",
                ready="#hand-1",
                grid=field,
            )
            for kind, field in (
                ("tonk", "#id_held_0"),
                ("rook", "#id_melds_0"),
                ("bluke", "#id_turned"),
            )
        ),
        SitePage("hand", f"/t/{games['rook'].table_key}/hands/1/"),
        SitePage("settle-up", f"/t/{games['tonk'].table_key}/settle-up/"),
        SitePage("print", f"/t/{games['bluke'].table_key}/print/"),
        SitePage("sign-in", "/accounts/login/"),
        SitePage("game-new", "/games/new/", "director"),
        SitePage("games", "/games/", "director"),
        SitePage("dashboard", f"{t}/manage/", "director"),
        SitePage("table-cards", f"{t}/manage/rounds/{current.number}/cards/", "director"),
        SitePage("standings", f"{t}/", ready="#standings"),
        SitePage("round", f"{t}/rounds/1/"),
        SitePage("round-playing", f"{t}/rounds/{current.number}/"),
        SitePage("player", f"{t}/players/{player.pk}/"),
        SitePage("big-screen", f"{t}/screen/"),
    ]
    return Site(tournament=tournament, games=games, pages=tuple(pages))
