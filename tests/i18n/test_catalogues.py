"""Every catalogue is complete and consistent (issue 15): each of bn, ta, fil and as has every
string of ``django.po`` and ``djangojs.po`` translated, none fuzzy, with the same placeholders
as the English, the right number of plural forms (CLDR's, through Babel), and the game terms of
its ``GLOSSARY.md`` wherever the English names them.
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from ops.catalogues import DOMAINS, plural_forms
from ops.language_list import translated_codes

LOCALE = Path(__file__).resolve().parents[2] / "locale"
LANGS = translated_codes()
CATALOGUES = [(code, domain) for code in LANGS for domain in DOMAINS]

#: printf placeholders: %(name)s, %s, %d, %r, ... (%% is a literal percent sign).
PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrfiguxXeEc%]")
#: a key or value quoted as code in the English: 'stake', "hands", `by`.
CODE_LIKE = re.compile(r"'[A-Za-z_.]+'|\"[A-Za-z_.]+\"|`[^`]+`")
#: the tags of a {% blocktranslate %} with markup, and {{ name }}-style fields of str.format.
TAG = re.compile(r"</?[a-zA-Z][^>]*>|\{[a-z_]*\}")


def catalogue(code: str, domain: str) -> Catalog:
    with (LOCALE / code / "LC_MESSAGES" / f"{domain}.po").open("rb") as source:
        return read_po(source, locale=code)


def entries(catalog: Catalog) -> list[Message]:
    return [m for m in catalog if m.id]


def forms(message: Message) -> tuple[list[str], list[str]]:
    """(the English forms, the translated forms)."""
    ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
    strings = (
        list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]
    )
    return ids, strings


def placeholders(text: str) -> list[str]:
    return sorted(p for p in PLACEHOLDER.findall(text) if p != "%%")


@pytest.mark.parametrize(("code", "domain"), CATALOGUES)
def test_every_string_is_translated_and_none_is_fuzzy(code: str, domain: str) -> None:
    catalog = catalogue(code, domain)
    assert entries(catalog), f"{code}/{domain}.po has no entries"
    untranslated = [m.id for m in entries(catalog) if not all(forms(m)[1])]
    fuzzy = [m.id for m in entries(catalog) if m.fuzzy]
    assert untranslated == [], (
        f"{code}/{domain}.po: {len(untranslated)} untranslated: {untranslated}"
    )
    assert fuzzy == [], f"{code}/{domain}.po: {len(fuzzy)} fuzzy: {fuzzy}"


@pytest.mark.parametrize(("code", "domain"), CATALOGUES)
def test_the_header_says_the_language_and_cldrs_plural_forms(code: str, domain: str) -> None:
    catalog = catalogue(code, domain)
    header = dict(catalog.mime_headers)
    assert header["Language"] == code
    assert header["Plural-Forms"] == plural_forms(code)
    assert header["Content-Type"].lower() == "text/plain; charset=utf-8"
    plurals = [m for m in entries(catalog) if m.pluralizable]
    assert all(len(forms(m)[1]) == catalog.num_plurals for m in plurals), code


@pytest.mark.parametrize(("code", "domain"), CATALOGUES)
def test_each_translation_keeps_the_placeholders_and_markup_of_its_english(
    code: str, domain: str
) -> None:
    catalog = catalogue(code, domain)
    small = forms_for_small_counts(catalog)
    wrong = []
    for message in entries(catalog):
        ids, strings = forms(message)
        english = placeholders(ids[-1])
        for index, text in enumerate(strings):
            if not text:
                continue
            # A plural form that serves no count above 1 may leave out what the English
            # singular leaves out ("one card"); every other form (Filipino's "one" serves 2,
            # 3, 5 ...), and every non-plural string, keeps them all.
            got = placeholders(text)
            if message.pluralizable and index in small:
                if not set(placeholders(ids[0])) <= set(got) <= set(english):
                    wrong.append((message.id, text))
            elif got != english:
                wrong.append((message.id, text))
            if sorted(TAG.findall(text)) != sorted(TAG.findall(ids[-1])):
                wrong.append((message.id, text))
    assert wrong == []


def forms_for_small_counts(catalog: Catalog) -> set[int]:
    """The indices of the plural forms that the language's rule (its ``Plural-Forms``) gives
    to no count but 0 and 1 (of 0 to 999)."""
    rule = gettext.c2py(catalog.plural_expr)
    counts: dict[int, set[int]] = {}
    for n in range(1000):
        counts.setdefault(rule(n), set()).add(n)
    return {index for index, ns in counts.items() if ns <= {0, 1}}


def test_the_forms_for_small_counts_are_the_singulars_but_filipinos() -> None:
    assert forms_for_small_counts(catalogue("ta", "django")) == {0}  # 1
    assert forms_for_small_counts(catalogue("bn", "django")) == {0}  # 0 and 1
    assert forms_for_small_counts(catalogue("fil", "django")) == set()  # "one": 1, 2, 3, 5 ...


#: A value of each conversion, to fill a translation's placeholders as gettext's callers do.
SAMPLE = {"s": "x", "r": "x", "d": 2, "i": 2, "u": 2, "f": 2.0, "g": 2.0, "e": 2.0, "c": "x"}


@pytest.mark.parametrize(("code", "domain"), CATALOGUES)
def test_each_formatted_translation_formats_with_its_englishs_values(
    code: str, domain: str
) -> None:
    """A stray ``%`` ("100% o") or a broken placeholder compiles, then fails at ``%`` on the
    page: every ``python-format`` translation must take the values its English takes."""
    broken = []
    for message in entries(catalogue(code, domain)):
        if "python-format" not in message.flags:
            continue
        ids, strings = forms(message)
        named = dict(re.findall(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?([a-zA-Z])", ids[-1]))
        values: object = {k: SAMPLE.get(v, "x") for k, v in named.items()}
        if not named:
            values = tuple(
                SAMPLE.get(v, "x") for v in re.findall(r"%[-#0 +]*\d*([sdrifgc])", ids[-1])
            )
        for text in strings:
            try:
                text % values
            except (KeyError, TypeError, ValueError) as error:
                broken.append((message.id, text, str(error)))
    assert broken == []


def glossary(code: str) -> list[tuple[str, list[str]]]:
    """The checked rows of ``locale/<code>/GLOSSARY.md``: (English term, accepted forms).

    The glossary is a Markdown table ``| English | <language> | checked forms | note |``; a
    row whose third cell is empty is guidance only (a word with several senses, say).
    """
    path = LOCALE / code / "GLOSSARY.md"
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not line.lstrip().startswith("|") or set(cells[0]) <= set("-: "):
            continue
        if cells[0].lower() == "english":
            continue
        checked = [f.strip() for f in cells[2].split(",") if f.strip()]
        if checked:
            rows.append((cells[0], checked))
    return rows


@pytest.mark.parametrize("code", LANGS)
def test_the_glossary_names_the_games_terms(code: str) -> None:
    terms = {english.lower() for english, _ in glossary(code)}
    for term in ("card", "suit", "trick", "trump", "bid", "meld", "dealer", "round", "contract"):
        assert term in terms, f"{code}/GLOSSARY.md: no checked row for {term!r}"


@pytest.mark.parametrize(("code", "domain"), CATALOGUES)
def test_every_translation_uses_the_glossarys_terms(code: str, domain: str) -> None:
    rows = [
        (re.compile(rf"\b{re.escape(english)}(s|es)?\b", re.IGNORECASE), english, checked)
        for english, checked in glossary(code)
    ]
    wrong = []
    for message in entries(catalogue(code, domain)):
        ids, strings = forms(message)
        # A placeholder (%(cards)s) or a quoted key ('stake') names no game term.
        words = CODE_LIKE.sub(" ", PLACEHOLDER.sub(" ", ids[-1]))
        for pattern, english, checked in rows:
            if not pattern.search(words):
                continue
            for text in strings:
                if text and not any(form.lower() in text.lower() for form in checked):
                    wrong.append(f"{english!r} in {ids[-1]!r}: {text!r}")
    assert wrong == []


#: Languages whose numbers are written in their own digits (CLDR's default numbering system
#: is not ``latn``: :func:`ops.l10n.numbering_system`).
OWN_DIGITS = ("bn", "as")

#: English sentences whose digits stay ASCII in every language, each with why.
ASCII_DIGITS_KEPT = {
    "a run cannot wrap from 14 to 1": "the Rook cards' indices, as printed on the cards",
    "'stake' must be an amount such as \"0.25\": digits, a point, no sign": (
        "a value of the API's JSON and the score-sheet format: ASCII digits"
    ),
}

#: What may hold ASCII digits in any string: placeholders, markup, the ISO standards' numbers,
#: and a token with Latin letters (card notation R5, 10H; UTF-8; 2025-03-15T18:30).
DIGITS_ALLOWED = re.compile(
    rf"{PLACEHOLDER.pattern}|{TAG.pattern}|&#?\w+;|ISO (?:8601|4217)|[\w:+\-./]*[A-Za-z][\w:+\-./]*"
)


@pytest.mark.parametrize(("code", "domain"), [(c, d) for c, d in CATALOGUES if c in OWN_DIGITS])
def test_numbers_in_a_sentence_are_in_the_languages_own_digits(code: str, domain: str) -> None:
    """A Bengali or Assamese sentence writes its numbers (``৩টি তাস``, ``রাউন্ড ১``) as the
    page writes the numbers it fills in (:func:`ops.l10n.sentence`); card notation and
    machine formats keep ASCII digits."""
    from ops import l10n

    assert l10n.numbering_system(code) == "beng"
    wrong = [
        (ids[-1], text)
        for message in entries(catalogue(code, domain))
        for ids, strings in [forms(message)]
        if ids[0] not in ASCII_DIGITS_KEPT
        for text in strings
        if re.search(r"[0-9]", DIGITS_ALLOWED.sub(" ", text))
    ]
    assert wrong == []
