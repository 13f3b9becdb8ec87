"""Embedded storage backend: records, graph, vectors and full text in one SQLite file."""

from engramdb.storage.sqlite.store import SqliteStore

__all__ = ["SqliteStore"]
