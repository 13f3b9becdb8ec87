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

__all__ = [
    "EDGE_COLUMNS",
    "EDGE_COLUMNS_BARE",
    "NODE_COLUMNS",
    "NODE_COLUMNS_BARE",
    "to_json",
    "utc",
]

#: Node columns with the provenance folded in as an array (``n`` aliases ``nodes``).
NODE_COLUMNS = (
    "n.id, n.dataset_id, n.type, n.name, n.text, n.properties, n.importance_weight, "
    "n.feedback_weight, ARRAY(SELECT s.data_id FROM node_sources s "
    "WHERE s.node_id = n.id ORDER BY s.data_id)"
)
#: Node columns without the provenance (``data_ids`` read as empty), for hot read paths.
NODE_COLUMNS_BARE = (
    "n.id, n.dataset_id, n.type, n.name, n.text, n.properties, n.importance_weight, "
    "n.feedback_weight, NULL::uuid[]"
)
#: Edge columns with the provenance folded in (``e`` aliases ``edges``).
EDGE_COLUMNS = (
    "e.id, e.dataset_id, e.source_id, e.target_id, e.relation, e.properties, "
    "e.importance_weight, e.feedback_weight, ARRAY(SELECT s.data_id FROM edge_sources s "
    "WHERE s.edge_id = e.id ORDER BY s.data_id)"
)
#: Edge columns without the provenance (``data_ids`` read as empty).
EDGE_COLUMNS_BARE = (
    "e.id, e.dataset_id, e.source_id, e.target_id, e.relation, e.properties, "
    "e.importance_weight, e.feedback_weight, NULL::uuid[]"
)


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
