"""Integrity checks of the PostgreSQL store: each cross-table invariant is one query returning
the offending ids (the same invariants as the embedded store's, in PostgreSQL's terms).

Foreign keys already forbid most orphans here; the checks still run, so a schema edited by hand
or a future bug shows up the same way on both backends.
"""

from __future__ import annotations

from typing import LiteralString

from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.terms import row_terms

__all__ = ["INTEGRITY_CHECKS", "check_integrity"]

#: (description, query returning offending ids as text).
INTEGRITY_CHECKS: tuple[tuple[str, LiteralString], ...] = (
    (
        "chunk node without an existing data record",
        "SELECT n.id::text FROM nodes n WHERE n.type = 'Chunk' AND NOT EXISTS ("
        "SELECT 1 FROM node_sources s JOIN data d ON d.id = s.data_id WHERE s.node_id = n.id)",
    ),
    (
        "node without provenance",
        "SELECT n.id::text FROM nodes n "
        "WHERE NOT EXISTS (SELECT 1 FROM node_sources s WHERE s.node_id = n.id)"
        # improve()'s derived nodes need no provenance (see .derived)
        " AND NOT EXISTS (SELECT 1 FROM derived_nodes d WHERE d.node_id = n.id)",
    ),
    (
        "edge to a missing node",
        "SELECT e.id::text FROM edges e "
        "WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.source_id) "
        "OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.target_id)",
    ),
    (
        "vector without its node",
        "SELECT v.node_id || '/' || v.collection FROM vectors v "
        "WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = v.node_id)",
    ),
    (
        "vector filed under another dataset than its node",
        "SELECT v.node_id || '/' || v.collection FROM vectors v JOIN nodes n ON n.id = v.node_id "
        "WHERE n.dataset_id <> v.dataset_id",
    ),
    (
        "vector whose dimension does not match its dim column",
        "SELECT v.node_id || '/' || v.collection FROM vectors v "
        "WHERE vector_dims(v.embedding) <> v.dim",
    ),
    (
        "full-text row without its node",
        "SELECT l.node_id || '/' || l.collection FROM lexical l "
        "WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = l.node_id)",
    ),
    (
        "full-text statistics that disagree with the full-text rows",
        "SELECT coalesce(s.collection, r.collection) || '/' || "
        "coalesce(s.dataset_id, r.dataset_id) FROM lexical_stats s FULL JOIN ("
        "SELECT collection, dataset_id, count(*) AS docs, sum(length) AS total_length "
        "FROM lexical GROUP BY collection, dataset_id) r "
        "ON r.collection = s.collection AND r.dataset_id = s.dataset_id "
        "WHERE s.docs IS DISTINCT FROM r.docs OR s.total_length IS DISTINCT FROM r.total_length",
    ),
    (
        "full-text document frequencies that disagree with the full-text rows",
        "SELECT coalesce(t.collection, r.collection) || '/' || "
        "coalesce(t.dataset_id, r.dataset_id) || '/' || coalesce(t.word, r.word) "
        "FROM lexical_terms t FULL JOIN ("
        + row_terms("TRUE")
        + ") r ON r.collection = t.collection AND r.dataset_id = t.dataset_id AND r.word = t.word "
        "WHERE t.docs IS DISTINCT FROM r.docs",
    ),
    (
        "node provenance pointing at a missing data record",
        "SELECT s.node_id || ' <- ' || s.data_id FROM node_sources s "
        "WHERE NOT EXISTS (SELECT 1 FROM data d WHERE d.id = s.data_id)",
    ),
    (
        "edge provenance pointing at a missing data record",
        "SELECT s.edge_id || ' <- ' || s.data_id FROM edge_sources s "
        "WHERE NOT EXISTS (SELECT 1 FROM data d WHERE d.id = s.data_id)",
    ),
    (
        "provenance row of a missing node",
        "SELECT s.node_id::text FROM node_sources s "
        "WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = s.node_id)",
    ),
    (
        "provenance row of a missing edge",
        "SELECT s.edge_id::text FROM edge_sources s "
        "WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.id = s.edge_id)",
    ),
)

_SHOWN = 5


async def check_integrity(conn: Conn) -> list[str]:
    """Run inside a snapshot read, so every check sees the same state."""
    violations: list[str] = []
    for description, query in INTEGRITY_CHECKS:
        cur = await conn.execute(f"{query} LIMIT {_SHOWN + 1}")
        offenders = [str(row[0]) for row in await cur.fetchall()]
        if not offenders:
            continue
        if len(offenders) > _SHOWN:
            cur = await conn.execute(f"SELECT count(*) FROM ({query}) AS offending")
            row = await cur.fetchone()
            total = int(row[0]) if row is not None else len(offenders)
            shown = ", ".join(offenders[:_SHOWN]) + f" and {total - _SHOWN} more"
        else:
            total, shown = len(offenders), ", ".join(offenders)
        violations.append(f"{total} × {description}: {shown}")
    return violations
