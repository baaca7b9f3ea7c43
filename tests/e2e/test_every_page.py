"""Every page in every language on a phone (issue 15): the pages of :mod:`tests.e2e.site` (the
three games' table pages with hands entered and the card grid open, a hand's history, Tonk's
settle-up, the print view, starting a game, signing in, My games, the director's dashboard and
table cards, the public standings, a round complete and one in play, a player, the big
screen), opened at 360 × 740 with the phone's language in ``Accept-Language``:

- in English and Bengali, axe-core finds no serious or critical violation on any of them;
- in all five languages, nothing is clipped, overlapping or wider than the screen
  (:func:`tests.e2e.layout.layout_problems`).

One test per language visits every page (one database to build, not one per page) and reports
every page's problems together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from ops.language_list import codes
from tests.e2e.layout import layout_problems
from tests.e2e.site import Site, SitePage, site_build
from tests.e2e.test_table_phone import describe, serious_violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LANGUAGES = codes()
AXE_LANGUAGES = ("en", "bn")


@pytest.fixture
def site() -> Site:
    return site_build()


def visit(phone: Callable[..., Page], live_server: Any, language: str, page: SitePage) -> Page:
    """``page`` opened on a fresh phone set to ``language``, drawn, its ``<html lang>`` that
    language (the page answered in it), a table page's card grid open."""
    screen = phone(language, page.who)
    response = screen.goto(f"{live_server.url}{page.path}")
    assert response is not None and response.ok, (page.name, response and response.status)
    expect(screen.locator(page.ready).first).to_be_visible()
    expect(screen.locator("html")).to_have_attribute("lang", language)
    if page.grid is not None:
        screen.locator(page.grid).click()
        expect(screen.locator("#cardgrid")).to_be_visible()
    return screen


@pytest.mark.parametrize("language", AXE_LANGUAGES)
def test_axe_finds_no_serious_violation_on_any_page(
    live_server: Any, phone: Callable[..., Page], site: Site, language: str
) -> None:
    found = {}
    for page in site.pages:
        screen = visit(phone, live_server, language, page)
        violations = serious_violations(screen)
        # No page is left polling the server while the next one signs in: under SQLite's
        # shared in-memory test database, that write would meet a poll's read and fail
        # ("database table is locked") on a busy machine.
        screen.context.close()
        if violations:
            found[page.name] = describe(violations)

    assert found == {}, "\n".join(f"{name}: {v}" for name, v in found.items())


@pytest.mark.parametrize("language", LANGUAGES)
def test_nothing_is_clipped_or_overlapping_at_360_px_on_any_page(
    live_server: Any, phone: Callable[..., Page], site: Site, language: str
) -> None:
    found = {}
    for page in site.pages:
        screen = visit(phone, live_server, language, page)
        problems = layout_problems(screen)
        screen.context.close()  # as above
        if problems:
            found[page.name] = problems

    assert found == {}, "\n".join(f"{name}: {p}" for name, p in found.items())


def test_the_layout_check_flags_clipped_overlapping_and_too_wide_text(
    live_server: Any, phone: Callable[..., Page], site: Site
) -> None:
    # The check above can fail: a long word in a box that hides its overflow, a heading moved
    # over a link, and a line too wide for the screen are each reported.
    screen = visit(phone, live_server, "en", site.page("standings"))
    assert layout_problems(screen) == []
    screen.evaluate(
        """() => {
            const main = document.querySelector("main");
            const cut = document.createElement("button");
            cut.id = "cut";
            cut.style.cssText = "width: 80px; overflow: hidden; white-space: nowrap";
            cut.textContent = "சமர்ப்பிக்கவும்சமர்ப்பிக்கவும்";
            main.prepend(cut);
            const wide = document.createElement("p");
            wide.id = "wide";
            wide.style.cssText = "width: 500px";
            wide.textContent = "Ipinapakita ang mga puntos";
            main.append(wide);
            const over = document.createElement("h2");
            over.id = "over";
            over.style.cssText = "position: relative; top: -40px";
            over.textContent = "Standings";
            document.querySelector("#standings").before(over);
        }"""
    )

    problems = layout_problems(screen)

    assert any(p.startswith("the page scrolls sideways: ") for p in problems), problems
    assert any(p.startswith("text cut off sideways: button#cut") for p in problems), problems
    assert any(p.startswith("overlap: ") and "h2#over" in p for p in problems), problems
