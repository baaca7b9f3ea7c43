"""Idempotency keys: the one rule for every write that takes one (issue 14).

A client (an API caller, a page's hidden ``idempotency_key`` field) sends a key with a write so
that a retry of the same request changes nothing and answers as the first did. Three parts,
used by every entry point that takes a key:

- :func:`clean_key`: what a key may be. 1 to :data:`MAX_LENGTH` characters of printable ASCII
  without spaces (``!`` to ``~``: a UUID, a ULID, ``hand-12``…), taken exactly as sent; an
  empty form field is no key, an empty header is refused. Anything else is refused
  (:class:`KeyRefused`), never cut, trimmed or mended.
- :func:`fingerprint`: a digest of the request a key is given to: its method, the resource it
  writes (a path, such as ``games/12/hands/3/void``), its body in canonical JSON (keys sorted),
  and the caller the key belongs to. A write stores it beside the key.
- :func:`replay_or_refuse`: the decision when a key is found already used by the caller: the
  same fingerprint is a retry (the caller answers as the first request was answered); another
  one is another request under the same key, refused (409 ``idempotency_key_reused``).

The keys themselves stay on the rows they wrote (a game, a hand, a step of a hand, a
tournament, a round's seat request in the audit), looked up in the caller's scope (the user who
created a game or a tournament; the game for its hands and steps, with the caller in the
fingerprint), so that the hot path of recording a hand takes no statement more. A user's
create keys are one space across the apps (:func:`refuse_if_held_elsewhere`, with the
lookups the apps register: :func:`holder_register`); a game's keys are one space across its
hands and their steps.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import uuid
from collections.abc import Callable
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from ops.l10n_fields import LocalNumbersForm

#: The HTTP header of the API's writes.
HEADER = "Idempotency-Key"
#: The longest key, in characters.
MAX_LENGTH = 255
#: A key: printable ASCII without spaces, 1 to MAX_LENGTH characters (as a JSON Schema pattern).
PATTERN = rf"^[!-~]{{1,{MAX_LENGTH}}}$"
_KEY = re.compile(r"[!-~]+")

#: The OpenAPI description of the header (``scoring.api`` builds the one parameter from it).
DESCRIPTION = (
    "The client's key for this write: a retry of the same request (same method, path and body, "
    "from the same caller) changes nothing and answers as the first did; the same key with "
    "another body or on another resource of its space is refused (409 "
    "`idempotency_key_reused`). A key's space: a game's hands and their steps, for the keys "
    "of that game's writes; the signed-in user's creations (games, score-sheet imports, "
    "tournaments, round seat requests), for theirs. 1 to "
    f"{MAX_LENGTH} characters of printable ASCII without spaces (a UUID fits); anything else "
    "is refused (400 `bad_format` naming the header), never cut."
)


class KeyRefused(ValueError):
    """A key that is not one (:func:`clean_key`): ``message`` says why, to the client."""

    def __init__(self, message: Any) -> None:
        super().__init__(str(message))
        self.message = message


def clean_key(raw: object, *, required: bool = False, blank: bool = True) -> str | None:
    """The idempotency key in ``raw`` (a header's value or a form field's), or None for none.

    Args:
        raw: the text as received; None when absent.
        required: whether the write must carry a key.
        blank: whether an empty text means "no key" (a form's empty hidden field); where it
            does not (a header sent empty), it is refused.

    Returns:
        The key, exactly as sent; None when there is none.

    Raises:
        KeyRefused: no key where one is required; an empty one where ``blank`` is False; one
            longer than :data:`MAX_LENGTH` characters; a character that is not printable ASCII
            (a space, a control character, anything beyond ASCII).
    """
    text = "" if raw is None else str(raw)
    if not text:
        if required or (raw is not None and not blank):
            raise KeyRefused(_("Every write from a device carries an idempotency key."))
        return None
    if len(text) > MAX_LENGTH:
        raise KeyRefused(
            _("An idempotency key has at most %(max)s characters, not %(length)s.")
            % {"max": MAX_LENGTH, "length": len(text)}
        )
    if not _KEY.fullmatch(text):
        raise KeyRefused(
            _("An idempotency key is printable ASCII without spaces (letters, digits, - _ . :).")
        )
    return text


def fingerprint(method: str, path: str, body: object, *, caller: object = "") -> str:
    """The digest of a request a key is given to (64 hexadecimal characters).

    Args:
        method: the HTTP method (``POST``…) or the page action's equivalent.
        path: the resource the request writes, the same from a page and from the API
            (``games``, ``games/12/hands``, ``games/12/hands/3/confirm``…).
        body: what the request asks, as JSON values (dicts, lists, strings, numbers; other
            values are written as their ``str``); dict keys are sorted, so their order in
            the request does not count.
        caller: who the key belongs to, where the key's scope holds more than one caller
            (a device's digest, a user's id); "" when the scope is the caller already.
    """
    text = json.dumps(
        [method.upper(), path, body, caller],
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def replay_or_refuse(stored: str, requested: str, refusal: Callable[[], Exception]) -> None:
    """Decide on a key already used: return (a retry: answer as the first request was
    answered) when ``requested`` is the fingerprint ``stored`` with the key, else raise
    ``refusal()`` (another request under the same key).

    A row written before fingerprints were kept (``stored`` "") is taken as the retry it was
    taken for then.
    """
    if stored and not hmac.compare_digest(stored, requested):
        raise refusal()


#: Who holds a user's create key, by the kind of create (``games``, ``tournaments``…): the
#: apps register a lookup (:func:`holder_register`) taking (user id, key).
_holders: dict[str, Callable[[int, str], bool]] = {}


def holder_register(kind: str, holds: Callable[[int, str], bool]) -> None:
    """Register how to find whether a create of ``kind`` already holds a user's key:
    ``holds(user_id, key)``. Apps register in ``AppConfig.ready`` (``ops`` imports none of
    them); registering a kind again replaces its lookup."""
    _holders[kind] = holds


def refuse_if_held_elsewhere(
    user_id: int | None, key: str | None, *, kind: str, refusal: Callable[[], Exception]
) -> None:
    """The rule that a signed-in user's create keys are one space across every create (a
    game, a score-sheet import, a tournament, a round's seating): raise ``refusal()`` (409
    ``idempotency_key_reused``) when a create of another kind than ``kind`` holds ``key``
    for ``user_id``. A create calls it after finding its own kind holds no such key (that
    one is a retry, or another body: :func:`replay_or_refuse`). Nothing to check without a
    key or a user.
    """
    if not key or user_id is None:
        return
    for other, holds in _holders.items():
        if other != kind and holds(user_id, key):
            raise refusal()


def new_key() -> str:
    """A fresh key for one submission of a page's form (32 hexadecimal characters: a UUID4);
    a retry or a double tap reuses it."""
    return uuid.uuid4().hex


#: The status of a page whose form came with a key the rule refuses (as the API's 400
#: ``bad_format``): every form with a :class:`KeyField` (:class:`KeyedForm`, :func:`page_status`).
REFUSED_STATUS = 400


class KeyField(forms.CharField):
    """A form's hidden ``idempotency_key`` field, read by :func:`clean_key` (None: no key).
    Its form is a :class:`KeyedForm`, which answers a refused key."""

    widget = forms.HiddenInput

    def __init__(self, *, required: bool = False, **kwargs: Any) -> None:
        self.key_required = required
        super().__init__(required=False, strip=False, **kwargs)

    def clean(self, value: Any) -> str | None:
        try:
            return clean_key(value, required=self.key_required)
        except KeyRefused as exc:
            raise forms.ValidationError(exc.message, code="bad_idempotency_key") from exc


class KeyedForm(LocalNumbersForm, forms.Form):
    """A page's form with a :class:`KeyField` named ``idempotency_key``: the one answer to a
    key the rule refuses (a damaged page, a hand-edited field). The form is invalid with a
    visible message (:attr:`DAMAGED`, among its non-field errors, code
    ``bad_idempotency_key``) and its key is replaced by a fresh one (:func:`new_key`), so that
    the form shown again sends a key that is one; :attr:`key_refused` tells the view, whose
    page answers :data:`REFUSED_STATUS` (:func:`page_status`). Nothing is written: the form is
    invalid.
    """

    DAMAGED = _("This form was sent with a damaged key; it has a new one now: send it again.")
    key_refused = False

    def full_clean(self) -> None:
        """Clean as Django does; then, for a refused key, the message and a fresh key."""
        super().full_clean()
        name = "idempotency_key"
        if not self.is_bound or name not in self.errors:
            return
        self.key_refused = True
        data = self.data.copy()  # type: ignore[attr-defined]  # a QueryDict: a copy may change
        data[self.add_prefix(name)] = new_key()
        self.data = data
        del self.errors[name]
        self.add_error(None, forms.ValidationError(self.DAMAGED, code="bad_idempotency_key"))


def page_status(form: forms.BaseForm, otherwise: int) -> int:
    """The status of a page showing ``form`` again: :data:`REFUSED_STATUS` when its key was
    refused (:class:`KeyedForm`), else ``otherwise`` (the page's own status for the form)."""
    return REFUSED_STATUS if getattr(form, "key_refused", False) else otherwise
