"""Running the shared units of work (:mod:`engramdb.storage.sql`) on a sqlite3 connection.

Values are bound as the SQLite store stores them: uuids as text, times as fixed-width ISO-8601
UTC text (:func:`.rows.to_time`), booleans as 0/1.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

from engramdb.storage.sql.unit import Sql, UnitFactory
from engramdb.storage.sqlite.rows import to_time

__all__ = ["bind", "run_unit"]

T = TypeVar("T")


def bind(value: object) -> object:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return to_time(value)
    if isinstance(value, bool):
        return int(value)
    return value


def _result(conn: sqlite3.Connection, sql: Sql) -> Any:
    cur = conn.execute(sql.text, [bind(p) for p in sql.params])
    if sql.result == "rows":
        return cur.fetchall()
    if sql.result == "row":
        return cur.fetchone()
    return cur.rowcount


def run_unit(conn: sqlite3.Connection, unit: UnitFactory[T]) -> T:
    """Run one unit inside the caller's transaction and return its result."""
    steps = unit()
    try:
        sql = next(steps)
        while True:
            sql = steps.send(_result(conn, sql))
    except StopIteration as done:
        result: T = done.value
        return result
