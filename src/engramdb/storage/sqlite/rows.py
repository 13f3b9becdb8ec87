"""Conversions between SQLite rows and engramdb records.

Times are stored as fixed-width ISO-8601 UTC strings (``2024-05-01T12:00:00.000000+00:00``) so
that text ordering is time ordering; naive datetimes are taken to be UTC. JSON columns are
encoded with :func:`to_json`, which accepts the few non-JSON types records commonly carry
(datetimes, UUIDs, sets) and rejects anything else instead of silently stringifying it. Rows are
read back by the shared converters of :mod:`engramdb.storage.sql.rows`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from engramdb.storage.dialect import SQLITE
from engramdb.storage.sql.rows import edge_columns, node_columns
from engramdb.storage.sql.values import encode_json

__all__ = [
    "EDGE_COLUMNS",
    "EDGE_COLUMNS_BARE",
    "NODE_COLUMNS",
    "NODE_COLUMNS_BARE",
    "to_json",
    "to_time",
]


NODE_COLUMNS = node_columns(SQLITE)
NODE_COLUMNS_BARE = node_columns(SQLITE, provenance=False)
EDGE_COLUMNS = edge_columns(SQLITE)
EDGE_COLUMNS_BARE = edge_columns(SQLITE, provenance=False)


def to_time(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def to_json(value: object) -> str:
    return encode_json(value, finite=False)
