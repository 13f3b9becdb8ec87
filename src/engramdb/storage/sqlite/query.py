"""Read-only SQL over the graph tables for :attr:`Capability.CYPHER` (see ``Store.query_sql``).

The statement runs inside the caller's read transaction (one WAL snapshot) with
``PRAGMA query_only`` on, so even a statement that tried to write could not; a progress
handler aborts it at its deadline, which surfaces as :class:`StatementTimeoutError`.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from engramdb.errors import EngramValidationError
from engramdb.storage.capabilities import StatementTimeoutError

__all__ = ["PROGRESS_STEPS", "run_read_only"]

#: Virtual-machine instructions between two deadline checks.
PROGRESS_STEPS = 10_000


def run_read_only(
    conn: sqlite3.Connection, sql: str, params: Sequence[object], timeout: float
) -> list[tuple[Any, ...]]:
    deadline = time.monotonic() + timeout
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), PROGRESS_STEPS)
    conn.execute("PRAGMA query_only = ON")
    try:
        return [tuple(row) for row in conn.execute(sql, list(params)).fetchall()]
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc).lower():
            raise StatementTimeoutError(
                f"the query ran longer than {timeout:g} s and was stopped"
            ) from None
        # e.g. "parser stack overflow": the query is too complex for SQLite. Said without the
        # storage layer's wrapping, which names the database file.
        raise EngramValidationError(
            f"the query is too complex to run ({exc}); simplify it (docs/cypher.md lists the "
            "limits)"
        ) from None
    finally:
        conn.set_progress_handler(None, 0)
        conn.execute("PRAGMA query_only = OFF")
