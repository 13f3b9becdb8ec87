"""Conversions between PostgreSQL rows and engramdb records.

psycopg already returns ``uuid.UUID``, aware ``datetime`` (the session runs in UTC) and decoded
``jsonb``; what is left is building the records and encoding JSON on the way in. JSON is encoded
here, in Python, before a transaction starts, so a value that cannot be stored (an arbitrary
object in ``properties``) fails as a validation error with nothing written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.models.records import DataRecord, Dataset, Edge, Node, PipelineRun, RunStatus, User

__all__ = [
    "DATASET_COLUMNS",
    "DATA_COLUMNS",
    "EDGE_COLUMNS",
    "EDGE_COLUMNS_BARE",
    "NODE_COLUMNS",
    "NODE_COLUMNS_BARE",
    "RUN_COLUMNS",
    "USER_COLUMNS",
    "row_to_data",
    "row_to_dataset",
    "row_to_edge",
    "row_to_node",
    "row_to_run",
    "row_to_user",
    "to_json",
    "utc",
]

USER_COLUMNS = "id, email, is_default, created_at, is_admin"
DATASET_COLUMNS = "id, owner_id, name, embedding_model, embedding_dim, created_at"
DATA_COLUMNS = (
    "id, dataset_id, name, content_hash, mime_type, importance_weight, external_metadata, "
    "node_set, size_bytes, chunk_count, created_at"
)
RUN_COLUMNS = (
    "id, dataset_id, pipeline, status, graph_writing, error_class, error_message, pid, "
    "hostname, counts, started_at, finished_at"
)
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

Row = Sequence[Any]


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


def row_to_user(row: Row) -> User:
    return User(
        id=row[0],
        email=row[1],
        is_default=bool(row[2]),
        created_at=utc(row[3]),
        is_admin=bool(row[4]),
    )


def row_to_dataset(row: Row) -> Dataset:
    return Dataset(
        id=row[0],
        owner_id=row[1],
        name=row[2],
        embedding_model=row[3],
        embedding_dim=row[4],
        created_at=utc(row[5]),
    )


def row_to_data(row: Row) -> DataRecord:
    return DataRecord(
        id=row[0],
        dataset_id=row[1],
        name=row[2],
        content_hash=row[3],
        mime_type=row[4],
        importance_weight=row[5],
        external_metadata=row[6] if row[6] is not None else {},
        node_set=row[7] if row[7] is not None else [],
        size_bytes=row[8],
        chunk_count=row[9],
        created_at=utc(row[10]),
    )


def row_to_run(row: Row) -> PipelineRun:
    return PipelineRun(
        id=row[0],
        dataset_id=row[1],
        pipeline=row[2],
        status=RunStatus(row[3]),
        graph_writing=bool(row[4]),
        error_class=row[5],
        error_message=row[6],
        pid=row[7],
        hostname=row[8],
        counts=row[9] if row[9] is not None else {},
        started_at=utc(row[10]),
        finished_at=utc(row[11]) if row[11] is not None else None,
    )


def row_to_node(row: Row) -> Node:
    return Node(
        id=row[0],
        dataset_id=row[1],
        type=row[2],
        name=row[3],
        text=row[4],
        properties=row[5] if row[5] is not None else {},
        importance_weight=row[6],
        feedback_weight=row[7],
        data_ids=list(row[8] or []),
    )


def row_to_edge(row: Row) -> Edge:
    return Edge(
        id=row[0],
        dataset_id=row[1],
        source_id=row[2],
        target_id=row[3],
        relation=row[4],
        properties=row[5] if row[5] is not None else {},
        importance_weight=row[6],
        feedback_weight=row[7],
        data_ids=list(row[8] or []),
    )
