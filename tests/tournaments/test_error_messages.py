"""The tournaments API says a refusal in the active language: the sentence is made at the edge
from the refusal's code and parameters (``scoring.messages.error_message``)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from scoring import messages
from tournaments.models import Club

pytestmark = pytest.mark.django_db

CATALOGUE = {
    "%(title)s is played by %(min)s to %(max)s players: tables of %(sizes)s are not all "
    "allowed": "%(title)s se joue de %(min)s à %(max)s : des tables de %(sizes)s, non",
}


def test_a_refusal_is_translated_in_the_api_body(
    monkeypatch: pytest.MonkeyPatch, club: Club, director_api: APIClient
) -> None:
    monkeypatch.setattr(messages, "gettext", lambda message: CATALOGUE.get(message, message))

    response = director_api.post(
        "/api/v1/tournaments/",
        {"club": club.pk, "name": "Bad", "game": "bluke", "rounds": 2, "sizes": [3, 5]},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "bad_sizes",
        "message": "Bluke se joue de 2 à 4 : des tables de [3, 5], non",
        "field": "sizes",
    }


def test_without_a_translation_the_refusal_says_the_english_sentence(
    club: Club, director_api: APIClient
) -> None:
    response = director_api.post(
        "/api/v1/tournaments/",
        {"club": club.pk, "name": "Bad", "game": "bluke", "rounds": 2, "sizes": [3, 5]},
        format="json",
    )

    assert response.json()["error"]["message"] == (
        "Bluke is played by 2 to 4 players: tables of [3, 5] are not all allowed"
    )
