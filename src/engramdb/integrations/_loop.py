"""One background event loop per integration object, so sync framework calls can drive the
async engine.

Frameworks call memory both ways: LangGraph's ``store.put`` from a sync node and ``aput`` from an
async one, LangChain's ``invoke`` and ``ainvoke``. An :class:`~engramdb.Engine` (its connection
pool in particular) belongs to the loop it first ran on, so every call of one integration object
runs on ONE loop, owned by a daemon thread: sync calls block on it, async calls await it. That
also makes sync calls safe from inside a running loop (a sync LangGraph node in an async app),
where ``asyncio.run`` would refuse.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["LoopThread"]

T = TypeVar("T")


class LoopThread:
    """A daemon thread running an event loop; :meth:`run` and :meth:`arun` execute coroutines
    on it. Started on first use; :meth:`stop` ends it (idempotent)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=self._name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the loop and wait for its result (from any thread but the loop's)."""
        loop = self._ensure()
        if self._thread is threading.current_thread():
            work.close()
            raise RuntimeError(
                f"{self._name}: a sync call was made from inside the integration's own loop; "
                "use the async method instead"
            )
        return asyncio.run_coroutine_threadsafe(work, loop).result()

    async def arun(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the loop and await its result from the caller's loop."""
        loop = self._ensure()
        future = asyncio.run_coroutine_threadsafe(work, loop)
        return await asyncio.wrap_future(future)

    def stop(self) -> None:
        """Stop the loop and join its thread (after :meth:`run` of any cleanup)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
