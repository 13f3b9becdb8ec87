"""Running the shared units of work (:mod:`engramdb.storage.sql`) on a psycopg connection.

psycopg binds the units' Python values natively (``uuid``, ``timestamptz``, ``boolean``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from engramdb.storage.postgres.database import Conn
from engramdb.storage.sql.unit import Sql, UnitFactory

__all__ = ["run_unit"]

T = TypeVar("T")


async def _result(conn: Conn, sql: Sql) -> Any:
    cur = await conn.execute(sql.text, sql.params or None)
    if sql.result == "rows":
        return await cur.fetchall()
    if sql.result == "row":
        return await cur.fetchone()
    return cur.rowcount


async def run_unit(conn: Conn, unit: UnitFactory[T]) -> T:
    """Run one unit inside the caller's transaction and return its result."""
    steps = unit()
    try:
        sql = next(steps)
        while True:
            sql = steps.send(await _result(conn, sql))
    except StopIteration as done:
        result: T = done.value
        return result
