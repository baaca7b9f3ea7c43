"""The project's own pages: home, admin login, health check and the API schema."""

import json

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from ops.background import TICK, beat


def test_home_names_the_three_games(client: Client) -> None:
    response = client.get("/")

    assert response.status_code == 200
    page = response.content.decode()
    for game in ("Tonk", "Toonerville Rook", "Bluke"):
        assert f"<h2>{game}</h2>" in page
    assert 'name="viewport"' in page


def test_home_is_served_in_the_requested_language_code(client: Client) -> None:
    response = client.get("/", headers={"accept-language": "en"})

    assert '<html lang="en"' in response.content.decode()


@pytest.mark.django_db
def test_admin_shows_login_page(client: Client) -> None:
    response = client.get("/admin/", follow=True)

    assert response.status_code == 200
    assert response.redirect_chain[-1][0].startswith("/admin/login/")
    assert 'name="password"' in response.content.decode()


@pytest.mark.django_db
@pytest.mark.usefixtures("celery_eager")
def test_healthz_reports_each_check(client: Client) -> None:
    beat(TICK)

    response = client.get("/healthz")

    # Every check and its failures: tests/config/test_healthz.py.
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["checks"]["database"] == {"status": "ok", "reason": "answers"}


def test_api_schema_is_openapi_document(client: Client) -> None:
    response = client.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = json.loads(response.content)
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Tabletally API"
    assert "paths" in schema


def test_api_docs_page_points_at_schema(client: Client) -> None:
    response = client.get("/api/docs/")

    assert response.status_code == 200
    assert "/api/schema/" in response.content.decode()


def test_api_docs_load_swagger_ui_from_our_own_static_files(client: Client) -> None:
    page = client.get("/api/docs/").content.decode()

    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "cdn." not in page
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
