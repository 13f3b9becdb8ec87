"""Integrity checks of the SQLite store.

:func:`check_integrity` states each cross-table invariant as one SQL query returning the
offending ids; every violation becomes a readable line. (Pipeline runs are written by the
shared units of :mod:`engramdb.storage.sql.records`.)
"""

from __future__ import annotations

import sqlite3

__all__ = ["INTEGRITY_CHECKS", "check_integrity"]


#: (description, query returning offending ids). Each query must be cheap on indexed columns.
INTEGRITY_CHECKS: tuple[tuple[str, str], ...] = (
    (
        "chunk node without an existing data record",
        "SELECT n.id FROM nodes n WHERE n.type = 'Chunk' AND NOT EXISTS ("
        "SELECT 1 FROM node_sources s JOIN data d ON d.id = s.data_id WHERE s.node_id = n.id)",
    ),
    (
        "node without provenance",
        "SELECT n.id FROM nodes n "
        "WHERE NOT EXISTS (SELECT 1 FROM node_sources s WHERE s.node_id = n.id)"
        # improve()'s derived nodes need no provenance (storage/sqlite/derived.py)
        " AND NOT EXISTS (SELECT 1 FROM derived_nodes d WHERE d.node_id = n.id)",
    ),
    (
        "edge to a missing node",
        "SELECT e.id FROM edges e WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.source_id)"
        " OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.target_id)",
    ),
    (
        "vector without its node",
        "SELECT v.node_id || '/' || v.collection FROM vectors v "
        "WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = v.node_id)",
    ),
    (
        "vector filed under another dataset than its node",
        "SELECT v.node_id || '/' || v.collection FROM vectors v JOIN nodes n ON n.id = v.node_id "
        "WHERE n.dataset_id != v.dataset_id",
    ),
    (
        "vector whose blob size does not match its dimension",
        "SELECT v.node_id || '/' || v.collection FROM vectors v "
        "WHERE length(v.embedding) != 4 * v.dim",
    ),
    (
        "full-text row without its node",
        "SELECT l.node_id || '/' || l.collection FROM lexical_docs l "
        "WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = l.node_id)",
    ),
    (
        "full-text index row without its document entry",
        "SELECT f.rowid FROM lexical_fts f "
        "WHERE NOT EXISTS (SELECT 1 FROM lexical_docs l WHERE l.id = f.rowid)",
    ),
    (
        "full-text document entry missing from the index",
        "SELECT l.node_id || '/' || l.collection FROM lexical_docs l "
        "WHERE NOT EXISTS (SELECT 1 FROM lexical_fts f WHERE f.rowid = l.id)",
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
        "SELECT s.node_id FROM node_sources s "
        "WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = s.node_id)",
    ),
    (
        "provenance row of a missing edge",
        "SELECT s.edge_id FROM edge_sources s "
        "WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.id = s.edge_id)",
    ),
)

_SHOWN = 5


def check_integrity(conn: sqlite3.Connection) -> list[str]:
    """SQLite's own page-level check (``PRAGMA integrity_check``), then every invariant."""
    pages = [str(row[0]) for row in conn.execute("PRAGMA integrity_check(20)")]
    violations: list[str] = [] if pages == ["ok"] else [f"SQLite page check: {p}" for p in pages]
    for description, query in INTEGRITY_CHECKS:
        offenders = [str(row[0]) for row in conn.execute(f"{query} LIMIT {_SHOWN + 1}")]
        if not offenders:
            continue
        if len(offenders) > _SHOWN:
            total = conn.execute(f"SELECT count(*) FROM ({query})").fetchone()[0]
            shown = ", ".join(offenders[:_SHOWN]) + f" and {total - _SHOWN} more"
        else:
            total, shown = len(offenders), ", ".join(offenders)
        violations.append(f"{total} × {description}: {shown}")
    return violations
