"""Derived graph data of the PostgreSQL store: what improve() writes (see the Store contract).

The same design as the embedded store's (:mod:`engramdb.storage.sqlite.derived`): derived nodes
and edges live in the ordinary ``nodes`` / ``edges`` tables, so every graph read and deletion
path sees them; ``derived_nodes`` / ``derived_edges`` record their owner and cascade away with
them. A derived node may carry ``node_sources`` rows (its *anchor*): then the provenance
machinery of :mod:`.documents` deletes it with its data item. Session marks are spent with
:func:`.sessions.mark_entries` inside the same transaction.

Every function runs inside the transaction the caller opened (``Database.write`` / ``read``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.errors import ConflictError, EngramValidationError, StorageError
from engramdb.models.records import utcnow
from engramdb.storage.base import (
    DerivedReport,
    DerivedWrite,
    MentionCount,
)
from engramdb.storage.dialect import POSTGRES, edge_upsert, node_upsert
from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.rows import to_json
from engramdb.storage.postgres.sessions import mark_entries
from engramdb.storage.postgres.units import run_unit
from engramdb.storage.sql import derived as shared

__all__ = [
    "entity_mentions",
    "write_derived",
]

_UPSERT_NODE = node_upsert(POSTGRES, derived=True)

_UPSERT_EDGE = edge_upsert(POSTGRES)


def _check_datasets(write: DerivedWrite) -> None:
    elements: list[tuple[str, UUID, UUID]] = [("node", n.id, n.dataset_id) for n in write.nodes]
    elements += [("edge", e.id, e.dataset_id) for e in write.edges]
    for kind, element_id, element_ds in elements:
        if element_ds != write.dataset_id:
            raise EngramValidationError(
                f"derived {kind} {element_id} belongs to dataset {element_ds}, not to the "
                f"written dataset {write.dataset_id}"
            )


async def _check_owners(conn: Conn, write: DerivedWrite) -> None:
    cur = await conn.execute(
        """SELECT n.id, d.owner FROM nodes n LEFT JOIN derived_nodes d ON d.node_id = n.id
           WHERE n.id = ANY(%s::uuid[]) AND (d.owner IS NULL OR d.owner <> %s) LIMIT 1""",
        ([n.id for n in write.nodes], write.owner),
    )
    row = await cur.fetchone()
    if row is not None:
        whose = "an ingested node" if row[1] is None else f"a node of owner {row[1]!r}"
        raise ConflictError(
            f"derived node id {row[0]} is already {whose}; derived writes of owner "
            f"{write.owner!r} may only replace their own nodes"
        )
    cur = await conn.execute(
        """SELECT e.id FROM edges e LEFT JOIN derived_edges d ON d.edge_id = e.id
           WHERE e.id = ANY(%s::uuid[]) AND (d.owner IS NULL OR d.owner <> %s) LIMIT 1""",
        ([e.id for e in write.edges], write.owner),
    )
    row = await cur.fetchone()
    if row is not None:
        raise ConflictError(
            f"derived edge id {row[0]} is already an ingested edge or another owner's"
        )


async def _delete_nodes(conn: Conn, node_ids: Sequence[UUID]) -> tuple[int, int]:
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
    await conn.execute("DELETE FROM lexical WHERE node_id = ANY(%s::uuid[])", (ids,))
    await conn.execute("DELETE FROM vectors WHERE node_id = ANY(%s::uuid[])", (ids,))
    cur = await conn.execute("DELETE FROM nodes WHERE id = ANY(%s::uuid[])", (ids,))
    return max(cur.rowcount, 0), edges


async def _doomed_nodes(conn: Conn, write: DerivedWrite) -> list[UUID]:
    doomed: list[UUID] = []
    if write.replace:
        keep = {n.id for n in write.nodes}
        types = set(write.replace_types)
        cur = await conn.execute(
            "SELECT d.node_id, n.type FROM derived_nodes d JOIN nodes n ON n.id = d.node_id "
            "WHERE d.dataset_id = %s AND d.owner = %s",
            (write.dataset_id, write.owner),
        )
        doomed = [
            row[0]
            for row in await cur.fetchall()
            if row[0] not in keep and (not types or row[1] in types)
        ]
    if write.delete_node_ids:
        cur = await conn.execute(
            "SELECT node_id FROM derived_nodes WHERE owner = %s AND dataset_id = %s "
            "AND node_id = ANY(%s::uuid[])",
            (write.owner, write.dataset_id, list(write.delete_node_ids)),
        )
        doomed += [row[0] for row in await cur.fetchall()]
    return sorted(set(doomed))


async def _stale_edges(conn: Conn, write: DerivedWrite) -> list[UUID]:
    keep = {e.id for e in write.edges}
    types = set(write.replace_types)
    cur = await conn.execute(
        """SELECT d.edge_id, n.type FROM derived_edges d JOIN edges e ON e.id = d.edge_id
           JOIN nodes n ON n.id = e.source_id WHERE d.dataset_id = %s AND d.owner = %s""",
        (write.dataset_id, write.owner),
    )
    return [
        row[0]
        for row in await cur.fetchall()
        if row[0] not in keep and (not types or row[1] in types)
    ]


async def write_derived(conn: Conn, write: DerivedWrite) -> DerivedReport:
    """Apply a :class:`DerivedWrite` (the caller's transaction makes it atomic)."""
    _check_datasets(write)
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
    spent = 0
    for consumer, marks in write.marks.items():
        new = await mark_entries(conn, consumer, marks)
        if len(new) != len(marks):
            raise ConflictError(
                f"{len(marks) - len(new)} session entr(y/ies) were already processed by "
                f"{consumer!r} (or deleted); nothing was written, the entries are not spent twice"
            )
        spent += len(new)
    await _check_owners(conn, write)
    now = utcnow()

    nodes_deleted, edges_deleted = await _delete_nodes(conn, await _doomed_nodes(conn, write))
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
            stale = await _stale_edges(conn, write)
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


async def entity_mentions(conn: Conn, dataset_id: UUID) -> list[MentionCount]:
    cur = await conn.execute(
        """SELECT p.target_id, c.target_id, count(*) FROM edges c
           JOIN edges p ON p.source_id = c.source_id AND p.relation = 'is_part_of'
           WHERE c.dataset_id = %s AND c.relation = 'contains'
           GROUP BY p.target_id, c.target_id ORDER BY p.target_id, c.target_id""",
        (dataset_id,),
    )
    return [MentionCount(r[0], r[1], int(r[2])) for r in await cur.fetchall()]
