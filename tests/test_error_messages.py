"""One error shape: every domain error has a code and parameters, and every message key raised
anywhere has an English template naming only values the raise site gives."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from scoring.errors import CONFLICT_MESSAGES, ScoringConflict, StaleRevision
from tonkrules import find_game
from tonkrules.errors import ERROR_CLASSES, DomainError, RuleError
from tonkrules.messages import RULE_MESSAGES, Plural, Template, render
from tonkrules.sheet import SheetError, read_sheet
from tournaments.errors import TOURNAMENT_MESSAGES, TournamentConflict, TournamentError
from tournaments.seating import SEATING_MESSAGES, SeatingError

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"%\((\w+)\)")

RULE_CLASSES = {"RuleError", *(cls.__name__ for cls in ERROR_CLASSES.values())}
CONFLICT_CLASSES = {
    cls.__name__: cls.code for cls in (ScoringConflict, *ScoringConflict.__subclasses__())
}
TOURNAMENT_CLASSES = {"TournamentError", "TournamentConflict"}


def placeholders(template: Template) -> set[str]:
    texts = template[:2] if isinstance(template, Plural) else (template,)
    names = {name for text in texts for name in PLACEHOLDER.findall(text)}
    if isinstance(template, Plural):
        names.add(template.number)
    return names


class Site:
    """One raise site: where, the message keys it may raise, and the values it gives."""

    def __init__(self, path: Path, node: ast.Call, keys: list[str], given: set[str]) -> None:
        self.where = f"{path.relative_to(ROOT)}:{node.lineno}"
        self.keys = keys
        self.given = given


def _given(call: ast.Call) -> set[str] | None:
    """The names a call gives its sentence: its keywords and the keys of ``params={...}``;
    None where ``params`` is not a dict literal (then its placeholders are not checked)."""
    names: set[str] = set()
    for kw in call.keywords:
        if kw.arg is None:
            return None
        if kw.arg == "params":
            if not isinstance(kw.value, ast.Dict):
                return None
            for k in kw.value.keys:
                if not isinstance(k, ast.Constant):
                    return None
                names.add(k.value)
        else:
            names.add(kw.arg)
    return names


def _literal_keys(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _literal_keys(node.body), _literal_keys(node.orelse)
        if body is not None and orelse is not None:
            return body + orelse
    return None


def _name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _calls(paths: list[Path]) -> Iterator[tuple[Path, ast.Call]]:
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                yield path, node


ENGINE = sorted((ROOT / "tonkrules").glob("*.py"))
SCORING = sorted((ROOT / "scoring").rglob("*.py"))
TOURNAMENTS = sorted((ROOT / "tournaments").rglob("*.py"))

#: Raise sites whose key is computed; each listed with every key it can make.
COMPUTED_RULE_KEYS = {
    "tonkrules/games.py": {
        *(f"key_not_allowed.{w}" for w in ("end", "nobody_out", "not_tonk_out")),
        *(f"missing_key.{w}" for w in ("end", "went_out", "went_out_null", "no_play")),
        "missing_key.double_rule",
        "unknown_player",
        "unknown_player.near",
        "unknown_player.in_key",
        "unknown_player.in_key_near",
    },
    "tonkrules/tonk.py": {
        "deal_tie_total",
        "deal_tie_total.held",
        "deal_tie_total.off",
        "deal_tie_total.off_held",
    },
    "tonkrules/rook.py": {
        "contract" + (f".{v}" if v else "")
        for v in (
            "",
            "either",
            "at_least",
            "at_least_either",
            "nobody",
            "nobody_either",
            "nobody_at_least",
            "nobody_at_least_either",
        )
    },
    "tonkrules/melds.py": {
        "mixed",
        "set_too_short",
        "run_too_short",
        "run_too_long",
        "run_repeats",
        "run_wraps",
        "run_gap",
    },
}


def rule_sites() -> list[Site]:
    sites = []
    for path, call in _calls(
        [
            *ENGINE,
            *sorted((ROOT / "scoring" / "services").glob("*.py")),
            ROOT / "scoring" / "api.py",
        ]
    ):
        name = _name(call)
        if name in RULE_CLASSES or name == "fail":
            keys = _literal_keys(call.args[0]) if call.args else None
            if keys is None:
                keys = sorted(COMPUTED_RULE_KEYS.get(str(path.relative_to(ROOT)), ()))
            given = _given(call)
            if name == "fail" and given is not None:
                given |= {"player", "cards"}
            sites.append(Site(path, call, keys, given if given is not None else {"*"}))
        elif name in ("require", "forbid") and len(call.args) >= 3:
            why = _literal_keys(call.args[2])
            assert why is not None, f"{path}:{call.lineno}: the variant must be a literal"
            prefix = "missing_key" if name == "require" else "key_not_allowed"
            given = {"key", *(kw.arg for kw in call.keywords if kw.arg)}
            sites.append(Site(path, call, [f"{prefix}.{w}" for w in why], given))
    return sites


def test_every_rule_error_raised_has_a_template_naming_only_what_its_site_gives() -> None:
    sites = rule_sites()
    assert len(sites) > 80
    for site in sites:
        assert site.keys, f"{site.where}: a computed key not listed in COMPUTED_RULE_KEYS"
        for key in site.keys:
            assert key in RULE_MESSAGES, f"{site.where}: no template for {key!r}"
            if "*" in site.given:
                continue
            missing = placeholders(RULE_MESSAGES[key]) - site.given - {"player", "cards"}
            assert not missing, f"{site.where}: {key!r} names {missing} the site does not give"


def test_every_computed_key_is_declared() -> None:
    for keys in COMPUTED_RULE_KEYS.values():
        assert keys <= RULE_MESSAGES.keys(), keys - RULE_MESSAGES.keys()


def test_the_rook_meld_reasons_are_the_computed_meld_keys() -> None:
    tree = ast.parse((ROOT / "tonkrules" / "melds.py").read_text(encoding="utf-8"))
    reasons = {
        node.value.value
        for fn in tree.body
        if isinstance(fn, ast.FunctionDef) and fn.name in ("_set_reading", "_run_reading")
        for node in ast.walk(fn)
        if isinstance(node, ast.Return)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }
    # numbers_differ falls back to the run's reason, colours_differ is shown as "mixed".
    assert (
        reasons - {"numbers_differ", "colours_differ"} <= COMPUTED_RULE_KEYS["tonkrules/melds.py"]
    )


#: What a conflict class works out from what its site gives (``HandNotNext``: the ``next``
#: hand, one after ``last_number``).
DERIVED_PARAMS = {"HandNotNext": {"next"}}


def test_every_conflict_and_refusal_raised_has_a_template() -> None:
    found = 0
    for path, call in _calls([*SCORING, *TOURNAMENTS]):
        name = _name(call)
        if name in CONFLICT_CLASSES:
            messages, default = CONFLICT_MESSAGES, CONFLICT_CLASSES[name]
        elif name in TOURNAMENT_CLASSES or name == "because":
            messages, default = TOURNAMENT_MESSAGES, None
        elif name == "SeatingError" and "class SeatingError" not in ast.unparse(call):
            messages, default = SEATING_MESSAGES, None
        else:
            continue
        found += 1
        if name == "because":
            continue  # the sentence is the rule error's
        where = f"{path.relative_to(ROOT)}:{call.lineno}"
        if call.args and isinstance(call.args[0], ast.JoinedStr):
            variant = ast.literal_eval(call.args[0].values[-1]).rpartition(".")[2]
            key = f"*.{variant}"
        else:
            keys = _literal_keys(call.args[0]) if call.args else [default]
            assert keys and keys[0], f"{where}: a computed key"
            key = keys[0]
        assert key in messages, f"{where}: no template for {key!r}"
        given = _given(call)
        if given is not None:
            given |= DERIVED_PARAMS.get(name, set())
            missing = placeholders(messages[key]) - given
            assert not missing, f"{where}: {key!r} names {missing} the site does not give"
    assert found > 40


@pytest.mark.parametrize(
    ("key", "template"),
    sorted(
        {**RULE_MESSAGES, **CONFLICT_MESSAGES, **TOURNAMENT_MESSAGES, **SEATING_MESSAGES}.items()
    ),
)
def test_every_template_renders_from_its_named_values(key: str, template: Template) -> None:
    values = {name: 1 for name in placeholders(template)}
    assert render(template, values)


def test_the_five_error_families_share_one_base() -> None:
    families = (RuleError, SheetError, ScoringConflict, TournamentError, TournamentConflict)
    for cls in (*families, SeatingError):
        assert issubclass(cls, DomainError)
        assert issubclass(cls, ValueError)


def test_a_rule_error_carries_its_code_key_and_params_and_says_them_in_english() -> None:
    bluke = find_game("bluke")
    raw = {"hand": 1, "dealer": "Ben", "trump": "S", "bids": {"Ana": 2, "Ben": 0}}
    raw["tricks"] = {"Ana": 1, "Ben": 0}
    with pytest.raises(RuleError) as info:
        bluke.read_hand(raw, players=["Ana", "Ben"], options=bluke.options({}))
    err = info.value
    assert (err.code, err.detail, err.key, err.player) == (
        "bad_bid",
        "bid_range",
        "bid_range",
        "Ben",
    )
    assert err.params == {"bid": 0, "low": 1, "high": 13, "number": 1}
    assert err.message == "Ben bid 0; in hand 1 a bid is 1 to 13"
    assert str(err) == err.message


def test_a_variant_keeps_its_detail_code() -> None:
    with pytest.raises(SheetError) as info:
        read_sheet({"format": "tabletally.scoresheet/1", "game": "tonk", "players": "Ana"})
    err = info.value
    assert (err.code, err.key, err.error.detail) == ("bad_format", "missing_key", "missing_key")
    body = err.to_json()["error"]
    assert body == {
        "code": "bad_format",
        "detail": "missing_key",
        "message": "the key 'hands' is required",
    }


def test_a_plural_sentence_takes_its_form_from_its_number() -> None:
    copies = RULE_MESSAGES["copies"]
    assert render(copies, {"cards": "AS", "count": 2, "limit": 1}) == (
        "AS is entered 2 times but only 1 copy is in play"
    )
    assert render(copies, {"cards": "R7", "count": 4, "limit": 3}) == (
        "R7 is entered 4 times but only 3 copies are in play"
    )


def test_conflicts_keep_their_body_and_name_their_values() -> None:
    err = StaleRevision(params={"revision": 1}, number=3, current_revision=2)
    assert err.to_dict() == {
        "code": "stale_revision",
        "message": "hand 3 is at revision 2, not 1",
        "number": 3,
        "current_revision": 2,
    }
    refusal = TournamentConflict("round_not_complete", round=2)
    assert (refusal.code, refusal.status, refusal.details) == (
        "round_not_complete",
        409,
        {"round": 2},
    )
    assert refusal.message == "round 2 is not complete: close it before seating the next"
    assert TournamentError(
        "bad_seed.whole", params={"field": "seed", "low": 0, "high": 9}
    ).code == ("bad_seed")
