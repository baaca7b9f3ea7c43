"""Every hand-written SQL statement of the project, on PostgreSQL and SQLite alike, built from
the models' own metadata so that it follows any rename. Nothing outside this module opens a
raw cursor, writes ``raw()``, ``RawSQL`` or ``extra()`` (``tests/test_architecture.py``).

**The hand write path** (``scoring.services``, through ``scoring.rows``): recording a hand is
the request a tournament night sends most, and ``bench/entry.py`` requires its throughput to be
at least 0.6 of a bare one-row insert. Through the ORM each statement cost about three times
the statement itself (query compilation and model machinery), which kept the hand endpoint far
from the target (a ratio of 0.28; see ``bench/RESULTS.md``). So the hand path runs two
statements: the game's row read and locked (:func:`select_for_update`), then the hand, its
score lines and the game's totals in one statement (:func:`insert_with_children_and_update`, a
data-modifying CTE on PostgreSQL). The SQL of each statement is built once per shape and kept.
Model instances are made with the public ``Model.from_db`` (:func:`loaded`); no private model
attribute is written.

**The live region's rows** (``ops.etags.rows_version``): :func:`stored_rows` reads the rows of
one source as the database stores them, one simple statement per source written once per
model and keys (compiling a query through the ORM costs more than running it, at every poll).

**The health check**: :func:`select_one`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


def _field(model: type[models.Model], name: str) -> Any:
    return model._meta.get_field(name.removesuffix("_id") if name.endswith("_id") else name)


# Values of these Python types go to the database as they are: no field needs to prepare them.
_PLAIN = (int, str, bool, type(None))


def _prep(field: Any, value: object) -> Any:
    """A value as the database takes it (JSON, dates and the like prepared by the field)."""
    if type(value) in _PLAIN and not isinstance(field, models.JSONField):
        return value
    return field.get_db_prep_save(value, connection)


@cache
def _select_sql(model: type[models.Model], fields: tuple[str, ...], vendor: str) -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(qn(_field(model, f).column) for f in fields)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return f"SELECT {columns} FROM {qn(model._meta.db_table)} WHERE {qn('id')} = %s{lock}"


@cache
def _insert_sql(
    model: type[models.Model],
    names: tuple[str, ...],
    count: int,
    vendor: str,
    skip_duplicate: tuple[str, str] | None = None,
    skip_held_by: type[models.Model] | None = None,
) -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(qn(_field(model, n).column) for n in names)
    returning = (
        f" RETURNING {qn('id')}" if connection.features.can_return_rows_from_bulk_insert else ""
    )
    values = _values_sql(len(names), count, skip_duplicate, skip_held_by)
    conflict = _skip_duplicate_sql(model, skip_duplicate)
    return f"INSERT INTO {qn(model._meta.db_table)} ({columns}) {values}{conflict}{returning}"


def _values_sql(
    width: int,
    count: int,
    skip_duplicate: tuple[str, str] | None,
    skip_held_by: type[models.Model] | None,
) -> str:
    """The rows of an insert: ``VALUES (…), (…)``; with ``skip_held_by``, one row selected
    only where no row of that model holds its non-blank key in its scope (``skip_duplicate``;
    two more parameters: the row's scope and key)."""
    one = "(" + ", ".join(["%s"] * width) + ")"
    if skip_held_by is None:
        return "VALUES " + ", ".join([one] * count)
    assert count == 1 and skip_duplicate is not None
    qn = connection.ops.quote_name
    scope, key = (qn(_field(skip_held_by, n).column) for n in skip_duplicate)
    return (
        f"SELECT {one[1:-1]} WHERE NOT EXISTS (SELECT 1 FROM {qn(skip_held_by._meta.db_table)} "
        f"WHERE {scope} = %s AND {key} = %s AND NOT ({key} = ''))"
    )


def _skip_duplicate_sql(model: type[models.Model], skip_duplicate: tuple[str, str] | None) -> str:
    """``ON CONFLICT (scope, key) WHERE NOT (key = '') DO NOTHING``: skip a row whose non-blank
    ``key`` is already taken within ``scope`` (a partial unique index); any other unique
    clash still raises."""
    if skip_duplicate is None:
        return ""
    qn = connection.ops.quote_name
    scope, key = (qn(_field(model, n).column) for n in skip_duplicate)
    # The same predicate, written as Django writes the index's condition (SQLite matches it).
    return f" ON CONFLICT ({scope}, {key}) WHERE NOT ({key} = '') DO NOTHING"


@cache
def _update_sql(model: type[models.Model], names: tuple[str, ...], vendor: str) -> str:
    qn = connection.ops.quote_name
    sets = ", ".join(f"{qn(_field(model, n).column)} = %s" for n in names)
    return f"UPDATE {qn(model._meta.db_table)} SET {sets} WHERE {qn('id')} = %s"


def select_for_update(model: type[M], pk: int, fields: Sequence[str]) -> M:
    """Read ``fields`` of one row and lock it until the transaction ends (no lock on SQLite,
    where the transaction itself holds the database). Raises ``model.DoesNotExist``.

    Read anything that other writers of this row change in a later statement: on PostgreSQL a
    subquery of this statement would see the database as it was before the lock was granted.
    """
    wanted = {"id", *fields}
    # Model.from_db takes the values in the order of the model's fields.
    names = tuple(f.name for f in model._meta.concrete_fields if f.name in wanted)
    with connection.cursor() as cursor:
        cursor.execute(_select_sql(model, names, connection.vendor), [pk])
        row = cursor.fetchone()
    if row is None:
        raise model.DoesNotExist  # type: ignore[attr-defined]
    values = []
    for name, value in zip(names, row, strict=True):
        field = _field(model, name)
        converter = getattr(field, "from_db_value", None)
        values.append(converter(value, None, connection) if converter else value)
    attnames = [_field(model, n).attname for n in names]
    return model.from_db(connection.alias, attnames, values)


def loaded(model: type[M], values: Mapping[str, object]) -> M:
    """An instance of ``model`` for a row just written with ``values`` (field attnames, with
    its ``id``), as the ORM would load it (``Model.from_db``: not adding, on this database)."""
    attnames = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(connection.alias, attnames, [values[a] for a in attnames])


def insert(
    model: type[models.Model],
    rows: Sequence[Mapping[str, object]],
    *,
    skip_duplicate: tuple[str, str] | None = None,
    skip_held_by: type[models.Model] | None = None,
) -> list[int]:
    """Insert rows (field name or attname → value, the same keys in every row) in one
    statement (the non-PostgreSQL fallback of :func:`insert_with_children_and_update`); returns
    their ids in order. With ``skip_duplicate`` (scope, key), a row whose
    non-blank key is already taken in its scope is not inserted (and has no id in the
    answer); with ``skip_held_by`` too (one row), a row of that model holding its key in its
    scope skips it as well."""
    names = tuple(rows[0])
    fields = [_field(model, n) for n in names]
    params = [_prep(f, row[n]) for row in rows for n, f in zip(names, fields, strict=True)]
    params += _held_params(rows[0], skip_duplicate, skip_held_by)
    sql = _insert_sql(model, names, len(rows), connection.vendor, skip_duplicate, skip_held_by)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [int(r[0]) for r in cursor.fetchall()]


def _held_params(
    row: Mapping[str, object],
    skip_duplicate: tuple[str, str] | None,
    skip_held_by: type[models.Model] | None,
) -> list[object]:
    """The parameters :func:`_values_sql`'s ``skip_held_by`` test takes: the row's scope and
    key."""
    if skip_held_by is None or skip_duplicate is None:
        return []
    return [row[skip_duplicate[0]], row[skip_duplicate[1]]]


def update(model: type[models.Model], pk: int, values: Mapping[str, object]) -> None:
    """Set columns of one row (the non-PostgreSQL fallback of
    :func:`insert_with_children_and_update`)."""
    names = tuple(values)
    with connection.cursor() as cursor:
        cursor.execute(
            _update_sql(model, names, connection.vendor),
            [_prep(_field(model, n), v) for n, v in values.items()] + [pk],
        )


@cache
def _write_cte_sql(
    parent: type[models.Model],
    parent_names: tuple[str, ...],
    child: type[models.Model],
    child_fk: str,
    child_names: tuple[str, ...],
    child_count: int,
    updated: type[models.Model],
    update_names: tuple[str, ...],
    vendor: str,
    skip_duplicate: tuple[str, str],
    skip_held_by: type[models.Model] | None = None,
) -> str:
    qn = connection.ops.quote_name
    parent_columns = ", ".join(qn(_field(parent, n).column) for n in parent_names)
    parent_values = _values_sql(len(parent_names), 1, skip_duplicate, skip_held_by)
    typed = ", ".join(f"%s::{_field(child, n).db_type(connection)}" for n in child_names)
    rows = ", ".join([f"({typed})"] * child_count)
    child_columns = ", ".join(qn(_field(child, n).column) for n in child_names)
    aliases = ", ".join(f"c{i}" for i in range(len(child_names)))
    return (
        f"WITH p AS (INSERT INTO {qn(parent._meta.db_table)} ({parent_columns}) "
        f"{parent_values}{_skip_duplicate_sql(parent, skip_duplicate)} "
        f"RETURNING {qn('id')}), "
        f"c AS (INSERT INTO {qn(child._meta.db_table)} ({qn(_field(child, child_fk).column)}, "
        f"{child_columns}) SELECT p.{qn('id')}, {aliases} "
        f"FROM p, (VALUES {rows}) AS v({aliases})), "
        f"u AS ({_update_sql(updated, update_names, vendor)} AND EXISTS (SELECT 1 FROM p)) "
        f"SELECT {qn('id')} FROM p"
    )


def insert_with_children_and_update(
    parent: type[models.Model],
    row: Mapping[str, object],
    child: type[models.Model],
    child_fk: str,
    child_rows: Sequence[Mapping[str, object]],
    updated: type[models.Model],
    updated_pk: int,
    update_values: Mapping[str, object],
    *,
    skip_duplicate: tuple[str, str],
    skip_held_by: type[models.Model] | None = None,
) -> int | None:
    """Insert a row, its child rows (``child_fk`` set to the new row's id) and update another
    row: one statement on PostgreSQL (data-modifying CTEs), three elsewhere. When the row's
    non-blank key is already taken in its scope (``skip_duplicate``: scope, key) nothing at
    all is written; any other unique clash raises. With ``skip_held_by``, nothing is written
    either when a row of that model holds the key in the same scope (a hand's key taken by a
    step of the game's hands): the same statement looks.

    Returns:
        The new row's id, or None when nothing was written.
    """
    if connection.vendor != "postgresql":
        inserted = insert(parent, [row], skip_duplicate=skip_duplicate, skip_held_by=skip_held_by)
        if not inserted:
            return None
        insert(child, [{child_fk: inserted[0], **r} for r in child_rows])
        update(updated, updated_pk, update_values)
        return inserted[0]
    parent_names, child_names, update_names = tuple(row), tuple(child_rows[0]), tuple(update_values)
    sql = _write_cte_sql(
        parent,
        parent_names,
        child,
        child_fk,
        child_names,
        len(child_rows),
        updated,
        update_names,
        connection.vendor,
        skip_duplicate,
        skip_held_by,
    )
    params = [_prep(_field(parent, n), row[n]) for n in parent_names]
    params += _held_params(row, skip_duplicate, skip_held_by)
    params += [_prep(_field(child, n), r[n]) for r in child_rows for n in child_names]
    params += [_prep(_field(updated, n), update_values[n]) for n in update_names]
    params.append(updated_pk)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    return None if found is None else int(found[0])


# --- the live region's rows (ops.etags.rows_version) -------------------------------------------

#: The SQL of the simple sources (equality on columns), by database, model and column names.
_simple_sql: dict[tuple[str, str, tuple[str, ...]], str] = {}


def stored_rows(
    model: type[models.Model], where: Mapping[str, Any] | models.Q, columns: Sequence[str]
) -> list[tuple[Any, ...]]:
    """The rows of ``model`` that ``where`` selects (keyword lookups, or a ``Q``), ordered by
    primary key, each a tuple of ``columns`` (the concrete fields' attnames, in order) as the
    database stores them: no field's conversion (a JSON column's text, a date's string on
    SQLite). One statement: written once per model and keys when ``where`` maps concrete field
    names or attnames, or ``pk``, to values that are neither None nor model instances (each
    ``column = %s``); else compiled by the ORM."""
    sql, params = _rows_sql(model, where, columns)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _rows_sql(
    model: type[models.Model], where: Mapping[str, Any] | models.Q, columns: Sequence[str]
) -> tuple[str, Sequence[Any]]:
    meta = model._meta
    concrete = list(meta.concrete_fields)
    fields: dict[str, Any] = {f.attname: f for f in concrete} | {f.name: f for f in concrete}
    fields["pk"] = meta.pk
    simple = isinstance(where, Mapping) and all(
        key in fields and value is not None and not isinstance(value, models.Model)
        for key, value in where.items()
    )
    if not isinstance(where, Mapping) or not simple:
        query = where if isinstance(where, models.Q) else models.Q(**where)
        rows = model._default_manager.filter(query).order_by("pk").values_list(*columns)
        return rows.query.sql_with_params()
    keys = tuple(sorted(where))
    cache_key = (connection.alias, meta.label, keys)
    sql = _simple_sql.get(cache_key)
    if sql is None:
        quote = connection.ops.quote_name
        selected = ", ".join(quote(fields[c].column) for c in columns)
        conditions = " AND ".join(f"{quote(fields[key].column)} = %s" for key in keys)
        order = quote(fields["pk"].column)
        sql = f"SELECT {selected} FROM {quote(meta.db_table)} WHERE {conditions} ORDER BY {order}"
        _simple_sql[cache_key] = sql
    params = [fields[k].get_db_prep_value(where[k], connection, prepared=False) for k in keys]
    return sql, params


# --- the health check ---------------------------------------------------------------------------


def select_one() -> Any:
    """``SELECT 1`` on the default database: the row it answers (``(1,)`` when all is well).
    Raises ``django.db.DatabaseError`` when the database does not answer."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone()
