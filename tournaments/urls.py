"""API routes of the tournaments app, under ``/api/v1/``."""

from django.urls import path

from tournaments import api, api_rounds

app_name = "tournaments-api"

urlpatterns = [
    path("tournaments/", api.TournamentListApi.as_view(), name="tournaments"),
    path("tournaments/<int:tournament_id>/", api.TournamentDetailApi.as_view(), name="tournament"),
    path(
        "tournaments/<int:tournament_id>/registrations/",
        api.RegistrationListApi.as_view(),
        name="registrations",
    ),
    path(
        "tournaments/<int:tournament_id>/registrations/<int:registration_id>/withdraw/",
        api.WithdrawalApi.as_view(),
        name="withdraw",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/", api_rounds.RoundListApi.as_view(), name="rounds"
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/<int:number>/",
        api_rounds.RoundDetailApi.as_view(),
        name="round",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/<int:number>/publish/",
        api_rounds.RoundPublishApi.as_view(),
        name="round-publish",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/<int:number>/close/",
        api_rounds.RoundCloseApi.as_view(),
        name="round-close",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/<int:number>/regenerate/",
        api_rounds.RoundRegenerateApi.as_view(),
        name="round-regenerate",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/<int:number>/substitutes/",
        api_rounds.SubstituteApi.as_view(),
        name="substitutes",
    ),
    path(
        "tournaments/<int:tournament_id>/standings/",
        api.StandingsApi.as_view(),
        name="standings",
    ),
    path("tournaments/<int:tournament_id>/audit/", api.AuditApi.as_view(), name="audit"),
]
