"""Server storage backend: records, graph, vectors (pgvector) and full text in one PostgreSQL
database. Needs the ``postgres`` extra (``pip install 'engramdb[postgres]'``)."""

from engramdb.storage.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
