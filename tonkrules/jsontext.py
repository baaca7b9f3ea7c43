"""The one strict JSON reader: every JSON text from outside (API bodies, score sheets, the
command line) is read by :func:`read_json`.

JSON (RFC 8259) leaves some things to the reader; this one refuses them all, as the score-sheet
format's ``bad_format`` (``shared/formats/scoresheet.md``: "It is JSON, UTF-8"):

- bytes that are not UTF-8, or that start with a byte-order mark (RFC 8259 §8.1: UTF-8
  without one);
- a key named twice in one object (RFC 8259 §4: names "SHOULD be unique"; readers disagree on
  which value wins, so neither does): the error names the key and its path (``held.Di``;
  positions in a list are counted from 1, as the format counts hands: ``hands.3.held.Di``);
- ``NaN``, ``Infinity`` and ``-Infinity`` (not JSON), and numbers too large for a float
  (``1e400``) or with more digits than Python reads (4300);
- text that PostgreSQL cannot store: NUL (``\\u0000``) and unpaired surrogates (``\\ud800``),
  in keys and values alike;
- nesting deeper than :data:`MAX_DEPTH` objects and lists.

Pure Python, no Django: the rules engine, ``scoring``'s API parser and the command line share
it. How long a text may be is the caller's rule (the API's body limits, ``scoring.api``).
"""

from __future__ import annotations

import json
import math
import re

from .errors import FormatError

MAX_DEPTH = 32
"""The deepest nesting of objects and lists accepted. A score sheet nests at most 6 deep
(sheet → hands → hand → melds → player → meld → card); API bodies less."""

_BOM = b"\xef\xbb\xbf"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class _Object(dict[str, object]):
    """An object read from the text, remembering the first key it named twice (if any)."""

    repeated: str | None = None


def _object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    made = dict(pairs)
    if len(made) == len(pairs):
        return made  # the usual case: a plain dict
    marked = _Object(made)
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            marked.repeated = key
            break
        seen.add(key)
    return marked


def _constant(name: str) -> object:
    raise FormatError("not_json.constant", params={"value": name})


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise FormatError("not_json.constant", params={"value": text})
    return value


def read_json(text: str | bytes) -> object:
    """Read one JSON text strictly (the rules above), as plain dicts, lists, strings, ints,
    floats, booleans and None.

    Args:
        text: the JSON text, as bytes (UTF-8, no byte-order mark) or as a ``str``.

    Returns:
        The value, of plain ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``, None.

    Raises:
        FormatError: ``bad_format`` with the detail ``not_json`` (and a variant: ``.encoding``,
            ``.bom``, ``.duplicate_key`` naming ``key`` and ``path``, ``.constant``,
            ``.nested``) or ``not_text`` (NUL or an unpaired surrogate, with its ``path``).
    """
    if isinstance(text, bytes | bytearray):
        if text.startswith(_BOM):
            raise FormatError("not_json.bom")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError(
                "not_json.encoding", params={"position": exc.start, "reason": exc.reason}
            ) from None
    elif text.startswith("\ufeff"):
        raise FormatError("not_json.bom")
    try:
        value = json.loads(
            text, object_pairs_hook=_object, parse_constant=_constant, parse_float=_float
        )
    except RecursionError:
        raise FormatError("not_json.nested", params={"max": MAX_DEPTH}) from None
    except FormatError:
        raise
    except ValueError as exc:
        raise FormatError("not_json", params={"reason": str(exc)}) from None
    _verify(value)
    return value


def _verify(value: object) -> None:
    """Walk the value in document order: the first repeated key, unstorable text or too deep
    a nesting is refused, with its path."""
    stack: list[tuple[object, tuple[str, ...]]] = [(value, ())]
    while stack:
        v, path = stack.pop()
        if isinstance(v, str):
            if _UNSTORABLE.search(v):
                raise FormatError("not_text", params={"path": _where(path)})
            continue
        if not isinstance(v, dict | list):
            continue
        if len(path) >= MAX_DEPTH:
            raise FormatError("not_json.nested", params={"max": MAX_DEPTH})
        if isinstance(v, dict):
            repeated = getattr(v, "repeated", None)
            if repeated is not None:
                raise FormatError(
                    "not_json.duplicate_key",
                    params={"key": repeated, "path": _where((*path, repeated))},
                )
            for key in v:
                if _UNSTORABLE.search(key):
                    raise FormatError("not_text", params={"path": _where((*path, key))})
            children = [(item, (*path, key)) for key, item in v.items()]
        else:
            children = [(item, (*path, str(i))) for i, item in enumerate(v, 1)]
        stack.extend(reversed(children))


def _where(path: tuple[str, ...]) -> str:
    """A path for people: keys and 1-based list positions joined by dots (``held.Di``); the
    whole text is ``(top)``."""
    return ".".join(path) if path else "(top)"


def hand_position(error: FormatError) -> int | None:
    """The 1-based hand a score sheet's JSON error is in, from its path (``hands.3.…`` → 3);
    None for an error elsewhere or without a path."""
    path = error.params.get("path")
    if not isinstance(path, str):
        return None
    parts = path.split(".")
    if len(parts) >= 3 and parts[0] == "hands" and parts[1].isdigit():
        return int(parts[1])
    return None
