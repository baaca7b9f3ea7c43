"""Switching the language keeps the typed entry (issue 15): on the table page of a phone at
360 × 740, a partly typed Tonk hand survives a switch to Bengali with the switcher (the page
reloads in Bengali with the fields as typed, axe-core finding no serious violation), and the
switcher itself is usable there."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_table_pages import seat_url, start, tap
from tests.e2e.test_table_phone import describe, serious_violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_switching_to_bengali_keeps_the_partly_typed_hand(live_server: Any, page: Page) -> None:
    game = start("tonk", ["Ana", "Ben", "Cyd"])
    page.goto(seat_url(live_server, game))
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.get_by_label("Knock (drop)").check()
    page.locator("#id_by").select_option(label="Ben")
    tap(page, "held_0", "2S", "3S")
    page.locator("[data-grid-close]").click()  # "Type instead": the keyboard
    page.locator("#id_held_1").fill("KH QH")
    key_before = page.locator("#entry input[name=idempotency_key]").input_value()

    # The switcher: a thumb's tap high on a 360 px screen, labelled.
    select = page.get_by_label("Language")
    box = select.bounding_box()
    assert box is not None and box["height"] >= 40 and box["x"] + box["width"] <= 360
    select.select_option("bn")
    with page.expect_navigation():
        page.locator("#language-form button[type=submit]").click()

    expect(page.locator("html")).to_have_attribute("lang", "bn")
    assert page.url.endswith(f"/t/{game.table_key}/")
    expect(page.locator("#language-select")).to_have_value("bn")
    expect(page.locator("#id_held_0")).to_have_value("2S 3S")
    expect(page.locator("#id_held_1")).to_have_value("KH QH")
    expect(page.locator("#id_held_2")).to_have_value("")
    assert page.locator("#id_by option:checked").inner_text() == "Ben"
    assert page.locator("input[name=end][value=knock]").is_checked()
    # Not the key: the page brought a fresh one, and the saved copy is gone.
    assert page.locator("#entry input[name=idempotency_key]").input_value() != key_before
    kept = "Object.keys(window.sessionStorage).filter((k) => k.startsWith('keep-on-language:'))"
    assert page.evaluate(kept) == []
    # The page with its switcher, in Bengali: no serious axe-core violation.
    violations = serious_violations(page)
    assert not violations, describe(violations)
    # A reload restores nothing more: the fields are as the server sends them.
    page.reload()
    expect(page.locator("#id_held_1")).to_have_value("")
