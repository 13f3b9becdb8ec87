"""Recall's ``tools`` scope on a real PostgreSQL database (and engramdb's PostgreSQL store): a
role that may even write is still only ever read through the lane, hostile SQL from the model
is refused with nothing written, other schemas and catalogs stay out, and an approved
proposal is the one write that lands."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

import engramdb
from engramdb.models.results import ResponseToolEntry
from engramdb.settings import Settings
from tests.postgres.server import PostgresServer
from tests.support.openai_server import OpenAIServer

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

ORDERS = [(1, "Ada", 30), (2, "Bob", 12), (3, "Cy", 7)]


@dataclass
class Shop:
    admin_url: str
    reader_url: str
    schema: str
    vault: str


def _base(url: str) -> str:
    return urlunsplit(urlsplit(url)._replace(query=""))


@pytest.fixture
async def shop(postgres_server: PostgresServer) -> AsyncIterator[Shop]:
    key = uuid.uuid4().hex[:8]
    schema, vault, role = f"shop_{key}", f"vault_{key}", f"reader_{key}"
    admin = _base(postgres_server.url)
    async with await psycopg.AsyncConnection.connect(admin, autocommit=True) as conn:
        await conn.execute(f"CREATE SCHEMA {schema}")
        await conn.execute(f"CREATE SCHEMA {vault}")
        await conn.execute(
            f"CREATE TABLE {schema}.orders (id serial PRIMARY KEY, customer text, amount int)"
        )
        for row in ORDERS:
            await conn.execute(f"INSERT INTO {schema}.orders VALUES (%s, %s, %s)", row)
        await conn.execute(f"CREATE TABLE {vault}.secrets (token text)")
        await conn.execute(f"INSERT INTO {vault}.secrets VALUES ('s3cr3t')")
        await conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw-{key}'")
        # More than SELECT on purpose: the lane itself must keep reads read-only.
        await conn.execute(f"GRANT USAGE, CREATE ON SCHEMA {schema} TO {role}")
        await conn.execute(f"GRANT ALL ON ALL TABLES IN SCHEMA {schema} TO {role}")
        await conn.execute(f"GRANT ALL ON ALL SEQUENCES IN SCHEMA {schema} TO {role}")
        await conn.execute(f"GRANT USAGE ON SCHEMA {vault} TO {role}")
        await conn.execute(f"GRANT SELECT ON {vault}.secrets TO {role}")
        await conn.execute(f"ALTER ROLE {role} SET search_path = {schema}")
    parts = urlsplit(admin)
    netloc = f"{role}:pw-{key}@{parts.hostname}:{parts.port}"
    reader = urlunsplit(parts._replace(netloc=netloc))
    yield Shop(admin, reader, schema, vault)


async def _orders(shop: Shop) -> list[tuple[object, ...]]:
    async with await psycopg.AsyncConnection.connect(shop.admin_url) as conn:
        cur = await conn.execute(f"SELECT * FROM {shop.schema}.orders ORDER BY id")
        return list(await cur.fetchall())


async def _tables(shop: Shop) -> set[str]:
    async with await psycopg.AsyncConnection.connect(shop.admin_url) as conn:
        cur = await conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (shop.schema,),
        )
        return {str(r[0]) for r in await cur.fetchall()}


@pytest.fixture
async def mem(
    postgres_server: PostgresServer, openai_server: OpenAIServer
) -> AsyncIterator[engramdb.Engine]:
    settings = Settings(
        engramdb_storage_url=postgres_server.fresh_url(),
        tool_calls_enabled=True,
        tool_write_calls_enabled=True,
        integration_credentials_key="MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
        text_to_sql_max_attempts=1,
        embedding_provider="fake",
        embedding_dimensions=64,
        llm_endpoint=openai_server.base_url,
        llm_api_key="test-key",
        llm_max_retries=0,
    )
    async with engramdb.Engine(settings) as engine:
        await engine.remember("Owls hunt at night.", self_improvement=False)
        yield engine


async def test_a_question_is_answered_read_only(
    mem: engramdb.Engine, shop: Shop, openai_server: OpenAIServer
) -> None:
    shown = await mem.register_sql_connection("shop", shop.reader_url)
    assert shown["provider"] == "postgres" and "pw-" not in str(shown)
    assert "pw-" not in str(await mem.list_sql_connections())
    openai_server.chat_text = "SELECT customer FROM orders WHERE amount > 10 ORDER BY id"
    (entry,) = await mem.recall("Who spent more than 10?", scope=["tools"])
    assert isinstance(entry, ResponseToolEntry) and entry.success, entry.error
    assert entry.structured and entry.structured["rows"] == [
        {"customer": "Ada"},
        {"customer": "Bob"},
    ]
    assert entry.structured["dialect"] == "postgresql"


HOSTILE = [
    "DELETE FROM orders",
    "UPDATE orders SET amount = 0",
    "SELECT 1; DELETE FROM orders",
    "SELECT * FROM {vault}.secrets",
    "SELECT * FROM secrets",
    "SELECT usename FROM pg_catalog.pg_user",
    "SELECT * FROM pg_user",
    "SELECT table_name FROM information_schema.tables",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "SELECT nextval('orders_id_seq')",
    "SELECT pg_sleep(30)",
    "SELECT * FROM orders FOR UPDATE",
    "SELECT * INTO copied FROM orders",
    "WITH gone AS (DELETE FROM orders RETURNING *) SELECT * FROM gone",
    "CREATE TABLE copied AS SELECT * FROM orders",
    "COPY orders TO '/tmp/orders.csv'",
    "SET ROLE postgres",
    "SET TRANSACTION READ WRITE",
    "SELECT * FROM dblink('dbname=x', 'DELETE FROM orders') AS t(a int)",
    "SELECT * FROM otherdb.{schema}.orders",
]


@pytest.mark.parametrize("sql", HOSTILE)
async def test_hostile_sql_is_refused_and_nothing_is_written(
    mem: engramdb.Engine, shop: Shop, openai_server: OpenAIServer, sql: str
) -> None:
    await mem.register_sql_connection("shop", shop.reader_url)
    openai_server.chat_text = sql.format(vault=shop.vault, schema=shop.schema)
    (entry,) = await mem.recall("Show me everything", scope=["tools"])
    assert isinstance(entry, ResponseToolEntry)
    assert not entry.success and entry.error, entry.structured
    assert "s3cr3t" not in entry.text
    assert await _orders(shop) == ORDERS
    assert await _tables(shop) == {"orders"}


async def test_an_approved_proposal_is_the_one_write(
    mem: engramdb.Engine, shop: Shop, openai_server: OpenAIServer
) -> None:
    await mem.register_sql_connection("shop", shop.reader_url, allow_writes=True)
    openai_server.chat_text = "UPDATE orders SET amount = 31 WHERE id = 1"
    proposal = await mem.propose_sql_write("shop", "Ada paid 31")
    assert proposal["estimated_rows"] == 1 and await _orders(shop) == ORDERS
    applied = await mem.apply_write_proposal(proposal["proposal_id"])
    assert applied["status"] == "applied"
    assert (await _orders(shop))[0] == (1, "Ada", 31)
    assert [p["status"] for p in await mem.list_write_proposals()] == ["applied"]


async def test_an_unqualified_name_is_the_connections_table_never_the_catalogs(
    mem: engramdb.Engine, shop: Shop, openai_server: OpenAIServer
) -> None:
    """PostgreSQL searches pg_catalog before the search_path: the guard pins each table to the
    connection's schema, so a table named like a catalog view is the connection's own."""
    async with await psycopg.AsyncConnection.connect(shop.admin_url, autocommit=True) as conn:
        await conn.execute(f"CREATE TABLE {shop.schema}.pg_settings (name text)")
        await conn.execute(f"INSERT INTO {shop.schema}.pg_settings VALUES ('mine')")
        await conn.execute(f"GRANT SELECT ON {shop.schema}.pg_settings TO PUBLIC")
    await mem.register_sql_connection("shop", shop.reader_url)
    openai_server.chat_text = "SELECT name FROM pg_settings"
    (entry,) = await mem.recall("Which settings?", scope=["tools"])
    assert entry.success and entry.structured, entry.error
    assert entry.structured["rows"] == [{"name": "mine"}]


async def test_rows_are_capped_and_a_slow_query_is_cancelled(
    mem: engramdb.Engine, shop: Shop, openai_server: OpenAIServer
) -> None:
    await mem.register_sql_connection("shop", shop.reader_url, max_rows=2)
    openai_server.chat_text = "SELECT id FROM orders ORDER BY id"
    (entry,) = await mem.recall("Order ids", scope=["tools"])
    assert entry.success and entry.structured
    assert entry.structured["rows"] == [{"id": 1}, {"id": 2}] and entry.structured["truncated"]
    mem.settings.text_to_sql_statement_timeout_ms = 200
    openai_server.chat_text = "SELECT count(*) AS n FROM " + ", ".join(
        f"orders o{i}" for i in range(24)
    )
    (slow,) = await mem.recall("Count a lot", scope=["tools"])
    assert not slow.success and slow.error and "200 ms" in slow.error
