"""Graph edits of the SQLite store: node rewrites and entity merges (see the Store contract).

The checks, rewrites, edge re-pointing and provenance hand-over are the shared units of
:mod:`engramdb.storage.sql.edits`; this module deletes the absorbed entities with their vectors
and full-text rows (:func:`.derived.delete_nodes`) and writes the new vectors, logging them in
``vector_log`` so every process's in-memory matrices follow. Every function runs inside the
transaction the caller opened (``Database.write``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.storage.dialect import SQLITE
from engramdb.storage.sql import edits as shared
from engramdb.storage.sql.derived import note_changes
from engramdb.storage.sqlite.derived import delete_nodes
from engramdb.storage.sqlite.documents import (
    UPSERT_VECTOR,
    check_vector_dims,
    prune_vector_log,
    vector_blob,
)
from engramdb.storage.sqlite.units import run_unit
from engramdb.storage.types import EntityMerge, MergeReport, NodeRewrite, VectorRow

__all__ = ["merge_entities", "rewrite_nodes"]


def _write_vectors(
    conn: sqlite3.Connection, dataset_id: UUID, vectors: Sequence[VectorRow], log_keep: int
) -> None:
    if not vectors:
        return
    ds = str(dataset_id)
    rows: list[tuple[str, str, str, int, bytes]] = []
    dims: dict[tuple[str, str], int] = {}
    for vector in vectors:
        dim, blob = vector_blob(vector.vector, vector.node_id, vector.collection)
        dims[(vector.collection, ds)] = dim
        rows.append((str(vector.node_id), vector.collection, ds, dim, blob))
    check_vector_dims(conn, dims)
    conn.executemany(UPSERT_VECTOR, rows)
    conn.executemany(
        "INSERT INTO vector_log (collection, dataset_id, node_id, op) VALUES (?, ?, ?, 'upsert')",
        [(r[1], r[2], r[0]) for r in rows],
    )
    prune_vector_log(conn, log_keep)


def _rewrite(
    conn: sqlite3.Connection, dataset_id: UUID, rewrites: Sequence[NodeRewrite], log_keep: int
) -> None:
    for rewrite in rewrites:
        run_unit(conn, partial(shared.rewrite_node, SQLITE, rewrite))
    ids = [r.node_id for r in rewrites]
    run_unit(conn, partial(note_changes, SQLITE, dataset_id, "e", ids))
    _write_vectors(conn, dataset_id, [v for r in rewrites for v in r.vectors], log_keep)


def rewrite_nodes(
    conn: sqlite3.Connection, dataset_id: UUID, rewrites: Sequence[NodeRewrite], log_keep: int
) -> int:
    ids = [r.node_id for r in rewrites]
    run_unit(conn, partial(shared.check_nodes, SQLITE, dataset_id, ids, entities=False))
    _rewrite(conn, dataset_id, rewrites, log_keep)
    return len(rewrites)


def merge_entities(
    conn: sqlite3.Connection, dataset_id: UUID, merges: Sequence[EntityMerge], log_keep: int
) -> MergeReport:
    ids = [i for m in merges for i in (m.survivor.node_id, *m.absorbed)]
    run_unit(conn, partial(shared.check_nodes, SQLITE, dataset_id, ids, entities=True))
    merged = moved = dropped = 0
    absorbed_ids = [i for m in merges for i in m.absorbed]
    run_unit(conn, partial(note_changes, SQLITE, dataset_id, "e", absorbed_ids))
    for merge in merges:
        survivor, absorbed = merge.survivor.node_id, list(merge.absorbed)
        step = run_unit(conn, partial(shared.repoint_edges, SQLITE, survivor, absorbed))
        run_unit(conn, partial(shared.absorb_provenance, SQLITE, survivor, absorbed))
        merged += delete_nodes(conn, [str(i) for i in absorbed])[0]
        moved, dropped = moved + step[0], dropped + step[1]
    _rewrite(conn, dataset_id, [m.survivor for m in merges], log_keep)
    return MergeReport(entities_merged=merged, edges_moved=moved, edges_dropped=dropped)
