"""Lease behaviour of SQLite locks: renewal, expiry, other hosts."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from engramdb.errors import LockTimeoutError
from engramdb.storage.sqlite import SqliteStore


def _plant(db_path: Path, name: str, *, pid: int, hostname: str, expires_in: float) -> None:
    with sqlite3.connect(db_path, isolation_level=None) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO locks (name, owner, pid, hostname, expires_at) "
            "VALUES (?, 'someone', ?, ?, ?)",
            (name, pid, hostname, time.time() + expires_in),
        )


async def test_held_lock_is_renewed_past_its_lease(db_path: Path, store: SqliteStore) -> None:
    holder = SqliteStore(db_path, lock_lease_seconds=0.6)
    rival = SqliteStore(db_path, lock_lease_seconds=0.6)
    try:
        async with holder.lock("long"):
            with pytest.raises(LockTimeoutError):
                async with rival.lock("long", timeout=1.5):
                    pass
        async with rival.lock("long", timeout=1):
            pass
    finally:
        await holder.close()
        await rival.close()


async def test_expired_lease_of_another_host_is_taken_over(
    db_path: Path, store: SqliteStore
) -> None:
    _plant(db_path, "remote", pid=1, hostname="elsewhere.invalid", expires_in=-1)
    async with store.lock("remote", timeout=0.5):
        pass


async def test_live_lease_of_another_host_is_respected(db_path: Path, store: SqliteStore) -> None:
    _plant(db_path, "remote", pid=4242, hostname="elsewhere.invalid", expires_in=30)
    with pytest.raises(LockTimeoutError) as caught:
        async with store.lock("remote", timeout=0.2):
            pass
    assert "4242" in str(caught.value) and "elsewhere.invalid" in str(caught.value)


async def test_release_leaves_a_taken_over_lock_alone(db_path: Path, store: SqliteStore) -> None:
    async with store.lock("stolen"):
        _plant(db_path, "stolen", pid=4242, hostname="elsewhere.invalid", expires_in=30)
    with sqlite3.connect(db_path) as conn:
        (owner,) = conn.execute("SELECT owner FROM locks WHERE name = 'stolen'").fetchone()
    assert owner == "someone"


async def test_cancelled_waiter_leaves_no_lock_behind(store: SqliteStore) -> None:
    async with store.lock("c"):
        waiter = asyncio.create_task(store.lock("c", timeout=5).__aenter__())
        await asyncio.sleep(0.05)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
    async with store.lock("c", timeout=0.5):
        pass
