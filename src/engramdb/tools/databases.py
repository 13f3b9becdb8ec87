"""Reaching a registered database: schema, guarded reads, and the approval-gated UPDATE.

Reads are read-only by construction, whatever the guard let through:

* SQLite: the file is opened ``mode=ro`` through a URI, with an authorizer that allows only
  reads (no ATTACH, PRAGMA, writes, or functions outside an allow-list) and a progress handler
  that interrupts a statement after ``TEXT_TO_SQL_STATEMENT_TIMEOUT_MS``.
* PostgreSQL: the session defaults to read-only transactions, the transaction itself is
  ``READ ONLY`` with ``statement_timeout`` set, and it is always rolled back.

At most ``max_rows + 1`` rows are fetched. Values come back JSON-safe.
"""

from __future__ import annotations

import asyncio
import base64
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime
from datetime import time as dtime
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from uuid import UUID

from engramdb.errors import EngramValidationError, FeatureNotAvailableError, SqlGuardError
from engramdb.models.tools import PROVIDERS, Provider
from engramdb.tools.guard import SQLITE_FUNCTIONS

__all__ = [
    "Decide",
    "Schema",
    "apply_update",
    "dry_run_update",
    "infer_provider",
    "read_rows",
    "read_schema",
]


#: Decides, with the UPDATE's transaction still open, whether to commit it (given its rowcount).
Decide = Callable[[int], Awaitable[bool]]


@dataclass(frozen=True, slots=True)
class Schema:
    """The tables a connection exposes: name -> [(column, type)], and the schema they are in
    (``main`` for SQLite, the session's current schema for PostgreSQL)."""

    name: str
    tables: dict[str, list[tuple[str, str]]]

    def render(self) -> str:
        return "\n".join(
            f"{table}({', '.join(f'{c} {t}'.strip() for c, t in columns)})"
            for table, columns in self.tables.items()
        )


def infer_provider(connection_string: str) -> Provider:
    """``sqlite`` or ``postgres`` from the scheme; EngramValidationError for anything else."""
    scheme = connection_string.split("://", 1)[0].lower() if "://" in connection_string else ""
    if scheme.startswith("postgres"):
        return "postgres"
    if scheme.startswith("sqlite"):
        return "sqlite"
    raise EngramValidationError(
        f"Unsupported tool connection provider for scheme {scheme or '(none)'!r}; "
        f"supported providers: {', '.join(PROVIDERS)} (e.g. 'sqlite:///path/to/file.db' or "
        "'postgresql://user:password@host/db')."
    )


def _json_safe(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date | dtime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


# --- SQLite ------------------------------------------------------------------------------------


def _sqlite_path(connection_string: str) -> Path:
    """``sqlite:///relative.db`` or ``sqlite:////absolute.db`` (SQLAlchemy's spelling)."""
    _, _, rest = connection_string.partition("://")
    if rest.startswith("/"):
        rest = rest[1:]
    path = unquote(rest.split("?", 1)[0])
    if not path or path == ":memory:":
        raise EngramValidationError("a SQLite tool connection names a database file")
    return Path(path)


def _sqlite_authorizer(
    action: int, arg1: str | None, arg2: str | None, db: str | None, _trigger: str | None
) -> int:
    if action == sqlite3.SQLITE_SELECT:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_READ:
        return sqlite3.SQLITE_OK if db in (None, "main") else sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION:
        return (
            sqlite3.SQLITE_OK if (arg2 or "").lower() in SQLITE_FUNCTIONS else (sqlite3.SQLITE_DENY)
        )
    if action in (sqlite3.SQLITE_RECURSIVE, sqlite3.SQLITE_TRANSACTION):
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def _sqlite_open(connection_string: str, timeout_ms: int, *, writable: bool) -> sqlite3.Connection:
    path = _sqlite_path(connection_string).resolve()
    if not path.is_file():
        raise EngramValidationError(f"the SQLite database {str(path)!r} does not exist")
    mode = "rw" if writable else "ro"
    conn = sqlite3.connect(
        f"{path.as_uri()}?mode={mode}",
        uri=True,
        timeout=timeout_ms / 1000,
        isolation_level=None,
        check_same_thread=False,  # an UPDATE's transaction spans worker threads
    )
    deadline = time.monotonic() + timeout_ms / 1000
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1000)
    return conn


def _sqlite_schema(connection_string: str, timeout_ms: int) -> Schema:
    conn = _sqlite_open(connection_string, timeout_ms, writable=False)
    try:
        names = [
            str(row[0])
            for row in conn.execute(
                "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        tables = {
            name: [
                (str(c[1]), str(c[2]))
                for c in conn.execute("SELECT * FROM pragma_table_info(?)", (name,))
            ]
            for name in names
        }
        return Schema("main", tables)
    finally:
        conn.close()


def _sqlite_read(
    connection_string: str, sql: str, max_rows: int, timeout_ms: int
) -> tuple[list[dict[str, Any]], bool]:
    conn = _sqlite_open(connection_string, timeout_ms, writable=False)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.set_authorizer(_sqlite_authorizer)
        conn.execute("BEGIN")
        try:
            cur = conn.execute(sql)
            columns = [d[0] for d in cur.description or ()]
            raw = cur.fetchmany(max_rows + 1)
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise SqlGuardError(f"The query ran longer than {timeout_ms} ms.") from exc
            if "not authorized" in str(exc):
                raise SqlGuardError(f"The database refused the statement: {exc}") from exc
            raise
        finally:
            conn.execute("ROLLBACK") if conn.in_transaction else None
        rows = [{c: _json_safe(v) for c, v in zip(columns, row, strict=False)} for row in raw]
        return rows[:max_rows], len(rows) > max_rows
    finally:
        conn.close()


async def _sqlite_update(connection_string: str, sql: str, timeout_ms: int, decide: Decide) -> int:
    """Run the UPDATE in a transaction; commit when ``await decide(rowcount)`` is true."""
    conn = await asyncio.to_thread(_sqlite_open, connection_string, timeout_ms, writable=True)
    try:

        def run() -> int:
            conn.execute("BEGIN IMMEDIATE")
            try:
                return int(conn.execute(sql).rowcount)
            except BaseException:
                conn.execute("ROLLBACK")
                raise

        affected = await asyncio.to_thread(run)
        commit = False
        try:
            commit = await decide(affected)
        finally:
            await asyncio.to_thread(conn.execute, "COMMIT" if commit else "ROLLBACK")
        return affected
    finally:
        conn.close()


# --- PostgreSQL --------------------------------------------------------------------------------


def _pg_dsn(connection_string: str) -> str:
    head, sep, rest = connection_string.partition("://")
    return f"postgresql://{rest}" if sep and head.startswith("postgres") else connection_string


async def _pg_connect(connection_string: str, timeout_ms: int, *, read_only: bool) -> Any:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - part of the postgres extra
        raise FeatureNotAvailableError(
            "PostgreSQL tool connections need psycopg; install engramdb[postgres]"
        ) from exc
    options = f"-c statement_timeout={int(timeout_ms)}"
    if read_only:
        options += " -c default_transaction_read_only=on"
    return await psycopg.AsyncConnection.connect(
        _pg_dsn(connection_string), options=options, connect_timeout=10, autocommit=False
    )


async def _pg_schema(connection_string: str, timeout_ms: int) -> Schema:
    conn = await _pg_connect(connection_string, timeout_ms, read_only=True)
    try:
        cur = await conn.execute(
            "SELECT current_schema(), c.table_name, c.column_name, c.data_type "
            "FROM information_schema.columns c WHERE c.table_schema = current_schema() "
            "ORDER BY c.table_name, c.ordinal_position"
        )
        tables: dict[str, list[tuple[str, str]]] = {}
        schema = "public"
        for found, table, column, kind in await cur.fetchall():
            schema = str(found)
            tables.setdefault(str(table), []).append((str(column), str(kind)))
        await conn.rollback()
        return Schema(schema, tables)
    finally:
        await conn.close()


async def _pg_read(
    connection_string: str, sql: str, max_rows: int, timeout_ms: int
) -> tuple[list[dict[str, Any]], bool]:
    import psycopg

    conn = await _pg_connect(connection_string, timeout_ms, read_only=True)
    try:
        await conn.execute("SET TRANSACTION READ ONLY")
        try:
            cur = await conn.execute(sql)
            columns = [d.name for d in cur.description or ()]
            raw = await cur.fetchmany(max_rows + 1)
        except psycopg.errors.QueryCanceled as exc:
            raise SqlGuardError(f"The query ran longer than {timeout_ms} ms.") from exc
        except psycopg.errors.ReadOnlySqlTransaction as exc:
            raise SqlGuardError(f"The database refused a write: {exc}") from exc
        finally:
            await conn.rollback()
        rows = [{c: _json_safe(v) for c, v in zip(columns, row, strict=False)} for row in raw]
        return rows[:max_rows], len(rows) > max_rows
    finally:
        await conn.close()


async def _pg_update(connection_string: str, sql: str, timeout_ms: int, decide: Decide) -> int:
    conn = await _pg_connect(connection_string, timeout_ms, read_only=False)
    try:
        try:
            cur = await conn.execute(sql)
            affected = int(cur.rowcount)
        except BaseException:
            await conn.rollback()
            raise
        commit = False
        try:
            commit = await decide(affected)
        finally:
            await (conn.commit() if commit else conn.rollback())
        return affected
    finally:
        await conn.close()


# --- one entry point per operation -------------------------------------------------------------


async def read_schema(provider: Provider, connection_string: str, timeout_ms: int) -> Schema:
    if provider == "sqlite":
        return await asyncio.to_thread(_sqlite_schema, connection_string, timeout_ms)
    return await _pg_schema(connection_string, timeout_ms)


async def read_rows(
    provider: Provider, connection_string: str, sql: str, *, max_rows: int, timeout_ms: int
) -> tuple[list[dict[str, Any]], bool]:
    """The rows of one guarded SELECT (at most ``max_rows``) and whether there were more."""
    if provider == "sqlite":
        return await asyncio.to_thread(_sqlite_read, connection_string, sql, max_rows, timeout_ms)
    return await _pg_read(connection_string, sql, max_rows, timeout_ms)


async def dry_run_update(
    provider: Provider, connection_string: str, sql: str, *, timeout_ms: int
) -> int:
    """How many rows the UPDATE touches; always rolled back."""

    async def never(_affected: int) -> bool:
        return False

    return await apply_update(provider, connection_string, sql, timeout_ms=timeout_ms, decide=never)


async def apply_update(
    provider: Provider, connection_string: str, sql: str, *, timeout_ms: int, decide: Decide
) -> int:
    """Run the UPDATE in one transaction, committed only when ``await decide(rowcount)`` is
    true (the transaction stays open meanwhile, so ``decide`` may record the outcome first)."""
    if provider == "sqlite":
        return await _sqlite_update(connection_string, sql, timeout_ms, decide)
    return await _pg_update(connection_string, sql, timeout_ms, decide)
