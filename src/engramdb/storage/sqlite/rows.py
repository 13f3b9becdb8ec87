"""Conversions between SQLite rows and engramdb records.

Times are stored as fixed-width ISO-8601 UTC strings (``2024-05-01T12:00:00.000000+00:00``) so
that text ordering is time ordering; naive datetimes are taken to be UTC. JSON columns are
encoded with :func:`to_json`, which accepts the few non-JSON types records commonly carry
(datetimes, UUIDs, sets) and rejects anything else instead of silently stringifying it.
"""

from __future__ import annotations

import json
import sqlite3
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
    "from_json",
    "parse_time",
    "row_to_data",
    "row_to_dataset",
    "row_to_edge",
    "row_to_node",
    "row_to_run",
    "row_to_user",
    "to_json",
    "to_time",
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
#: Node columns with the provenance folded in as a JSON array (``n`` aliases ``nodes``).
NODE_COLUMNS = (
    "n.id, n.dataset_id, n.type, n.name, n.text, n.properties, n.importance_weight, "
    "n.feedback_weight, (SELECT json_group_array(s.data_id) FROM node_sources s "
    "WHERE s.node_id = n.id)"
)
#: Node columns without the provenance (``data_ids`` read as empty), for hot read paths.
NODE_COLUMNS_BARE = (
    "n.id, n.dataset_id, n.type, n.name, n.text, n.properties, n.importance_weight, "
    "n.feedback_weight, '[]'"
)
#: Edge columns with the provenance folded in (``e`` aliases ``edges``).
EDGE_COLUMNS = (
    "e.id, e.dataset_id, e.source_id, e.target_id, e.relation, e.properties, "
    "e.importance_weight, e.feedback_weight, (SELECT json_group_array(s.data_id) "
    "FROM edge_sources s WHERE s.edge_id = e.id)"
)
#: Edge columns without the provenance (``data_ids`` read as empty).
EDGE_COLUMNS_BARE = (
    "e.id, e.dataset_id, e.source_id, e.target_id, e.relation, e.properties, "
    "e.importance_weight, e.feedback_weight, '[]'"
)


def to_time(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def parse_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _json_default(value: object) -> object:
    if isinstance(value, datetime):
        return to_time(value)
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def to_json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=_json_default)
    except (TypeError, ValueError) as exc:
        raise EngramValidationError(
            f"A value cannot be stored as JSON ({exc}); use JSON types in metadata/properties."
        ) from exc


def from_json(value: str | None, default: Any) -> Any:
    if value is None or value == "":
        return default
    return json.loads(value)


def _ids(value: str | None) -> list[UUID]:
    return [UUID(item) for item in from_json(value, [])]


def row_to_user(row: sqlite3.Row | tuple[Any, ...]) -> User:
    return User(
        id=UUID(row[0]),
        email=row[1],
        is_default=bool(row[2]),
        created_at=parse_time(row[3]),
        is_admin=bool(row[4]),
    )


def row_to_dataset(row: sqlite3.Row | tuple[Any, ...]) -> Dataset:
    return Dataset(
        id=UUID(row[0]),
        owner_id=UUID(row[1]),
        name=row[2],
        embedding_model=row[3],
        embedding_dim=row[4],
        created_at=parse_time(row[5]),
    )


def row_to_data(row: sqlite3.Row | tuple[Any, ...]) -> DataRecord:
    return DataRecord(
        id=UUID(row[0]),
        dataset_id=UUID(row[1]),
        name=row[2],
        content_hash=row[3],
        mime_type=row[4],
        importance_weight=row[5],
        external_metadata=from_json(row[6], {}),
        node_set=from_json(row[7], []),
        size_bytes=row[8],
        chunk_count=row[9],
        created_at=parse_time(row[10]),
    )


def row_to_run(row: sqlite3.Row | tuple[Any, ...]) -> PipelineRun:
    return PipelineRun(
        id=UUID(row[0]),
        dataset_id=UUID(row[1]),
        pipeline=row[2],
        status=RunStatus(row[3]),
        graph_writing=bool(row[4]),
        error_class=row[5],
        error_message=row[6],
        pid=row[7],
        hostname=row[8],
        counts=from_json(row[9], {}),
        started_at=parse_time(row[10]),
        finished_at=parse_time(row[11]) if row[11] is not None else None,
    )


def row_to_node(row: sqlite3.Row | tuple[Any, ...]) -> Node:
    return Node(
        id=UUID(row[0]),
        dataset_id=UUID(row[1]),
        type=row[2],
        name=row[3],
        text=row[4],
        properties=from_json(row[5], {}),
        importance_weight=row[6],
        feedback_weight=row[7],
        data_ids=_ids(row[8]),
    )


def row_to_edge(row: sqlite3.Row | tuple[Any, ...]) -> Edge:
    return Edge(
        id=UUID(row[0]),
        dataset_id=UUID(row[1]),
        source_id=UUID(row[2]),
        target_id=UUID(row[3]),
        relation=row[4],
        properties=from_json(row[5], {}),
        importance_weight=row[6],
        feedback_weight=row[7],
        data_ids=_ids(row[8]),
    )
