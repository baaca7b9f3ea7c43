"""Boundaries are public names (style.md 25): an underscore name is private to its module, so
no module of the project imports one from another module of the project, tests included."""

import ast
from pathlib import Path

from config.settings import BASE_DIR

FIRST_PARTY = ("config", "ops", "scoring", "tournaments", "tonkrules")
SCANNED = (*FIRST_PARTY, "tests", "bench")


def private_imports(root: Path) -> list[str]:
    """``path:line module name`` for every ``from <first-party module> import _name`` (or
    ``import`` of a private module's attribute) under ``root``'s packages; dunder names such as
    ``__version__`` are public."""
    found = []
    for package in SCANNED:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                    continue
                if node.module.split(".")[0] not in FIRST_PARTY:
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        where = path.relative_to(root).as_posix()
                        found.append(f"{where}:{node.lineno} {node.module} {alias.name}")
    return found


def test_no_underscore_name_is_imported_across_modules() -> None:
    assert private_imports(BASE_DIR) == []


def test_the_check_finds_a_private_import(tmp_path: Path) -> None:
    for package in SCANNED:
        (tmp_path / package).mkdir()
    (tmp_path / "scoring" / "a.py").write_text(
        "from scoring.b import _helper, public\nfrom os import _exit\n", encoding="utf-8"
    )

    assert private_imports(tmp_path) == ["scoring/a.py:1 scoring.b _helper"]
