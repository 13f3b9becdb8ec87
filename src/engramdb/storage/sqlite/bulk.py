"""Forgetting a whole dataset in bulk (the embedded store's ``delete_dataset``).

It runs in ONE ``BEGIN IMMEDIATE`` transaction, as every write does (a kill mid-forget leaves
all or nothing), but with foreign-key enforcement switched off around it
(``Database.write(bulk_delete=True)``): every statement deletes children before parents
itself, so the per-row parent/child look-ups SQLite would make for each of several hundred
thousand rows (and the cascades) are pure cost, and without them a ``DELETE`` with no
``WHERE`` empties a table and its indexes at once instead of visiting every row. Freed pages
are not overwritten with zeros (``secure_delete = FAST``, see
:data:`.database.BULK_SECURE_DELETE`): on a SQLite built with secure delete on, zeroing them
was most of the time of a large forget.

1. **Other datasets' rows first, exactly.** What the dataset's data is the only support of in
   another dataset, and other datasets' edges touching its nodes, are collected into the
   per-item temp tables (:func:`engramdb.storage.sql.documents.collect_foreign`) and purged the
   way forgetting one item purges them (:func:`.documents.purge`). Support the dataset's data
   gives a row another item still supports goes with the dataset's provenance rows; the row
   stays. In a store of one-dataset graphs (every ingested node and edge id is derived from its
   dataset) this finds nothing.
2. **The dataset's rows, per table, children before parents**, one of two ways chosen by how
   much of the store the dataset is (its share of ``nodes``, :data:`KEEP_FRACTION`):

   * *delete*: ``DELETE ... WHERE dataset_id = ?`` (or by the dataset's nodes, edges or data
     for the provenance tables): the cost grows with the rows deleted;
   * *keep*: the rows of the other datasets are copied to a temp table, the table is emptied
     in one step and the copies are put back (``rowid`` included: the approximate vector
     index files key on it): the cost grows with the rows KEPT. The full-text table is dropped
     and recreated with its one ``CREATE`` statement (:data:`.schema.LEXICAL_FTS_DDL`) and the
     kept texts re-inserted, instead of FTS5 re-tokenising every deleted text to remove it.

Readers in other processes see the commit as a ``drop`` in ``vector_log`` (their matrices of
the dataset go) and a schema change (SQLite re-prepares their statements).
"""

from __future__ import annotations

import sqlite3
from functools import partial
from uuid import UUID

from engramdb.storage.base import DeleteReport
from engramdb.storage.dialect import SQLITE
from engramdb.storage.sql import documents as shared
from engramdb.storage.sqlite.documents import log_dataset_drop, purge, reset_temp
from engramdb.storage.sqlite.schema import LEXICAL_FTS_DDL
from engramdb.storage.sqlite.units import run_unit

__all__ = ["KEEP_FRACTION", "delete_dataset"]

#: At or above this share of the store's nodes, a dataset is forgotten by keeping the other
#: datasets' rows (cost ~ rows kept) rather than deleting its own (cost ~ rows deleted).
KEEP_FRACTION = 0.5

_NODES = "SELECT id FROM nodes WHERE dataset_id = :ds"
_EDGES = "SELECT id FROM edges WHERE dataset_id = :ds"
_DATA = "SELECT id FROM data WHERE dataset_id = :ds"
_OTHERS = "SELECT id FROM datasets WHERE id <> :ds"


def _sources(kind: str, table: str) -> str:
    """The provenance rows that stay: of another dataset's node or edge, from other data."""
    return (
        f"SELECT s.* FROM {table} x JOIN {kind}_sources s ON s.{kind}_id = x.id "
        f"WHERE x.dataset_id IN ({_OTHERS}) AND s.data_id NOT IN ({_DATA})"
    )


#: (table, the dataset's rows, the rows that stay or None), children before parents. With None
#: the table is always deleted from (it is small, or has no index to find the kept rows by).
#: Every condition and query walks an index; vectors are found by their nodes (their
#: ``(collection, dataset_id)`` index does not lead with the dataset).
_TABLES: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    (
        "edge_sources",
        (f"edge_id IN ({_EDGES})", f"data_id IN ({_DATA})"),
        _sources("edge", "edges"),
    ),
    ("derived_edges", ("dataset_id = :ds",), None),
    ("edges", ("dataset_id = :ds",), f"SELECT * FROM edges WHERE dataset_id IN ({_OTHERS})"),
    (
        "node_sources",
        (f"node_id IN ({_NODES})", f"data_id IN ({_DATA})"),
        _sources("node", "nodes"),
    ),
    ("derived_nodes", ("dataset_id = :ds",), None),
    (
        "vectors",
        (f"node_id IN ({_NODES})",),
        # rowid too: the approximate index files key on it
        f"SELECT v.rowid AS rowid, v.* FROM nodes n JOIN vectors v ON v.node_id = n.id "
        f"WHERE n.dataset_id IN ({_OTHERS})",
    ),
    (
        "lexical_docs",
        ("dataset_id = :ds",),
        f"SELECT * FROM lexical_docs WHERE dataset_id IN ({_OTHERS})",
    ),
    ("nodes", ("dataset_id = :ds",), f"SELECT * FROM nodes WHERE dataset_id IN ({_OTHERS})"),
    ("kv_cache", (f"data_id IN ({_DATA})",), None),
    ("data", ("dataset_id = :ds",), None),
    ("pipeline_runs", ("dataset_id = :ds",), None),
    # cascaded from datasets when foreign keys are enforced
    ("improve_state", ("dataset_id = :ds",), None),
    ("grants", ("dataset_id = :ds",), None),
    ("staged_data", ("dataset_id = :ds",), None),
)

#: The report's counts: table -> DeleteReport field.
_REPORTED = {
    "data": "data_records",
    "nodes": "nodes",
    "edges": "edges",
    "vectors": "vectors",
    "lexical_docs": "lexical_rows",
}


def _share(conn: sqlite3.Connection, ds: str) -> float:
    mine = conn.execute("SELECT count(*) FROM nodes WHERE dataset_id = ?", (ds,)).fetchone()[0]
    total = conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    return float(mine) / total if total else 1.0


def delete_dataset(conn: sqlite3.Connection, dataset_id: UUID, log_keep: int) -> DeleteReport:
    """Drop a dataset (see the module docstring). Runs without foreign-key enforcement."""
    ds = str(dataset_id)
    if conn.execute("SELECT 1 FROM datasets WHERE id = ?", (ds,)).fetchone() is None:
        return DeleteReport()
    keep = _share(conn, ds) >= KEEP_FRACTION
    reset_temp(conn)
    foreign = DeleteReport()
    listed = run_unit(
        conn, partial(shared.collect_foreign, SQLITE, dataset_id, from_doomed=not keep)
    )
    if listed:
        foreign = purge(conn, None, log_keep)
    log_dataset_drop(conn, ds, log_keep)
    counts: dict[str, int] = {}
    _full_text(conn, ds, keep)
    for table, doomed, stays in _TABLES:
        if keep and stays is not None:
            counts[table] = _keep_others(conn, table, stays, ds)
        else:
            counts[table] = _delete_mine(conn, table, doomed, ds)
    conn.execute("DELETE FROM datasets WHERE id = ?", (ds,))
    mine = DeleteReport(**{field: counts[table] for table, field in _REPORTED.items()})
    return DeleteReport(
        **{field: getattr(mine, field) + getattr(foreign, field) for field in _REPORTED.values()}
    )


def _delete_mine(conn: sqlite3.Connection, table: str, doomed: tuple[str, ...], ds: str) -> int:
    """One statement per condition, so each walks its own index."""
    return sum(
        conn.execute(f"DELETE FROM {table} WHERE {where}", {"ds": ds}).rowcount for where in doomed
    )


def _keep_others(conn: sqlite3.Connection, table: str, stays: str, ds: str) -> int:
    """Copy the rows that stay aside, empty the table in one step, put them back."""
    before = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    if not before:
        return 0
    conn.execute("DROP TABLE IF EXISTS temp.bulk_keep")
    conn.execute(f"CREATE TEMP TABLE bulk_keep AS {stays}", {"ds": ds})
    stays = conn.execute("SELECT count(*) FROM temp.bulk_keep").fetchone()[0]
    conn.execute(f"DELETE FROM {table}")  # no WHERE, no foreign keys: truncated at once
    if stays:
        names = [row[1] for row in conn.execute("PRAGMA temp.table_info(bulk_keep)")]
        listed = ", ".join(f'"{name}"' for name in names)
        conn.execute(f"INSERT INTO {table} ({listed}) SELECT {listed} FROM temp.bulk_keep")
    conn.execute("DROP TABLE temp.bulk_keep")
    return int(before - stays)


def _full_text(conn: sqlite3.Connection, ds: str, keep: bool) -> None:
    """The dataset's rows of the FTS5 table (before ``lexical_docs``, which names them)."""
    mine = "SELECT id FROM lexical_docs WHERE dataset_id = ?"
    if not keep:
        conn.execute(f"DELETE FROM lexical_fts WHERE rowid IN ({mine})", (ds,))
        return
    conn.execute("DROP TABLE IF EXISTS temp.bulk_fts")
    conn.execute(
        "CREATE TEMP TABLE bulk_fts AS SELECT rowid AS id, text FROM lexical_fts WHERE rowid IN "
        "(SELECT id FROM lexical_docs WHERE dataset_id <> ?)",
        (ds,),
    )
    conn.execute("DROP TABLE lexical_fts")
    conn.execute(LEXICAL_FTS_DDL)
    conn.execute("INSERT INTO lexical_fts (rowid, text) SELECT id, text FROM temp.bulk_fts")
    conn.execute("DROP TABLE temp.bulk_fts")
