"""API routes of the scoring app, under ``/api/v1/``."""

from django.urls import path

from scoring import api_games, api_hands, api_scoresheets

app_name = "scoring-api"

urlpatterns = [
    path("games/", api_games.GameListApi.as_view(), name="games"),
    path("games/<int:game_id>/", api_games.GameDetailApi.as_view(), name="game"),
    path("games/<int:game_id>/finish/", api_games.GameFinishApi.as_view(), name="game-finish"),
    path("games/<int:game_id>/settle-up/", api_games.SettleUpApi.as_view(), name="game-settle-up"),
    path("games/<int:game_id>/hands/", api_hands.HandListApi.as_view(), name="hands"),
    path("games/<int:game_id>/hands/<int:number>/", api_hands.HandDetailApi.as_view(), name="hand"),
    path(
        "games/<int:game_id>/hands/<int:number>/confirm/",
        api_hands.HandConfirmApi.as_view(),
        name="hand-confirm",
    ),
    path(
        "games/<int:game_id>/hands/<int:number>/dispute/",
        api_hands.HandDisputeApi.as_view(),
        name="hand-dispute",
    ),
    path(
        "games/<int:game_id>/hands/<int:number>/resolve/",
        api_hands.HandResolveApi.as_view(),
        name="hand-resolve",
    ),
    path(
        "games/<int:game_id>/hands/<int:number>/restore/",
        api_hands.HandRestoreApi.as_view(),
        name="hand-restore",
    ),
    path("games/<int:game_id>/audit/", api_hands.GameAuditApi.as_view(), name="game-audit"),
    path(
        "games/<int:game_id>/scoresheet/",
        api_scoresheets.ScoresheetExportApi.as_view(),
        name="scoresheet",
    ),
    path(
        "games/<int:game_id>/scoresheet.csv",
        api_scoresheets.ScoresheetCsvApi.as_view(),
        name="scoresheet-csv",
    ),
    path("scoresheets/", api_scoresheets.ScoresheetImportApi.as_view(), name="scoresheet-import"),
]
