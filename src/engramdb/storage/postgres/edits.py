"""Graph edits of the PostgreSQL store: node rewrites and entity merges (see the Store contract).

The same steps as the embedded store's (:mod:`engramdb.storage.sqlite.edits`): the shared units
of :mod:`engramdb.storage.sql.edits` check, rewrite, re-point edges and hand provenance over;
this module deletes the absorbed entities with their vectors and full-text rows
(:func:`.derived.delete_nodes`) and writes the new vectors. The caller ensures the vector
indexes first (:func:`vector_shapes`). Every function runs inside the transaction the caller
opened (``Database.write``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.errors import EmbeddingMismatchError
from engramdb.storage.dialect import POSTGRES
from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.derived import delete_nodes
from engramdb.storage.postgres.documents import upsert_vectors
from engramdb.storage.postgres.units import run_unit
from engramdb.storage.postgres.vectors import check_vector
from engramdb.storage.sql import edits as shared
from engramdb.storage.sql.derived import note_changes
from engramdb.storage.types import EntityMerge, MergeReport, NodeRewrite, VectorRow

__all__ = ["merge_entities", "rewrite_nodes", "vector_shapes"]


def vector_shapes(rewrites: Sequence[NodeRewrite]) -> set[tuple[str, int]]:
    """The (collection, dimension) pairs the rewrites write vectors for (checked vectors)."""
    return {
        (v.collection, int(check_vector(v.vector, v.node_id, v.collection).shape[0]))
        for r in rewrites
        for v in r.vectors
    }


async def _write_vectors(conn: Conn, dataset_id: UUID, vectors: Sequence[VectorRow]) -> None:
    rows: list[tuple[object, ...]] = []
    dims: dict[str, int] = {}
    for vector in vectors:
        array = check_vector(vector.vector, vector.node_id, vector.collection)
        dims[vector.collection] = int(array.shape[0])
        rows.append((vector.node_id, vector.collection, dataset_id, int(array.shape[0]), array))
    for collection, dim in sorted(dims.items()):
        cur = await conn.execute(
            "SELECT dim FROM vectors WHERE collection = %s AND dataset_id = %s AND dim <> %s "
            "LIMIT 1",
            (collection, dataset_id, dim),
        )
        other = await cur.fetchone()
        if other is not None:
            raise EmbeddingMismatchError(
                f"Collection {collection!r} of dataset {dataset_id} holds {other[0]}-dimensional "
                f"vectors; the rewrite brings {dim}-dimensional ones. Re-embed with the "
                "dataset's model."
            )
    await upsert_vectors(conn, rows)


async def _rewrite(conn: Conn, dataset_id: UUID, rewrites: Sequence[NodeRewrite]) -> None:
    for rewrite in rewrites:
        await run_unit(conn, partial(shared.rewrite_node, POSTGRES, rewrite))
    ids = [r.node_id for r in rewrites]
    await run_unit(conn, partial(note_changes, POSTGRES, dataset_id, "e", ids))
    await _write_vectors(conn, dataset_id, [v for r in rewrites for v in r.vectors])


async def rewrite_nodes(conn: Conn, dataset_id: UUID, rewrites: Sequence[NodeRewrite]) -> int:
    ids = [r.node_id for r in rewrites]
    await run_unit(conn, partial(shared.check_nodes, POSTGRES, dataset_id, ids, entities=False))
    await _rewrite(conn, dataset_id, rewrites)
    return len(rewrites)


async def merge_entities(
    conn: Conn, dataset_id: UUID, merges: Sequence[EntityMerge]
) -> MergeReport:
    ids = [i for m in merges for i in (m.survivor.node_id, *m.absorbed)]
    await run_unit(conn, partial(shared.check_nodes, POSTGRES, dataset_id, ids, entities=True))
    merged = moved = dropped = 0
    absorbed_ids = [i for m in merges for i in m.absorbed]
    await run_unit(conn, partial(note_changes, POSTGRES, dataset_id, "e", absorbed_ids))
    for merge in merges:
        survivor, absorbed = merge.survivor.node_id, list(merge.absorbed)
        step = await run_unit(conn, partial(shared.repoint_edges, POSTGRES, survivor, absorbed))
        await run_unit(conn, partial(shared.absorb_provenance, POSTGRES, survivor, absorbed))
        merged += (await delete_nodes(conn, absorbed))[0]
        moved, dropped = moved + step[0], dropped + step[1]
    await _rewrite(conn, dataset_id, [m.survivor for m in merges])
    return MergeReport(entities_merged=merged, edges_moved=moved, edges_dropped=dropped)
