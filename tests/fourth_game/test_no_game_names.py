"""One home per game (issue 11): outside each game's own modules, nothing compares a game's
name nor imports a game's engine module."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_NAME = r"""["'](tonk|rook|bluke)["']"""
#: A comparison with, or a choice keyed by, a game's name (either side of the operator, a
#: ``case``, a key looked up); an import of a game's engine module; a sentence saying a thing
#: is for one game only.
COMPARISON = re.compile(
    rf"""(==|!=|\bin\b|\bif\b)\s*\(?\s*{_NAME}|{_NAME}\s*(==|!=|\bin\b)|\bcase\s+{_NAME}"""
    rf"""|\.get\(\s*{_NAME}|\[\s*{_NAME}\s*\]"""
    r"""|tonkrules\.(tonk|rook|bluke)\b|from tonkrules import .*\b(tonk|rook|bluke)\b"""
    r"""|from \.(tonk|rook|bluke) import"""
    r"""|\bfor (Tonk|Toonerville Rook|Bluke) only\b"""
)
#: Each game's own homes: its engine module, its adapter, its partials; and the registry
#: modules that import them (``tonkrules/__init__.py``, ``scoring/games/__init__.py``).
HOMES = (
    "tonkrules/tonk.py",
    "tonkrules/rook.py",
    "tonkrules/bluke.py",
    "tonkrules/__init__.py",
    "scoring/games/",
    "templates/scoring/games/",
    "migrations/",
)
#: The demo data is a Rook evening half-way through, on purpose: it plays real Rook rounds.
DEMO = ("tournaments/demo.py",)


def test_no_comparison_with_a_game_name_outside_its_own_modules() -> None:
    offenders = []
    for folder in ("tonkrules", "scoring", "tournaments", "templates", "config"):
        for path in sorted((ROOT / folder).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix not in (".py", ".html", ".js") or any(h in rel for h in HOMES):
                continue
            if rel in DEMO:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if COMPARISON.search(line):
                    offenders.append(f"{rel}:{number}: {line.strip()}")
    assert offenders == []
