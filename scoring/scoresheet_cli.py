"""``manage.py scoresheet score|check|canonical PATH``: a score sheet through the rules engine.

A thin command over :mod:`tonkrules.sheet` (shared/formats/scoresheet.md, "Results"):

* ``score PATH`` prints the result object and exits 0, or the error object and exits 2;
* ``check PATH`` validates only: prints ``{"ok": true, "game": ..., "hands": N}`` or the error;
* ``canonical PATH`` prints the sheet in canonical form (card notation, keys), or the error.

PATH is a file, or ``-`` for standard input; a file that cannot be read is reported on
standard error with exit 1. Nothing is stored anywhere.

This module needs no Django: ``manage.py`` runs it directly, without setting Django up (no
settings, apps or database are involved), so that scoring many sheets from a script costs the
engine's time and not Django's start-up for each sheet. The Django management command
``scoring/management/commands/scoresheet.py`` (for ``call_command`` and ``manage.py help``) is
a wrapper over the same functions.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import BinaryIO

from scoring.money import stake_verify
from tonkrules.errors import RuleError
from tonkrules.sheet import SheetError, parse_json, read_sheet, score

ERROR_EXIT = 2
UNREADABLE_EXIT = 1
ACTIONS = {
    "score": "print the result object (exit 0) or the error object (exit 2)",
    "check": 'validate only: print {"ok": true, ...} (exit 0) or the error object (exit 2)',
    "canonical": "print the sheet in canonical form (exit 0) or the error object (exit 2)",
}
HELP = "Score, check or canonicalise a Tabletally score sheet (JSON) with the rules engine."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments: an action and a PATH (used by argparse and by Django)."""
    sub = parser.add_subparsers(dest="action", required=True, metavar="{score,check,canonical}")
    for action, text in ACTIONS.items():
        p = sub.add_parser(action, help=text)
        p.add_argument("path", help="the score sheet file, or - for standard input")


def read_source(path: str, stdin: BinaryIO) -> bytes:
    """The bytes of the sheet at ``path`` (``-``: standard input). Raises ``OSError``."""
    if path == "-":
        return stdin.read()
    with open(path, "rb") as f:
        return f.read()


def _money_verify(stake: object, currency: str | None) -> None:
    """The sheet's stake and currency by the one money rule (:mod:`scoring.money`: an ISO 4217
    currency, no more decimals than its minor unit), as the import checks them.

    Raises:
        SheetError: the rule's error, at the top level.
    """
    try:
        stake_verify(stake=None if stake is None else str(stake), currency=currency)
    except RuleError as exc:
        raise SheetError(exc) from exc


def answer(action: str, raw: bytes) -> tuple[int, dict[str, object]]:
    """(exit status, the JSON object to print) for ``action`` on the sheet's bytes."""
    try:
        sheet = read_sheet(parse_json(raw))
        _money_verify(sheet.stake, sheet.currency)
    except SheetError as exc:
        return ERROR_EXIT, exc.to_json()
    if action == "score":
        return 0, score(sheet).to_json()
    if action == "check":
        return 0, {"ok": True, "game": sheet.game.name, "hands": len(sheet.hands)}
    return 0, sheet.to_json()


def render(obj: dict[str, object]) -> str:
    """One line of JSON, UTF-8 text as is."""
    return json.dumps(obj, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    """Run the command on ``argv`` (the words after ``scoresheet``); returns the exit status."""
    parser = argparse.ArgumentParser(prog="manage.py scoresheet", description=HELP)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        raw = read_source(args.path, sys.stdin.buffer)
    except OSError as exc:
        print(f"cannot read {args.path}: {exc.strerror}", file=sys.stderr)
        return UNREADABLE_EXIT
    status, obj = answer(args.action, raw)
    sys.stdout.buffer.write(render(obj).encode("utf-8") + b"\n")
    sys.stdout.flush()
    return status
