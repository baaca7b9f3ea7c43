"""Switching the language keeps what was typed (issue 15), on every form that takes typing: a
form of the templates with a field a person types into (cards, names, a reason, a director's
field) is marked ``data-keep-on-language``, which ``static/language.js`` saves before the
switch and puts back after. The sign-in form is left out: a password is never kept."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
FORM = re.compile(r"<form\b[^>]*>(.*?)</form>", re.S)
#: What in a form's body is a field a person types into.
TYPED = re.compile(
    r"_director_field|_director_choices|_reason_field|_restore_reason|_cards_field|<textarea"
    r"|<input[^>]*type=\"text\""
    r"|\{\{ *form\.|\{\{ *field *\}\}"
)
LEFT_OUT = {"registration/login.html"}


INCLUDE = re.compile(r"""\{%\s*include\s+["']([^"']+)["']""")


def expanded(text: str, depth: int = 3) -> str:
    """``text`` with the templates it includes put in its place (``depth`` levels), so that a
    field that comes from an include counts as the form's."""
    if depth == 0:
        return text
    return INCLUDE.sub(
        lambda m: (
            expanded((TEMPLATES / m.group(1)).read_text(encoding="utf-8"), depth - 1)
            if (TEMPLATES / m.group(1)).is_file()
            else m.group(0)
        ),
        text,
    )


def typed_forms() -> list[tuple[str, str]]:
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        name = path.relative_to(TEMPLATES).as_posix()
        for match in FORM.finditer(path.read_text(encoding="utf-8")):
            tag = match.group(0)[: match.group(0).index(">") + 1]
            if TYPED.search(expanded(match.group(1))) and name not in LEFT_OUT:
                found.append((name, tag))
    return found


def test_every_form_that_takes_typing_keeps_it_across_a_language_switch() -> None:
    forms = typed_forms()
    names = {name for name, _tag in forms}
    assert {"tournaments/new.html", "tournaments/manage.html", "scoring/_entry.html"} <= names
    assert {"scoring/_void_form.html", "scoring/hand_reason.html"} <= names
    unmarked = [(name, tag) for name, tag in forms if "data-keep-on-language" not in tag]
    assert unmarked == []


def test_the_sweep_sees_a_field_that_comes_from_an_include() -> None:
    body = '<form method="post">{% include "scoring/_restore_reason.html" %}</form>'
    match = FORM.search(body)
    assert match is not None
    assert "<textarea" in expanded(match.group(1)) or TYPED.search(expanded(match.group(1)))
    assert not TYPED.search('<form method="post"><button>Go</button></form>')
