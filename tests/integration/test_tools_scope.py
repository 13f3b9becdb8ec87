"""Recall's ``tools`` scope on a real SQLite database, the SQL scripted through the local
OpenAI-protocol server: answers, the guard refusing hostile SQL with nothing written, row and
time limits, the on_empty fallback, owners only, no secrets in listings, and write proposals.

recall.md: '"tools" and "code" are explicit opt-in only: neither "auto" nor "all" includes
them, so name them yourself (scope=["all", "tools"] works).'
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

import engramdb
from engramdb import SearchType
from engramdb.errors import (
    ConflictError,
    PermissionDeniedError,
    SqlGuardError,
    ToolCallsDisabledError,
    ToolConnectionNotFoundError,
)
from engramdb.models.results import ResponseToolEntry
from tests.support.openai_server import OpenAIServer

ORDERS = [(1, "Ada", 30.0), (2, "Bob", 12.5), (3, "Cy", 7.0)]
#: A credentials key (base64 of 32 bytes) sealing the connection strings.
KEY = ("integration_credentials_key", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")


def _database(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, amount REAL)")
        conn.executemany("INSERT INTO orders VALUES (?, ?, ?)", ORDERS)
        conn.execute("CREATE TABLE secrets (token TEXT)")
        conn.execute("INSERT INTO secrets VALUES ('s3cr3t')")
    conn.close()
    return path


def _rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        found = conn.execute("SELECT * FROM orders ORDER BY id").fetchall()
    conn.close()
    return found


@pytest.fixture
async def shop(tmp_path: Path, openai_server: OpenAIServer) -> Path:
    await engramdb.remember("Owls hunt at night.", self_improvement=False)  # before the LLM
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    engramdb.config.set("tool_calls_enabled", True)
    engramdb.config.set(*KEY)
    return _database(tmp_path)


async def _register(path: Path, **options: object) -> None:
    await engramdb.register_sql_connection(
        "shop", f"sqlite:///{path}", allowed_tables=["orders"], **options
    )


async def test_a_question_is_answered_from_the_registered_database(
    shop: Path, openai_server: OpenAIServer
) -> None:
    await _register(shop)
    openai_server.chat_text = "```sql\nSELECT customer, amount FROM orders WHERE amount > 10;\n```"
    (entry,) = await engramdb.recall("Who spent more than 10?", scope=["tools"])
    assert isinstance(entry, ResponseToolEntry) and entry.source == "tools"
    assert entry.success and entry.error is None and entry.tool_name == "text_to_sql"
    assert entry.question == "Who spent more than 10?"
    assert entry.structured is not None
    assert entry.structured["rows"] == [
        {"customer": "Ada", "amount": 30.0},
        {"customer": "Bob", "amount": 12.5},
    ]
    assert "Ada" in entry.text and entry.structured["dialect"] == "sqlite"
    prompt = openai_server.requests_to("chat/completions")[0].json["messages"][0]["content"]
    assert "orders(" in prompt and "secrets" not in prompt  # only allowed tables are shown


async def test_sqlite_functions_work_and_the_sql_is_reported_as_run(
    shop: Path, openai_server: OpenAIServer
) -> None:
    await _register(shop)
    openai_server.chat_text = (
        "SELECT upper(customer) AS c, julianday('2024-01-02') AS d FROM orders"
    )
    (entry,) = await engramdb.recall("Shout the names", scope=["tools"])
    assert entry.success and entry.structured, entry.error
    assert entry.structured["rows"][0] == {"c": "ADA", "d": 2460311.5}
    assert entry.structured["sql"].endswith("LIMIT 101")  # TEXT_TO_SQL_MAX_ROWS + 1


async def test_tools_is_explicit_opt_in_and_gated(shop: Path, openai_server: OpenAIServer) -> None:
    await _register(shop)
    openai_server.chat_text = "SELECT count(*) AS n FROM orders"
    found = await engramdb.recall("owls", SearchType.CHUNKS, scope="all")
    assert not any(isinstance(r, ResponseToolEntry) for r in found)
    both = await engramdb.recall("owls", SearchType.CHUNKS, scope=["all", "tools"])
    tools = [r for r in both if isinstance(r, ResponseToolEntry)]
    assert len(tools) == 1 and tools[0].structured and tools[0].structured["rows"] == [{"n": 3}]
    engramdb.config.set("tool_calls_enabled", False)
    with pytest.raises(ToolCallsDisabledError, match="TOOL_CALLS_ENABLED"):
        await engramdb.recall("How many orders?", scope=["tools"])


async def test_without_an_llm_the_entry_names_the_llm_settings(tmp_path: Path) -> None:
    engramdb.config.set("tool_calls_enabled", True)
    engramdb.config.set(*KEY)
    await engramdb.remember("Owls hunt at night.", self_improvement=False)
    await _register(_database(tmp_path))
    (entry,) = await engramdb.recall("How many orders?", scope=["tools"])
    assert isinstance(entry, ResponseToolEntry)
    assert not entry.success and entry.error and "LLM_API_KEY" in entry.error


HOSTILE = [
    "DELETE FROM orders",
    "UPDATE orders SET amount = 0",
    "INSERT INTO orders VALUES (9, 'Eve', 1)",
    "DROP TABLE orders",
    "SELECT 1; DELETE FROM orders",
    "SELECT * FROM orders; SELECT * FROM secrets",
    "PRAGMA writable_schema = 1",
    "ATTACH DATABASE 'stolen.db' AS stolen",
    "DETACH DATABASE main",
    "SELECT * FROM secrets",
    "SELECT * FROM main.secrets",
    "SELECT * FROM stolen.orders",
    "SELECT name, sql FROM sqlite_master",
    "SELECT * FROM pragma_table_info('secrets')",
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT readfile('/etc/passwd')",
    "SELECT * INTO copied FROM orders",
    "WITH gone AS (DELETE FROM orders RETURNING *) SELECT * FROM gone",
    "SELECT * FROM orders WHERE id IN (SELECT rowid FROM secrets)",
    "CREATE TABLE t AS SELECT * FROM orders",
    "VACUUM INTO 'copy.db'",
    "this is not sql",
]


@pytest.mark.parametrize("sql", HOSTILE)
async def test_hostile_sql_from_the_model_is_refused_and_nothing_is_written(
    shop: Path, openai_server: OpenAIServer, sql: str
) -> None:
    engramdb.config.set("text_to_sql_max_attempts", 1)
    await _register(shop)
    openai_server.chat_text = sql
    (entry,) = await engramdb.recall("Show me everything", scope=["tools"])
    assert isinstance(entry, ResponseToolEntry)
    assert not entry.success and entry.error, entry.structured
    assert "s3cr3t" not in entry.text
    assert _rows(shop) == ORDERS
    assert sorted(p.name for p in shop.parent.iterdir()) == ["shop.db"]


async def test_the_model_is_told_why_and_may_try_again(
    shop: Path, openai_server: OpenAIServer
) -> None:
    await _register(shop)
    openai_server.chat_text = "SELECT count(*) AS n FROM orders"
    openai_server.enqueue("chat/completions", openai_server_reply("DELETE FROM orders"))
    (entry,) = await engramdb.recall("How many orders?", scope=["tools"])
    assert entry.success and entry.structured and entry.structured["attempts"] == 2
    retry = openai_server.requests_to("chat/completions")[1].json["messages"][0]["content"]
    assert "DELETE FROM orders" in retry and "Rejected" in retry


def openai_server_reply(text: str):  # type: ignore[no-untyped-def]
    from tests.support.openai_server import Reply

    return Reply.json(
        {
            "id": "x",
            "object": "chat.completion",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )


async def test_rows_are_capped_and_a_slow_query_is_stopped(
    shop: Path, openai_server: OpenAIServer
) -> None:
    await _register(shop, max_rows=2)
    openai_server.chat_text = "SELECT id FROM orders ORDER BY id LIMIT 500"
    (entry,) = await engramdb.recall("All order ids", scope=["tools"])
    assert entry.success and entry.structured
    assert entry.structured["rows"] == [{"id": 1}, {"id": 2}] and entry.structured["truncated"]
    engramdb.config.set("text_to_sql_statement_timeout_ms", 200)
    engramdb.config.set("text_to_sql_max_attempts", 1)
    openai_server.chat_text = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT count(*) AS c FROM n, orders"
    )
    (slow,) = await engramdb.recall("Count forever", scope=["tools"])
    assert not slow.success and slow.error and "200 ms" in slow.error


async def test_on_empty_asks_the_database_only_when_memory_found_nothing(
    shop: Path, openai_server: OpenAIServer
) -> None:
    """recall.md: a cold graph "contributes [] instead, so the other sources — and the tools
    on_empty fallback — behave exactly as if graph retrieval had returned nothing.\""""
    await _register(shop)
    openai_server.chat_text = "SELECT count(*) AS n FROM orders"
    answered = await engramdb.recall(
        "owls", SearchType.CHUNKS, scope=["tools", "graph"], tools_trigger="on_empty"
    )
    assert answered and not any(isinstance(r, ResponseToolEntry) for r in answered)
    assert openai_server.requests_to("chat/completions") == []
    bob = await engramdb.create_user("bob@example.com")
    await engramdb.register_sql_connection("shop", f"sqlite:///{shop}", user=bob)
    fallback = await engramdb.recall(
        "owls", SearchType.CHUNKS, scope=["graph", "tools"], tools_trigger="on_empty", user=bob
    )
    assert [type(r) for r in fallback] == [ResponseToolEntry]
    always = await engramdb.recall("owls", SearchType.CHUNKS, scope=["graph", "tools"])
    assert any(isinstance(r, ResponseToolEntry) for r in always)


async def test_a_connection_is_its_owners_only_and_its_secret_is_never_shown(
    tmp_path: Path, openai_server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    engramdb.config.set("tool_calls_enabled", True)
    engramdb.config.set(*KEY)
    await engramdb.remember("Owls hunt at night.", self_improvement=False)
    secret = "postgresql://reader:hunter2@127.0.0.1:1/analytics"
    caplog.set_level(logging.DEBUG)
    shown = await engramdb.register_sql_connection("analytics", secret, description="BI")
    assert shown == {
        "name": "analytics",
        "provider": "postgres",
        "allowed_tables": None,
        "max_rows": None,
        "description": "BI",
        "allow_writes": False,
        "origin": "user",
    }
    assert await engramdb.list_sql_connections() == [shown]
    assert "hunter2" not in caplog.text
    bob = await engramdb.create_user("bob@example.com")
    assert await engramdb.list_sql_connections(user=bob) == []
    with pytest.raises(ToolConnectionNotFoundError):
        await engramdb.recall("q", scope=["tools"], tool_connections=["analytics"], user=bob)
    assert await engramdb.recall("q", scope=["tools"], user=bob) == []
    assert await engramdb.remove_sql_connection("analytics", user=bob) is False
    assert [c["name"] for c in await engramdb.list_sql_connections()] == ["analytics"]
    assert await engramdb.remove_sql_connection("analytics") is True
    assert await engramdb.list_sql_connections() == []
    with pytest.raises(engramdb.EngramValidationError, match="Unsupported"):
        await engramdb.register_sql_connection("x", "mysql://u:p@h/db")


async def test_a_write_is_proposed_reviewed_and_applied_only_on_approval(
    shop: Path, openai_server: OpenAIServer
) -> None:
    engramdb.config.set("tool_write_calls_enabled", True)
    await _register(shop, allow_writes=True)
    openai_server.chat_text = "UPDATE orders SET amount = 31.0 WHERE id = 1"
    proposal = await engramdb.propose_sql_write("shop", "Ada paid 31, not 30")
    assert proposal["status"] == "proposed" and proposal["estimated_rows"] == 1
    assert proposal["target_table"] == "orders"
    assert _rows(shop) == ORDERS  # the dry run was rolled back
    bob = await engramdb.create_user("bob@example.com")
    assert await engramdb.list_write_proposals(user=bob) == []
    with pytest.raises(ToolConnectionNotFoundError):
        await engramdb.apply_write_proposal(proposal["proposal_id"], user=bob)
    assert _rows(shop) == ORDERS
    applied = await engramdb.apply_write_proposal(proposal["proposal_id"])
    assert applied["status"] == "applied" and applied["applied_rows"] == 1
    assert _rows(shop)[0] == (1, "Ada", 31.0)
    with pytest.raises(ConflictError):
        await engramdb.apply_write_proposal(proposal["proposal_id"])

    openai_server.chat_text = "UPDATE orders SET amount = 0 WHERE id = 2"
    second = await engramdb.propose_sql_write("shop", "zero Bob")
    rejected = await engramdb.reject_write_proposal(second["proposal_id"])
    assert rejected["status"] == "rejected"
    with pytest.raises(ConflictError):
        await engramdb.apply_write_proposal(second["proposal_id"])
    assert [p["status"] for p in await engramdb.list_write_proposals()] == [
        "rejected",
        "applied",
    ]
    assert [p["proposal_id"] for p in await engramdb.list_write_proposals("applied")] == [
        proposal["proposal_id"]
    ]
    assert _rows(shop)[1] == (2, "Bob", 12.5)


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM orders WHERE id = 1",
        "UPDATE orders SET amount = 0",
        "UPDATE secrets SET token = 'x' WHERE 1 = 1",
        "UPDATE orders SET amount = 0 WHERE id = 1; DROP TABLE orders",
        "UPDATE orders SET amount = 0 WHERE id = 1 RETURNING *",
    ],
)
async def test_hostile_writes_are_never_proposed(
    shop: Path, openai_server: OpenAIServer, sql: str
) -> None:
    engramdb.config.set("tool_write_calls_enabled", True)
    engramdb.config.set("text_to_sql_max_attempts", 1)
    await _register(shop, allow_writes=True)
    openai_server.chat_text = sql
    with pytest.raises(SqlGuardError):
        await engramdb.propose_sql_write("shop", "break it")
    assert await engramdb.list_write_proposals() == []
    assert _rows(shop) == ORDERS


async def test_a_changed_estimate_or_a_closed_gate_writes_nothing(
    shop: Path, openai_server: OpenAIServer
) -> None:
    engramdb.config.set("tool_write_calls_enabled", True)
    await _register(shop, allow_writes=True)
    openai_server.chat_text = "UPDATE orders SET amount = amount + 1 WHERE amount > 10"
    proposal = await engramdb.propose_sql_write("shop", "add one to big orders")
    assert proposal["estimated_rows"] == 2
    with sqlite3.connect(shop) as conn:
        conn.execute("UPDATE orders SET amount = 50 WHERE id = 3")
    conn.close()
    failed = await engramdb.apply_write_proposal(proposal["proposal_id"])
    assert failed["status"] == "failed" and "estimated" in failed["error"]
    assert [r[2] for r in _rows(shop)] == [30.0, 12.5, 50.0]
    await engramdb.register_sql_connection("shop", f"sqlite:///{shop}")  # allow_writes off
    with pytest.raises(PermissionDeniedError, match="allow_writes"):
        await engramdb.propose_sql_write("shop", "anything")
    engramdb.config.set("tool_write_calls_enabled", False)
    with pytest.raises(ToolCallsDisabledError):
        await engramdb.propose_sql_write("shop", "anything")


async def test_two_concurrent_approvals_write_once(shop: Path, openai_server: OpenAIServer) -> None:
    import asyncio

    engramdb.config.set("tool_write_calls_enabled", True)
    await _register(shop, allow_writes=True)
    openai_server.chat_text = "UPDATE orders SET amount = amount + 1 WHERE id = 1"
    proposal = await engramdb.propose_sql_write("shop", "Ada paid one more")
    outcomes = await asyncio.gather(
        engramdb.apply_write_proposal(proposal["proposal_id"]),
        engramdb.apply_write_proposal(proposal["proposal_id"]),
        return_exceptions=True,
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["ConflictError", "dict"]
    assert _rows(shop)[0] == (1, "Ada", 31.0)  # added once
    (stored,) = await engramdb.list_write_proposals()
    assert stored["status"] == "applied" and stored["applied_rows"] == 1


async def test_deployment_connections_are_visible_to_every_user(
    shop: Path, openai_server: OpenAIServer
) -> None:
    engramdb.config.set(
        "tool_sql_connections",
        json.dumps({"warehouse": {"connection_string": f"sqlite:///{shop}", "max_rows": 1}}),
    )
    bob = await engramdb.create_user("bob@example.com")
    (listed,) = await engramdb.list_sql_connections(user=bob)
    assert listed["name"] == "warehouse" and listed["origin"] == "env"
    assert str(shop) not in str(listed)
    openai_server.chat_text = "SELECT customer FROM orders ORDER BY id"
    (entry,) = await engramdb.recall("Customers?", scope=["tools"], user=bob)
    assert entry.success and entry.structured and entry.structured["rows"] == [{"customer": "Ada"}]
    assert await engramdb.remove_sql_connection("warehouse", user=bob) is False
    await engramdb.register_sql_connection("warehouse", f"sqlite:///{shop}", max_rows=5)
    (own,) = await engramdb.list_sql_connections()
    assert own["origin"] == "user" and own["max_rows"] == 5  # the user's shadows the deployment's
    engramdb.config.set("tool_sql_connections", "[1, 2]")
    with pytest.raises(engramdb.ConfigurationError, match="TOOL_SQL_CONNECTIONS"):
        await engramdb.list_sql_connections()


async def test_connection_strings_are_sealed_at_rest_and_keys_rotate(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    engramdb.config.set("tool_calls_enabled", True)
    await engramdb.remember("Owls hunt at night.", self_improvement=False)
    secret = "postgresql://reader:hunter2@127.0.0.1:1/analytics"
    with pytest.raises(engramdb.ConfigurationError, match="INTEGRATION_CREDENTIALS_KEY"):
        await engramdb.register_sql_connection("analytics", secret)
    assert await engramdb.list_sql_connections() == []
    engramdb.config.set(*KEY)
    shop = _database(tmp_path)
    await engramdb.register_sql_connection("analytics", secret)
    await engramdb.register_sql_connection("shop", f"sqlite:///{shop}")
    store_file = Path(engramdb.config.get("engramdb_data_dir")) / "engramdb.sqlite3"
    for path in store_file.parent.iterdir():
        assert b"hunter2" not in path.read_bytes() and str(shop).encode() not in path.read_bytes()
    new_key = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA="
    engramdb.config.set("integration_credentials_keys", json.dumps({"1": KEY[1], "2": new_key}))
    engramdb.config.set("integration_credentials_active_key_id", "2")
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    openai_server.chat_text = "SELECT count(*) AS n FROM orders"
    (entry,) = await engramdb.recall("How many?", scope=["tools"], tool_connections=["shop"])
    assert entry.success  # sealed under key 1, still opens
    engramdb.config.set("integration_credentials_keys", json.dumps({"2": new_key}))
    with pytest.raises(engramdb.ConfigurationError, match="not in"):
        await engramdb.recall("How many?", scope=["tools"], tool_connections=["shop"])


async def test_an_unreachable_database_is_a_failed_entry_not_a_failed_recall(
    shop: Path, openai_server: OpenAIServer
) -> None:
    await _register(shop)
    await engramdb.register_sql_connection("gone", f"sqlite:///{shop.parent / 'missing.db'}")
    await engramdb.register_sql_connection("pg", "postgresql://reader:hunter2@127.0.0.1:1/x")
    openai_server.chat_text = "SELECT count(*) AS n FROM orders"
    entries = await engramdb.recall("How many orders?", scope=["tools"])
    by_name = {e.structured["connection"]: e for e in entries}  # type: ignore[union-attr,index]
    assert by_name["shop"].success
    assert not by_name["gone"].success and "does not exist" in str(by_name["gone"].error)
    assert not by_name["pg"].success and "hunter2" not in str(by_name["pg"].error)
    assert not (shop.parent / "missing.db").exists()
