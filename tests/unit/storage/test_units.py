"""The shared units of work run the same on a plain sqlite3 connection (driver and dialect)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from functools import partial
from uuid import UUID, uuid4

from engramdb.storage.dialect import POSTGRES, SQLITE
from engramdb.storage.sql.unit import Unit, all_rows, count, execute, one
from engramdb.storage.sql.values import as_time, as_uuid, as_uuids
from engramdb.storage.sqlite.units import run_unit


def _roundtrip(d_id: UUID, at: datetime) -> Unit[tuple[UUID, datetime, bool, int]]:
    yield from execute("CREATE TEMP TABLE t (id TEXT, at TEXT, flag INTEGER)")
    yield from execute("INSERT INTO t VALUES (?, ?, ?)", d_id, at, True)
    changed = yield from count("UPDATE t SET flag = ? WHERE id = ?", False, d_id)
    row = yield from one("SELECT id, at, flag FROM t")
    assert row is not None
    return as_uuid(row[0]), as_time(row[1]), bool(row[2]), changed


def test_the_sqlite_driver_binds_python_values_as_the_store_stores_them() -> None:
    conn = sqlite3.connect(":memory:")
    d_id, at = uuid4(), datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    assert run_unit(conn, partial(_roundtrip, d_id, at)) == (d_id, at, False, 1)
    stored = conn.execute("SELECT at FROM t").fetchone()[0]
    assert stored == "2024-05-01T12:00:00.000000+00:00"  # fixed width: text order = time order


def test_a_unit_factory_runs_afresh_each_time() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE n (v INTEGER)")

    def add() -> Unit[int]:
        yield from execute("INSERT INTO n VALUES (1)")
        rows = yield from all_rows("SELECT v FROM n")
        return len(rows)

    assert [run_unit(conn, add), run_unit(conn, add)] == [1, 2]


def test_in_list_binds_any_number_of_values_as_one_parameter() -> None:
    ids = [uuid4() for _ in range(3)]
    sql, params = SQLITE.in_list("id", ids)
    assert sql == "id IN (SELECT value FROM json_each(?))" and len(params) == 1
    assert as_uuids(params[0]) == ids
    sql, params = POSTGRES.in_list("e.relation", ["a"], "text")
    assert (sql, params) == ("e.relation = ANY(%s::text[])", [["a"]])
