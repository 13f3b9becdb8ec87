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
from engramdb.storage.sql.unit import Unit, count, execute

__all__ = ["collect_data", "collect_dataset", "collect_dependants"]


def collect_data(d: SqlDialect, data_id: UUID) -> Unit[bool]:
    """List the data item to go; whether it exists."""
    found = yield from count(
        f"INSERT INTO del_data SELECT id FROM data WHERE id = {d.param}", data_id
    )
    return found > 0


def collect_dataset(d: SqlDialect, dataset_id: UUID) -> Unit[None]:
    """List everything of the dataset to go."""
    for table, source in (("del_data", "data"), ("del_nodes", "nodes"), ("del_edges", "edges")):
        yield from execute(
            f"INSERT INTO {table} SELECT id FROM {source} WHERE dataset_id = {d.param}", dataset_id
        )


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
