"""Backing up and restoring the embedded store with SQLite's online backup API.

The store is one database file in WAL mode: committed transactions may sit in the ``-wal`` file
next to it until a checkpoint (closing the store checkpoints), so a plain copy of the
``.sqlite3`` file alone can miss them. :func:`backup_database` copies through SQLite instead: the
copy is one consistent snapshot of every committed transaction, taken while other connections
and processes keep reading and writing, written to a new self-contained file (no ``-wal``).
:func:`restore_database` copies a backup into place the same way.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

from engramdb.errors import ConfigurationError, EngramValidationError
from engramdb.storage.sqlite.ann import index_dir
from engramdb.storage.sqlite.database import damaged, translate_error
from engramdb.storage.sqlite.schema import applied_versions

__all__ = ["backup_database", "check_backup", "restore_database"]


def _copy(source: sqlite3.Connection, dest: Path) -> None:
    """``source`` into a new file at ``dest`` (written beside it, then renamed into place)."""
    partial = dest.with_name(dest.name + ".partial")
    partial.unlink(missing_ok=True)
    target = sqlite3.connect(partial)
    try:
        source.backup(target)
        target.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
    finally:
        target.close()
    os.replace(partial, dest)


def backup_database(path: Path, dest: Path) -> Path:
    """A consistent copy of the database at ``path`` in the new file ``dest``."""
    if dest.exists():
        raise EngramValidationError(
            f"backup destination {dest} already exists; choose a new file name"
        )
    if not dest.parent.is_dir():
        raise EngramValidationError(f"backup destination folder {dest.parent} does not exist")
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise translate_error(exc, path) from exc
    try:
        _copy(source, dest)
    except sqlite3.Error as exc:
        raise translate_error(exc, path) from exc
    finally:
        source.close()
    return dest


def check_backup(src: Path) -> None:
    """Refuse (EngramValidationError) a ``src`` that is not a readable engramdb database."""
    if not src.is_file():
        raise EngramValidationError(f"no backup file at {src}")
    try:
        conn = sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True)
        try:
            if not applied_versions(conn):
                raise EngramValidationError(f"{src} is not an engramdb database")
        finally:
            conn.close()
    except sqlite3.Error as exc:
        if damaged(exc):
            raise EngramValidationError(f"{src} is damaged or is not an engramdb database") from exc
        raise


def restore_database(src: Path, path: Path, *, overwrite: bool = False) -> None:
    """Put the backup ``src`` in place of the database at ``path`` (refused when one exists,
    unless ``overwrite``). Nothing is changed when ``src`` is not an engramdb database."""
    check_backup(src)
    if path.exists() and not overwrite:
        raise ConfigurationError(
            f"a database already exists in the data directory ({path.name}); pass --overwrite "
            "to replace it with the backup (stop every process using it first)"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True)
    try:
        _copy(source, path)
    finally:
        source.close()
    for suffix in ("-wal", "-shm"):  # the old file's log belongs to the replaced database
        with contextlib.suppress(FileNotFoundError):
            path.with_name(path.name + suffix).unlink()
    # So do its vector index files: the restored database builds its own on first search.
    shutil.rmtree(index_dir(path), ignore_errors=True)
