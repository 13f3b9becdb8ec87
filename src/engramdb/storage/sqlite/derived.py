"""Derived graph data of the SQLite store: what improve() writes (see the Store contract).

Derived nodes and edges live in the ordinary ``nodes`` / ``edges`` tables, so every graph read
and every deletion path sees them; ``derived_nodes`` / ``derived_edges`` record their owner and
cascade away with them. A derived node may carry ``node_sources`` rows (its *anchor*): then the
provenance machinery of :mod:`.documents` deletes it with its data item.

Every function runs inside the transaction the caller opened (``Database.write``/``read``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.errors import StorageError
from engramdb.models.records import utcnow
from engramdb.storage.base import (
    DerivedReport,
    DerivedWrite,
    MentionCount,
)
from engramdb.storage.dialect import SQLITE, edge_upsert, node_upsert
from engramdb.storage.sql import derived as shared
from engramdb.storage.sqlite.rows import to_json, to_time
from engramdb.storage.sqlite.units import run_unit

__all__ = [
    "delete_nodes",
    "entity_mentions",
    "write_derived",
]

_UPSERT_NODE = node_upsert(SQLITE, derived=True)

_UPSERT_EDGE = edge_upsert(SQLITE)


def delete_nodes(conn: sqlite3.Connection, node_ids: Sequence[str]) -> tuple[int, int]:
    """Delete nodes with every edge touching them, their vectors and full-text rows."""
    if not node_ids:
        return 0, 0
    ids = to_json(list(node_ids))
    conn.execute(
        "DELETE FROM edge_sources WHERE edge_id IN (SELECT id FROM edges WHERE source_id IN "
        "(SELECT value FROM json_each(?)) OR target_id IN (SELECT value FROM json_each(?)))",
        (ids, ids),
    )
    edges = conn.execute(
        "DELETE FROM edges WHERE source_id IN (SELECT value FROM json_each(?)) "
        "OR target_id IN (SELECT value FROM json_each(?))",
        (ids, ids),
    ).rowcount
    conn.execute(
        "DELETE FROM node_sources WHERE node_id IN (SELECT value FROM json_each(?))", (ids,)
    )
    conn.execute(
        "DELETE FROM lexical_fts WHERE rowid IN (SELECT id FROM lexical_docs "
        "WHERE node_id IN (SELECT value FROM json_each(?)))",
        (ids,),
    )
    conn.execute(
        "DELETE FROM lexical_docs WHERE node_id IN (SELECT value FROM json_each(?))", (ids,)
    )
    conn.execute(
        """INSERT INTO vector_log (collection, dataset_id, node_id, op)
           SELECT collection, dataset_id, node_id, 'delete' FROM vectors
           WHERE node_id IN (SELECT value FROM json_each(?))""",
        (ids,),
    )
    conn.execute("DELETE FROM vectors WHERE node_id IN (SELECT value FROM json_each(?))", (ids,))
    nodes = conn.execute(
        "DELETE FROM nodes WHERE id IN (SELECT value FROM json_each(?))", (ids,)
    ).rowcount
    return nodes, edges


def write_derived(conn: sqlite3.Connection, write: DerivedWrite) -> DerivedReport:
    """Apply a :class:`DerivedWrite` (the caller's transaction makes it atomic)."""
    spent = run_unit(conn, partial(shared.spend_marks, SQLITE, write))
    shared.check_datasets(write)
    run_unit(conn, partial(shared.check_owners, SQLITE, write))
    ds, now = str(write.dataset_id), to_time(utcnow())

    nodes_deleted = edges_deleted = 0
    doomed = run_unit(conn, partial(shared.doomed_nodes, SQLITE, write))
    if doomed:
        nodes_deleted, edges_deleted = delete_nodes(conn, [str(i) for i in doomed])

    conn.executemany(
        _UPSERT_NODE,
        [
            (
                str(n.id),
                ds,
                n.type,
                n.name,
                n.text,
                to_json(n.properties),
                n.importance_weight,
                n.feedback_weight,
                now,
                now,
            )
            for n in write.nodes
        ],
    )
    conn.executemany(
        "INSERT INTO derived_nodes (node_id, dataset_id, owner) VALUES (?, ?, ?) "
        "ON CONFLICT (node_id) DO NOTHING",
        [(str(n.id), ds, write.owner) for n in write.nodes],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO node_sources (node_id, data_id) "
        "SELECT ?, id FROM data WHERE id = ? AND dataset_id = ?",
        [(str(node), str(data), ds) for node, data in write.anchors.items()],
    )

    if write.replace:
        stale = [str(i) for i in run_unit(conn, partial(shared.stale_edges, SQLITE, write))]
        if stale:
            edges_deleted += conn.execute(
                "DELETE FROM edges WHERE id IN (SELECT value FROM json_each(?))",
                (to_json(stale),),
            ).rowcount
    endpoints = {str(e.source_id) for e in write.edges} | {str(e.target_id) for e in write.edges}
    if endpoints:
        found = {
            row[0]
            for row in conn.execute(
                "SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?))",
                (to_json(sorted(endpoints)),),
            )
        }
        missing = sorted(endpoints - found)
        if missing:
            raise StorageError(
                f"derived edges of owner {write.owner!r} name {len(missing)} missing node(s) "
                f"({', '.join(missing[:3])}); nothing was written"
            )
    conn.executemany(
        _UPSERT_EDGE,
        [
            (
                str(e.id),
                ds,
                str(e.source_id),
                str(e.target_id),
                e.relation,
                to_json(e.properties),
                e.importance_weight,
                e.feedback_weight,
            )
            for e in write.edges
        ],
    )
    conn.executemany(
        "INSERT INTO derived_edges (edge_id, dataset_id, owner) VALUES (?, ?, ?) "
        "ON CONFLICT (edge_id) DO NOTHING",
        [(str(e.id), ds, write.owner) for e in write.edges],
    )
    run_unit(conn, partial(shared.drop_states, SQLITE, write.dataset_id, write.drop_state))
    for key, value in write.state.items():
        run_unit(conn, partial(shared.set_state, SQLITE, write.dataset_id, key, value))
    if write.fingerprint_key is not None:
        fingerprint = run_unit(conn, partial(shared.graph_fingerprint, SQLITE, write.dataset_id))
        run_unit(
            conn,
            partial(shared.set_state, SQLITE, write.dataset_id, write.fingerprint_key, fingerprint),
        )
    return DerivedReport(
        nodes_written=len(write.nodes),
        edges_written=len(write.edges),
        nodes_deleted=nodes_deleted,
        edges_deleted=edges_deleted,
        marks=spent,
    )


def entity_mentions(
    conn: sqlite3.Connection, dataset_id: UUID, data_ids: list[UUID] | None = None
) -> list[MentionCount]:
    """A chunk's document is its one provenance row (chunk ids derive from their data item's),
    a primary-key lookup, where the ``is_part_of`` edge would cost an edge-row read per chunk
    (1.4 s -> 1.0 s at 100k chunks, same rows). Ids repeat across rows, so each is parsed once.
    With ``data_ids``: each document's chunks by the provenance index, then their edges."""
    if data_ids is None:
        rows = conn.execute(
            """SELECT s.data_id, c.target_id, count(*) FROM edges c
               JOIN node_sources s ON s.node_id = c.source_id
               WHERE c.dataset_id = ? AND c.relation = 'contains'
               GROUP BY s.data_id, c.target_id ORDER BY s.data_id, c.target_id""",
            (str(dataset_id),),
        ).fetchall()
    else:
        rows = []
        for data_id in data_ids:
            rows += conn.execute(
                # CROSS JOIN fixes the order (the document's provenance rows, then each node's
                # edges by source); ``+`` keeps the planner off the dataset's edge index
                """SELECT s.data_id, c.target_id, count(*) FROM node_sources s
                   CROSS JOIN edges c
                   WHERE s.data_id = ? AND c.source_id = s.node_id
                     AND c.relation = 'contains' AND +c.dataset_id = ?
                   GROUP BY s.data_id, c.target_id ORDER BY c.target_id""",
                (str(data_id), str(dataset_id)),
            ).fetchall()
    parsed: dict[str, UUID] = {}

    def uuid(text: str) -> UUID:
        found = parsed.get(text)
        if found is None:
            found = parsed[text] = UUID(text)
        return found

    return [MentionCount(uuid(r[0]), uuid(r[1]), int(r[2])) for r in rows]
