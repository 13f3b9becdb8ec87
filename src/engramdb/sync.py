"""``engramdb.sync``: every verb as a plain (blocking) function, for scripts and threads.

Each function is derived from the verb table (:mod:`engramdb.verbs`) exactly as its async twin
is: the same name, the same signature (the request model's), the same validation, the same
result. ``engramdb.sync.recall(...)`` is ``await engramdb.recall(...)`` without an event loop::

    import engramdb

    engramdb.sync.remember("Owls hunt at night.", dataset_name="birds")
    results = engramdb.sync.recall("When do owls hunt?", datasets=["birds"])
    engramdb.sync.session.get_session("chat-1")     # the session verbs
    engramdb.sync.datasets.list_data(dataset_id)     # cognee's datasets namespace

The calls run on a private event loop on a dedicated thread (one for the module-level
functions, one per :meth:`engramdb.Engine.sync` engine), so they work from a plain script, from
several threads at once, and from a worker thread while another event loop runs in the main
thread. Calling one from a coroutine (a running event loop on the calling thread) would block
that loop: it raises :class:`SyncInLoopError`, naming the verb to ``await`` instead.

The loop thread is stopped, and the engine it used closed, at interpreter exit, by
:func:`close` for the module-level functions, or by leaving a ``with engine.sync() as mem:``
block.

The module-level functions run on the default engine, as the async verbs do. A program that
also awaits the async verbs on a PostgreSQL store should give its blocking part an engine of
its own (``Engine(...).sync()``): a connection pool belongs to the event loop it was opened on.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures.thread  # noqa: F401 - its exit hook must be registered before ours
import inspect
import threading
import weakref
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engramdb.errors import ConfigurationError, SyncInLoopError
from engramdb.verbs import VERBS
from engramdb.verbs.spec import Verb

if TYPE_CHECKING:
    from engramdb.archive import ExportReport, ImportReport
    from engramdb.engine import Engine

__all__ = [
    "LoopThread",
    "SyncEngine",
    "SyncInLoopError",
    "SyncNamespace",
    "close",
    "export_archive",
    "import_archive",
    "sync_function",
    "sync_functions",
]

#: The namespaces a verb can live in, and the attribute they are reached under.
NAMESPACES = {
    "engramdb.session": "session",
    "engramdb.prune": "prune",
    "engramdb.datasets": "datasets",
}


class LoopThread:
    """A private event loop running on its own daemon thread, started by the first
    :meth:`run`, which submits a coroutine to it and blocks the calling thread until it is
    done. :meth:`close` (also run at interpreter exit once the thread started) awaits
    ``final()`` on the loop, then stops the thread."""

    def __init__(
        self, name: str, final: Callable[[], Coroutine[Any, Any, Any]] | None = None
    ) -> None:
        self._name = name
        self._final = final
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise ConfigurationError(
                    f"{self._name} was closed; create a new one to run verbs again"
                )
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                thread = threading.Thread(target=serve, name=self._name, daemon=True)
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
                at_exit(weakref.WeakMethod(self.close))
            return self._loop

    def run(self, work: Callable[[], Coroutine[Any, Any, Any]], verb: str) -> Any:
        """Run ``work()`` on the loop thread and return its result (its exception is raised
        here). Refused on a thread whose own event loop is running."""
        refuse_in_loop(verb)  # the loop thread itself included: its loop is running
        loop = self._start()
        future: Future[Any] = asyncio.run_coroutine_threadsafe(work(), loop)
        return future.result()

    def close(self) -> None:
        """Run ``final()`` on the loop (closing what it used), then stop the thread.
        Idempotent; the runner refuses work afterwards."""
        final = self._final
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:  # never used: close on a short-lived loop
            if final is not None:
                closer = threading.Thread(target=lambda: asyncio.run(final()), daemon=True)
                closer.start()
                closer.join(timeout=60)
            return
        try:
            if final is not None:
                asyncio.run_coroutine_threadsafe(final(), loop).result(timeout=60)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
            if not thread.is_alive():
                loop.close()

    @property
    def closed(self) -> bool:
        return self._closed


def refuse_in_loop(verb: str) -> None:
    """Raise :class:`SyncInLoopError` when the calling thread runs an event loop. ``verb`` is
    the path below ``engramdb`` (``recall``, ``session.add_feedback``)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise SyncInLoopError(
        f"engramdb.sync.{verb}() blocks, and it was called inside a running event loop; in "
        f"async code await the async verb instead: await engramdb.{verb}(...) (or "
        f"await engine.{verb}(...))"
    )


SyncFunction = Callable[..., Any]


def at_exit(close: weakref.WeakMethod[Callable[[], None]]) -> None:
    """Call ``close`` (if its object still exists) when the interpreter exits, before the
    thread pools refuse new work (an engine's close still runs blocking calls in worker
    threads): threading's own exit hooks run in reverse order of registration, ahead of
    ``atexit``."""

    def hook() -> None:
        method = close()
        if method is not None:
            method()

    register = getattr(threading, "_register_atexit", None)
    if register is None:  # pragma: no cover - every supported CPython has it
        atexit.register(hook)
        return
    try:
        register(hook)
    except RuntimeError:  # registering while the interpreter already shuts down
        atexit.register(hook)


def sync_function(
    verb: Verb[Any, Any],
    runner: Callable[[], LoopThread],
    call: Callable[[Verb[Any, Any], Any], Coroutine[Any, Any, Any]],
) -> SyncFunction:
    """A blocking function with ``verb``'s signature: validates its arguments into the verb's
    request on the calling thread, then runs ``call(verb, request)`` on the loop of
    ``runner()`` (looked up at each call)."""

    path = (
        verb.name if verb.namespace == "engramdb" else f"{NAMESPACES[verb.namespace]}.{verb.name}"
    )

    def run(*args: Any, **kwargs: Any) -> Any:
        refuse_in_loop(path)
        request = verb.bind(args, kwargs)
        return runner().run(lambda: call(verb, request), path)

    run.__name__ = run.__qualname__ = verb.name
    run.__module__ = "engramdb.sync"
    run.__signature__ = verb.signature  # type: ignore[attr-defined]
    run.__doc__ = inspect.getdoc(verb.handler)
    run.__engramdb_verb__ = verb.name  # type: ignore[attr-defined]
    return run


def sync_functions(
    namespace: str,
    runner: Callable[[], LoopThread],
    call: Callable[[Verb[Any, Any], Any], Coroutine[Any, Any, Any]],
) -> dict[str, SyncFunction]:
    """The blocking function of every verb of ``namespace``, by name."""
    return {
        name: sync_function(verb, runner, call)
        for name, verb in VERBS.items()
        if verb.namespace == namespace
    }


class SyncNamespace:
    """The blocking verbs of one namespace (``engramdb.sync.session``, ``mem.datasets``)."""

    def __init__(self, functions: dict[str, SyncFunction], namespace: str) -> None:
        self._functions = functions
        self._namespace = namespace

    def __getattr__(self, name: str) -> SyncFunction:
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(f"{self._namespace} has no verb {name!r}") from None

    def __dir__(self) -> list[str]:
        return sorted(self._functions)


class SyncEngine:
    """An :class:`~engramdb.Engine` with blocking verbs (``Engine.sync()``)::

        with engramdb.Engine(data_dir="./memory").sync() as mem:
            mem.remember("Owls hunt at night.")
            print(mem.recall("When do owls hunt?"))

    Every verb of the engine is a method with the same signature; the namespaced ones as
    ``mem.session.*``, ``mem.prune.*``, ``mem.datasets.*``. The engine runs on a private loop
    thread of its own: use it through this object only. :meth:`close` (or leaving the
    ``with`` block, or interpreter exit) closes the engine and stops the thread.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._runner = LoopThread(f"engramdb-sync-{id(engine):x}", final=engine.close)

        async def call(verb: Verb[Any, Any], request: Any) -> Any:
            engine._check_open()
            return await verb.handler(engine, request)

        runner = self._runner
        self._functions = sync_functions("engramdb", lambda: runner, call)
        self._namespaces = {
            attr: SyncNamespace(sync_functions(ns, lambda: runner, call), ns)
            for ns, attr in NAMESPACES.items()
        }

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._namespaces:
            return self._namespaces[name]
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(f"SyncEngine has no verb {name!r}") from None

    def __dir__(self) -> list[str]:
        methods = ["close", "engine", "export_archive", "import_archive"]
        return sorted([*self._functions, *self._namespaces, *methods])

    def export_archive(self, dest: str | Path, **options: Any) -> ExportReport:
        """:func:`engramdb.export_archive` of this engine's store, blocking."""

        return self._runner.run(  # type: ignore[no-any-return]
            lambda: self.engine.export_archive(dest, **options), "export_archive"
        )

    def import_archive(self, src: str | Path, **options: Any) -> ImportReport:
        """:func:`engramdb.import_archive` into this engine's store, blocking."""

        return self._runner.run(  # type: ignore[no-any-return]
            lambda: self.engine.import_archive(src, **options), "import_archive"
        )

    def __enter__(self) -> SyncEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the engine (waiting for its background runs) and stop the loop thread."""
        self._runner.close()


async def _call_current(verb: Verb[Any, Any], request: Any) -> Any:
    from engramdb.remote.switch import active_client

    return await active_client().call(verb, request)


async def _close_default() -> None:
    from engramdb.engine import close_default_engine

    await close_default_engine()


#: The loop thread of the module-level functions (replaced by :func:`close`): with the engine
#: registry, the one piece of module-level state, and it holds no connection of its own.
_runner = LoopThread("engramdb-sync", final=_close_default)


def _current() -> LoopThread:
    return _runner


def close() -> None:
    """Close the default engine the module-level functions used and stop their loop thread
    (also done at interpreter exit). A later call starts a fresh one."""
    global _runner
    runner, _runner = _runner, LoopThread("engramdb-sync", final=_close_default)
    runner.close()


def export_archive(dest: str | Path, **options: Any) -> ExportReport:
    """:func:`engramdb.export_archive`, blocking (same options)."""
    from engramdb import archive

    return _current().run(  # type: ignore[no-any-return]
        lambda: archive.export_archive(dest, **options), "export_archive"
    )


def import_archive(src: str | Path, **options: Any) -> ImportReport:
    """:func:`engramdb.import_archive`, blocking (same options)."""
    from engramdb import archive

    return _current().run(  # type: ignore[no-any-return]
        lambda: archive.import_archive(src, **options), "import_archive"
    )


globals().update(sync_functions("engramdb", _current, _call_current))
for _namespace, _attr in NAMESPACES.items():
    globals()[_attr] = SyncNamespace(
        sync_functions(_namespace, _current, _call_current), _namespace
    )


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'engramdb.sync' has no verb {name!r}")
