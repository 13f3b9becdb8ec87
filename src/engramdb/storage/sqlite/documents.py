"""Writing and deleting documents: the transactional heart of the SQLite store.

Every function here runs inside a transaction the caller opened (``Database.write``), so a
failure anywhere rolls back the whole document. Deletion is set-based: the ids to remove are
collected into temp tables (``del_data``, ``del_nodes``, ``del_edges``, created per connection by
:mod:`.database`) with a handful of ``INSERT ... SELECT`` statements, then each table is purged
with one ``DELETE ... WHERE id IN (SELECT id FROM del_*)``. Deleting a 10k-chunk document is a
few indexed statements, not 10k round trips.

Every vector change also appends to ``vector_log`` (see :mod:`.vector_cache`) in the same
transaction, so other processes' in-memory indexes can follow it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from functools import partial
from uuid import UUID

import numpy as np

from engramdb.errors import EmbeddingMismatchError, EngramValidationError, StorageError
from engramdb.models.records import utcnow
from engramdb.storage.base import DeleteReport, DocumentWrite
from engramdb.storage.dialect import SQLITE, edge_upsert, node_upsert
from engramdb.storage.sql import documents as shared
from engramdb.storage.sql.derived import note_changes, note_doomed_members, note_members
from engramdb.storage.sqlite.rows import to_json, to_time
from engramdb.storage.sqlite.units import run_unit

__all__ = [
    "UPSERT_VECTOR",
    "check_vector_dims",
    "delete_data",
    "delete_everything",
    "log_dataset_drop",
    "prune_vector_log",
    "purge",
    "reset_temp",
    "vector_blob",
    "write_document",
]

_UPSERT_NODE = node_upsert(SQLITE, derived=False)

_UPSERT_EDGE = edge_upsert(SQLITE, derived=False)

UPSERT_VECTOR = """
INSERT INTO vectors (node_id, collection, dataset_id, dim, embedding) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (node_id, collection) DO UPDATE SET
    dataset_id = excluded.dataset_id, dim = excluded.dim, embedding = excluded.embedding
"""

_UPSERT_LEXICAL_DOC = """
INSERT INTO lexical_docs (node_id, collection, dataset_id)
SELECT id, ?, dataset_id FROM nodes WHERE id = ?
ON CONFLICT (node_id, collection) DO UPDATE SET dataset_id = excluded.dataset_id
"""

# FTS5 honours OR REPLACE on rowid conflicts: the old text's index entries are removed.
_REPLACE_FTS = """
INSERT OR REPLACE INTO lexical_fts (rowid, text)
SELECT id, ? FROM lexical_docs WHERE node_id = ? AND collection = ?
"""


def _existing_nodes(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, str]:
    """node id -> dataset id for those of ``ids`` present in ``nodes``."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = conn.execute(
        "SELECT id, dataset_id FROM nodes WHERE id IN (SELECT value FROM json_each(?))",
        (to_json(wanted),),
    )
    return {row[0]: row[1] for row in rows}


def vector_blob(vector: object, node_id: UUID, collection: str) -> tuple[int, bytes]:
    array = np.asarray(vector, dtype="<f4")
    if array.ndim != 1 or array.shape[0] == 0:
        raise EngramValidationError(
            f"Vector of node {node_id} in {collection!r} must be a non-empty 1-D array, "
            f"got shape {array.shape}."
        )
    if not np.all(np.isfinite(array)):
        raise EngramValidationError(f"Vector of node {node_id} in {collection!r} has NaN/inf.")
    return int(array.shape[0]), array.tobytes()


def check_vector_dims(conn: sqlite3.Connection, dims: dict[tuple[str, str], int]) -> None:
    for (collection, dataset_id), dim in dims.items():
        row = conn.execute(
            "SELECT dim FROM vectors WHERE collection = ? AND dataset_id = ? LIMIT 1",
            (collection, dataset_id),
        ).fetchone()
        if row is not None and int(row[0]) != dim:
            raise EmbeddingMismatchError(
                f"Collection {collection!r} of dataset {dataset_id} holds {row[0]}-dimensional "
                f"vectors; this document brings {dim}-dimensional ones. Re-embed the dataset "
                "with one model (or forget it first)."
            )


def write_document(conn: sqlite3.Connection, doc: DocumentWrite, log_keep: int) -> bool:
    """Write ``doc`` (see ``Store.write_document``); False when its content hash is present."""
    if doc.extends:
        if conn.execute("SELECT 1 FROM data WHERE id = ?", (str(doc.data.id),)).fetchone() is None:
            return False
        # what the document mentions changes with no data item coming: noted for improve
        run_unit(conn, partial(note_changes, SQLITE, doc.data.dataset_id, "d", [doc.data.id]))
    else:
        if doc.replaces is not None:
            delete_data(conn, doc.replaces, log_keep)
        if _insert_data(conn, doc) == 0:
            if doc.replaces is not None:  # roll the delete back with the rest
                raise StorageError(shared.replaced_twice(doc.data.id, doc.replaces))
            return False
        run_unit(conn, partial(note_members, SQLITE, doc.data.dataset_id, doc.data.id))
    _write_graph(conn, doc, log_keep)
    return True


def _insert_data(conn: sqlite3.Connection, doc: DocumentWrite) -> int:
    """Insert the data record; 0 when its content hash is present already."""
    data = doc.data
    cursor = conn.execute(
        """INSERT INTO data (id, dataset_id, name, content_hash, mime_type, importance_weight,
                             external_metadata, node_set, size_bytes, chunk_count, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (dataset_id, content_hash) DO NOTHING""",
        (
            str(data.id),
            str(data.dataset_id),
            data.name,
            data.content_hash,
            data.mime_type,
            data.importance_weight,
            to_json(data.external_metadata),
            to_json(data.node_set),
            data.size_bytes,
            data.chunk_count,
            to_time(data.created_at),
        ),
    )
    return int(cursor.rowcount)


def _write_graph(conn: sqlite3.Connection, doc: DocumentWrite, log_keep: int) -> None:
    data_id = str(doc.data.id)
    now = to_time(utcnow())
    conn.executemany(
        _UPSERT_NODE,
        [
            (
                str(n.id),
                str(n.dataset_id),
                n.type,
                n.name,
                n.text,
                to_json(n.properties),
                n.importance_weight,
                n.feedback_weight,
                now,
                now,
            )
            for n in doc.nodes
        ],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO node_sources (node_id, data_id) VALUES (?, ?)",
        [(str(n.id), data_id) for n in doc.nodes],
    )

    referenced = {str(e.source_id) for e in doc.edges} | {str(e.target_id) for e in doc.edges}
    referenced |= {str(v.node_id) for v in doc.vectors}
    referenced |= {str(node_id) for pairs in doc.lexical.values() for node_id, _ in pairs}
    known = _existing_nodes(conn, referenced)
    missing = sorted(referenced - known.keys())
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise StorageError(
            f"Document {data_id} refers to {len(missing)} node(s) that are neither in the "
            f"document nor in the store ({shown}); nothing was written."
        )

    conn.executemany(
        _UPSERT_EDGE,
        [
            (
                str(e.id),
                str(e.dataset_id),
                str(e.source_id),
                str(e.target_id),
                e.relation,
                to_json(e.properties),
                e.importance_weight,
                e.feedback_weight,
            )
            for e in doc.edges
        ],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO edge_sources (edge_id, data_id) VALUES (?, ?)",
        [(str(e.id), data_id) for e in doc.edges],
    )

    _write_vectors(conn, doc, known, log_keep)

    for collection, pairs in doc.lexical.items():
        conn.executemany(_UPSERT_LEXICAL_DOC, [(collection, str(nid)) for nid, _ in pairs])
        conn.executemany(_REPLACE_FTS, [(text, str(nid), collection) for nid, text in pairs])


def _write_vectors(
    conn: sqlite3.Connection, doc: DocumentWrite, datasets: dict[str, str], log_keep: int
) -> None:
    if not doc.vectors:
        return
    rows: list[tuple[str, str, str, int, bytes]] = []
    dims: dict[tuple[str, str], int] = {}
    for vector in doc.vectors:
        node_id = str(vector.node_id)
        dataset_id = datasets[node_id]
        dim, blob = vector_blob(vector.vector, vector.node_id, vector.collection)
        key = (vector.collection, dataset_id)
        if dims.setdefault(key, dim) != dim:
            raise EmbeddingMismatchError(
                f"Document {doc.data.id} mixes {dims[key]}- and {dim}-dimensional vectors in "
                f"collection {vector.collection!r}."
            )
        rows.append((node_id, vector.collection, dataset_id, dim, blob))
    check_vector_dims(conn, dims)
    conn.executemany(UPSERT_VECTOR, rows)
    conn.executemany(
        "INSERT INTO vector_log (collection, dataset_id, node_id, op) VALUES (?, ?, ?, 'upsert')",
        [(r[1], r[2], r[0]) for r in rows],
    )
    prune_vector_log(conn, log_keep)


def prune_vector_log(conn: sqlite3.Connection, keep: int) -> None:
    """Keep only the newest ``keep`` log entries (readers that fall behind reload)."""
    conn.execute(
        "DELETE FROM vector_log WHERE seq <= (SELECT max(seq) FROM vector_log) - ?", (keep,)
    )


# --- deletion --------------------------------------------------------------------------------


def reset_temp(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM del_data")
    conn.execute("DELETE FROM del_nodes")
    conn.execute("DELETE FROM del_edges")


def purge(conn: sqlite3.Connection, dropped_dataset: str | None, log_keep: int) -> DeleteReport:
    """Delete everything listed in the temp tables, children before parents."""
    run_unit(conn, partial(note_doomed_members, SQLITE))
    conn.execute(
        "DELETE FROM edge_sources WHERE edge_id IN (SELECT id FROM del_edges) "
        "OR data_id IN (SELECT id FROM del_data)"
    )
    # explicit: the bulk forget of a dataset runs purge without the foreign keys' cascades
    conn.execute("DELETE FROM derived_edges WHERE edge_id IN (SELECT id FROM del_edges)")
    edges = conn.execute("DELETE FROM edges WHERE id IN (SELECT id FROM del_edges)").rowcount
    conn.execute(
        "DELETE FROM node_sources WHERE node_id IN (SELECT id FROM del_nodes) "
        "OR data_id IN (SELECT id FROM del_data)"
    )
    # A dropped dataset is logged once (readers evict its matrices) instead of per vector.
    conn.execute(
        """INSERT INTO vector_log (collection, dataset_id, node_id, op)
           SELECT collection, dataset_id, node_id, 'delete' FROM vectors
           WHERE node_id IN (SELECT id FROM del_nodes) AND dataset_id IS NOT ?""",
        (dropped_dataset,),
    )
    if dropped_dataset is not None:
        log_dataset_drop(conn, dropped_dataset, log_keep)
    prune_vector_log(conn, log_keep)
    vectors = conn.execute(
        "DELETE FROM vectors WHERE node_id IN (SELECT id FROM del_nodes)"
    ).rowcount
    conn.execute(
        "DELETE FROM lexical_fts WHERE rowid IN (SELECT id FROM lexical_docs "
        "WHERE node_id IN (SELECT id FROM del_nodes))"
    )
    lexical = conn.execute(
        "DELETE FROM lexical_docs WHERE node_id IN (SELECT id FROM del_nodes)"
    ).rowcount
    conn.execute("DELETE FROM derived_nodes WHERE node_id IN (SELECT id FROM del_nodes)")
    nodes = conn.execute("DELETE FROM nodes WHERE id IN (SELECT id FROM del_nodes)").rowcount
    conn.execute("DELETE FROM kv_cache WHERE data_id IN (SELECT id FROM del_data)")
    data = conn.execute("DELETE FROM data WHERE id IN (SELECT id FROM del_data)").rowcount
    reset_temp(conn)
    return DeleteReport(
        data_records=data, nodes=nodes, edges=edges, vectors=vectors, lexical_rows=lexical
    )


def log_dataset_drop(conn: sqlite3.Connection, dataset_id: str, log_keep: int) -> None:
    """A dropped dataset is logged once (readers evict its matrices) instead of per vector."""
    conn.execute(
        "INSERT INTO vector_log (collection, dataset_id, node_id, op) "
        "VALUES (NULL, ?, NULL, 'drop')",
        (dataset_id,),
    )
    prune_vector_log(conn, log_keep)


def delete_data(conn: sqlite3.Connection, data_id: UUID, log_keep: int) -> DeleteReport:
    reset_temp(conn)
    if not run_unit(conn, partial(shared.collect_data, SQLITE, data_id)):
        return DeleteReport()
    run_unit(conn, partial(shared.collect_dependants, SQLITE))
    return purge(conn, None, log_keep)


def delete_everything(conn: sqlite3.Connection, log_keep: int) -> None:
    """Empty every content table (users and locks stay)."""
    for table in (
        "edge_sources",
        "node_sources",
        "edges",
        "vectors",
        "lexical_fts",
        "lexical_docs",
        "nodes",
        "data",
        "pipeline_runs",
        "datasets",
        "kv_cache",
    ):
        conn.execute(f"DELETE FROM {table}")
    conn.execute(
        "INSERT INTO vector_log (collection, dataset_id, node_id, op) "
        "VALUES (NULL, NULL, NULL, 'drop')"
    )
    prune_vector_log(conn, log_keep)
