"""``cognee.infrastructure.databases.vector.pgvector``: ``create_db_and_tables``. engramdb's
vectors live in its one store (pgvector on the PostgreSQL backend), whose tables
``create_db_and_tables`` creates with the rest."""

from engramdb.compat.cognee.infrastructure.databases.relational.create_db_and_tables import (
    create_db_and_tables,
)

__all__ = ["create_db_and_tables"]
