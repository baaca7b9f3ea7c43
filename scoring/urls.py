"""API routes of the scoring app, under ``/api/v1/``."""

from django.urls import path

from scoring import api

app_name = "scoring-api"

urlpatterns = [
    path("games/", api.GameListApi.as_view(), name="games"),
    path("games/<int:game_id>/", api.GameDetailApi.as_view(), name="game"),
    path("games/<int:game_id>/finish/", api.GameFinishApi.as_view(), name="game-finish"),
    path("games/<int:game_id>/settle-up/", api.SettleUpApi.as_view(), name="game-settle-up"),
    path("games/<int:game_id>/hands/", api.HandListApi.as_view(), name="hands"),
    path("games/<int:game_id>/hands/<int:number>/", api.HandDetailApi.as_view(), name="hand"),
    path("games/<int:game_id>/scoresheet/", api.ScoresheetExportApi.as_view(), name="scoresheet"),
    path(
        "games/<int:game_id>/scoresheet.csv",
        api.ScoresheetCsvApi.as_view(),
        name="scoresheet-csv",
    ),
    path("scoresheets/", api.ScoresheetImportApi.as_view(), name="scoresheet-import"),
]
