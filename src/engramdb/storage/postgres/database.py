"""Connections, transactions and error translation for the PostgreSQL store.

A :class:`Database` owns one psycopg ``AsyncConnectionPool`` per event loop: psycopg's async
connections belong to the loop that opened them, and a library used through several
``asyncio.run`` calls (scripts, the CLI, tests) must not reuse a pool whose loop is gone. The pool
of a finished loop is dropped (its connections close when collected); the running loop's pool is
opened lazily with ``min_size=0``, so an idle store holds no server connections beyond those its
queries left in the pool.

Every new connection gets ``search_path = <store schema>, <pgvector's schema>``, UTC as its time
zone and an ``application_name`` naming this process (``engramdb pid=... host=...``) so that a lock
held by another process can be reported with the holder's pid and host.

Units of work are coroutines run inside one transaction (:meth:`Database.write` /
:meth:`Database.read`). A transaction that loses a deadlock or a serialization conflict is rolled
back and retried with backoff, so callers never see PostgreSQL's transient concurrency errors.
psycopg errors are translated into :mod:`engramdb.errors` here, at the boundary.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import psycopg
from psycopg import AsyncConnection, errors
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from engramdb.errors import (
    ConflictError,
    DatabaseNotCreatedError,
    EmbeddingMismatchError,
    EngramError,
    EngramValidationError,
    StorageError,
    StorageFullError,
    StorageReadOnlyError,
)
from engramdb.storage.migrations import check_version
from engramdb.storage.postgres.config import PostgresTarget
from engramdb.storage.postgres.schema import LATEST_VERSION, applied_version

__all__ = ["Conn", "Database", "is_missing_database", "translate_error"]

T = TypeVar("T")
Conn = AsyncConnection[Any]

#: How long a unit of work keeps retrying deadlocks / serialization failures (seconds).
RETRY_DEADLINE_S = 120.0
#: How long a caller waits for a free pooled connection before giving up (seconds).
POOL_TIMEOUT_S = 60.0
#: Connect timeout of every new connection (seconds), unless the URL sets connect_timeout.
CONNECT_TIMEOUT_S = 15

_TRANSIENT = (errors.DeadlockDetected, errors.SerializationFailure)

_CONFIGURE = """
SELECT set_config('search_path', format('%%I, %%s', %s::text, coalesce(
    (SELECT format('%%I', n.nspname) FROM pg_extension e
     JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'),
    'public')), false),
    set_config('TimeZone', 'UTC', false)
"""


def application_name() -> str:
    """This process as PostgreSQL's ``application_name`` shows it (at most 63 bytes)."""
    name = f"engramdb pid={os.getpid()} host={socket.gethostname()}"
    return name.encode()[:63].decode(errors="ignore")


def is_missing_database(exc: BaseException) -> bool:
    """Whether ``exc`` says the URL's database does not exist (libpq reports it at connect time
    as an OperationalError without SQLSTATE, so the message is all there is)."""
    if isinstance(exc, errors.InvalidCatalogName):
        return True
    return isinstance(exc, psycopg.OperationalError) and bool(
        re.search(r'database ".*" does not exist', str(exc))
    )


def translate_error(exc: psycopg.Error, target: PostgresTarget) -> EngramError:
    """Map a driver error onto the engramdb error tree (callers ``raise ... from exc``)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    where = target.display
    if isinstance(exc, errors.UniqueViolation):
        return ConflictError(f"A record with the same key already exists ({text}).")
    if isinstance(exc, errors.ForeignKeyViolation):
        return StorageError(
            f"A write refers to a row that does not exist ({text}); nothing was written."
        )
    if isinstance(exc, errors.IntegrityError):
        return StorageError(f"A write violates a database constraint ({text}).")
    if isinstance(exc, errors.UndefinedTable | errors.InvalidSchemaName):
        return DatabaseNotCreatedError(
            f"The PostgreSQL database at {where} has no engramdb schema {target.schema!r} "
            f"({text}); run setup() first."
        )
    if is_missing_database(exc):
        return DatabaseNotCreatedError(
            f"The PostgreSQL database of {where} does not exist ({text}); run setup() to "
            "create it, or create it yourself (CREATE DATABASE)."
        )
    if isinstance(exc, errors.UntranslatableCharacter | errors.CharacterNotInRepertoire) or (
        isinstance(exc, psycopg.DataError) and "NUL" in text
    ):
        return EngramValidationError(
            f"A text cannot be stored in PostgreSQL ({text}); NUL characters (\\x00) are not "
            "allowed in PostgreSQL text — remove them from the input."
        )
    if isinstance(exc, psycopg.DataError) and "dimension" in text.lower():
        return EmbeddingMismatchError(
            f"Vector dimensions do not match ({text}); the query or the document was embedded "
            "with a different model than the dataset."
        )
    if isinstance(exc, psycopg.DataError):
        return EngramValidationError(f"PostgreSQL rejected a value ({text}).")
    if isinstance(exc, errors.DiskFull):
        return StorageFullError(
            f"The PostgreSQL server of {where} is out of disk space ({text}); nothing was "
            "written. Free space on its data volume."
        )
    if isinstance(exc, errors.ReadOnlySqlTransaction):
        return StorageReadOnlyError(
            f"The PostgreSQL server of {where} accepts no writes ({text}: a standby, or "
            "default_transaction_read_only); nothing was written. Point ENGRAMDB_STORAGE_URL at "
            "the primary. Reads keep working."
        )
    if isinstance(exc, errors.InsufficientPrivilege):
        return StorageError(
            f"The PostgreSQL role of {where} lacks a privilege ({text}); grant it, or use a "
            "role that owns the engramdb schema."
        )
    if isinstance(exc, _TRANSIENT):
        return StorageError(
            f"PostgreSQL at {where} kept aborting a transaction for {RETRY_DEADLINE_S:.0f} s "
            f"because of concurrent writers ({text}); try again."
        )
    if isinstance(exc, psycopg.OperationalError):
        return StorageError(f"Cannot use the PostgreSQL server at {where}: {text}")
    return StorageError(f"PostgreSQL error on {where}: {text}")


def _backoff(attempt: int) -> float:
    return float(min(0.5, 0.005 * 2**attempt) * (0.5 + random.random()))


async def configure_connection(conn: Conn, schema: str) -> None:
    """Point ``conn`` at the store's schema (and pgvector's) and at UTC."""
    await conn.execute(_CONFIGURE, (schema,))
    await conn.commit()


class Database:
    """The connection pools of one store object (opened lazily, one per event loop)."""

    def __init__(
        self,
        target: PostgresTarget,
        on_connect: Callable[[Conn], Awaitable[object]] | None = None,
    ) -> None:
        self.target = target
        self._on_connect = on_connect
        self._pool: AsyncConnectionPool[Conn] | None = None
        self._pool_loop: asyncio.AbstractEventLoop | None = None
        self._verified = False
        self._closed = False

    # --- connections ------------------------------------------------------------------------

    def connect_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"application_name": application_name()}
        if "connect_timeout" not in self.target.conninfo:
            kwargs["connect_timeout"] = CONNECT_TIMEOUT_S
        return kwargs

    async def connect(self, *, autocommit: bool = False, dbname: str | None = None) -> Conn:
        """A new connection outside the pool (setup, locks); errors come out translated."""
        kwargs = self.connect_kwargs()
        if dbname is not None:
            kwargs["dbname"] = dbname
        try:
            conn = await AsyncConnection.connect(
                self.target.conninfo, autocommit=autocommit, **kwargs
            )
        except psycopg.Error as exc:
            raise translate_error(exc, self.target) from exc
        try:
            await self._configure(conn)
        except psycopg.Error as exc:
            await conn.close()
            raise translate_error(exc, self.target) from exc
        return conn

    async def _configure(self, conn: Conn) -> None:
        await configure_connection(conn, self.target.schema)
        if self._on_connect is not None:
            await self._on_connect(conn)
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                await conn.commit()

    async def pool(self) -> AsyncConnectionPool[Conn]:
        """The running loop's pool, opened (and the schema verified) on first use."""
        if self._closed:
            raise StorageError("The store is closed; open a new one.")
        loop = asyncio.get_running_loop()
        if self._pool is not None and self._pool_loop is loop:
            return self._pool
        if not self._verified:
            await self._verify_schema()
        pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            self.target.conninfo,
            min_size=0,
            max_size=self.target.pool_max_size,
            kwargs=self.connect_kwargs(),
            configure=self._configure,
            open=False,
            timeout=POOL_TIMEOUT_S,
            # A failed connection attempt is retried in the background no longer than a caller
            # could wait for it (the pool keeps no minimum, min_size=0); the default, five
            # minutes, kept a cancelled attempt alive at loop teardown.
            reconnect_timeout=POOL_TIMEOUT_S,
            name="engramdb",
        )
        await pool.open(wait=False)
        # A pool of an earlier (finished) loop cannot be closed from this one; it is dropped.
        self._pool, self._pool_loop = pool, loop
        return pool

    def mark_verified(self) -> None:
        self._verified = True

    async def _verify_schema(self) -> None:
        """Refuse to work on a database that ``setup`` has not (fully) migrated."""
        conn = await self.connect(autocommit=True)
        try:
            version = await applied_version(conn, self.target.schema)
        except psycopg.Error as exc:
            raise translate_error(exc, self.target) from exc
        finally:
            await conn.close()
        check_version(
            version, LATEST_VERSION, f"{self.target.display} (schema {self.target.schema!r})"
        )
        self._verified = True

    # --- units of work -------------------------------------------------------------------------

    async def write(self, work: Callable[[Conn], Awaitable[T]]) -> T:
        """Run ``work`` in one read-write transaction, retrying deadlocks and serialization
        failures. ``work`` must only touch the database (it may run more than once)."""
        return await self._run(work, snapshot=False)

    async def read(self, work: Callable[[Conn], Awaitable[T]], *, snapshot: bool = False) -> T:
        """Run ``work`` in one transaction; ``snapshot=True`` makes it REPEATABLE READ READ ONLY
        so that several statements see one snapshot."""
        return await self._run(work, snapshot=snapshot)

    async def _run(self, work: Callable[[Conn], Awaitable[T]], *, snapshot: bool) -> T:
        pool = await self.pool()
        deadline = time.monotonic() + RETRY_DEADLINE_S
        attempt = 0
        while True:
            try:
                async with pool.connection() as conn, conn.transaction():
                    if snapshot:
                        await conn.execute(
                            "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"
                        )
                    return await work(conn)
            except _TRANSIENT as exc:
                if time.monotonic() >= deadline:
                    raise translate_error(exc, self.target) from exc
            except PoolTimeout as exc:
                raise StorageError(
                    f"No free connection to {self.target.display} within {POOL_TIMEOUT_S:.0f} s "
                    f"(pool_max_size={self.target.pool_max_size}); raise pool_max_size in the "
                    "storage URL or the server's max_connections."
                ) from exc
            except psycopg.Error as exc:
                raise translate_error(exc, self.target) from exc
            await asyncio.sleep(_backoff(attempt))
            attempt += 1

    async def close(self) -> None:
        self._closed = True
        pool, loop = self._pool, self._pool_loop
        self._pool = self._pool_loop = None
        if pool is not None and loop is asyncio.get_running_loop():
            await pool.close()
