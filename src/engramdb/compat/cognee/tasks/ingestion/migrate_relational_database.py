"""``cognee.tasks.ingestion.migrate_relational_database``: a relational database's tables,
rows and foreign keys into the graph, over :mod:`engramdb.migration.relational_graph`."""

from __future__ import annotations

from typing import Any

from engramdb.migration.relational_graph import migrate_relational_database as _migrate

__all__ = ["migrate_relational_database"]


async def migrate_relational_database(
    graph_db: Any,
    schema: dict[str, Any],
    migrate_column_data: bool = True,
    schema_only: bool = False,
) -> Any:
    """Read the database ``get_migration_config()`` names into the graph, as cognee does:
    each table a ``TableType`` node, each row a ``TableRow`` node (``is_part_of`` its table),
    each foreign key an edge between rows, and with ``migrate_column_data`` each other value a
    ``ColumnValue`` node; ``schema_only`` writes the tables' structure instead. ``schema`` is
    ``await get_migration_relational_engine().extract_schema()``.

    Everything is one data item of the pipeline's dataset (outside a pipeline, the default
    user's main_dataset), written in one transaction. Returns ``graph_db.get_graph_data()``
    (the nodes and edges of the graph afterwards), as cognee does."""
    await _migrate(schema, migrate_column_data=migrate_column_data, schema_only=schema_only)
    get_graph_data = getattr(graph_db, "get_graph_data", None)
    return await get_graph_data() if get_graph_data is not None else None
