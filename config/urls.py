"""URL routes: public pages, sign-in, the table pages, the admin, the API schema and docs, and
the health check."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerView

from config import api, views
from config.forms import SignInForm
from ops import languages
from scoring import views_games

#: A language's code before a page's address: ``/bn/``, ``/fil/tournaments/4/``.
LANGUAGE_PREFIX = "|".join(languages.codes())

handler400 = "config.views.bad_request"  # a body too large: 413 (JSON under /api/)

urlpatterns = [
    path("", views_games.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("i18n/setlang/", views.set_language, name="set_language"),
    path("jsi18n/<str:code>/", languages.PageCatalog.as_view(), name="javascript-catalog"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(
            redirect_authenticated_user=True, authentication_form=SignInForm
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("scoring.page_urls")),
    path("", include("tournaments.page_urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("scoring.urls")),
    path("api/v1/", include("tournaments.urls")),
    re_path(r"^api/v1/", api.not_found, name="api-not-found"),
    path("api/schema/", api.SchemaView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    # Unnamed: nothing links to it (pages link to their own addresses and ?lang=), and it
    # answers only redirects.
    re_path(rf"^(?P<code>{LANGUAGE_PREFIX})/(?P<rest>.*)$", views.language_prefix),
]
