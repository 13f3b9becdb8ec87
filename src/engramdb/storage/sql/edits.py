"""Edits of ingested graph content (node rewrites, entity merges): the units both backends share.

Deleting an absorbed entity (with its vectors and full-text rows) and writing vectors stay in
each backend's ``edits`` module; these units check the nodes, rewrite a node's content,
re-point an entity's edges onto its survivor and hand its provenance over. Every unit runs
inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from engramdb.errors import EngramValidationError, NotFoundError
from engramdb.models.records import NodeType, edge_id, utcnow
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.rows import edge_columns, row_to_edge
from engramdb.storage.sql.unit import Unit, all_rows, execute, one
from engramdb.storage.sql.values import as_uuid, encode_json
from engramdb.storage.types import NodeRewrite

__all__ = ["absorb_provenance", "check_nodes", "repoint_edges", "rewrite_node"]


def check_nodes(
    d: SqlDialect, dataset_id: UUID, node_ids: Sequence[UUID], *, entities: bool
) -> Unit[None]:
    """Every id names an ingested node of the dataset (an ``Entity`` when ``entities``)."""
    wanted = sorted(set(node_ids), key=str)
    where, params = d.in_list("n.id", wanted)
    rows = yield from all_rows(
        "SELECT n.id, n.dataset_id, n.type, "
        "(SELECT count(*) FROM derived_nodes x WHERE x.node_id = n.id) "
        f"FROM nodes n WHERE {where}",
        *params,
    )
    found = {as_uuid(row[0]): row for row in rows}
    missing = [str(i) for i in wanted if i not in found]
    if missing:
        raise NotFoundError(
            f"node(s) {', '.join(missing[:3])} do not exist; nothing was changed "
            "(read the graph with get_graph() for the current node ids)"
        )
    for node_id, row in found.items():
        if as_uuid(row[1]) != dataset_id:
            raise EngramValidationError(
                f"node {node_id} belongs to dataset {row[1]}, not to {dataset_id}; "
                "nothing was changed"
            )
        if int(row[3]):
            raise EngramValidationError(
                f"node {node_id} is derived by improve(), not ingested; improve() rewrites it "
                "(nothing was changed)"
            )
        if entities and row[2] != NodeType.ENTITY.value:
            raise EngramValidationError(
                f"node {node_id} is a {row[2]} node; only Entity nodes are merged "
                "(nothing was changed)"
            )


def rewrite_node(d: SqlDialect, rewrite: NodeRewrite) -> Unit[int]:
    """Replace the node's text and properties (weights, name and provenance kept)."""
    p = d.param
    return (
        yield from execute(
            f"UPDATE nodes SET text = {p}, properties = {d.json_param()}, updated_at = {p} "
            f"WHERE id = {p}",
            rewrite.text,
            encode_json(dict(rewrite.properties), finite=d.name == "postgres"),
            utcnow(),
            rewrite.node_id,
        )
    )


def repoint_edges(d: SqlDialect, survivor: UUID, absorbed: Sequence[UUID]) -> Unit[tuple[int, int]]:
    """Copy every edge touching ``absorbed`` onto ``survivor`` as ``(moved, dropped)``.

    A re-pointed edge gets the id an ingest of that triple would give it, its own properties,
    weights, provenance and (for a derived edge) owner; when the survivor already has an edge
    of that relation to (or from) the same node, only the provenance is added to that one.
    Self-loops are dropped. The original edges stay for the caller to delete with the absorbed
    nodes."""
    p = d.param
    gone = set(absorbed)
    ids = sorted(gone, key=str)
    sources, source_params = d.in_list("e.source_id", ids)
    targets, target_params = d.in_list("e.target_id", ids)
    rows = yield from all_rows(
        f"SELECT {edge_columns(d)} FROM edges e WHERE {sources} OR {targets} ORDER BY e.seq",
        *source_params,
        *target_params,
    )
    moved = dropped = 0
    for edge in (row_to_edge(row) for row in rows):
        source = survivor if edge.source_id in gone else edge.source_id
        target = survivor if edge.target_id in gone else edge.target_id
        if source == target:
            dropped += 1
            continue
        present = yield from one(
            f"SELECT id FROM edges WHERE source_id = {p} AND target_id = {p} AND relation = {p}",
            source,
            target,
            edge.relation,
        )
        new_id = edge_id(source, edge.relation, target) if present is None else as_uuid(present[0])
        if present is None:
            yield from execute(
                "INSERT INTO edges (id, dataset_id, source_id, target_id, relation, properties, "
                "importance_weight, feedback_weight) "
                f"SELECT {p}, dataset_id, {p}, {p}, relation, properties, importance_weight, "
                f"feedback_weight FROM edges WHERE id = {p}",
                new_id,
                source,
                target,
                edge.id,
            )
            yield from execute(
                "INSERT INTO derived_edges (edge_id, dataset_id, owner) "
                f"SELECT {p}, dataset_id, owner FROM derived_edges WHERE edge_id = {p}",
                new_id,
                edge.id,
            )
            moved += 1
        else:
            dropped += 1
        yield from execute(
            "INSERT INTO edge_sources (edge_id, data_id) "
            f"SELECT {p}, data_id FROM edge_sources WHERE edge_id = {p} ON CONFLICT DO NOTHING",
            new_id,
            edge.id,
        )
    return moved, dropped


def absorb_provenance(d: SqlDialect, survivor: UUID, absorbed: Sequence[UUID]) -> Unit[None]:
    """The survivor is supported by every data item that supported an absorbed entity."""
    where, params = d.in_list("node_id", sorted(set(absorbed), key=str))
    yield from execute(
        "INSERT INTO node_sources (node_id, data_id) "
        f"SELECT {d.param}, data_id FROM node_sources WHERE {where} ON CONFLICT DO NOTHING",
        survivor,
        *params,
    )
