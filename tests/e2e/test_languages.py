"""Each of the players' languages in a real browser at 360 × 740 (issue 15), for bn, ta, fil
and as alike:

- a phone set to the language (``Accept-Language``) gets the table page in it: ``<html
  lang>`` is the code, and the heading, the "Next" panel and the Record button read as the
  catalogue's translation of their English (``gettext`` under ``override(code)``), which
  differs from the English;
- a Toonerville Rook round with an illegal meld (R5 R6 R7: a run needs at least 4 cards,
  rules/rook.md) is refused, and the error shown is the one the engine raises for the same
  entry, rendered in that language (``scoring.entry.error_text``: the headline, the player,
  the cards, ``scoring.messages.error_message``), naming Ana and the cards;
- the language switcher (``#language-form`` in every page's header: a ``#language-select``
  and a submit button) turns an English page into that language and keeps what was typed in
  the entry form (the radio button chosen too), nothing recorded;
- the public standings, a round's page and the director's table cards are in the language.

Each page is saved as a screenshot, ``test-artifacts/screenshots/lang-<code>-<page>.png``
(Bengali and Tamil glyphs drawn when a font for them is installed, boxes otherwise: the
assertions read the text, not the pixels).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.utils.translation import gettext, override
from playwright.sync_api import Page, expect

from ops.language_list import translated_codes
from scoring import services
from scoring.entry import error_text
from scoring.messages import error_message
from scoring.models import Hand
from tests.e2e.site import Site, site_build
from tests.e2e.test_table_pages import screenshot, start
from tonkrules.sheet import SheetError

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LANGUAGES = translated_codes()

#: The round the phone enters: Ana goes out in round 1 (two sets) with a three-card run among
#: her melds; rules/rook.md: a run needs at least four cards.
ILLEGAL = {
    "round": 1,
    "dealer": "Ana",
    "out": "Ana",
    "melds": {"Ana": [["R5", "R6", "R7"], ["Y9", "G9", "B9"]]},
    "held": {"Ben": "R3", "Cyd": "G4"},
}


#: Words a language may keep from the English (Filipino's glossary keeps "Standings" and
#: "Round" as loanwords; a game's name may stay as it is): compared, but not required to differ.
LOANWORDS = ("Standings", "Round %(n)s", "Toonerville Rook")


def translated(code: str, msgid: str, **params: object) -> str:
    """The catalogue's ``code`` translation of ``msgid`` (its ``%(name)s`` filled from
    ``params``); fails when the catalogue leaves it as the English, unless it is one of the
    :data:`LOANWORDS`."""
    with override(code):
        text = gettext(msgid)
    assert text != msgid or msgid in LOANWORDS, f"{code}: {msgid!r} is not translated"
    return text % params if params else text


def latin_digits(text: str) -> str:
    """``text`` with every decimal digit (Bengali ১, Tamil ௧, ...) written 0-9: the checks
    below compare words, whichever digits the language's numbers are shown in."""
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text)


def text_of(locator: Any) -> str:
    """The text of the element ``locator`` finds, once it is shown, digits made Latin."""
    expect(locator).to_be_visible()
    return latin_digits(locator.inner_text())


def table_url(live_server: Any, game: Any) -> str:
    """Seat 1's private link: the table page with the entry form."""
    return f"{live_server.url}/s/{game.seats.get(position=0).seat_key}/"


def enter_illegal_round(screen: Page) -> None:
    """Type :data:`ILLEGAL` into the Rook entry form, not sending it."""
    screen.get_by_label("Ana", exact=True).check()
    screen.locator("#id_melds_0").fill("R5 R6 R7\nY9 G9 B9")
    screen.locator("#id_held_1").fill("R3")
    screen.locator("#id_held_2").fill("G4")


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_table_page_and_its_rule_error_are_in_the_phones_language(
    live_server: Any, phone: Callable[..., Page], screenshot_dir: Path, code: str
) -> None:
    game = start("rook", ["Ana", "Ben", "Cyd"])
    with pytest.raises(SheetError) as refused:
        services.hand_record(game=game, entry=ILLEGAL)
    with override(code):
        expected_error = error_text(refused.value.error, kind="rook")
        sentence = error_message(refused.value.error)
    with override("en"):
        english_sentence = error_message(refused.value.error)
    screen = phone(code)

    screen.goto(table_url(live_server, game))

    expect(screen.locator("html")).to_have_attribute("lang", code)
    title = translated(code, "Toonerville Rook")
    expect(screen.locator("h1")).to_have_text(f"{title} · Ana, Ben, Cyd")
    expect(screen.locator("#next-h")).to_have_text(translated(code, "Next"))
    expect(screen.locator("#share-h")).to_have_text(translated(code, "Share and export"))
    expect(screen.locator("#submit-hand")).to_have_text(translated(code, "Record the round"))
    screenshot(screen, screenshot_dir / f"lang-{code}-table.png")

    enter_illegal_round(screen)
    screen.locator("#submit-hand").click()

    error = screen.locator("#id_melds_0_error")
    expect(error).to_have_text(expected_error)
    assert expected_error.startswith(f"{translated(code, 'Not a legal meld')} — Ana — R5 R6 R7: ")
    assert expected_error.endswith(sentence)
    expect(screen.locator("#id_melds_0")).to_have_value("R5 R6 R7\nY9 G9 B9")
    assert Hand.objects.filter(game=game).count() == 0
    error.scroll_into_view_if_needed()
    screen.screenshot(path=screenshot_dir / f"lang-{code}-error.png")
    assert sentence != english_sentence, f"{code}: the rule's sentence is not translated"


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_switcher_turns_the_page_into_the_language_keeping_what_was_typed(
    live_server: Any, phone: Callable[..., Page], screenshot_dir: Path, code: str
) -> None:
    game = start("rook", ["Ana", "Ben", "Cyd"])
    screen = phone("en")
    screen.goto(table_url(live_server, game))
    expect(screen.locator("html")).to_have_attribute("lang", "en")
    enter_illegal_round(screen)
    expect(screen.locator("#language-form #language-select")).to_be_visible()

    screen.locator("#language-select").select_option(code)
    screen.locator("#language-form [type=submit]").click()

    expect(screen.locator("html")).to_have_attribute("lang", code)
    expect(screen.locator("#submit-hand")).to_have_text(translated(code, "Record the round"))
    expect(screen.locator("#id_melds_0")).to_have_value("R5 R6 R7\nY9 G9 B9")
    expect(screen.locator("#id_held_1")).to_have_value("R3")
    expect(screen.locator("#id_held_2")).to_have_value("G4")
    expect(screen.get_by_label("Ana", exact=True)).to_be_checked()
    assert Hand.objects.filter(game=game).count() == 0
    screenshot(screen, screenshot_dir / f"lang-{code}-switched.png")


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_standings_a_round_and_the_table_cards_are_in_the_phones_language(
    live_server: Any, phone: Callable[..., Page], screenshot_dir: Path, code: str
) -> None:
    site: Site = site_build()
    name = site.tournament.name
    third = site.page("table-cards")
    playing = site.tournament.round_set.order_by("-number").values_list("number", flat=True)[0]

    standings = phone(code)
    standings.goto(f"{live_server.url}{site.page('standings').path}")
    expect(standings.locator("html")).to_have_attribute("lang", code)
    expect(standings.locator("main h2").first).to_have_text(translated(code, "Standings"))
    expect(standings.locator("#standings thead th").nth(0)).to_have_text(translated(code, "Place"))
    expect(standings.locator("#standings thead th").nth(1)).to_have_text(translated(code, "Player"))
    screenshot(standings, screenshot_dir / f"lang-{code}-standings.png")

    round_page = phone(code)
    round_page.goto(f"{live_server.url}{site.page('round').path}")
    expect(round_page.locator("html")).to_have_attribute("lang", code)
    round_1 = translated(code, "Round %(n)s", n=1)
    assert text_of(round_page.locator("h1")) == f"{name} · {round_1}"
    table_1 = translated(code, "Table %(n)s", n=1)
    assert text_of(round_page.locator("#table-1")).startswith(f"{table_1} ·")
    expect(round_page.locator("main thead th").first).to_have_text(translated(code, "Seat"))
    screenshot(round_page, screenshot_dir / f"lang-{code}-round.png")

    cards = phone(code, third.who)
    cards.goto(f"{live_server.url}{third.path}")
    expect(cards.locator("html")).to_have_attribute("lang", code)
    round_now = translated(code, "Round %(n)s", n=playing)
    assert text_of(cards.locator("h1")) == f"{name} · {round_now}"
    assert text_of(cards.locator("#card-1")) == table_1
    screenshot(cards, screenshot_dir / f"lang-{code}-cards.png")


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_contract_refused_in_a_browser_names_the_contract_in_the_phones_language(
    live_server: Any, phone: Callable[..., Page], screenshot_dir: Path, code: str
) -> None:
    """Round 1 needs two sets; Ana lays down a run and a set. The refusal names the contract
    in the language's words (what the "Next" panel says), and in the languages of another
    script than Latin, no Latin word is left but Ana's name and the cards."""
    from scoring.games.rook import contract_text
    from tonkrules.rook import CONTRACTS

    game = start("rook", ["Ana", "Ben", "Cyd"])
    screen = phone(code)
    screen.goto(table_url(live_server, game))
    screen.get_by_label("Ana", exact=True).check()
    screen.locator("#id_melds_0").fill("R5 R6 R7 R8\nY9 G9 B9")
    screen.locator("#id_held_1").fill("R3")
    screen.locator("#id_held_2").fill("G4")

    screen.locator("#submit-hand").click()

    error = screen.locator("#id_melds_0_error")
    expect(error).to_be_visible()
    text = error.inner_text()
    with override(code):
        contract = contract_text(CONTRACTS[1])
    assert contract in text and "Ana" in text
    if code != "fil":  # Filipino is written in Latin letters
        rest = text.replace("Ana", " ")
        for card in ("R5", "R6", "R7", "R8", "Y9", "G9", "B9"):
            rest = rest.replace(card, " ")
        assert re.findall(r"[A-Za-z]{2,}", rest) == [], text
    assert Hand.objects.filter(game=game).count() == 0
    error.scroll_into_view_if_needed()
    screen.screenshot(path=screenshot_dir / f"lang-{code}-contract.png")
