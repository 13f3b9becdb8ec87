"""Read-only SQL over the graph tables for :attr:`Capability.CYPHER` (see ``Store.query_sql``).

The caller runs this inside a ``REPEATABLE READ, READ ONLY`` transaction (one snapshot; a
write is refused by the server). ``statement_timeout`` is set for this transaction only, and
the server's cancellation surfaces as :class:`StatementTimeoutError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import errors

from engramdb.errors import EngramValidationError
from engramdb.storage.capabilities import StatementTimeoutError
from engramdb.storage.postgres.database import Conn

__all__ = ["run_read_only"]


async def run_read_only(
    conn: Conn, sql: str, params: Sequence[object], timeout: float
) -> list[tuple[Any, ...]]:
    # statement_timeout 0 would mean "no limit": the smallest budget is one millisecond.
    budget_ms = max(1, int(timeout * 1000))
    await conn.execute("SELECT set_config('statement_timeout', %s, true)", (f"{budget_ms}ms",))
    try:
        cur = await conn.execute(sql.encode(), list(params))
        return [tuple(row) for row in await cur.fetchall()]
    except errors.QueryCanceled:
        raise StatementTimeoutError(
            f"the query ran longer than {timeout:g} s and was stopped"
        ) from None
    except (errors.ProgramLimitExceeded, errors.StatementTooComplex) as exc:
        raise EngramValidationError(
            f"the query is too complex to run ({exc.diag.message_primary}); simplify it "
            "(docs/cypher.md lists the limits)"
        ) from None
