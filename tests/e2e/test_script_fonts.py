"""Fonts for the scripts (issue 15, "Scripts"): the stylesheet names faces that cover the
Bengali–Assamese and Tamil scripts before the generic family, and Chromium draws a Bengali,
an Assamese and a Tamil table page's heading with one of them (``CSS.getPlatformFontsForNode``
says which faces drew a node's text), while an English page keeps a Latin face.

The faces drawn depend on the fonts installed: `.ci/run` installs Lohit Bengali and Lohit
Tamil (Debian's smallest packages for the scripts); a machine with none of the named faces
skips, or fails under ``REQUIRE_SERVICES=1``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ops.language_list import non_latin_codes
from tests.e2e.test_table_pages import start, table_url
from tests.services import skip_or_fail

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

STYLESHEET = Path(__file__).resolve().parents[2] / "static" / "tabletally.css"
#: fontconfig's language tag of each page language's script (Assamese is written in the
#: Bengali script; fontconfig has no Assamese coverage of its own).
SCRIPT_LANG = {"bn": "bn", "as": "bn", "ta": "ta"}


def body_faces() -> list[str]:
    """The faces of the stylesheet's ``body`` font, in order, quotes taken off."""
    css = STYLESHEET.read_text(encoding="utf-8")
    block = re.search(r"\bbody\s*\{([^}]*)\}", css)
    assert block is not None
    declaration = re.search(r"font:\s*[\d.]+rem/[\d.]+\s+([^;]+);", block.group(1))
    assert declaration is not None
    return [face.strip().strip('"') for face in declaration.group(1).split(",")]


def installed_for(script: str) -> set[str]:
    """The families fontconfig has that cover ``script`` (``fc-list :lang=bn family``)."""
    if shutil.which("fc-list") is None:
        return set()
    out = subprocess.run(
        ["fc-list", f":lang={script}", "family"], capture_output=True, text=True, check=False
    ).stdout
    return {name.strip() for line in out.splitlines() for name in line.split(",")}


def drawn_by(page: Any, selector: str) -> dict[str, int]:
    """The faces that drew the text of the first node ``selector`` finds: family → glyphs."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    return {f["familyName"]: f["glyphCount"] for f in fonts}


def test_the_stylesheet_names_faces_for_each_script_before_the_generic_family() -> None:
    faces = body_faces()
    assert faces[-1] == "sans-serif"
    assert faces.index("system-ui") < faces.index("Noto Sans Bengali")  # Latin first
    for face in ("Noto Sans Bengali", "Lohit Bengali", "Lohit Assamese", "Nirmala UI"):
        assert face in faces
    for face in ("Noto Sans Tamil", "Lohit Tamil", "Latha", "Tamil Sangam MN"):
        assert face in faces


@pytest.mark.parametrize("language", non_latin_codes())
def test_a_page_in_the_language_is_drawn_with_a_face_the_stylesheet_names(
    live_server: Any, phone: Callable[..., Any], language: str
) -> None:
    script = SCRIPT_LANG[language]
    named = set(body_faces())
    if not installed_for(script) & named:
        skip_or_fail(
            f"no face the stylesheet names for the {script} script is installed "
            "(apt-get install fonts-lohit-beng-bengali fonts-lohit-taml)"
        )
    game = start("rook", ["Ana", "Ben", "Cyd"])
    page = phone(language)
    page.goto(table_url(live_server, game))
    assert page.locator("html").get_attribute("lang") == language

    faces = drawn_by(page, "main h1")

    script_faces = {face for face in faces if face in installed_for(script)}
    assert script_faces, faces
    assert script_faces <= named, f"drawn by a face the stylesheet does not name: {faces}"


def test_an_english_page_keeps_a_latin_face(live_server: Any, phone: Callable[..., Any]) -> None:
    if not installed_for("bn") & set(body_faces()):
        skip_or_fail("no Bengali face the stylesheet names is installed")
    game = start("rook", ["Ana", "Ben", "Cyd"])
    page = phone("en")
    page.goto(table_url(live_server, game))

    faces = drawn_by(page, "main h1")

    assert faces and not set(faces) & installed_for("bn") - installed_for("en"), faces
