"""Derived graph data of the PostgreSQL store: what improve() writes (see the Store contract).

The same design as the embedded store's (:mod:`engramdb.storage.sqlite.derived`): derived nodes
and edges live in the ordinary ``nodes`` / ``edges`` tables, so every graph read and deletion
path sees them; ``derived_nodes`` / ``derived_edges`` record their owner and cascade away with
them. A derived node may carry ``node_sources`` rows (its *anchor*): then the provenance
machinery of :mod:`.documents` deletes it with its data item. Session marks are spent with
:func:`engramdb.storage.sql.derived.spend_marks` inside the same transaction.

Every function runs inside the transaction the caller opened (``Database.write`` / ``read``).
"""

from __future__ import annotations

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
from engramdb.storage.dialect import POSTGRES, edge_upsert, node_upsert
from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.rows import to_json
from engramdb.storage.postgres.terms import DROP_SPENT, subtract_terms
from engramdb.storage.postgres.units import run_unit
from engramdb.storage.sql import derived as shared

__all__ = [
    "delete_nodes",
    "entity_mentions",
    "write_derived",
]

_UPSERT_NODE = node_upsert(POSTGRES, derived=True)

_UPSERT_EDGE = edge_upsert(POSTGRES)

_SUBTRACT_NODES = subtract_terms("l.node_id = ANY(%s::uuid[])")


async def delete_nodes(conn: Conn, node_ids: Sequence[UUID]) -> tuple[int, int]:
    """Delete nodes with every edge touching them, their vectors and full-text rows."""
    if not node_ids:
        return 0, 0
    ids = list(node_ids)
    await conn.execute(
        "DELETE FROM edge_sources WHERE edge_id IN (SELECT id FROM edges "
        "WHERE source_id = ANY(%s::uuid[]) OR target_id = ANY(%s::uuid[]))",
        (ids, ids),
    )
    cur = await conn.execute(
        "DELETE FROM edges WHERE source_id = ANY(%s::uuid[]) OR target_id = ANY(%s::uuid[])",
        (ids, ids),
    )
    edges = max(cur.rowcount, 0)
    await conn.execute("DELETE FROM node_sources WHERE node_id = ANY(%s::uuid[])", (ids,))
    await conn.execute(
        """UPDATE lexical_stats s SET docs = s.docs - gone.docs,
                                      total_length = s.total_length - gone.total_length
           FROM (SELECT collection, dataset_id, count(*) AS docs, sum(length) AS total_length
                 FROM lexical WHERE node_id = ANY(%s::uuid[])
                 GROUP BY collection, dataset_id) AS gone
           WHERE s.collection = gone.collection AND s.dataset_id = gone.dataset_id""",
        (ids,),
    )
    await conn.execute("DELETE FROM lexical_stats WHERE docs <= 0")
    await conn.execute(_SUBTRACT_NODES, (ids,))
    await conn.execute(DROP_SPENT)
    await conn.execute("DELETE FROM lexical WHERE node_id = ANY(%s::uuid[])", (ids,))
    await conn.execute("DELETE FROM vectors WHERE node_id = ANY(%s::uuid[])", (ids,))
    cur = await conn.execute("DELETE FROM nodes WHERE id = ANY(%s::uuid[])", (ids,))
    return max(cur.rowcount, 0), edges


async def write_derived(conn: Conn, write: DerivedWrite) -> DerivedReport:
    """Apply a :class:`DerivedWrite` (the caller's transaction makes it atomic)."""
    shared.check_datasets(write)
    node_rows = [
        (
            n.id,
            write.dataset_id,
            n.type,
            n.name,
            n.text,
            to_json(n.properties),
            n.importance_weight,
            n.feedback_weight,
        )
        for n in write.nodes
    ]
    edge_rows = [
        (
            e.id,
            write.dataset_id,
            e.source_id,
            e.target_id,
            e.relation,
            to_json(e.properties),
            e.importance_weight,
            e.feedback_weight,
        )
        for e in write.edges
    ]
    spent = await run_unit(conn, partial(shared.spend_marks, POSTGRES, write))
    await run_unit(conn, partial(shared.check_owners, POSTGRES, write))
    now = utcnow()

    nodes_deleted, edges_deleted = await delete_nodes(
        conn, await run_unit(conn, partial(shared.doomed_nodes, POSTGRES, write))
    )
    async with conn.cursor() as batch:
        if node_rows:
            await batch.executemany(_UPSERT_NODE, [(*row, now, now) for row in node_rows])
            await batch.executemany(
                "INSERT INTO derived_nodes (node_id, dataset_id, owner) VALUES (%s, %s, %s) "
                "ON CONFLICT (node_id) DO NOTHING",
                [(n.id, write.dataset_id, write.owner) for n in write.nodes],
            )
        if write.anchors:
            await batch.executemany(
                "INSERT INTO node_sources (node_id, data_id) SELECT %s, id FROM data "
                "WHERE id = %s AND dataset_id = %s ON CONFLICT DO NOTHING",
                [(node, data, write.dataset_id) for node, data in write.anchors.items()],
            )
        if write.replace:
            stale = await run_unit(conn, partial(shared.stale_edges, POSTGRES, write))
            if stale:
                cur = await conn.execute("DELETE FROM edges WHERE id = ANY(%s::uuid[])", (stale,))
                edges_deleted += max(cur.rowcount, 0)
        endpoints = sorted({e.source_id for e in write.edges} | {e.target_id for e in write.edges})
        if endpoints:
            cur = await conn.execute(
                "SELECT id FROM nodes WHERE id = ANY(%s::uuid[])", (endpoints,)
            )
            found = {row[0] for row in await cur.fetchall()}
            missing = [str(i) for i in endpoints if i not in found]
            if missing:
                raise StorageError(
                    f"derived edges of owner {write.owner!r} name {len(missing)} missing node(s) "
                    f"({', '.join(missing[:3])}); nothing was written"
                )
        if edge_rows:
            await batch.executemany(_UPSERT_EDGE, edge_rows)
            await batch.executemany(
                "INSERT INTO derived_edges (edge_id, dataset_id, owner) VALUES (%s, %s, %s) "
                "ON CONFLICT (edge_id) DO NOTHING",
                [(e.id, write.dataset_id, write.owner) for e in write.edges],
            )
    await run_unit(conn, partial(shared.drop_states, POSTGRES, write.dataset_id, write.drop_state))
    for key, value in write.state.items():
        await run_unit(conn, partial(shared.set_state, POSTGRES, write.dataset_id, key, value))
    if write.fingerprint_key is not None:
        fingerprint = await run_unit(
            conn, partial(shared.graph_fingerprint, POSTGRES, write.dataset_id)
        )
        await run_unit(
            conn,
            partial(
                shared.set_state, POSTGRES, write.dataset_id, write.fingerprint_key, fingerprint
            ),
        )
    return DerivedReport(
        nodes_written=len(write.nodes),
        edges_written=len(write.edges),
        nodes_deleted=nodes_deleted,
        edges_deleted=edges_deleted,
        marks=spent,
    )


async def entity_mentions(
    conn: Conn, dataset_id: UUID, data_ids: list[UUID] | None = None
) -> list[MentionCount]:
    if data_ids is not None:
        cur = await conn.execute(
            """SELECT p.target_id, c.target_id, count(*) FROM edges p
               JOIN edges c ON c.source_id = p.source_id AND c.relation = 'contains'
               WHERE p.target_id = ANY(%s) AND p.relation = 'is_part_of'
                 AND p.dataset_id = %s AND c.dataset_id = %s
               GROUP BY p.target_id, c.target_id ORDER BY p.target_id, c.target_id""",
            (list(data_ids), dataset_id, dataset_id),
        )
        return [MentionCount(r[0], r[1], int(r[2])) for r in await cur.fetchall()]
    cur = await conn.execute(
        """SELECT p.target_id, c.target_id, count(*) FROM edges c
           JOIN edges p ON p.source_id = c.source_id AND p.relation = 'is_part_of'
           WHERE c.dataset_id = %s AND c.relation = 'contains'
           GROUP BY p.target_id, c.target_id ORDER BY p.target_id, c.target_id""",
        (dataset_id,),
    )
    return [MentionCount(r[0], r[1], int(r[2])) for r in await cur.fetchall()]
