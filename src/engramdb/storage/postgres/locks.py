"""Cross-process named locks as PostgreSQL session-level advisory locks.

Each held lock owns one dedicated connection (outside the pool) on which
``pg_try_advisory_lock(key)`` succeeded; releasing the lock closes that connection. PostgreSQL
releases a session's advisory locks when the session ends, so a process that crashes or is
killed gives its locks back as soon as the server sees its connection close (at once for a
killed process on a live host; within about a minute, through TCP keepalives, for a host that
vanished) — there is no lease to expire and nothing to take over by hand.

The key is a 64-bit hash of the store's database schema and the lock name, so stores in other
schemas of the same database do not block each other. Waiters poll with a small capped backoff;
on timeout the error names the holder, read from ``pg_locks`` / ``pg_stat_activity`` (every
engramdb connection carries ``application_name = 'engramdb pid=<pid> host=<host>'``).

Advisory locks need session-level connections: behind a pooler in transaction mode (PgBouncer
``pool_mode = transaction``) they would not be held; point engramdb at the server directly or at
a session-mode pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import time
from collections.abc import AsyncIterator

import psycopg

from engramdb.errors import LockTimeoutError
from engramdb.storage.postgres.database import Conn, Database, translate_error

__all__ = ["DEFAULT_LOCK_TIMEOUT_S", "AdvisoryLocks", "lock_key"]

logger = logging.getLogger(__name__)

DEFAULT_LOCK_TIMEOUT_S = 600.0
_POLL_START_S = 0.01
_POLL_MAX_S = 0.25
_HOLDER = re.compile(r"engramdb pid=(\d+) host=(\S*)")

_WHO_HOLDS = """
SELECT a.pid, a.application_name, a.client_addr::text FROM pg_locks l
JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid::bigint = ((%(key)s::bigint >> 32) & 4294967295)
  AND l.objid::bigint = (%(key)s::bigint & 4294967295)
LIMIT 1
"""


def lock_key(schema: str, name: str) -> int:
    """A signed 64-bit advisory-lock key for ``name`` in ``schema``."""
    digest = hashlib.blake2b(f"{schema}\x1f{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class AdvisoryLocks:
    """Advisory locks of one store object."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @contextlib.asynccontextmanager
    async def hold(self, name: str, timeout: float | None) -> AsyncIterator[None]:
        wait = DEFAULT_LOCK_TIMEOUT_S if timeout is None else max(timeout, 0.0)
        key = lock_key(self._db.target.schema, name)
        conn = await self._db.connect(autocommit=True)
        try:
            await self._keepalive(conn)
            await self._acquire(conn, name, key, wait)
            yield
        finally:
            # Closing the session releases the lock, whatever state the body left it in.
            await asyncio.shield(conn.close())

    async def _keepalive(self, conn: Conn) -> None:
        """Let the server notice a vanished client host within about a minute."""
        try:
            await conn.execute(
                "SELECT set_config('tcp_keepalives_idle', '30', false), "
                "set_config('tcp_keepalives_interval', '10', false), "
                "set_config('tcp_keepalives_count', '3', false)"
            )
        except psycopg.Error as exc:  # not fatal: the lock works, dead hosts are noticed later
            logger.debug("could not set TCP keepalives on a lock connection: %s", exc)

    async def _acquire(self, conn: Conn, name: str, key: int, wait: float) -> None:
        deadline = time.monotonic() + wait
        delay = _POLL_START_S
        while True:
            try:
                cur = await conn.execute("SELECT pg_try_advisory_lock(%s)", (key,))
                row = await cur.fetchone()
            except psycopg.Error as exc:
                raise translate_error(exc, self._db.target) from exc
            if row is not None and row[0]:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LockTimeoutError(
                    f"Could not take lock {name!r} within {wait:g} s: it is held by "
                    f"{await self._holder(conn, key)}. Wait for that process to finish or stop "
                    "it; a lock held by a process that died is released by PostgreSQL when its "
                    "connection closes."
                )
            await asyncio.sleep(min(delay, remaining))
            delay = min(delay * 2, _POLL_MAX_S)

    async def _holder(self, conn: Conn, key: int) -> str:
        try:
            cur = await conn.execute(_WHO_HOLDS, {"key": key})
            row = await cur.fetchone()
        except psycopg.Error:
            row = None
        if row is None:
            return "another session"
        backend_pid, application, client = row
        found = _HOLDER.search(application or "")
        if found:
            return f"pid {found.group(1)} on {found.group(2)} (PostgreSQL backend {backend_pid})"
        return f"PostgreSQL backend {backend_pid} ({application or 'unnamed'} from {client})"
