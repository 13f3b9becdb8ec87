"""A relational database's tables, rows and foreign keys as graph nodes and edges (cognee's
``migrate_relational_database``), written through :func:`engramdb.add_data_points`: one data
item in one transaction, so the migrated graph is weighted, searchable (CHUNKS, the graph
searches) and forgotten (``forget(data_id=...)`` or the dataset) like everything else.

With rows (the default):

* each table is a :class:`TableType` node;
* each row a :class:`TableRow` node named ``table:key`` (the primary key's value; every
  column's when the key is composite or missing), whose text lists its columns and values, with
  an ``is_part_of`` edge to its table;
* each foreign key an edge named after its column, from the row to the row it references;
* with ``migrate_column_data`` each other non-empty value a :class:`ColumnValue` node
  ``table:column:value``, shared by the rows holding that value, with an edge named after the
  column from each of them.

With ``schema_only`` only the structure: a :class:`DatabaseSchema` node, a :class:`SchemaTable`
node per table (its columns and keys in its text) with an ``is_part_of`` edge to it, and per
foreign key an edge named after its column from the table to the table it references.

Node ids derive from the names above, so migrating the same database again stores nothing new,
and a changed row updates its node.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from uuid import NAMESPACE_OID, uuid5

from pydantic import Field

from engramdb.migration.relational_source import RelationalSource, TableSchema
from engramdb.models.datapoints import DataPoint, Edge, MetaData
from engramdb.models.results import RememberResult
from engramdb.pipelines.runner import current_context
from engramdb.pipelines.storage import dataset_of, user_of
from engramdb.settings import config

__all__ = [
    "ColumnValue",
    "DatabaseSchema",
    "SchemaTable",
    "TableRow",
    "TableType",
    "migrate_relational_database",
]

Link = tuple[Edge, DataPoint]


class TableType(DataPoint):
    """A table of the migrated database."""

    name: str
    description: str
    metadata: MetaData = {"index_fields": ["name"]}  # noqa: RUF012 - a pydantic field


class TableRow(DataPoint):
    """A row of a migrated table."""

    name: str
    description: str
    properties: str
    links: list[Link] = Field(default_factory=list)
    metadata: MetaData = {"index_fields": ["properties"]}  # noqa: RUF012 - a pydantic field


class ColumnValue(DataPoint):
    """One value of one column of a migrated table."""

    name: str
    description: str
    properties: str
    metadata: MetaData = {"index_fields": ["properties"]}  # noqa: RUF012 - a pydantic field


class DatabaseSchema(DataPoint):
    """The migrated database (``schema_only``)."""

    name: str
    description: str
    metadata: MetaData = {"index_fields": ["description"]}  # noqa: RUF012 - a pydantic field


class SchemaTable(DataPoint):
    """A table's structure (``schema_only``)."""

    name: str
    description: str
    links: list[Link] = Field(default_factory=list)
    metadata: MetaData = {"index_fields": ["description"]}  # noqa: RUF012 - a pydantic field


def _id(name: str) -> Any:
    return uuid5(NAMESPACE_OID, name)


def _link(relation: str, target: DataPoint) -> Link:
    return (Edge(relationship_type=relation), target)


async def migrate_relational_database(
    schema: dict[str, TableSchema] | None = None,
    *,
    source: RelationalSource | None = None,
    migrate_column_data: bool = True,
    schema_only: bool = False,
    dataset_name: str | None = None,
    user: Any = None,
) -> RememberResult:
    """Read ``source`` (default: the one the ``MIGRATION_DB_*`` settings name) into the graph of
    ``dataset_name`` (default: the pipeline's dataset inside a pipeline, else main_dataset), as
    the module docstring describes; ``schema`` is :meth:`RelationalSource.extract_schema`'s
    answer (read when None). Returns the RememberResult of the one data item written."""
    owned = source is None
    source = source or RelationalSource.from_settings(config.settings)
    try:
        tables = schema if schema is not None else await source.extract_schema()
        if schema_only:
            points = _schema_points(source.label, tables)
        else:
            points = await _row_points(source, tables, migrate_column_data)
    finally:
        if owned:
            source.dispose()
    from engramdb.facade import add_data_points

    running = current_context()
    target = dataset_name if dataset_name is not None else dataset_of(running)
    result: RememberResult = await add_data_points(
        points, dataset_name=target, user=user if user is not None else user_of(running)
    )
    return result


def _key_columns(details: TableSchema) -> list[str]:
    keys = list(details.get("primary_keys") or [])
    if not keys and details.get("primary_key"):
        keys = [details["primary_key"]]
    return keys or [c["name"] for c in details["columns"]]


def _text(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in values.items() if v is not None)


async def _row_points(
    source: RelationalSource, tables: dict[str, TableSchema], migrate_column_data: bool
) -> list[DataPoint]:
    types: dict[str, TableType] = {}
    rows: dict[str, list[tuple[dict[str, Any], TableRow]]] = {}
    values: dict[str, ColumnValue] = {}
    for table, details in tables.items():
        types[table] = TableType(
            id=_id(table),
            name=table,
            description=f"Relational database table {table!r}.",
        )
        columns = [c["name"] for c in details["columns"]]
        keys = _key_columns(details)
        skipped = set(keys) | {fk["column"] for fk in details.get("foreign_keys") or []}
        rows[table] = []
        for record in await source.rows(table, columns):
            key = "|".join(str(record[k]) for k in keys)
            name = f"{table}:{key}"
            row = TableRow(
                id=_id(name),
                name=name,
                description=f"Row {key} of the relational database table {table!r}.",
                properties=f"{table} {key}: {_text(record)}",
                links=[_link("is_part_of", types[table])],
            )
            rows[table].append((record, row))
            if not migrate_column_data:
                continue
            for column, value in record.items():
                if column in skipped or value is None or str(value).strip() == "":
                    continue
                value_name = f"{table}:{column}:{value}"
                node = values.get(value_name)
                if node is None:
                    node = values[value_name] = ColumnValue(
                        id=_id(value_name),
                        name=value_name,
                        description=f"Value of column {column!r} of table {table!r}.",
                        properties=f"{column} {value} {table}",
                    )
                row.links.append(_link(column, node))
    _foreign_key_links(tables, rows)
    return [*types.values(), *(r for pairs in rows.values() for _, r in pairs), *values.values()]


def _foreign_key_links(
    tables: dict[str, TableSchema], rows: dict[str, list[tuple[dict[str, Any], TableRow]]]
) -> None:
    """An edge from each row to each row its foreign keys reference (found in memory)."""
    index: dict[tuple[str, str], dict[str, TableRow]] = {}
    for table, details in tables.items():
        for fk in details.get("foreign_keys") or []:
            ref_table, ref_column = fk["ref_table"], fk["ref_column"]
            if ref_table not in rows:
                continue
            lookup = index.get((ref_table, ref_column))
            if lookup is None:
                lookup = index[(ref_table, ref_column)] = {
                    str(record.get(ref_column)): row for record, row in rows[ref_table]
                }
            for record, row in rows[table]:
                value = record.get(fk["column"])
                target = lookup.get(str(value)) if value is not None else None
                if target is not None:
                    row.links.append(_link(fk["column"], target))


def _schema_points(label: str, tables: dict[str, TableSchema]) -> list[DataPoint]:
    database = DatabaseSchema(
        id=_id(f"database:{label}"),
        name=label.rsplit("/", 1)[-1],
        description=f"Relational database {label.rsplit('/', 1)[-1]} with tables "
        + ", ".join(tables),
    )
    nodes: dict[str, SchemaTable] = {}
    for table, details in tables.items():
        nodes[table] = SchemaTable(
            id=_id(f"schema_table:{label}:{table}"),
            name=table,
            description=_table_description(table, details),
            links=[_link("is_part_of", database)],
        )
    for table, details in tables.items():
        for fk in details.get("foreign_keys") or []:
            target = nodes.get(fk["ref_table"])
            if target is not None:
                nodes[table].links.append(_link(fk["column"], target))
    return [database, *nodes.values()]


def _table_description(table: str, details: TableSchema) -> str:
    columns = ", ".join(f"{c['name']} ({c['type']})" for c in details["columns"])
    parts = [f"Table {table} with columns {columns}"]
    keys = _key_columns(details) if details.get("primary_key") else []
    if keys:
        parts.append("primary key " + ", ".join(keys))
    foreign: Iterable[dict[str, str]] = details.get("foreign_keys") or []
    parts.extend(
        f"{fk['column']} references {fk['ref_table']}.{fk['ref_column']}" for fk in foreign
    )
    return "; ".join(parts) + "."
