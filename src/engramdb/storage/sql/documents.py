"""The steps of deleting data that are the same on both backends (units of :mod:`.unit`).

A deletion lists what goes in the temporary tables ``del_data``, ``del_nodes`` and
``del_edges`` (each backend creates them: SQLite once per connection, PostgreSQL ``ON COMMIT
DELETE ROWS``), extends the lists with everything only the doomed data supports, then purges;
the purge touches each backend's own full-text and vector bookkeeping and stays in its
``documents`` module.
"""

from __future__ import annotations

from uuid import UUID

from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.unit import Unit, count, execute, one

__all__ = ["collect_data", "collect_dependants", "collect_foreign", "replaced_twice"]


def replaced_twice(data_id: UUID, replaces: UUID) -> str:
    """The error of a rebuild (``DocumentWrite.replaces``) whose content hash another stored
    item still holds once the replaced one is gone: the transaction is rolled back."""
    return (
        f"Document {data_id} was to replace data item {replaces}, but another item of the "
        "dataset holds the same content; nothing was written."
    )


def collect_data(d: SqlDialect, data_id: UUID) -> Unit[bool]:
    """List the data item to go; whether it exists."""
    found = yield from count(
        f"INSERT INTO del_data SELECT id FROM data WHERE id = {d.param}", data_id
    )
    return found > 0


def collect_dependants(d: SqlDialect) -> Unit[None]:
    """Extend del_nodes/del_edges with everything only ``del_data`` supports, and with every
    edge touching a node about to go."""
    for kind in ("node", "edge"):
        yield from execute(
            f"""INSERT INTO del_{kind}s
                SELECT DISTINCT s.{kind}_id FROM {kind}_sources s
                WHERE s.data_id IN (SELECT id FROM del_data)
                  AND NOT EXISTS (SELECT 1 FROM {kind}_sources o WHERE o.{kind}_id = s.{kind}_id
                                  AND o.data_id NOT IN (SELECT id FROM del_data))
                ON CONFLICT DO NOTHING"""
        )
    # Two statements so each uses its own index (edges_by_source_target / _target_relation).
    for end in ("source_id", "target_id"):
        yield from execute(
            f"INSERT INTO del_edges SELECT id FROM edges WHERE {end} IN (SELECT id FROM del_nodes) "
            "ON CONFLICT DO NOTHING"
        )


def collect_foreign(d: SqlDialect, dataset_id: UUID, *, from_doomed: bool) -> Unit[bool]:
    """List in del_nodes/del_edges what of OTHER datasets goes when the dataset goes in bulk:
    their nodes and edges only its data supports, and their edges touching its nodes (or those
    nodes). Support its data gives a row another item still supports is not listed (the bulk
    delete of the dataset's provenance rows removes it; the row stays). del_data is left
    empty. Whether anything was listed.

    ``from_doomed`` picks the plan, not the result: walk from the dataset's rows (cheap when the
    dataset is a small part of the store) or from the other datasets' rows (cheap when it is
    most of it)."""
    p = d.param
    yield from execute(
        f"INSERT INTO del_data SELECT id FROM data WHERE dataset_id = {p}", dataset_id
    )
    for kind, table in (("node", "nodes"), ("edge", "edges")):
        if from_doomed:
            candidates = f"""SELECT DISTINCT s.{kind}_id AS id FROM {kind}_sources s
                JOIN {table} x ON x.id = s.{kind}_id
                WHERE s.data_id IN (SELECT id FROM del_data) AND x.dataset_id <> {p}"""
        else:
            candidates = f"""SELECT x.id AS id FROM {table} x
                WHERE x.dataset_id IN (SELECT id FROM datasets WHERE id <> {p})
                  AND EXISTS (SELECT 1 FROM {kind}_sources s WHERE s.{kind}_id = x.id
                              AND s.data_id IN (SELECT id FROM del_data))"""
        yield from execute(
            f"""INSERT INTO del_{kind}s SELECT c.id FROM ({candidates}) AS c
                WHERE NOT EXISTS (SELECT 1 FROM {kind}_sources o WHERE o.{kind}_id = c.id
                                  AND o.data_id NOT IN (SELECT id FROM del_data))
                ON CONFLICT DO NOTHING""",
            dataset_id,
        )
    for end in ("source_id", "target_id"):
        if from_doomed:
            touching = f"""SELECT e.id FROM nodes n JOIN edges e ON e.{end} = n.id
                WHERE n.dataset_id = {p} AND e.dataset_id <> {p}"""
            params: tuple[object, ...] = (dataset_id, dataset_id)
        else:
            touching = f"""SELECT e.id FROM edges e
                WHERE e.dataset_id IN (SELECT id FROM datasets WHERE id <> {p})
                  AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.{end} AND n.dataset_id = {p})"""
            params = (dataset_id, dataset_id)
        yield from execute(f"INSERT INTO del_edges {touching} ON CONFLICT DO NOTHING", *params)
        yield from execute(
            f"INSERT INTO del_edges SELECT id FROM edges WHERE {end} IN (SELECT id FROM del_nodes) "
            "ON CONFLICT DO NOTHING"
        )
    yield from execute("DELETE FROM del_data")
    listed = yield from one(
        "SELECT 1 WHERE EXISTS (SELECT 1 FROM del_nodes) OR EXISTS (SELECT 1 FROM del_edges)"
    )
    return listed is not None
