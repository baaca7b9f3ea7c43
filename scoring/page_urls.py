"""Page routes of the scoring app: starting games, the games list, and each table's page.

A table's pages live under its private table link, ``/t/<table key>/``: whoever holds the link
sees that one game; to change it they choose their seat (or open their seat link), with or
without an account.
"""

from django.urls import path

from scoring import pages, pages_trust, views_games

app_name = "scoring"

urlpatterns = [
    path("games/", views_games.game_list, name="games"),
    path("games/new/", views_games.game_new, name="game-new"),
    path("t/<str:key>/", pages.table, name="table"),
    path("t/<str:key>/sheet/", pages.sheet, name="sheet"),
    path("t/<str:key>/live/", pages.live, name="live"),
    path("t/<str:key>/hands/", pages.hand_new, name="hand-new"),
    path("t/<str:key>/hands/<int:number>/", pages.hand_edit, name="hand-edit"),
    path("t/<str:key>/hands/<int:number>/void/", pages_trust.hand_void, name="hand-void"),
    path("t/<str:key>/finish/", pages.finish, name="finish"),
    path("t/<str:key>/settle-up/", pages.settle_up, name="settle-up"),
    path("t/<str:key>/print/", pages.print_sheet, name="print"),
    path("t/<str:key>/scoresheet.json", pages.scoresheet_json, name="scoresheet-json"),
    path("t/<str:key>/scoresheet.csv", pages.scoresheet_csv, name="scoresheet-csv"),
    path("t/<str:key>/qr.svg", pages.qr_svg, name="qr"),
    # Trust at the table (issue 12): seats, confirmation, disputes, restores, audit.
    path("s/<str:seat_key>/", pages_trust.seat, name="seat"),
    path("t/<str:key>/seat/", pages_trust.seat_choose, name="seat-choose"),
    path("t/<str:key>/links/", pages_trust.links_rotate, name="links-rotate"),
    path("t/<str:key>/audit/", pages_trust.audit, name="audit"),
    path("t/<str:key>/hands/<int:number>/confirm/", pages_trust.hand_confirm, name="hand-confirm"),
    path("t/<str:key>/hands/<int:number>/dispute/", pages_trust.hand_dispute, name="hand-dispute"),
    path("t/<str:key>/hands/<int:number>/resolve/", pages_trust.hand_resolve, name="hand-resolve"),
    path("t/<str:key>/hands/<int:number>/restore/", pages_trust.hand_restore, name="hand-restore"),
]
