"""Page routes of the tournaments app: the director's dashboard (signed-in directors of the
club) and the public pages (no sign-in: standings, rounds, players, the big screen)."""

from django.urls import path

from tournaments import pages_audit
from tournaments import pages_director as director
from tournaments import pages_public as public

app_name = "tournaments"

urlpatterns = [
    # The director's dashboard.
    path("clubs/<int:club_id>/tournaments/", director.club_tournaments, name="club"),
    path("clubs/<int:club_id>/tournaments/new/", director.tournament_new, name="new"),
    path("tournaments/<int:tournament_id>/manage/", director.manage, name="manage"),
    path("tournaments/<int:tournament_id>/manage/register/", director.register, name="register"),
    path(
        "tournaments/<int:tournament_id>/manage/withdraw/<int:registration_id>/",
        director.withdraw,
        name="withdraw",
    ),
    path("tournaments/<int:tournament_id>/manage/seat/", director.seat, name="seat"),
    path(
        "tournaments/<int:tournament_id>/manage/rounds/<int:number>/publish/",
        director.publish,
        name="publish",
    ),
    path(
        "tournaments/<int:tournament_id>/manage/rounds/<int:number>/close/",
        director.close,
        name="close",
    ),
    path(
        "tournaments/<int:tournament_id>/manage/rounds/<int:number>/regenerate/",
        director.regenerate,
        name="regenerate",
    ),
    path(
        "tournaments/<int:tournament_id>/manage/rounds/<int:number>/substitute/",
        director.substitute,
        name="substitute",
    ),
    path(
        "tournaments/<int:tournament_id>/manage/rounds/<int:number>/grid/",
        director.round_grid,
        name="grid",
    ),
    path(
        "tournaments/<int:tournament_id>/manage/rounds/<int:number>/cards/",
        director.table_cards,
        name="cards",
    ),
    path("tournaments/<int:tournament_id>/manage/audit/", pages_audit.audit, name="audit"),
    path(
        "tournaments/<int:tournament_id>/manage/rounds/<int:number>/tables/<int:table>/links/",
        director.table_links,
        name="links",
    ),
    # Public pages.
    path("tournaments/<int:tournament_id>/", public.standings_page, name="standings"),
    path(
        "tournaments/<int:tournament_id>/standings/",
        public.standings_fragment,
        name="standings-fragment",
    ),
    path("tournaments/<int:tournament_id>/screen/", public.big_screen, name="screen"),
    path("tournaments/<int:tournament_id>/rounds/<int:number>/", public.round_page, name="round"),
    path(
        "tournaments/<int:tournament_id>/players/<int:registration_id>/",
        public.player_page,
        name="player",
    ),
]
