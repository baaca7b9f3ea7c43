"""The translation catalogues in ``locale/``: compiled with Babel, so no GNU gettext is needed.

``locale/<code>/LC_MESSAGES/django.po`` (templates and Python) and ``djangojs.po`` (the page
script) are the sources translators edit; the ``.mo`` files Django reads are made from them by
:func:`compile_catalogues` (``manage.py compilemessages``, run by ``make run`` and ``make test``)
and are not kept in git. Extracting new strings (``make messages``) still needs GNU gettext.
"""

from __future__ import annotations

from pathlib import Path

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

#: The domains Django reads: templates and Python, and the JavaScript catalogue.
DOMAINS = ("django", "djangojs")


def plural_forms(code: str) -> str:
    """The ``Plural-Forms`` header for language ``code``, from CLDR's plural rules (Babel).

    E.g. ``bn``: ``nplurals=2; plural=(n > 1);`` -- CLDR counts 0 and 1 as one.
    """
    return get_plural(Locale.parse(code.replace("-", "_"))).plural_forms


def catalogue_files(locale_dir: Path | str) -> list[Path]:
    """Every ``.po`` file of :data:`DOMAINS` under ``locale_dir``, sorted."""
    locale_dir = Path(locale_dir)
    return sorted(po for domain in DOMAINS for po in locale_dir.glob(f"*/LC_MESSAGES/{domain}.po"))


def compile_catalogues(locale_dir: Path | str, *, force: bool = False) -> list[Path]:
    """Write each catalogue's ``.mo`` beside its ``.po`` where it is missing or older.

    Fuzzy entries are left out, as ``msgfmt`` does. Returns the ``.mo`` files written.

    Raises:
        babel.messages.pofile.PoFileError: a ``.po`` file that does not parse.
    """
    written = []
    for po in catalogue_files(locale_dir):
        mo = po.with_suffix(".mo")
        if not force and mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.parent.parent.name, abort_invalid=True)
        with mo.open("wb") as target:
            write_mo(target, catalog, use_fuzzy=False)
        written.append(mo)
    return written


def set_headers(locale_dir: Path) -> None:
    """Give each ``.po`` file the project's header: a title line, its ``Language`` and CLDR's
    ``Plural-Forms`` (:func:`plural_forms`), in place of makemessages' template.

    Run by ``make messages`` after extraction; only the header is rewritten, so the entries
    keep makemessages' layout.
    """
    for po in catalogue_files(locale_dir):
        code = po.parent.parent.name
        text = po.read_text(encoding="utf-8")
        start = text.index('msgid ""\n')
        end = text.index("\n\n", start) + 2
        header = (
            f"# Tabletally: the {domain_title(po)} in {code} (locale/{code}/GLOSSARY.md).\n"
            'msgid ""\n'
            'msgstr ""\n'
            '"Project-Id-Version: Tabletally\\n"\n'
            '"PO-Revision-Date: 2026-12-01 00:00+0000\\n"\n'
            '"Last-Translator: Tabletally translators\\n"\n'
            f'"Language-Team: {code}\\n"\n'
            f'"Language: {code}\\n"\n'
            '"MIME-Version: 1.0\\n"\n'
            '"Content-Type: text/plain; charset=UTF-8\\n"\n'
            '"Content-Transfer-Encoding: 8bit\\n"\n'
            f'"Plural-Forms: {plural_forms(code)}\\n"\n\n'
        )
        po.write_text(header + text[end:], encoding="utf-8")


def domain_title(po: Path) -> str:
    """What a catalogue holds, by its domain: for its title line."""
    return "page script's strings" if po.stem == "djangojs" else "strings of pages and code"


if __name__ == "__main__":
    import sys

    set_headers(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("locale"))
