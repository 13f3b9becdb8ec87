"""Where compiled Cypher runs: a small backend interface plus the embedded SQLite backend.

The compiler (:mod:`.compiler`) emits parameterised SQL over the store's ``nodes`` and ``edges``
tables with ``?`` placeholders; the few places where SQL dialects differ (JSON access, list
membership, substring search) go through a :class:`Dialect`. A new storage backend implements a
:class:`CypherBackend` -- its dialect plus one ``fetch`` coroutine -- and exposes it from its
store as ``cypher_backend()``; nothing else in the Cypher package changes. The PostgreSQL store
would map ``json_extract`` to ``jsonb`` operators and ``?`` to ``%s``.

Execution is bounded in time as well as in rows: SQLite's progress handler aborts a statement
that runs past its budget, and the abort surfaces as :class:`CypherTimeoutError` (a validation
error: the query is too expensive, not the store broken).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engramdb.errors import CypherTimeoutError, FeatureNotAvailableError
from engramdb.retrieval.cypher.errors import DOCS_HINT

if TYPE_CHECKING:
    from engramdb.storage.base import Store
    from engramdb.storage.sqlite.store import SqliteStore

__all__ = [
    "CypherBackend",
    "CypherTimeoutError",
    "Dialect",
    "Fragment",
    "SqliteCypherBackend",
    "SqliteDialect",
    "backend_for",
]

#: A piece of SQL with ``?`` placeholders and the values bound to them, in order.
Fragment = tuple[str, list[object]]


class Dialect(ABC):
    """The SQL a backend spells differently. Every method returns a :data:`Fragment`."""

    @abstractmethod
    def in_json_list(self, column: str, values: Sequence[object]) -> Fragment:
        """``column`` is one of ``values`` (bound as ONE parameter, however many there are)."""

    @abstractmethod
    def json_value(self, properties: str, key: str) -> Fragment:
        """The SQL value of ``properties[key]`` (NULL when missing)."""

    @abstractmethod
    def json_type(self, properties: str, key: str) -> Fragment:
        """The JSON type name of ``properties[key]`` ('array', 'object', 'true', ...)."""

    @abstractmethod
    def json_members(self, properties: str, key: str) -> Fragment:
        """A subquery yielding the elements of the list ``properties[key]`` (a scalar: itself)."""

    @abstractmethod
    def contains(self, haystack: Fragment, needle: Fragment) -> Fragment: ...

    @abstractmethod
    def json_array1(self, value: Fragment) -> Fragment:
        """A one-element JSON array (``labels(n)``)."""


class SqliteDialect(Dialect):
    def in_json_list(self, column: str, values: Sequence[object]) -> Fragment:
        return f"{column} IN (SELECT value FROM json_each(?))", [json.dumps(list(values))]

    def json_value(self, properties: str, key: str) -> Fragment:
        return f"json_extract({properties}, ?)", [_path(key)]

    def json_type(self, properties: str, key: str) -> Fragment:
        return f"json_type({properties}, ?)", [_path(key)]

    def json_members(self, properties: str, key: str) -> Fragment:
        return f"SELECT value FROM json_each({properties}, ?)", [_path(key)]

    def contains(self, haystack: Fragment, needle: Fragment) -> Fragment:
        return f"(instr({haystack[0]}, {needle[0]}) > 0)", [*haystack[1], *needle[1]]

    def json_array1(self, value: Fragment) -> Fragment:
        return f"json_array({value[0]})", list(value[1])


def _path(key: str) -> str:
    # The compiler rejects keys containing '"', so quoting the key is enough to make any other
    # character (dots, spaces, brackets) a literal part of the name.
    return f'$."{key}"'


class CypherBackend(ABC):
    """Runs compiled Cypher for one store."""

    dialect: Dialect

    @abstractmethod
    async def fetch(
        self, sql: str, params: Sequence[object], *, timeout: float
    ) -> list[tuple[Any, ...]]:
        """All rows of one read-only statement, in one consistent snapshot; raises
        :class:`CypherTimeoutError` when it runs longer than ``timeout`` seconds."""


class SqliteCypherBackend(CypherBackend):
    """Runs on the store's read connection, inside its read transaction (one WAL snapshot)."""

    #: Virtual-machine instructions between two deadline checks.
    PROGRESS_STEPS = 10_000

    def __init__(self, store: SqliteStore) -> None:
        self.dialect = SqliteDialect()
        # The store exposes no public SQL hook yet; its Database runs a unit of work in a read
        # transaction with error translation, which is exactly what a read-only query needs.
        self._db = store._db

    async def fetch(
        self, sql: str, params: Sequence[object], *, timeout: float
    ) -> list[tuple[Any, ...]]:
        def work(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
            deadline = time.monotonic() + timeout
            conn.set_progress_handler(lambda: int(time.monotonic() > deadline), self.PROGRESS_STEPS)
            try:
                return [tuple(row) for row in conn.execute(sql, list(params)).fetchall()]
            except sqlite3.OperationalError as exc:
                if "interrupted" in str(exc).lower():
                    raise CypherTimeoutError(
                        f"the Cypher query ran longer than {timeout:g} s and was stopped; add "
                        "labels, a relationship type or a WHERE filter to narrow the pattern, "
                        "or raise retriever_specific_config['timeout_seconds']"
                    ) from None
                raise
            finally:
                conn.set_progress_handler(None, 0)

        return await asyncio.to_thread(self._db.read, work)


def backend_for(store: Store) -> CypherBackend:
    """The Cypher backend of ``store``: its own ``cypher_backend()`` when it has one, the SQLite
    backend for the embedded store."""
    hook = getattr(store, "cypher_backend", None)
    if callable(hook):
        backend = hook()
        if isinstance(backend, CypherBackend):
            return backend
    from engramdb.storage.sqlite.store import SqliteStore

    if isinstance(store, SqliteStore):
        return SqliteCypherBackend(store)
    raise FeatureNotAvailableError(
        f"CYPHER is not available for the {type(store).__name__} backend yet; {DOCS_HINT}"
    )
