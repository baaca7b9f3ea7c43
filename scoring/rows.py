"""Plain SQL for the few statements of the hot path (recording a hand), built from the models'
own metadata so that it follows any rename, on PostgreSQL and SQLite alike.

Recording a hand runs five statements; through the ORM each cost about three times the
statement itself (query compilation and model machinery), which kept the hand endpoint far
from the throughput target in ``bench/entry.py``. The SQL of each statement is built once per
shape and kept. Everything else uses the ORM.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


def _field(model: type[models.Model], name: str) -> Any:
    return model._meta.get_field(name.removesuffix("_id") if name.endswith("_id") else name)


@cache
def _select_sql(
    model: type[models.Model],
    fields: tuple[str, ...],
    vendor: str,
    child: type[models.Model] | None = None,
    child_names: tuple[str, ...] = (),
) -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(qn(_field(model, f).column) for f in fields)
    if child is not None:
        columns += f", ({_where_sql(child, child_names, vendor)})"
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return f"SELECT {columns} FROM {qn(model._meta.db_table)} WHERE {qn('id')} = %s{lock}"


@cache
def _insert_sql(model: type[models.Model], names: tuple[str, ...], count: int, vendor: str) -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(qn(_field(model, n).column) for n in names)
    one = "(" + ", ".join(["%s"] * len(names)) + ")"
    returning = (
        f" RETURNING {qn('id')}" if connection.features.can_return_rows_from_bulk_insert else ""
    )
    values = ", ".join([one] * count)
    return f"INSERT INTO {qn(model._meta.db_table)} ({columns}) VALUES {values}{returning}"


@cache
def _update_sql(model: type[models.Model], names: tuple[str, ...], vendor: str) -> str:
    qn = connection.ops.quote_name
    sets = ", ".join(f"{qn(_field(model, n).column)} = %s" for n in names)
    return f"UPDATE {qn(model._meta.db_table)} SET {sets} WHERE {qn('id')} = %s"


@cache
def _where_sql(model: type[models.Model], names: tuple[str, ...], vendor: str) -> str:
    qn = connection.ops.quote_name
    where = " AND ".join(f"{qn(_field(model, n).column)} = %s" for n in names)
    return f"SELECT {qn('id')} FROM {qn(model._meta.db_table)} WHERE {where}"


def select_for_update(
    model: type[M],
    pk: int,
    fields: Sequence[str],
    *,
    child: type[models.Model] | None = None,
    child_equals: Mapping[str, object] | None = None,
) -> tuple[M, int | None]:
    """Read ``fields`` of one row and lock it until the transaction ends (no lock on SQLite,
    where the transaction itself holds the database); in the same statement, the id of a row
    of ``child`` whose columns equal ``child_equals``, if any.

    Returns:
        (the model instance with those fields, the child's id or None).

    Raises:
        ``model.DoesNotExist``: no such row.
    """
    wanted = {"id", *fields}
    # Model.from_db takes the values in the order of the model's fields.
    names = tuple(f.name for f in model._meta.concrete_fields if f.name in wanted)
    child_names = tuple(child_equals or ())
    params: list[Any] = []
    if child is not None and child_equals is not None:
        params = [_field(child, k).get_db_prep_save(v, connection) for k, v in child_equals.items()]
    with connection.cursor() as cursor:
        cursor.execute(
            _select_sql(model, names, connection.vendor, child, child_names), [*params, pk]
        )
        row = cursor.fetchone()
    if row is None:
        raise model.DoesNotExist  # type: ignore[attr-defined]
    values = []
    for name, value in zip(names, row, strict=False):
        field = _field(model, name)
        converter = getattr(field, "from_db_value", None)
        values.append(converter(value, None, connection) if converter else value)
    attnames = [_field(model, n).attname for n in names]
    child_id = row[len(names)] if child is not None else None
    return model.from_db(connection.alias, attnames, values), child_id


def insert(model: type[models.Model], rows: Sequence[Mapping[str, object]]) -> list[int]:
    """Insert rows (field name or attname → value, the same keys in every row) in one
    statement; returns their ids in order."""
    names = tuple(rows[0])
    fields = [_field(model, n) for n in names]
    params = [
        f.get_db_prep_save(row[n], connection)
        for row in rows
        for n, f in zip(names, fields, strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(model, names, len(rows), connection.vendor), params)
        return [int(r[0]) for r in cursor.fetchall()]


def update(model: type[models.Model], pk: int, values: Mapping[str, object]) -> None:
    """Set columns of one row."""
    names = tuple(values)
    with connection.cursor() as cursor:
        cursor.execute(
            _update_sql(model, names, connection.vendor),
            [_field(model, n).get_db_prep_save(v, connection) for n, v in values.items()] + [pk],
        )
