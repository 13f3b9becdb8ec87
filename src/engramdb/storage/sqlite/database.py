"""Connections, transactions and error translation for the SQLite store.

A :class:`Database` owns one write connection and one read connection, each guarded by a
``threading.Lock`` (the store calls them from worker threads, so ``check_same_thread`` is off).
Connections run in autocommit mode and every unit of work is an explicit transaction:

* writes use ``BEGIN IMMEDIATE`` so the write lock is taken up front (no deadlock-prone
  read-to-write upgrade); if SQLite still answers busy/locked after its busy timeout — possible
  when several processes share one file — the whole unit is rolled back and retried with backoff
  until a generous deadline. Users never see "database is locked".
* reads use a deferred transaction so multi-statement reads see one WAL snapshot.

sqlite3 errors are translated into :mod:`engramdb.errors` here, at the boundary.
"""

from __future__ import annotations

import contextlib
import logging
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from engramdb.errors import (
    ConflictError,
    DatabaseDamagedError,
    DatabaseNotCreatedError,
    StorageError,
    StorageFullError,
    StorageReadOnlyError,
)
from engramdb.storage.migrations import check_version
from engramdb.storage.sqlite.schema import LATEST_VERSION, applied_versions

__all__ = ["DAMAGED_MESSAGE", "Database", "damaged", "is_busy", "translate_error"]

T = TypeVar("T")

#: SQLite's own wait for a competing writer before it answers "busy" (milliseconds).
BUSY_TIMEOUT_MS = 30_000
#: How long a unit of work keeps retrying on busy/locked before giving up (seconds).
RETRY_DEADLINE_S = 600.0
#: Page cache sizes (KiB) of the write and read connections.
WRITER_CACHE_KIB = 65_536
READER_CACHE_KIB = 16_384

_TEMP_TABLES = (
    "CREATE TEMP TABLE IF NOT EXISTS del_data (id TEXT PRIMARY KEY)",
    "CREATE TEMP TABLE IF NOT EXISTS del_nodes (id TEXT PRIMARY KEY)",
    "CREATE TEMP TABLE IF NOT EXISTS del_edges (id TEXT PRIMARY KEY)",
)


def is_busy(exc: BaseException) -> bool:
    """True for SQLite's transient lock contention errors (SQLITE_BUSY / SQLITE_LOCKED)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


#: How messages name where the store lives (never the absolute path: messages reach clients).
DATA_DIR_SETTING = "ENGRAMDB_DATA_DIR"
DAMAGED_MESSAGE = (
    f"The database file in the data directory ({DATA_DIR_SETTING}) is damaged or is not an "
    "engramdb database; nothing was changed. Restore the data directory from a copy, or point "
    "the setting at another directory."
)


def damaged(exc: sqlite3.Error) -> bool:
    """True when SQLite says the file is not a database or is malformed."""
    lowered = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and (
        "not a database" in lowered or "malformed" in lowered or "file is encrypted" in lowered
    )


def translate_error(exc: sqlite3.Error, path: Path) -> Exception:
    """Map a driver error onto the engramdb error tree (callers ``raise ... from exc``)."""
    text = str(exc)
    lowered = text.lower()
    if isinstance(exc, sqlite3.IntegrityError):
        if "unique" in lowered or "primary key" in lowered:
            return ConflictError(f"A record with the same key already exists ({text}).")
        if "foreign key" in lowered:
            return StorageError(
                f"A write refers to a row that does not exist ({text}); nothing was written."
            )
        return StorageError(f"A write violates a database constraint ({text}).")
    if "disk is full" in lowered or "disk full" in lowered:
        return StorageFullError(
            f"The disk holding the data directory ({DATA_DIR_SETTING}) is full; nothing was "
            "written. Free space on it, or move the data directory to a larger disk."
        )
    if "readonly" in lowered or "read-only" in lowered:
        return StorageReadOnlyError(
            f"The database in the data directory ({DATA_DIR_SETTING}) is read-only; nothing was "
            "written. Give this process write permission on the directory and its files, or "
            "point the setting at a writable directory. Reads keep working."
        )
    if damaged(exc):
        return DatabaseDamagedError(DAMAGED_MESSAGE)
    if "no such table" in lowered:
        return DatabaseNotCreatedError(
            f"The database at {path} has no engramdb schema; run setup() first."
        )
    if is_busy(exc):
        return StorageError(
            f"The database at {path} stayed busy for {RETRY_DEADLINE_S:.0f} s; another process "
            "holds a long write. Try again when it finishes."
        )
    return StorageError(f"SQLite error on {path}: {text}")


#: ``secure_delete`` during a bulk delete. SQLite builds that default it to ON (as this
#: platform's may) overwrite every freed page with zeros: forgetting a 100k-chunk dataset then
#: writes its ~1.4 GB once more, through the WAL (~7 of its ~9 s). FAST still zeroes deleted
#: content on the pages that stay in use and leaves whole freed pages as they are, until SQLite
#: reuses them — what SQLite's own default (OFF) does for every delete, and less.
BULK_SECURE_DELETE = "FAST"


class Database:
    """The write and read connections of one store object (opened lazily)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._write_lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._writer: sqlite3.Connection | None = None
        self._reader: sqlite3.Connection | None = None
        self._verified = False
        self._closed = False

    # --- connections ------------------------------------------------------------------------

    def _connect(self, cache_kib: int) -> sqlite3.Connection:
        conn = sqlite3.connect(
            str(self.path),
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA temp_store = MEMORY")
        # SQLite's default 2 MiB page cache thrashes on set-based deletes of 100k rows (random
        # UUID keys in several indexes); a larger cache is only allocated when used.
        conn.execute(f"PRAGMA cache_size = -{cache_kib}")
        return conn

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("The store is closed; open a new one.")

    def _verify_schema(self, conn: sqlite3.Connection) -> None:
        """Refuse to work on a file that ``setup`` has not (fully) migrated."""
        if self._verified:
            return
        versions = _retry(lambda: applied_versions(conn))
        check_version(max(versions, default=None), LATEST_VERSION, str(self.path))
        self._verified = True

    def _get_writer(self, *, verify: bool = True) -> sqlite3.Connection:
        self._check_open()
        if self._writer is None:
            if not self.path.exists():
                raise DatabaseNotCreatedError(
                    f"No engramdb database at {self.path}; run setup() first."
                )
            conn = self._connect(WRITER_CACHE_KIB)
            for statement in _TEMP_TABLES:
                conn.execute(statement)
            self._writer = conn
        if verify:
            self._verify_schema(self._writer)
        return self._writer

    def _get_reader(self) -> sqlite3.Connection:
        self._check_open()
        if self._reader is None:
            if not self.path.exists():
                raise DatabaseNotCreatedError(
                    f"No engramdb database at {self.path}; run setup() first."
                )
            self._reader = self._connect(READER_CACHE_KIB)
        self._verify_schema(self._reader)
        return self._reader

    def applied(self) -> set[int]:
        """The migration versions the file records, read without a write transaction."""
        with self._write_lock:
            try:
                conn = self._get_writer(verify=False)
                return _retry(lambda: applied_versions(conn))
            except sqlite3.Error as exc:
                raise translate_error(exc, self.path) from exc

    def mark_verified(self) -> None:
        self._verified = True

    # --- units of work -------------------------------------------------------------------------

    def write(
        self,
        work: Callable[[sqlite3.Connection], T],
        *,
        verify: bool = True,
        bulk_delete: bool = False,
    ) -> T:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction, retrying on busy/locked.

        ``work`` must only touch the database (it may run more than once). Any exception rolls
        the transaction back; sqlite3 errors come out translated. ``bulk_delete=True`` is for
        work that deletes most of a large store, children before parents itself (the bulk
        forget of a dataset): it runs without foreign-key enforcement (no per-row parent/child
        look-ups and no cascades, and a ``DELETE`` without ``WHERE`` empties a table at once)
        and with ``secure_delete = FAST`` (see :data:`BULK_SECURE_DELETE`).
        """
        with self._write_lock:
            try:
                conn = self._get_writer(verify=verify)
                if not bulk_delete:
                    return _transaction(conn, work, "BEGIN IMMEDIATE")
                # The foreign-key pragma is a no-op inside a transaction: switched around it.
                previous = conn.execute("PRAGMA secure_delete").fetchone()[0]
                conn.execute("PRAGMA foreign_keys = OFF")
                conn.execute(f"PRAGMA secure_delete = {BULK_SECURE_DELETE}")
                try:
                    return _transaction(conn, work, "BEGIN IMMEDIATE")
                finally:
                    conn.execute(f"PRAGMA secure_delete = {int(previous)}")
                    conn.execute("PRAGMA foreign_keys = ON")
            except sqlite3.Error as exc:
                raise translate_error(exc, self.path) from exc

    def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in one read transaction (one consistent snapshot)."""
        with self._read_lock:
            try:
                conn = self._get_reader()
                return _transaction(conn, work, "BEGIN")
            except sqlite3.Error as exc:
                raise translate_error(exc, self.path) from exc

    def setup_file(self) -> None:
        """Create the parent directory and the file and switch it to WAL (idempotent)."""
        self._check_open()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"Cannot create the data directory {self.path.parent}: {exc.strerror or exc}."
            ) from exc
        with self._write_lock:
            try:
                conn = self._writer
                if conn is None:
                    conn = self._connect(WRITER_CACHE_KIB)
                    for statement in _TEMP_TABLES:
                        conn.execute(statement)
                    self._writer = conn
                mode = _retry(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
                if mode is None or str(mode[0]).lower() != "wal":
                    raise StorageError(f"Could not switch {self.path} to WAL mode (got {mode}).")
            except sqlite3.Error as exc:
                raise translate_error(exc, self.path) from exc

    def close(self) -> None:
        """Close both connections, after moving the write-ahead log into the database file so a
        copy of the ``.sqlite3`` file alone holds everything committed (best effort: a busy
        database keeps its WAL, which SQLite replays on the next open)."""
        with self._write_lock, self._read_lock:
            self._closed = True
            if self._writer is not None:
                try:
                    self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error:
                    logger.warning("could not checkpoint the WAL of %s on close", self.path.name)
            for conn in (self._writer, self._reader):
                if conn is not None:
                    conn.close()
            self._writer = self._reader = None


logger = logging.getLogger(__name__)


def _backoff(attempt: int) -> float:
    return float(min(0.5, 0.005 * 2**attempt) * (0.5 + random.random()))


def _retry(fn: Callable[[], T]) -> T:
    """Call ``fn`` until it stops failing with busy/locked (or the deadline passes)."""
    deadline = time.monotonic() + RETRY_DEADLINE_S
    attempt = 0
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(_backoff(attempt))
        attempt += 1


def _transaction(
    conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T], begin: str
) -> T:
    deadline = time.monotonic() + RETRY_DEADLINE_S
    attempt = 0
    while True:
        try:
            conn.execute(begin)
            try:
                result = work(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                raise
            return result
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(_backoff(attempt))
        attempt += 1
