"""A relational database into the graph, in the shape of cognee's
relational_database_to_knowledge_graph_migration example: set ``get_migration_config()``,
``extract_schema()``, ``migrate_relational_database(graph, schema=schema)``, then search. The
source is a SQLite file made here; re-run with the store on PostgreSQL by
tests/postgres/test_api.py."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

import engramdb
from engramdb import SearchType
from engramdb.compat.cognee.infrastructure.databases.graph import get_graph_engine
from engramdb.compat.cognee.infrastructure.databases.relational import (
    get_migration_config,
    get_migration_relational_engine,
)
from engramdb.compat.cognee.tasks.ingestion import migrate_relational_database
from engramdb.errors import ConfigurationError

SCHEMA_SQL = """
CREATE TABLE Customer (CustomerId INTEGER PRIMARY KEY, FirstName TEXT, LastName TEXT,
                       City TEXT, Company TEXT);
CREATE TABLE Invoice (InvoiceId INTEGER PRIMARY KEY, CustomerId INTEGER NOT NULL,
                      Total REAL, FOREIGN KEY (CustomerId) REFERENCES Customer (CustomerId));
CREATE TABLE Tag (InvoiceId INTEGER, Label TEXT, PRIMARY KEY (InvoiceId, Label),
                  FOREIGN KEY (InvoiceId) REFERENCES Invoice (InvoiceId));
INSERT INTO Customer VALUES (1, 'Luís', 'Gonçalves', 'São José dos Campos', 'Embraer');
INSERT INTO Customer VALUES (2, 'Leonie', 'Köhler', 'Stuttgart', NULL);
INSERT INTO Invoice VALUES (10, 2, 1.98), (11, 2, 3.96), (12, 1, 5.94);
INSERT INTO Tag VALUES (10, 'paid'), (10, 'rush'), (12, 'paid');
"""


def _source(folder: Path) -> Path:
    path = folder / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA_SQL)
    conn.close()
    return path


def _point_at(path: Path) -> None:
    migration_config = get_migration_config()
    migration_config.migration_db_provider = "sqlite"
    migration_config.migration_db_path = str(path.parent)
    migration_config.migration_db_name = path.name


async def _migrate(**options: bool) -> tuple[list[object], list[object]]:
    schema = await get_migration_relational_engine().extract_schema()
    graph = await get_graph_engine()
    return await migrate_relational_database(graph, schema=schema, **options)  # type: ignore[no-any-return]


async def test_schema_is_cognees_shape(tmp_path: Path) -> None:
    _point_at(_source(tmp_path))
    schema = await get_migration_relational_engine().extract_schema()
    assert sorted(schema) == ["Customer", "Invoice", "Tag"]
    assert schema["Invoice"]["primary_key"] == "InvoiceId"
    assert schema["Invoice"]["foreign_keys"] == [
        {"column": "CustomerId", "ref_table": "Customer", "ref_column": "CustomerId"}
    ]
    assert [c["name"] for c in schema["Customer"]["columns"]] == [
        "CustomerId",
        "FirstName",
        "LastName",
        "City",
        "Company",
    ]
    assert schema["Tag"]["primary_keys"] == ["InvoiceId", "Label"]


async def test_rows_and_foreign_keys_become_a_searchable_graph(tmp_path: Path) -> None:
    path = _source(tmp_path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    _point_at(path)

    nodes, edges = await _migrate()

    names = {props["name"]: props for _, props in nodes}
    assert {"Customer", "Invoice", "Tag"} <= set(names)  # one node per table
    assert {"Customer:1", "Customer:2", "Invoice:10", "Invoice:11", "Invoice:12"} <= set(names)
    assert {"Tag:10|paid", "Tag:10|rush", "Tag:12|paid"} <= set(names)  # composite keys
    assert "Customer:City:Stuttgart" in names and not any("None" in n for n in names)
    by_id = {node_id: props["name"] for node_id, props in nodes}
    links = {(by_id[s], rel, by_id[t]) for s, t, rel, _ in edges}
    assert ("Invoice:10", "CustomerId", "Customer:2") in links
    assert ("Invoice:12", "CustomerId", "Customer:1") in links
    assert ("Tag:10|rush", "InvoiceId", "Invoice:10") in links
    assert ("Customer:2", "is_part_of", "Customer") in links
    assert ("Customer:2", "City", "Customer:City:Stuttgart") in links
    assert names["Customer:2"]["importance_weight"] == 0.5

    hits = await engramdb.recall("Stuttgart customer", query_type=SearchType.CHUNKS, top_k=3)
    assert any("Leonie" in h.text and "Stuttgart" in h.text for h in hits)
    context = await engramdb.recall(
        "Which invoices belong to Leonie Köhler?",
        query_type=SearchType.GRAPH_COMPLETION,
        only_context=True,
        top_k=50,
    )
    assert "Invoice:10 —CustomerId→ Customer:2" in context[0].text
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # read-only

    again_nodes, again_edges = await _migrate()  # the same database again: nothing new
    assert len(again_nodes) == len(nodes) and len(again_edges) == len(edges)

    await engramdb.forget(dataset="main_dataset")
    assert await engramdb.recall("Stuttgart", query_type=SearchType.CHUNKS) == []


async def test_without_column_data_or_with_schema_only(tmp_path: Path) -> None:
    _point_at(_source(tmp_path))
    nodes, _ = await _migrate(migrate_column_data=False)
    assert not [p for _, p in nodes if p.get("type") == "ColumnValue"]
    await engramdb.forget(everything=True)

    nodes, edges = await _migrate(schema_only=True)
    kinds = {p["name"]: p.get("type") for _, p in nodes if p.get("type") != "TextDocument"}
    assert kinds == {
        "shop.sqlite": "DatabaseSchema",
        "Customer": "SchemaTable",
        "Invoice": "SchemaTable",
        "Tag": "SchemaTable",
    }
    by_id = {node_id: props["name"] for node_id, props in nodes}
    assert ("Invoice", "CustomerId", "Customer") in {
        (by_id[s], r, by_id[t]) for s, t, r, _ in edges
    }
    hits = await engramdb.recall("columns of Invoice", query_type=SearchType.CHUNKS, top_k=4)
    assert any("Total (REAL)" in h.text for h in hits)


async def test_a_missing_source_or_provider_says_what_to_set(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="MIGRATION_DB_PROVIDER"):
        get_migration_relational_engine()
    _point_at(tmp_path / "nothing.sqlite")
    with pytest.raises(ConfigurationError, match="no SQLite database at"):
        get_migration_relational_engine()
    get_migration_config().migration_db_provider = "oracle"
    with pytest.raises(ConfigurationError, match="sqlite, postgres"):
        get_migration_relational_engine()
    with pytest.raises(AttributeError, match="migration_db_name"):
        get_migration_config().migration_db_nmae = "typo"  # type: ignore[attr-defined]
