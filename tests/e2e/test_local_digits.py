"""The page script's numbers in the page language's digits (issue 15, "Local forms"):
``Intl.NumberFormat`` with the numbering system the server names on ``<html data-numbering>``
(Chromium's ICU has no Assamese locale, so the system is asked for explicitly), while the
card buttons keep their notation; the page fits 360 px in Bengali and Assamese."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from ops.language_list import translated_codes
from tests.e2e.test_table_pages import no_horizontal_scroll, seat_url, start, tap

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("language", ["bn", "as"])
def test_the_tricks_check_and_card_counts_use_bengali_digits(
    live_server: Any, page: Page, screenshot_dir: Path, language: str
) -> None:
    game = start("bluke", ["Ana", "Ben", "Cyd"])
    page.set_extra_http_headers({"Accept-Language": language})
    page.goto(seat_url(live_server, game))

    assert page.evaluate("document.documentElement.dataset.numbering") == "beng"
    page.locator("#id_tricks_0").fill("5")
    page.locator("#id_tricks_1").fill("3")  # a number input takes ASCII digits only (Chromium)
    expect(page.locator("#tricks-check")).to_contain_text("৮")
    expect(page.locator("#tricks-check")).to_contain_text("১৩")
    assert not any(c in "0123456789" for c in page.locator("#tricks-check").inner_text())
    assert no_horizontal_scroll(page)
    page.screenshot(path=screenshot_dir / f"bluke-{language}.png", full_page=False)


def test_a_tonk_card_count_in_bengali_keeps_the_card_faces(live_server: Any, page: Page) -> None:
    game = start("tonk", ["Ana", "Ben", "Cyd"], stake="0.25", currency="USD")
    page.set_extra_http_headers({"Accept-Language": "bn"})
    page.goto(seat_url(live_server, game))

    tap(page, "held_0", "KC", "10H")

    count = page.locator("#id_held_0").locator("xpath=ancestor::*[.//*[@data-count]][1]")
    expect(count.locator("[data-count]")).to_contain_text("২")
    assert page.locator("#id_held_0").input_value() == "KC 10H"
    assert page.locator('#cardgrid button[data-card="10H"]').inner_text().startswith("10")


@pytest.mark.parametrize("language", translated_codes())
@pytest.mark.parametrize("kind", ["tonk", "rook", "bluke"])
def test_the_table_page_fits_360_px_in_every_script(
    live_server: Any, page: Page, language: str, kind: str
) -> None:
    game = start(kind, ["Anantharamakrishnan", "Ben", "Cyd"])
    page.set_extra_http_headers({"Accept-Language": language})
    page.goto(seat_url(live_server, game))

    assert page.evaluate("document.documentElement.lang") == language
    page.locator("[data-cards] textarea, [data-cards] input").first.click()  # opens the grid
    expect(page.locator("#cardgrid")).to_be_visible()
    assert no_horizontal_scroll(page)
    # every card face is one line: the wrapping rules never split "10♥"
    lines = page.evaluate(
        """[...document.querySelectorAll('#cardgrid button.cardtap')].map(b => {
             const r = document.createRange(); r.selectNodeContents(b.firstChild);
             return [b.dataset.card, r.getClientRects().length]; })"""
    )
    assert lines and all(n == 1 for _card, n in lines), [c for c, n in lines if n != 1]


def script_words(code: str, msgid: str) -> str:
    """The translation of ``msgid`` in the page script's catalogue of ``code``."""
    from babel.messages.pofile import read_po

    path = Path(__file__).resolve().parents[2] / "locale" / code / "LC_MESSAGES" / "djangojs.po"
    with path.open("rb") as source:
        message = read_po(source, locale=code)[msgid]
    assert message is not None and message.string
    return str(message.string)


@pytest.mark.parametrize(
    ("language", "eight", "thirteen"),
    [("bn", "৮", "১৩"), ("as", "৮", "১৩"), ("ta", "8", "13"), ("fil", "8", "13")],
)
def test_the_script_writes_its_words_in_the_pages_language(
    live_server: Any, page: Page, language: str, eight: str, thirteen: str
) -> None:
    """What the page script writes (the tricks check) is its catalogue's sentence in the
    page's language, filled with the language's digits: not the English."""
    game = start("bluke", ["Ana", "Ben", "Cyd"])
    page.set_extra_http_headers({"Accept-Language": language})
    page.goto(seat_url(live_server, game))

    page.locator("#id_tricks_0").fill("5")
    page.locator("#id_tricks_1").fill("3")

    sentence = script_words(language, "Tricks entered: %s of %s")
    assert sentence != "Tricks entered: %s of %s"
    expected = sentence.replace("%s", eight, 1).replace("%s", thirteen, 1)
    expect(page.locator("#tricks-check")).to_have_text(expected)


def test_a_card_typed_with_bengali_digits_is_the_card_on_the_grid(
    live_server: Any, page: Page
) -> None:
    """``১০H`` typed on a Bengali keyboard is 10♥: the grid marks it as this player's, as it
    marks ``10H`` (the server reads it the same: ``scoring.entry.CardsField``)."""
    game = start("tonk", ["Ana", "Ben", "Cyd"], stake="0.25", currency="USD")
    page.set_extra_http_headers({"Accept-Language": "bn"})
    page.goto(seat_url(live_server, game))

    page.locator("#id_held_0").click()  # opens the grid for this field
    page.locator("#id_held_0").fill("১০H KC")

    expect(page.locator('#cardgrid button[data-card="10H"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator('#cardgrid button[data-card="KC"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator('#cardgrid button[data-card="10D"]')).to_have_attribute(
        "aria-pressed", "false"
    )
