"""One ledger (issue 24): no module but ``scoring/ledger.py`` writes the game row's bookkeeping.
It reads the source (AST), so it holds for code no test runs. That no private name crosses a
module, the ledger's included, is ``tests/test_boundaries.py``'s."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from config.settings import BASE_DIR
from scoring.ledger import BOOKKEEPING_FIELDS

LEDGER = "scoring/ledger.py"
#: Every package of the application's code (tests and benchmarks aside).
PACKAGES = ("scoring", "tournaments", "ops", "config")
#: Calls that write a row with their keyword arguments.
WRITING_CALLS = frozenset(
    {"update", "create", "get_or_create", "update_or_create", "bulk_update", "Game"}
)


def sources() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((BASE_DIR / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            yield path.relative_to(BASE_DIR).as_posix(), ast.parse(path.read_text("utf-8"))


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _strings(node: ast.expr) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and type(n.value) is str}


def book_writes(tree: ast.Module) -> list[tuple[int, str]]:
    """Where ``tree`` writes a bookkeeping field: (line, field) of every attribute assigned
    (``game.totals = …``, ``game.version += 1``), keyword of a writing call
    (``.update(version=…)``, ``Game(totals=…)``), ``setattr(game, "version", …)``, and name
    in a save's or a bulk update's fields (``save(update_fields=("version",))``)."""
    fields = set(BOOKKEEPING_FIELDS)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and part.attr in fields:
                    found.append((part.lineno, part.attr))
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        for keyword in node.keywords:
            if name in WRITING_CALLS and keyword.arg in fields:
                found.append((node.lineno, keyword.arg))
            if keyword.arg in ("update_fields", "fields"):
                found += [(node.lineno, f) for f in _strings(keyword.value) & fields]
        if name == "setattr" and len(node.args) >= 2:
            found += [(node.lineno, f) for f in _strings(node.args[1]) & fields]
    return found


def test_the_detector_finds_each_way_of_writing_the_books() -> None:
    code = """
game.totals = {}
game.version += 1
self.game.last_number: int = 3
Game.objects.filter(pk=1).update(current_hands=2)
Game(last_sequence=4)
game.save(update_fields=("totals", "seating"))
setattr(game, "version", 9)
Game.objects.bulk_update(games, fields=["last_number"])
"""
    assert sorted(f for _line, f in book_writes(ast.parse(code))) == sorted(
        [
            "totals",
            "version",
            "last_number",
            "current_hands",
            "last_sequence",
            "totals",
            "version",
            "last_number",
        ]
    )
    # Reading the books, or another model's fields of the same name, is not writing them.
    reads = "x = game.totals\nStandings(version=3)\ngame.save(update_fields=('seating',))"
    assert book_writes(ast.parse(reads)) == []


def test_no_module_but_the_ledger_writes_the_game_rows_books() -> None:
    offenders = [
        f"{path}:{line} {field}"
        for path, tree in sources()
        if path != LEDGER
        for line, field in book_writes(tree)
    ]
    assert offenders == []


def test_the_ledger_writes_every_field_of_the_books() -> None:
    tree = ast.parse((BASE_DIR / LEDGER).read_text("utf-8"))
    assert {field for _line, field in book_writes(tree)} == set(BOOKKEEPING_FIELDS)
