"""A PostgreSQL database as the source of ``migrate_relational_database`` (MIGRATION_DB_PROVIDER
postgres): a database of its own on the test server, read into the embedded store."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

import engramdb
from engramdb import SearchType
from engramdb.compat.cognee.infrastructure.databases.graph import get_graph_engine
from engramdb.compat.cognee.infrastructure.databases.relational import (
    get_migration_config,
    get_migration_relational_engine,
)
from engramdb.compat.cognee.tasks.ingestion import migrate_relational_database
from tests.postgres.server import PostgresServer

pytestmark = pytest.mark.postgres


@pytest.fixture
def source_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh database holding two related tables; its name."""
    import psycopg
    from psycopg import sql

    name = f"migration_src_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = urlsplit(postgres_server.url)._replace(path=f"/{name}", query="").geturl()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE customer (id SERIAL PRIMARY KEY, name TEXT NOT NULL, city TEXT);"
            "CREATE TABLE invoice (id SERIAL PRIMARY KEY, customer_id INTEGER NOT NULL "
            "REFERENCES customer (id), total NUMERIC);"
            "INSERT INTO customer (name, city) VALUES ('Leonie Köhler', 'Stuttgart');"
            "INSERT INTO invoice (customer_id, total) VALUES (1, 1.98), (1, 3.96);"
        )
    yield name
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


async def test_a_postgres_source_is_read_like_a_sqlite_one(
    postgres_server: PostgresServer, source_database: str
) -> None:
    server = urlsplit(postgres_server.url)
    migration_config = get_migration_config()
    migration_config.migration_db_provider = "postgres"
    migration_config.migration_db_host = server.hostname
    migration_config.migration_db_port = str(server.port)
    migration_config.migration_db_username = server.username
    migration_config.migration_db_password = server.password
    migration_config.migration_db_name = source_database

    schema = await get_migration_relational_engine().extract_schema()
    assert sorted(schema) == ["customer", "invoice"]
    assert schema["invoice"]["foreign_keys"] == [
        {"column": "customer_id", "ref_table": "customer", "ref_column": "id"}
    ]
    nodes, edges = await migrate_relational_database(await get_graph_engine(), schema=schema)
    by_id = {node_id: props["name"] for node_id, props in nodes}
    links = {(by_id[s], rel, by_id[t]) for s, t, rel, _ in edges}
    assert ("invoice:1", "customer_id", "customer:1") in links
    assert ("invoice:2", "customer_id", "customer:1") in links
    hits = await engramdb.recall("Stuttgart", query_type=SearchType.CHUNKS, top_k=3)
    assert any("Leonie Köhler" in h.text for h in hits)
