"""Cross-process named locks as lease rows in the ``locks`` table.

A lock is a row (name, owner token, pid, hostname, expires_at). Taking it is one short
``BEGIN IMMEDIATE`` transaction that inserts/replaces the row when there is none, when its lease
has expired, or when its holder ran on this host and that process is gone — so a crashed CLI
never blocks the next one. Waiters poll with a small capped backoff (SQLite's busy state is
retried inside :class:`.database.Database`, never surfaced). While the lock is held an asyncio
task renews the lease every third of its length, so long holds do not expire; release deletes
the row only if we still own it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

from engramdb.errors import LockTimeoutError, StorageError
from engramdb.storage.processes import pid_alive
from engramdb.storage.sqlite.database import Database

__all__ = ["DEFAULT_LOCK_TIMEOUT_S", "LeaseLocks"]

logger = logging.getLogger(__name__)

DEFAULT_LOCK_TIMEOUT_S = 600.0
_POLL_START_S = 0.01
_POLL_MAX_S = 0.25


@dataclass(frozen=True, slots=True)
class _Holder:
    pid: int
    hostname: str


class LeaseLocks:
    """Lease-based locks of one store object."""

    def __init__(self, db: Database, hostname: str, lease_seconds: float) -> None:
        self._db = db
        self._hostname = hostname
        self._lease = lease_seconds

    @contextlib.asynccontextmanager
    async def hold(self, name: str, timeout: float | None) -> AsyncIterator[None]:
        wait = DEFAULT_LOCK_TIMEOUT_S if timeout is None else max(timeout, 0.0)
        owner = uuid.uuid4().hex
        await self._acquire(name, owner, wait)
        renewer = asyncio.create_task(self._renew_forever(name, owner))
        try:
            yield
        finally:
            renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewer
            await asyncio.shield(asyncio.to_thread(self._release, name, owner))

    async def _acquire(self, name: str, owner: str, wait: float) -> None:
        deadline = time.monotonic() + wait
        delay = _POLL_START_S
        while True:
            attempt = asyncio.ensure_future(asyncio.to_thread(self._try_acquire, name, owner))
            try:
                holder = await asyncio.shield(attempt)
            except asyncio.CancelledError:
                attempt.add_done_callback(lambda done: self._release_if_taken(done, name, owner))
                raise
            if holder is None:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LockTimeoutError(
                    f"Could not take lock {name!r} within {wait:g} s: it is held by pid "
                    f"{holder.pid} on {holder.hostname}. Wait for that process to finish or stop "
                    "it; a lock held by a dead process is taken over automatically."
                )
            await asyncio.sleep(min(delay, remaining))
            delay = min(delay * 2, _POLL_MAX_S)

    def _release_if_taken(
        self, done: asyncio.Future[_Holder | None], name: str, owner: str
    ) -> None:
        """The waiter was cancelled while an attempt ran in a thread: undo a success."""
        if done.cancelled() or done.exception() is not None or done.result() is not None:
            return
        asyncio.get_running_loop().run_in_executor(None, self._release, name, owner)

    def _try_acquire(self, name: str, owner: str) -> _Holder | None:
        """One attempt; None when the lock is now ours, else who holds it."""

        def work(conn: sqlite3.Connection) -> _Holder | None:
            now = time.time()
            row = conn.execute(
                "SELECT pid, hostname, expires_at FROM locks WHERE name = ?", (name,)
            ).fetchone()
            if row is not None:
                pid, hostname, expires_at = int(row[0]), str(row[1]), float(row[2])
                dead = hostname == self._hostname and pid != os.getpid() and not pid_alive(pid)
                if expires_at > now and not dead:
                    return _Holder(pid=pid, hostname=hostname)
            conn.execute(
                "INSERT OR REPLACE INTO locks (name, owner, pid, hostname, expires_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, owner, os.getpid(), self._hostname, now + self._lease),
            )
            return None

        return self._db.write(work)

    def _renew(self, name: str, owner: str) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute(
                "UPDATE locks SET expires_at = ? WHERE name = ? AND owner = ?",
                (time.time() + self._lease, name, owner),
            )
            return cursor.rowcount > 0

        return self._db.write(work)

    async def _renew_forever(self, name: str, owner: str) -> None:
        while True:
            await asyncio.sleep(self._lease / 3)
            try:
                still_ours = await asyncio.to_thread(self._renew, name, owner)
            except StorageError as exc:
                # Fail-open: the holder keeps working; the lease may lapse if this persists.
                logger.warning("could not renew lock %r: %s", name, exc)
                continue
            if not still_ours:
                logger.warning("lock %r was taken over after its lease expired", name)
                return

    def _release(self, name: str, owner: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM locks WHERE name = ? AND owner = ?", (name, owner))

        try:
            self._db.write(work)
        except StorageError as exc:  # closed store or persistent I/O error: the lease expires
            logger.warning("could not release lock %r: %s", name, exc)
