"""Cross-process named locks."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

import pytest

from engramdb.errors import LockTimeoutError
from engramdb.storage.base import Store


async def test_lock_excludes_concurrent_holders(store: Store) -> None:
    active = 0
    peak = 0
    order: list[int] = []

    async def worker(i: int) -> None:
        nonlocal active, peak
        async with store.lock("dataset:x", timeout=10):
            active += 1
            peak = max(peak, active)
            order.append(i)
            await asyncio.sleep(0.02)
            active -= 1

    await asyncio.gather(*(worker(i) for i in range(4)))
    assert peak == 1
    assert sorted(order) == [0, 1, 2, 3]


async def test_lock_timeout_names_the_lock_and_holder(store: Store) -> None:
    async with store.lock("dataset:busy"):
        with pytest.raises(LockTimeoutError) as caught:
            async with store.lock("dataset:busy", timeout=0.2):
                pytest.fail("acquired a held lock")
    assert "dataset:busy" in str(caught.value)
    assert str(os.getpid()) in str(caught.value)


async def test_different_names_do_not_block(store: Store) -> None:
    async with store.lock("a", timeout=1), store.lock("b", timeout=1):
        pass


async def test_lock_is_released_on_error(store: Store) -> None:
    with pytest.raises(RuntimeError):
        async with store.lock("dataset:err", timeout=1):
            raise RuntimeError("body failed")
    async with store.lock("dataset:err", timeout=0.5):
        pass


async def test_lock_excludes_another_store_object(
    store: Store, open_store: Callable[[], Store]
) -> None:
    other = open_store()
    try:
        async with store.lock("shared"):
            with pytest.raises(LockTimeoutError):
                async with other.lock("shared", timeout=0.2):
                    pass
        async with other.lock("shared", timeout=1):
            pass
    finally:
        await other.close()


async def test_waiter_gets_the_lock_when_released(store: Store) -> None:
    released = asyncio.Event()

    async def holder() -> None:
        async with store.lock("handover"):
            await asyncio.sleep(0.15)
            released.set()

    task = asyncio.create_task(holder())
    await asyncio.sleep(0.05)
    async with store.lock("handover", timeout=5):
        assert released.is_set()
    await task
