"""Conversions between PostgreSQL rows and engramdb records.

psycopg already returns ``uuid.UUID``, aware ``datetime`` (the session runs in UTC) and decoded
``jsonb``, which the shared converters (:mod:`engramdb.storage.sql.rows`) read as they are; what
is left here is the column lists and encoding JSON on the way in. JSON is encoded in Python,
before a transaction starts, so a value that cannot be stored (an arbitrary object in
``properties``, NaN) fails as a validation error with nothing written.
"""

from __future__ import annotations

from engramdb.storage.dialect import POSTGRES
from engramdb.storage.sql.rows import edge_columns, node_columns
from engramdb.storage.sql.values import encode_json

__all__ = [
    "EDGE_COLUMNS",
    "EDGE_COLUMNS_BARE",
    "NODE_COLUMNS",
    "NODE_COLUMNS_BARE",
    "to_json",
]


NODE_COLUMNS = node_columns(POSTGRES)
NODE_COLUMNS_BARE = node_columns(POSTGRES, provenance=False)
EDGE_COLUMNS = edge_columns(POSTGRES)
EDGE_COLUMNS_BARE = edge_columns(POSTGRES, provenance=False)


def to_json(value: object) -> str:
    """JSON text for a ``jsonb`` parameter (cast with ``::jsonb`` in the SQL)."""
    return encode_json(value, finite=True)
