"""Row converters both backends share (columns in the order of the ``*_COLUMNS`` lists).

Nodes and edges are read with each backend's own column lists (``NODE_COLUMNS`` and the like in
its ``rows`` module), which fold the provenance in as a JSON array (SQLite) or an array
(PostgreSQL); :func:`.values.as_uuids` reads either.
"""

from __future__ import annotations

from typing import cast

from engramdb.models.access import ApiKeyInfo, Grant, Permission, PrincipalKind
from engramdb.models.records import DataRecord, Dataset, Edge, Node, PipelineRun, RunStatus, User
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.unit import Row
from engramdb.storage.sql.values import as_json, as_time, as_uuid, as_uuids, maybe_time
from engramdb.storage.types import StoredApiKey

__all__ = [
    "DATASET_COLUMNS",
    "DATA_COLUMNS",
    "GRANT_COLUMNS",
    "KEY_COLUMNS",
    "RUN_COLUMNS",
    "USER_COLUMNS",
    "edge_columns",
    "node_columns",
    "row_to_data",
    "row_to_dataset",
    "row_to_grant",
    "row_to_key",
    "row_to_run",
    "row_to_user",
]

USER_COLUMNS = "id, email, is_default, created_at, is_admin, tenant_id"
DATASET_COLUMNS = "id, owner_id, name, embedding_model, embedding_dim, created_at, tenant_id"
DATA_COLUMNS = (
    "id, dataset_id, name, content_hash, mime_type, importance_weight, external_metadata, "
    "node_set, size_bytes, chunk_count, created_at"
)
RUN_COLUMNS = (
    "id, dataset_id, pipeline, status, graph_writing, error_class, error_message, pid, "
    "hostname, counts, started_at, finished_at, stages"
)
KEY_COLUMNS = "id, user_id, name, prefix, created_at, revoked_at, secret_hash"
GRANT_COLUMNS = "dataset_id, grantee_id, permission, granted_by, created_at, grantee_kind"


#: The node and edge columns (aliases ``n`` and ``e``) of each backend: the last one is the
#: provenance (the data ids), folded in as a JSON array (SQLite) or an array (PostgreSQL), or
#: read as empty by the ``bare`` lists of the hot read paths.
_NODE_COLUMNS = {
    "sqlite": (
        "n.id, n.dataset_id, n.type, n.name, n.text, n.properties, n.importance_weight, "
        "n.feedback_weight, (SELECT json_group_array(s.data_id) FROM node_sources s "
        "WHERE s.node_id = n.id)"
    ),
    "postgres": (
        "n.id, n.dataset_id, n.type, n.name, n.text, n.properties, n.importance_weight, "
        "n.feedback_weight, ARRAY(SELECT s.data_id FROM node_sources s "
        "WHERE s.node_id = n.id ORDER BY s.data_id)"
    ),
}
_NODE_COLUMNS_BARE = {
    "sqlite": (
        "n.id, n.dataset_id, n.type, n.name, n.text, n.properties, n.importance_weight, "
        "n.feedback_weight, '[]'"
    ),
    "postgres": (
        "n.id, n.dataset_id, n.type, n.name, n.text, n.properties, n.importance_weight, "
        "n.feedback_weight, NULL::uuid[]"
    ),
}
_EDGE_COLUMNS = {
    "sqlite": (
        "e.id, e.dataset_id, e.source_id, e.target_id, e.relation, e.properties, "
        "e.importance_weight, e.feedback_weight, (SELECT json_group_array(s.data_id) "
        "FROM edge_sources s WHERE s.edge_id = e.id)"
    ),
    "postgres": (
        "e.id, e.dataset_id, e.source_id, e.target_id, e.relation, e.properties, "
        "e.importance_weight, e.feedback_weight, ARRAY(SELECT s.data_id FROM edge_sources s "
        "WHERE s.edge_id = e.id ORDER BY s.data_id)"
    ),
}
_EDGE_COLUMNS_BARE = {
    "sqlite": (
        "e.id, e.dataset_id, e.source_id, e.target_id, e.relation, e.properties, "
        "e.importance_weight, e.feedback_weight, '[]'"
    ),
    "postgres": (
        "e.id, e.dataset_id, e.source_id, e.target_id, e.relation, e.properties, "
        "e.importance_weight, e.feedback_weight, NULL::uuid[]"
    ),
}


def node_columns(d: SqlDialect, *, provenance: bool = True) -> str:
    return (_NODE_COLUMNS if provenance else _NODE_COLUMNS_BARE)[d.name]


def edge_columns(d: SqlDialect, *, provenance: bool = True) -> str:
    return (_EDGE_COLUMNS if provenance else _EDGE_COLUMNS_BARE)[d.name]


def row_to_user(row: Row) -> User:
    return User(
        id=as_uuid(row[0]),
        email=row[1],
        is_default=bool(row[2]),
        created_at=as_time(row[3]),
        is_admin=bool(row[4]),
        tenant_id=None if row[5] is None else as_uuid(row[5]),
    )


def row_to_dataset(row: Row) -> Dataset:
    return Dataset(
        id=as_uuid(row[0]),
        owner_id=as_uuid(row[1]),
        name=row[2],
        embedding_model=row[3],
        embedding_dim=row[4],
        created_at=as_time(row[5]),
        tenant_id=None if row[6] is None else as_uuid(row[6]),
    )


def row_to_data(row: Row) -> DataRecord:
    return DataRecord(
        id=as_uuid(row[0]),
        dataset_id=as_uuid(row[1]),
        name=row[2],
        content_hash=row[3],
        mime_type=row[4],
        importance_weight=row[5],
        external_metadata=as_json(row[6], {}),
        node_set=as_json(row[7], []),
        size_bytes=row[8],
        chunk_count=row[9],
        created_at=as_time(row[10]),
    )


def row_to_run(row: Row) -> PipelineRun:
    return PipelineRun(
        id=as_uuid(row[0]),
        dataset_id=as_uuid(row[1]),
        pipeline=row[2],
        status=RunStatus(row[3]),
        graph_writing=bool(row[4]),
        error_class=row[5],
        error_message=row[6],
        pid=row[7],
        hostname=row[8],
        counts=as_json(row[9], {}),
        started_at=as_time(row[10]),
        finished_at=maybe_time(row[11]),
        stages=as_json(row[12], []),
    )


def row_to_key(row: Row) -> StoredApiKey:
    info = ApiKeyInfo(
        id=as_uuid(row[0]),
        user_id=as_uuid(row[1]),
        name=row[2],
        prefix=row[3],
        created_at=as_time(row[4]),
        revoked_at=maybe_time(row[5]),
    )
    return StoredApiKey(info=info, secret_hash=row[6])


def row_to_grant(row: Row) -> Grant:
    return Grant(
        dataset_id=as_uuid(row[0]),
        grantee_id=as_uuid(row[1]),
        permission=cast(Permission, row[2]),
        granted_by=as_uuid(row[3]),
        created_at=as_time(row[4]),
        grantee_kind=cast(PrincipalKind, row[5]),
    )


def row_to_node(row: Row) -> Node:
    return Node(
        id=as_uuid(row[0]),
        dataset_id=as_uuid(row[1]),
        type=row[2],
        name=row[3],
        text=row[4],
        properties=as_json(row[5], {}),
        importance_weight=row[6],
        feedback_weight=row[7],
        data_ids=as_uuids(row[8]),
    )


def row_to_edge(row: Row) -> Edge:
    return Edge(
        id=as_uuid(row[0]),
        dataset_id=as_uuid(row[1]),
        source_id=as_uuid(row[2]),
        target_id=as_uuid(row[3]),
        relation=row[4],
        properties=as_json(row[5], {}),
        importance_weight=row[6],
        feedback_weight=row[7],
        data_ids=as_uuids(row[8]),
    )
