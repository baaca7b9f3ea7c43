"""ETags: one rule for every response that answers one (issue 14, "Caches and ETags").

**The rule: an ETag is a digest of what the response shows**, computed from the rendered HTML
itself (and the language it is rendered in), never from a list of versions that someone must
remember to bump. Whatever a page displays (a player's name changed in the admin, a club or
tournament renamed, a seat's name, a hand, a confirmation, the round's clock, the viewer's
language or permissions) is in its HTML, so any change to it changes the ETag, whoever made the
change (the services, the Django admin, a data migration, ``manage.py shell``). A poll while
nothing changed still answers 304 (or 204: the standings' htmx poll), so nothing is sent;
the server renders the region to know that.

Two things in the HTML change at every render although nothing shown changed: the CSRF
token's mask and the fresh idempotency keys of the forms (``scoring.entry.new_idempotency_key``).
The digest leaves out the values of the inputs named in :data:`VOLATILE_INPUTS` (and only
those), so that an unchanged page keeps its ETag.

A region that carries its own version (the ``?v=`` of the standings' poll) is rendered with
:data:`VERSION_PLACEHOLDER` in place of the version, digested, and the placeholder then
replaced by the digest (:func:`render_versioned`): the version a page shows is the ETag its
poll answers.

Rendering a large region at every poll costs too much (the standings of 1,000 players: some
hundreds of ms), so :func:`render_memoised` keeps the last renders of a region in this process,
under a digest of **everything the render reads**: the template names, the language and time
zone, and every value of its context walked to the bottom (:func:`context_version`: a model
instance's every attribute and loaded relation, a dataclass's every field, …). The region is
rendered without the request (no context processors: it shows the same to everyone), and a
render that reads the database (a relation not loaded in the context) is not kept: its content
was not all in the key. A value the walk does not know is never guessed at: the region is then
rendered every time. So the memo can be stale only if the context itself is.

A region polled so often that even rendering it to know costs too much (the table's live
region: every phone at every table, every 3 s) answers instead a digest of **the rows it is
built from** (:func:`rows_version`: every column of every row of each (model, filter) source,
one simple query per source), with the viewer's identity bits, the language, the time zone and
:func:`code_version` (the templates, translations and code as deployed). The caller lists the
sources; a test renders the region under ``CaptureQueriesContext`` and checks that every table
its SQL reads is one of them (:func:`sql_tables`, :func:`source_tables`). Such a version is
computed **before** the region's context is read, so that a change landing in between makes
the next poll a 200 again, never a 304 for what was not shown. :func:`conditional_response`
then takes the content as a callable, called only when the answer is not a 304.

Every such response is ``Cache-Control: private, no-cache`` (a browser revalidates every time;
a shared cache stores nothing) and ``Vary: Accept-Language, Cookie`` (the language and the
viewer: session, seat, sign-in).

Plumbing: imports no app of the project (``ops`` sits below them).
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import fractions
import functools
import hashlib
import inspect
import re
import sys
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from django.apps import apps
from django.conf import settings
from django.db import connection, models
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.functional import Promise
from django.utils.http import quote_etag
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from ops.db.sql import stored_rows

#: Stands for the version while a region that shows its own version is rendered. Raw ``<``
#: and ``>``: no escaped value (a name, a reason) can contain it.
VERSION_PLACEHOLDER = mark_safe("<!--tabletally:version-->")

#: Hidden inputs whose value is new at every render without anything shown changing.
VOLATILE_INPUTS = ("csrfmiddlewaretoken", "idempotency_key")

_VOLATILE = re.compile(
    r'(<input\b[^>]*\bname="(?:' + "|".join(VOLATILE_INPUTS) + r')"[^>]*?\bvalue=")[^"]*(")'
)

#: What a response with an ETag varies on, besides its URL.
VARY = ("Accept-Language", "Cookie")


def content_version(*parts: str) -> str:
    """The version of rendered HTML ``parts`` (in order): 32 hex digits of a BLAKE2b digest
    of the active language and the parts, each with the values of its volatile inputs
    (:data:`VOLATILE_INPUTS`) left out. The same HTML in the same language gives the same
    version; any other character shown gives another."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update((get_language() or "").encode())
    for part in parts:
        digest.update(b"\x00")
        digest.update(_VOLATILE.sub(r"\1\2", part).encode())
    return digest.hexdigest()


def render_versioned(
    request: HttpRequest | None,
    templates: Sequence[str],
    context: Mapping[str, Any],
    *,
    key: str = "version",
) -> tuple[list[SafeString], str]:
    """Render each of ``templates`` with ``context`` whose ``key`` is the version of what they
    show together: returns the rendered parts (HTML, safe) and that version
    (:func:`content_version` of the parts as rendered with :data:`VERSION_PLACEHOLDER`).

    A template shows the version as ``{{ version }}`` (no filter: the placeholder must come
    out as it is)."""
    values = {**context, key: VERSION_PLACEHOLDER}
    parts = [render_to_string(name, values, request) for name in templates]
    version = content_version(*parts)
    return [mark_safe(part.replace(VERSION_PLACEHOLDER, version)) for part in parts], version


class Unversionable(Exception):
    """A context value :func:`context_version` does not know how to digest."""


#: How deep :func:`context_version` walks before it gives up (``Unversionable``).
MAX_DEPTH = 12
#: How many renders :func:`render_memoised` keeps (the latest used), per process.
MEMO_SIZE = 32
_SCALARS = (
    str,
    int,
    float,
    bool,
    bytes,
    decimal.Decimal,
    fractions.Fraction,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    uuid.UUID,
)


def context_version(context: Mapping[str, Any]) -> str:
    """A digest of everything ``context`` holds (32 hex digits), with the active language and
    time zone. Walks: ``None`` and scalars (their type and ``repr``); lazy translations (as
    text in the active language); a value with a ``content_key`` attribute (a string that
    stands for all it holds, e.g. ``tournaments.selectors.Standings``); model instances (their
    class, every attribute, annotations and attached values included, and the related
    objects loaded with them); dataclasses (every field); mappings, lists, tuples, sets;
    classes and functions (their qualified name); any other object by its class and its
    attributes. Raises :class:`Unversionable` for a value it cannot walk (no ``__dict__``,
    deeper than :data:`MAX_DEPTH`)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{get_language()}|{timezone.get_current_timezone_name()}".encode())
    _feed(digest, dict(context), 0)
    return digest.hexdigest()


def _feed(digest: Any, value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise Unversionable("too deep")

    def put(tag: str, text: str = "") -> None:
        digest.update(f"\x00{tag}\x01{text}".encode())

    key = getattr(value, "content_key", None) if not isinstance(value, type) else None
    if isinstance(key, str):
        put("key", f"{type(value).__qualname__}:{key}")
    elif value is None or isinstance(value, _SCALARS):
        put(type(value).__qualname__, repr(value))
    elif isinstance(value, Promise):
        put("text", str(value))
    elif isinstance(value, models.Model):
        put("model", value._meta.label)
        attributes = {k: v for k, v in vars(value).items() if k != "_state"}
        _feed(digest, attributes, depth + 1)
        _feed(digest, dict(value._state.fields_cache), depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        put("dataclass", type(value).__qualname__)
        for field in dataclasses.fields(value):
            put("field", field.name)
            _feed(digest, getattr(value, field.name), depth + 1)
    elif isinstance(value, Mapping):
        put("map", str(len(value)))
        for k, v in value.items():
            _feed(digest, k, depth + 1)
            _feed(digest, v, depth + 1)
    elif isinstance(value, (list, tuple)):
        put("seq", str(len(value)))
        for item in value:
            _feed(digest, item, depth + 1)
    elif isinstance(value, (set, frozenset)):
        put("set", repr(sorted(repr(item) for item in value)))
    elif isinstance(value, (models.QuerySet, models.Manager)):
        raise Unversionable("a query: its rows are read while rendering")
    elif inspect.ismethod(value):
        put("method", value.__qualname__)
        _feed(digest, value.__self__, depth + 1)
    elif isinstance(value, type) or (callable(value) and hasattr(value, "__qualname__")):
        put("name", f"{getattr(value, '__module__', '')}.{value.__qualname__}")
    elif hasattr(value, "__dict__"):
        put("object", f"{type(value).__module__}.{type(value).__qualname__}")
        _feed(digest, vars(value), depth + 1)
    else:
        raise Unversionable(type(value).__qualname__)


_memo: OrderedDict[str, tuple[list[SafeString], str]] = OrderedDict()
_memo_lock = threading.Lock()


def render_memoised(
    templates: Sequence[str], context: Mapping[str, Any], *, key: str = "version"
) -> tuple[list[SafeString], str]:
    """:func:`render_versioned` without the request, kept in this process under
    :func:`context_version` of ``context`` and the template names (the latest
    :data:`MEMO_SIZE`): a region whose context did not change is not rendered again.
    Not kept: a render that queried the database (it read something the context did not
    hold), or a context :func:`context_version` cannot walk (rendered every time)."""
    try:
        memo_key = f"{'|'.join(templates)}|{key}|{context_version(context)}"
    except Unversionable:
        return render_versioned(None, templates, context, key=key)
    with _memo_lock:
        found = _memo.get(memo_key)
        if found is not None:
            _memo.move_to_end(memo_key)
            return found
    with CaptureQueriesContext(connection) as queries:
        rendered = render_versioned(None, templates, context, key=key)
    if not queries.captured_queries:
        with _memo_lock:
            _memo[memo_key] = rendered
            while len(_memo) > MEMO_SIZE:
                _memo.popitem(last=False)
    return rendered


#: One source of a region: a model (or its ``"app_label.Model"`` label) and the filter of its
#: rows (keyword lookups, or a ``Q``).
Source = tuple[type[models.Model] | str, Mapping[str, Any] | models.Q]


def _model(model: type[models.Model] | str) -> type[models.Model]:
    return apps.get_model(model) if isinstance(model, str) else model


def rows_version(sources: Iterable[Source], *bits: object) -> str:
    """A digest (32 hex digits) of the rows of ``sources`` and of ``bits``, with the active
    language, the time zone and :func:`code_version`.

    Each source is read as one query: every concrete column (``attname``: foreign keys as
    ids) of every row its filter selects, ordered by primary key, as the database gives
    them (no field's conversion: cheaper, and the stored text is what is digested). Any
    change to any column of any of these rows (made by the services, the admin, a migration
    or a shell), a row added or deleted, changes the digest; so does any of ``bits`` (their
    ``repr``: e.g. who the viewer is). Sources and bits are digested in the order given."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(
        f"{get_language()}|{timezone.get_current_timezone_name()}|{code_version()}".encode()
    )
    for bit in bits:
        digest.update(f"\x00bit\x01{bit!r}".encode())
    for model, where in sources:
        model = _model(model)
        columns = [f.attname for f in model._meta.concrete_fields]
        digest.update(f"\x00rows\x01{model._meta.db_table}\x01{','.join(columns)}".encode())
        # The values as the database gives them (no conversion: a JSON column's text).
        for row in stored_rows(model, where, columns):
            digest.update(f"\x02{row!r}".encode())
    return digest.hexdigest()


def source_tables(sources: Iterable[Source]) -> set[str]:
    """The database tables ``sources`` read (each model's ``db_table``)."""
    return {_model(model)._meta.db_table for model, _where in sources}


_TABLE_IN_SQL = re.compile(r'\b(?:FROM|JOIN)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?', re.IGNORECASE)


def sql_tables(sql: Iterable[str]) -> set[str]:
    """Every table named after ``FROM`` or ``JOIN`` in the statements ``sql`` (as captured by
    ``CaptureQueriesContext``): what a piece of code reads."""
    return {name for statement in sql for name in _TABLE_IN_SQL.findall(statement)}


#: The files :func:`code_version` digests, under each of its roots.
CODE_SUFFIXES = (".py", ".html", ".txt", ".mo")


@functools.cache
def code_version() -> str:
    """The version of the code as deployed, computed once per process: a digest (32 hex
    digits) of the project's version (the installed distribution named by the
    ``PROJECT_DISTRIBUTION`` setting, "tabletally" by default) and of every file ending in
    one of :data:`CODE_SUFFIXES` under the template directories (the engines' ``DIRS``), the
    translation directories (``LOCALE_PATHS``) and each top-level package under ``BASE_DIR``
    that holds an installed app or a loaded module (the project's own code, not the
    libraries'): a deploy that changes a template, a translation or the code changes it."""
    name = getattr(settings, "PROJECT_DISTRIBUTION", "tabletally")
    try:
        version = metadata.version(name)
    except metadata.PackageNotFoundError:
        version = ""
    base = Path(getattr(settings, "BASE_DIR", "/nonexistent")).resolve()
    roots: set[Path] = {Path(p).resolve() for p in getattr(settings, "LOCALE_PATHS", [])}
    for engine in cast(list[dict[str, Any]], settings.TEMPLATES):
        roots.update(Path(p).resolve() for p in engine.get("DIRS", []))
    code = [Path(config.path) for config in apps.get_app_configs()]
    loaded = (getattr(module, "__file__", None) for module in list(sys.modules.values()))
    code += [Path(name) for name in loaded if isinstance(name, str)]
    for path in code:
        path = path.resolve()
        if path.is_relative_to(base) and ".venv" not in path.parts and path != base:
            top = base / path.relative_to(base).parts[0]
            if top.is_dir():
                roots.add(top)
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{name}=={version}".encode())
    found = {f for r in roots if r.is_dir() for f in r.rglob("*") if f.suffix in CODE_SUFFIXES}
    for path in sorted(found):
        if path.is_file():
            digest.update(
                f"\x00{path.relative_to(base) if path.is_relative_to(base) else path}\x01".encode()
            )
            digest.update(path.read_bytes())
    return digest.hexdigest()


def conditional_response(
    request: HttpRequest,
    content: str | Callable[[], str],
    version: str | None = None,
    *,
    poll_param: str | None = None,
) -> HttpResponseBase:
    """A 200 with ``content`` (HTML) and its ETag; a 304 when the request's ``If-None-Match``
    names it (Django's ``get_conditional_response``: RFC 9110 weak comparison, ``*``); a 204
    (no body) when ``poll_param`` is given and the query string's value of that name is the
    version (an htmx poll naming what it shows: htmx then leaves the page alone).

    ``version``: the ETag's value, when ``content`` was rendered by :func:`render_versioned`
    (its version) or is versioned by its sources (:func:`rows_version`); else
    :func:`content_version` of ``content``. ``content`` may be a callable returning the HTML
    (with ``version`` given): it is called only for a 200, so that a 304 or 204 renders
    nothing. Every answer carries the ETag, ``Cache-Control: private, no-cache`` and
    ``Vary`` as the module says."""
    if callable(content) and version is None:
        raise ValueError("a lazy content needs its version")
    if version is None:
        version = content_version(cast(str, content))
    etag = quote_etag(version)
    response: HttpResponseBase
    if poll_param is not None and quote_etag(request.GET.get(poll_param, "")) == etag:
        response = HttpResponse(status=204)
    else:
        # Django answers a 304 (or 412) from the ETag alone: the content is not needed.
        response = HttpResponse()
        response["ETag"] = etag
        early = get_conditional_response(request, etag=etag, response=response)
        if early is not None and early.status_code != 200:
            response = early
        else:
            response = HttpResponse(content() if callable(content) else content)
    response["ETag"] = etag
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, VARY)
    if response.status_code == 204:
        return response
    # With a response given, Django answers it or a 304, never None.
    return get_conditional_response(request, etag=etag, response=response) or response
