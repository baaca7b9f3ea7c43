"""The pseudo-locale ``en-xa`` (issue 15): every string of the catalogue template with its
ASCII letters swapped for accented look-alikes and wrapped in ``⟦…⟧``, so that any plain
English a page still shows is text that never went through translation.

:func:`pseudo` transforms one string; :func:`write_catalogue` writes the whole catalogue
(every msgid of ``locale/bn/LC_MESSAGES/django.po``, the extracted template) as a ``.mo`` under
a locale directory for Django's ``LOCALE_PATHS``; :func:`leaks` finds the plain English in a
page's visible text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

CODE = "en-xa"
LOCALE = Path(__file__).resolve().parents[2] / "locale"
TEMPLATE = LOCALE / "bn" / "LC_MESSAGES" / "django.po"

#: Each ASCII letter's accented look-alike (none of them ASCII).
LOOK_ALIKE = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "áƀçđéƒğĥíĵķĺɱñóƥʠŕšţúʋŵẋýžÅƁÇĐÉƑĜĤÍĴĶĹṀÑÓƤꝖŔŠŢÚṼŴẊÝŽ",
)

#: What keeps its letters: printf placeholders (``%(name)s``, ``%s``, ``%d``), ``{name}``
#: fields, HTML tags and entities, and URLs.
KEPT = re.compile(
    r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrfiguxXeEc%]"
    r"|\{[A-Za-z_][A-Za-z0-9_]*\}"
    r"|</?[A-Za-z][^>]*>"
    r"|&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);"
    r"|https?://\S+"
)


def pseudo(text: str) -> str:
    """``text`` with every ASCII letter outside :data:`KEPT` mapped to its look-alike, wrapped
    in ``⟦…⟧``; the empty string stays empty (it is the catalogue's header)."""
    if not text:
        return text
    out, last = [], 0
    for kept in KEPT.finditer(text):
        out.append(text[last : kept.start()].translate(LOOK_ALIKE))
        out.append(kept.group())
        last = kept.end()
    out.append(text[last:].translate(LOOK_ALIKE))
    return "⟦" + "".join(out) + "⟧"


def write_catalogue(locale_dir: Path) -> Path:
    """Write ``<locale_dir>/en_XA/LC_MESSAGES/django.mo``: every msgid of :data:`TEMPLATE`
    (plural forms and contexts kept) with its :func:`pseudo` translation. Returns the path."""
    with TEMPLATE.open("rb") as source:
        template = read_po(source, locale="bn")
    catalog = Catalog(locale="en", domain="django")
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, (list, tuple)):
            string: str | tuple[str, ...] = tuple(pseudo(form) for form in message.id[:2])
        else:
            string = pseudo(message.id)
        catalog.add(message.id, string, context=message.context)
    target = locale_dir / "en_XA" / "LC_MESSAGES" / "django.mo"
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as out:
        write_mo(out, catalog, use_fuzzy=True)
    return target


def msgids() -> set[str]:
    """Every msgid of :data:`TEMPLATE` (both forms of a plural)."""
    with TEMPLATE.open("rb") as source:
        template = read_po(source, locale="bn")
    ids: set[str] = set()
    for message in template:
        if isinstance(message.id, (list, tuple)):
            ids.update(message.id)
        elif message.id:
            ids.add(message.id)
    return ids


# --- the visible text of a page -----------------------------------------------------------------

#: Elements whose text is not shown.
HIDDEN = {"script", "style", "template"}
#: Elements whose text is code or a key shown as such (notation, file names, formats), and
#: ``<time>``, whose text is a date or time in the locale's form (CLDR's, not a catalogue's).
CODE_ELEMENTS = {"code", "kbd", "samp", "time"}
#: The ``<select>`` elements (by name) whose options are not words of a catalogue: the
#: language switcher (each language by its own name) and the time zones (IANA's names).
NAMED_SELECTS = {"language", "time_zone"}
#: Attributes shown to a reader or said by a screen reader, on any element.
SHOWN_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}  # fmt: skip


class VisibleText(HTMLParser):
    """The visible text of a page as a list of pieces, each labelled with where it came from.

    Text outside :data:`HIDDEN` and :data:`CODE_ELEMENTS` (and outside the language switcher's
    :data:`NAMED_SELECTS`, or its links on the refusal pages); the attributes
    :data:`SHOWN_ATTRIBUTES`; the ``value`` of a submit/button/reset input.
    ``<option>``, ``<caption>``, ``<legend>`` and ``<th>`` text is text like any other.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[tuple[str, str]] = []
        #: The open elements: (tag, whether its text is hidden from the sweep).
        self.stack: list[tuple[str, bool]] = []

    @property
    def skip(self) -> bool:
        return any(hidden for _tag, hidden in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        shown = [values[a] for a in SHOWN_ATTRIBUTES if values.get(a)]
        # A <button>'s value is sent, never shown (its content is); an input button shows it.
        if tag == "input" and values.get("type", "text") in ("submit", "button", "reset"):
            shown.extend([values["value"]] if values.get("value") else [])
        if not self.skip:
            self.pieces.extend((f"<{tag}> attribute", text) for text in shown)
        if tag in VOID:
            return
        hidden = (
            tag in HIDDEN
            or tag in CODE_ELEMENTS
            or (tag == "select" and values.get("name") in NAMED_SELECTS)
            # The refusal pages' switcher: links, each language by its own name.
            or (tag == "nav" and "language" in values.get("class", "").split())
        )
        self.stack.append((tag, hidden))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag not in {t for t, _hidden in self.stack}:
            return
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if not self.skip and data.strip():
            where = self.stack[-1][0] if self.stack else "document"
            self.pieces.append((f"<{where}> text", data.strip()))


#: A URL shown as text (a table card's printed links): an address, not words.
URL = re.compile(r"https?://\S+")

#: A run of two or more plain ASCII letters.
WORD = re.compile(r"[A-Za-z]{2,}")

#: Card notation (``KS``, ``10H``, ``R5``, ``Y12``, ``ROOK``, the Blukes ``HB`` and ``LB``) and
#: the suit and colour letters the pages show next to their symbols.
CARD = re.compile(r"\b(?:(?:10|[2-9AKQJ])[SHDC]|[RYGB]\d{1,2}|ROOK|HB|LB)\b")


def leaks(html: str, *, allowed: Iterable[str]) -> list[tuple[str, str]]:
    """The pieces of ``html``'s visible text that hold a run of 2+ plain ASCII letters once
    the ``allowed`` words (names people typed, the product name, the allow-list) and card
    notation are taken out: (where, the piece)."""
    parser = VisibleText()
    parser.feed(html)
    parser.close()
    words = sorted(set(allowed), key=len, reverse=True)
    allowed_re = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b")
    found = []
    for where, text in parser.pieces:
        rest = CARD.sub(" ", allowed_re.sub(" ", URL.sub(" ", text)))
        if WORD.search(rest):
            found.append((where, text))
    return found
