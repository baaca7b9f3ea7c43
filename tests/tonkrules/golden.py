"""The project's own copy of the acceptance cases (tests/golden/, from shared/cases/) and the
comparison shared/cases/README.md describes."""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SHARED_CASES = Path(__file__).resolve().parents[3] / "shared" / "cases"


def case_paths() -> list[Path]:
    """Every case file of the copy, real games included; a new file is picked up by itself."""
    return sorted(GOLDEN.rglob("*.json"))


def case_id(path: Path) -> str:
    return str(path.relative_to(GOLDEN).with_suffix(""))


def load_case(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as f:
        case: dict[str, Any] = json.load(f)
    return case


def expected_exit(expect: dict[str, Any]) -> int:
    return 2 if "error" in expect else 0


def disagreement(expect: dict[str, Any], got: Any) -> str | None:
    """None when ``got`` agrees with ``expect`` as shared/cases/README.md says, else why not.

    Errors: same ``code`` and ``hand`` (absent for a top-level error). Results: every hand's
    scores and the totals exactly, the same ranking groups in order (order inside a group not
    compared), and the same money amounts as decimals when ``expect`` has money.
    """
    if not isinstance(got, dict):
        return f"not a JSON object: {got!r}"
    if "error" in expect:
        err = got.get("error")
        if not isinstance(err, dict):
            return f"expected error {expect['error']}, got a result"
        want = expect["error"]
        if err.get("code") != want["code"] or err.get("hand") != want.get("hand"):
            return f"expected error {want}, got {err}"
        return None
    if "error" in got:
        return f"expected a result, got {got['error']}"
    if [h.get("scores") for h in got.get("hands", [])] != [h["scores"] for h in expect["hands"]]:
        return f"hand scores differ: {got.get('hands')} != {expect['hands']}"
    if got.get("totals") != expect["totals"]:
        return f"totals differ: {got.get('totals')} != {expect['totals']}"
    ranking = got.get("ranking")
    if not isinstance(ranking, list) or [sorted(g) for g in ranking] != [
        sorted(g) for g in expect["ranking"]
    ]:
        return f"ranking differs: {ranking} != {expect['ranking']}"
    if "money" in expect:
        money = got.get("money")
        try:
            if (
                not isinstance(money, dict)
                or set(money) != set(expect["money"])
                or any(Decimal(money[p]) != Decimal(v) for p, v in expect["money"].items())
            ):
                return f"money differs: {money} != {expect['money']}"
        except (InvalidOperation, TypeError):
            return f"money is not decimal strings: {money}"
    return None
