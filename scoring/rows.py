"""Plain SQL for the few statements of the hot path (recording a hand), built from the models'
own metadata so that it follows any rename, on PostgreSQL and SQLite alike.

Recording a hand runs five statements; through the ORM each cost about three times the
statement itself (query compilation and model machinery), which kept the hand endpoint far
from the throughput target in ``bench/entry.py``. Everything else uses the ORM.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


def _qn(name: str) -> str:
    return connection.ops.quote_name(name)


def _field(model: type[models.Model], name: str) -> Any:
    return model._meta.get_field(name.removesuffix("_id") if name.endswith("_id") else name)


def select_for_update(model: type[M], pk: int, fields: Sequence[str]) -> M:
    """Read ``fields`` of one row and lock it until the transaction ends (no lock on SQLite,
    where the transaction itself holds the database). Raises ``model.DoesNotExist``."""
    columns = ", ".join(_qn(_field(model, f).column) for f in ("id", *fields))
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    sql = f"SELECT {columns} FROM {_qn(model._meta.db_table)} WHERE {_qn('id')} = %s{lock}"
    rows = list(model.objects.raw(sql, [pk]))  # type: ignore[attr-defined]
    if not rows:
        raise model.DoesNotExist  # type: ignore[attr-defined]
    return rows[0]


def first_pk(model: type[models.Model], **equals: object) -> int | None:
    """The id of a row whose columns equal ``equals`` (an indexed lookup), or None."""
    where = " AND ".join(f"{_qn(_field(model, k).column)} = %s" for k in equals)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_qn('id')} FROM {_qn(model._meta.db_table)} WHERE {where}",
            [_field(model, k).get_db_prep_save(v, connection) for k, v in equals.items()],
        )
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def insert(model: type[models.Model], rows: Sequence[Mapping[str, object]]) -> list[int]:
    """Insert rows (field name or attname → value, the same keys in every row) in one
    statement; returns their ids in order."""
    names = list(rows[0])
    fields = [_field(model, n) for n in names]
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {_qn(model._meta.db_table)} ({', '.join(_qn(f.column) for f in fields)}) "
        f"VALUES {', '.join([one] * len(rows))}"
    )
    params = [
        f.get_db_prep_save(row[n], connection)
        for row in rows
        for n, f in zip(names, fields, strict=True)
    ]
    with connection.cursor() as cursor:
        if connection.features.can_return_rows_from_bulk_insert:
            cursor.execute(sql + f" RETURNING {_qn('id')}", params)
            return [int(r[0]) for r in cursor.fetchall()]
        cursor.execute(sql, params)  # pragma: no cover (every supported database returns rows)
        first = int(cursor.lastrowid) - len(rows) + 1
        return list(range(first, first + len(rows)))


def update(model: type[models.Model], pk: int, values: Mapping[str, object]) -> None:
    """Set columns of one row."""
    fields = [(_field(model, n), v) for n, v in values.items()]
    sets = ", ".join(f"{_qn(f.column)} = %s" for f, _ in fields)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_qn(model._meta.db_table)} SET {sets} WHERE {_qn('id')} = %s",
            [f.get_db_prep_save(v, connection) for f, v in fields] + [pk],
        )
