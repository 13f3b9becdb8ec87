"""Conversions between PostgreSQL rows and engramdb records.

psycopg already returns ``uuid.UUID``, aware ``datetime`` (the session runs in UTC) and decoded
``jsonb``; what is left is building the records and encoding JSON on the way in. JSON is encoded
here, in Python, before a transaction starts, so a value that cannot be stored (an arbitrary
object in ``properties``) fails as a validation error with nothing written.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.storage.dialect import POSTGRES
from engramdb.storage.sql.rows import edge_columns, node_columns

__all__ = [
    "EDGE_COLUMNS",
    "EDGE_COLUMNS_BARE",
    "NODE_COLUMNS",
    "NODE_COLUMNS_BARE",
    "to_json",
    "utc",
]


NODE_COLUMNS = node_columns(POSTGRES)
NODE_COLUMNS_BARE = node_columns(POSTGRES, provenance=False)
EDGE_COLUMNS = edge_columns(POSTGRES)
EDGE_COLUMNS_BARE = edge_columns(POSTGRES, provenance=False)


def utc(value: datetime) -> datetime:
    """An aware UTC datetime (naive values are taken to be UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _json_default(value: object) -> object:
    if isinstance(value, datetime):
        return utc(value).isoformat(timespec="microseconds")
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def to_json(value: object) -> str:
    """JSON text for a ``jsonb`` parameter (cast with ``::jsonb`` in the SQL)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=_json_default, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise EngramValidationError(
            f"A value cannot be stored as JSON ({exc}); use JSON types (and finite numbers) in "
            "metadata/properties."
        ) from exc
