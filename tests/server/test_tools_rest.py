"""The tool-connection and write-proposal verbs over REST (derived from the verb table): the
connection string never comes back, another user's connection is not found, and recall's
tools scope answers over HTTP."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import engramdb
from tests.server.conftest import Account, LiveServer
from tests.support.openai_server import OpenAIServer


def test_connections_over_rest_hide_the_secret_and_stay_with_their_owner(
    live_server: LiveServer,
    alice: Account,
    bob: Account,
    openai_server: OpenAIServer,
    tmp_path: Path,
) -> None:
    engramdb.config.set("tool_calls_enabled", True)
    engramdb.config.set(
        "integration_credentials_key", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
    )
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    shop = tmp_path / "shop.db"
    with sqlite3.connect(shop) as conn:
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT)")
        conn.execute("INSERT INTO orders VALUES (1, 'Ada')")
    conn.close()
    with live_server.client(alice) as client:
        assert client.post("/api/v1/remember", json={"data": ["Owls."]}).status_code == 200
        made = client.post(
            "/api/v1/tools/sql-connections",
            json={"name": "shop", "connection_string": f"sqlite:///{shop}"},
        )
        assert made.status_code == 201, made.text
        assert made.json()["name"] == "shop" and str(shop) not in made.text
        listed = client.get("/api/v1/tools/sql-connections")
        assert [c["name"] for c in listed.json()] == ["shop"] and str(shop) not in listed.text
        openai_server.chat_text = "SELECT customer FROM orders"
        found = client.post("/api/v1/recall", json={"query_text": "Who?", "scope": ["tools"]})
        assert found.status_code == 200, found.text
        (entry,) = found.json()
        assert entry["source"] == "tools" and entry["success"] is True
        assert entry["structured"]["rows"] == [{"customer": "Ada"}]
    with live_server.client(bob) as client:
        assert client.get("/api/v1/tools/sql-connections").json() == []
        refused = client.post(
            "/api/v1/recall",
            json={"query_text": "Who?", "scope": ["tools"], "tool_connections": ["shop"]},
        )
        assert refused.status_code == 404 and str(shop) not in refused.text
        assert client.delete("/api/v1/tools/sql-connections/shop").json() is False
    with live_server.client(alice) as client:
        assert client.delete("/api/v1/tools/sql-connections/shop").json() is True
