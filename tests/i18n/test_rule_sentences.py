"""A refusal's sentence is wholly in the reader's language, its parameters too (issue 15: "the
rules engine's error messages (rendered from code and parameters)").

The engine passes some values that are words, not numbers or cards: a Rook round's contract
(``Contract``), Bluke's trump (a ``Suit``), Tonk's totals at the deal (any one of them:
``Alternatives``), the tables a round waits for (``Listing``). The edge words each in the
active language (``scoring.messages.translated_params``); English stays the engine's own.

The sweep renders the refusal of every error case of the acceptance cases (``tests/golden``)
in the three languages written in another script than Latin, and fails on any Latin word left
that is not a name, a card, a key, a typed value or a code-like token of the format.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django import forms
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext, ngettext, override
from rest_framework.test import APIClient

from ops import l10n
from ops.l10n_fields import LocalNumbersForm
from ops.language_list import non_latin_codes, translated_codes
from scoring import services
from scoring.games.rook import contract_text
from scoring.messages import SUIT_NAMES, error_message, suit_words, warning_message
from scoring.serializers import WarningOut
from tests.factories import sit
from tests.scoring.test_pages_table import parse, post_hand, url
from tests.tonkrules.golden import case_paths, load_case
from tonkrules.cards import Suit
from tonkrules.errors import ContractError, DomainError, TotalError, TrumpError
from tonkrules.messages import Alternatives, Listing
from tonkrules.rook import CONTRACTS
from tonkrules.sheet import score_sheet
from tournaments.errors import TournamentConflict

LANGUAGES = translated_codes()
#: The languages whose own script is not Latin: a Latin word in their sentence is English left.
OTHER_SCRIPTS = non_latin_codes()
#: The values a sentence shows as they are, by parameter: names, cards, JSON keys, what was
#: typed, and the format's code-like values (a hand's ``end``, a choice's ``allowed`` codes).
AS_THEY_ARE = (
    "player",
    "other",
    "cards",
    "key",
    "value",
    "text",
    "token",
    "near",
    "char",
    "path",
    "role",
    "end",
    "allowed",
)
#: Words of the format that every catalogue keeps: JSON's names, the currency code of the
#: example, a card the Rook deck prints; and the words Assamese takes from English for JSON's
#: parts (locale/as/GLOSSARY.md).
KEPT = {"JSON", "UTF", "USD", "ROOK", "key", "list", "object"}
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


@pytest.fixture(autouse=True)
def _language_of_the_tests() -> Iterator[None]:
    yield
    translation.deactivate()


def refusal(sheet: dict[str, Any]) -> DomainError:
    try:
        score_sheet(sheet)
    except DomainError as error:
        return error
    raise AssertionError("the sheet was scored")


ERROR_CASES = [p for p in case_paths() if "error" in load_case(p)["expect"]]


def english_left(error: DomainError, text: str) -> list[str]:
    """The Latin words of ``text`` (a refusal in another script) that none of its as-shown
    values, quoted tokens, the format's snake_case codes or :data:`KEPT` words accounts for."""
    for name, value in error.context().items():
        if name in AS_THEY_ARE and isinstance(value, str) and value:
            for item in (value, *value.split(", ")):  # a list of codes: "exact, at_least"
                text = re.sub(rf"(?<!\w){re.escape(item)}(?!\w)", " ", text)
    text = re.sub(r"\b[a-z]+(?:_[a-z]+)+\b", " ", text)  # the format's codes: tonk_out, ...
    text = re.sub(r"'[^']*'|\"[^\"]*\"", " ", text)  # keys and typed values, quoted
    return [w for w in LATIN_WORD.findall(text) if w not in KEPT]


def test_the_sweep_covers_the_refusals_that_name_words() -> None:
    keys = {refusal(load_case(p)["sheet"]).key for p in ERROR_CASES}
    assert {"turned_disagrees", "bad_choice", "unknown_key"} <= keys
    assert any(k.startswith("contract") for k in keys)
    assert len(ERROR_CASES) > 100


@pytest.mark.parametrize("language", OTHER_SCRIPTS)
def test_every_refusal_of_the_cases_is_in_the_language_but_names_cards_and_keys(
    language: str,
) -> None:
    left = {}
    for path in ERROR_CASES:
        error = refusal(load_case(path)["sheet"])
        with override(language):
            text = error_message(error)
        if words := english_left(error, text):
            left[path.name] = (words, text)
    assert left == {}


def rook_contract_refusal(round_number: int) -> ContractError:
    contract = CONTRACTS[round_number]
    return ContractError(
        "contract",
        player="Ana",
        cards=["R5", "G5", "Y5"],
        params={"round": round_number, "runs": 0, "sets": 1, "either": 0, "contract": contract},
    )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("round_number", [2, 3, 5])
def test_a_rook_refusal_names_the_contract_in_the_language(
    language: str, round_number: int
) -> None:
    error = rook_contract_refusal(round_number)
    with override(language):
        text = error_message(error)
        words = contract_text(CONTRACTS[round_number])
    assert words in text
    assert str(CONTRACTS[round_number]) not in text  # "1 run and 1 set", "2 runs", ...
    assert "Ana" in text
    if language in ("bn", "as"):
        assert str(round_number) not in text  # ৩, not 3
    with override("en"):
        assert error_message(error) == error.message
    assert error.message.startswith(f"round {round_number} needs {CONTRACTS[round_number]};")


@pytest.mark.django_db
def test_a_rook_round_refused_on_the_table_page_names_the_contract_in_bengali(
    client: Client,
) -> None:
    game, _ = services.game_start(kind="rook", players=["Ana", "Ben", "Cy"])
    sit(client, game)
    for number, melds in ((1, "R7 Y7 G7\nB11 B11 R11"), (2, "R5 R6 R7 R8\nY9 G9 B9")):
        data = dict(round=number, dealer=0, out=0, melds_0=melds, held_1="R3", held_2="G12")
        assert post_hand(client, game, data).status_code == 302
    # round 3 needs two runs: Ana lays down two sets
    data = dict(round=3, dealer=0, out=0, melds_0="R5 G5 Y5\nR9 G9 B9", held_1="R3", held_2="G4")

    refused = post_hand(client, game, data, HTTP_ACCEPT_LANGUAGE="bn")

    assert refused.status_code == 422
    with override("bn"):
        words = contract_text(CONTRACTS[3])
    text = parse(refused).text()
    assert words in text and "২টি রান" in words
    assert "2 runs" not in text
    assert game.hands.count() == 2


@pytest.mark.parametrize("language", LANGUAGES)
def test_bluke_names_the_trump_the_turned_card_makes_by_its_suit_in_the_language(
    language: str,
) -> None:
    error = TrumpError("turned_disagrees", cards=["9D"], params={"trump": Suit.DIAMONDS})
    with override(language):
        text = error_message(error)
        name = str(SUIT_NAMES[Suit.DIAMONDS])
        assert suit_words(Suit.DIAMONDS) == f"♦ {name}"
    assert f"♦ {name}" in text and "9D" in text
    assert error.message == "9D was turned up, so trump is D"


@pytest.mark.parametrize(
    ("language", "either"),
    [("en", "49 or 50"), ("bn", "৪৯ বা ৫০"), ("ta", "49 அல்லது 50"), ("fil", "49 o 50")],
)
def test_tonks_totals_at_the_deal_are_listed_as_the_language_lists_alternatives(
    language: str, either: str
) -> None:
    error = TotalError(
        "deal_tonk_total", player="Ana", params={"total": 20, "totals": Alternatives((49, 50))}
    )
    with override(language):
        assert either in error_message(error)
    assert error.message == "Ana claims a tonk at the deal on 20; it needs 49 or 50"


def test_three_totals_and_one_total_are_listed_too() -> None:
    three = Alternatives((41, 49, 50))
    assert str(three) == "41 or 49 or 50"
    error = TotalError("deal_tie_total", params={"totals": three})
    with override("ta"):
        assert "41, 49 அல்லது 50" in error_message(error)
    with override("bn"):
        one = error_message(TotalError("deal_tie_total", params={"totals": Alternatives((50,))}))
    assert "৫০" in one and "বা" not in one


@pytest.mark.parametrize("language", ["bn", "as"])
def test_the_tables_a_round_waits_for_are_listed_in_the_languages_digits(language: str) -> None:
    error = TournamentConflict(
        "unconfirmed", params={"numbers": Listing((2, 5)), "count": 2}, round=3, tables=[2, 5]
    )
    with override(language):
        text = error_message(error)
        listed = l10n.listing([l10n.digits("2"), l10n.digits("5")])
    assert listed in text and "2" not in text and "5" not in text
    assert "tables 2, 5 have hands" in error.message


# --- warnings ---------------------------------------------------------------------------------

SPREAD_WARNING = {
    "code": "concealed_spread",
    "player": "Ben",
    "cards": ["7C", "8C", "9C"],
    "message": "Ben still holds a spread: 7C 8C 9C",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_warning_is_said_in_the_language_naming_the_player_and_the_cards(
    language: str,
) -> None:
    with override(language):
        text = warning_message(SPREAD_WARNING)
        data = WarningOut(SPREAD_WARNING).data
    assert text != SPREAD_WARNING["message"]
    assert "Ben" in text and "7C 8C 9C" in text
    assert data["message"] == text
    assert data["cards"] == ["7C", "8C", "9C"]
    with override("en"):
        assert warning_message(SPREAD_WARNING) == SPREAD_WARNING["message"]


def test_a_warning_of_an_unknown_code_keeps_its_stored_sentence() -> None:
    other = {**SPREAD_WARNING, "code": "something_else", "message": "as stored"}
    with override("bn"):
        assert warning_message(other) == "as stored"


@pytest.mark.django_db
def test_the_table_page_shows_a_concealed_spread_in_the_players_language(client: Client) -> None:
    game, _ = services.game_start(
        kind="tonk", players=["Ana", "Ben", "Cy"], options={"must_lay_down_spreads": True}
    )
    sit(client, game)
    knock = dict(dealer=2, end="knock", by=0, held_0="AS AH AD", held_1="7C 8C 9C", held_2="KD")
    assert post_hand(client, game, knock).status_code == 302

    page = parse(client.get(url("table", game), HTTP_ACCEPT_LANGUAGE="ta")).text()

    with override("ta"):
        said = warning_message(SPREAD_WARNING)
    assert said in page
    assert "still holds a spread" not in page


def test_every_suit_has_a_name_and_the_card_grid_uses_them() -> None:
    assert list(SUIT_NAMES) == list(Suit)
    from scoring.games.bluke import TRUMPS

    with override("bn"):
        assert [str(label) for _code, label in TRUMPS[:4]] == [suit_words(s) for s in Suit]


def test_the_table_source_names_no_suit_twice() -> None:
    """One place for the suits' names: scoring/messages.py."""
    root = Path(__file__).resolve().parents[2]
    spelled = [
        p.relative_to(root).as_posix()
        for p in (root / "scoring").rglob("*.py")
        if '_("Diamonds")' in p.read_text(encoding="utf-8")
    ]
    assert spelled == ["scoring/messages.py"]


# --- Django's own refusals --------------------------------------------------------------------


@pytest.mark.django_db
def test_a_fields_limit_is_said_in_the_languages_digits(client: Client) -> None:
    game, _ = services.game_start(kind="rook", players=["Ana", "Ben", "Cy"])
    sit(client, game)
    data = dict(round=12, dealer=0, out=0, melds_0="R7 Y7 G7\nB11 B11 R11", held_1="R3")

    refused = post_hand(client, game, data, HTTP_ACCEPT_LANGUAGE="bn")

    assert refused.status_code == 422
    errors = " ".join(parse(refused).text().split())
    with override("bn"):
        expected = gettext("Ensure this value is less than or equal to %(limit_value)s.") % {
            "limit_value": "১১"
        }
    assert expected in errors
    assert game.hands.count() == 0


def test_a_length_limit_is_said_in_local_digits_with_its_plural_form() -> None:
    class Short(LocalNumbersForm, forms.Form):
        name = forms.CharField(max_length=3)

    with override("bn"):
        form = Short({"name": "Ananya"})
        assert not form.is_valid()
        message = form.errors["name"][0]
        plural = ngettext(
            "Ensure this value has at most %(limit_value)d character (it has %(show_value)d).",
            "Ensure this value has at most %(limit_value)d characters (it has %(show_value)d).",
            3,
        ) % {"limit_value": 3, "show_value": 6}
    assert message == l10n.digits(plural, language="bn")
    assert "৩" in message and "৬" in message and "3" not in message
    with override("en"):
        english = Short({"name": "Ananya"})
        assert not english.is_valid()
        assert english.errors["name"] == ["Ensure this value has at most 3 characters (it has 6)."]


def test_every_form_of_the_project_writes_its_limits_in_local_digits() -> None:
    import scoring.forms
    import scoring.pages_trust  # noqa: F401
    import tournaments.forms  # noqa: F401

    def subclasses(cls: type) -> list[type]:
        return [c for s in cls.__subclasses__() for c in (s, *subclasses(s))]

    ours = [
        c
        for c in subclasses(forms.BaseForm)
        if c.__module__.split(".")[0] in ("scoring", "tournaments", "ops")
    ]
    assert len(ours) >= 8
    assert [c.__qualname__ for c in ours if not issubclass(c, LocalNumbersForm)] == []


# --- DRF's own details ------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_drfs_own_details_are_in_the_callers_language(language: str) -> None:
    """DRF has no catalogue for our languages: its sentences are in the project's
    (``config/django_messages.API_REFUSALS``)."""
    client = APIClient()

    anonymous = client.get("/api/v1/games/", HTTP_ACCEPT_LANGUAGE=language)
    nowhere = client.get("/api/v1/no-such-thing/", HTTP_ACCEPT_LANGUAGE=language)

    with override(language):
        not_given = gettext("Authentication credentials were not provided.")
        not_found = gettext("Not found.")
    assert not_given != "Authentication credentials were not provided."
    assert anonymous.status_code == 401 and anonymous.json() == {"detail": not_given}
    assert nowhere.status_code == 404 and nowhere.json() == {"detail": not_found}
    assert not_found != "Not found."


def test_every_drf_detail_the_project_lists_is_drfs_own_sentence() -> None:
    """The list copies DRF's English exactly, or the copy would translate nothing."""
    from rest_framework import authentication, exceptions, pagination

    from config import django_messages

    source = "".join(
        Path(module.__file__ or "").read_text(encoding="utf-8")
        for module in (exceptions, authentication, pagination)
    )
    for text in django_messages.API_REFUSALS:
        assert isinstance(text, str)
        assert repr(text) in source or f'"{text}"' in source, text
