"""The MCP server end to end with the official SDK's own client, over streamable HTTP and stdio."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from engramdb.mcp_server import http_app
from tests.server.conftest import Account, LiveServer

TOOLS = ["feedback", "forget", "improve", "recall", "remember"]


@pytest.fixture
def mcp_http(isolated_config: Path) -> Iterator[LiveServer]:
    server = LiveServer(app=http_app()).start()
    try:
        yield server
    finally:
        server.stop()


def _client(server: LiveServer, account: Account) -> Client:
    http = httpx2.AsyncClient(headers=account.headers, timeout=30)
    return Client(streamable_http_client(f"{server.url}/mcp", http_client=http))


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def test_tools_over_streamable_http_run_as_the_keys_user(mcp_http: LiveServer) -> None:
    alice = mcp_http.account("alice@example.com")
    bob = mcp_http.account("bob@example.com")
    async with _client(mcp_http, alice) as client:
        listed = await client.list_tools()
        assert sorted(t.name for t in listed.tools) == TOOLS
        added = _data(
            await client.call_tool(
                "remember", {"text": "Owls hunt at night.", "dataset_name": "zoo"}
            )
        )
        assert added["status"] == "completed" and added["dataset_name"] == "zoo"
        found = _data(
            await client.call_tool(
                "recall", {"query": "When do owls hunt?", "query_type": "CHUNKS", "session_id": "c"}
            )
        )
        assert found["results"][0]["text"] == "Owls hunt at night."
        improved = _data(await client.call_tool("improve", {"dataset": "zoo"}))
        assert len(improved["stages"]) == 9
    async with _client(mcp_http, bob) as client:  # Bob sees nothing of Alice's
        theirs = _data(await client.call_tool("recall", {"query": "owls", "query_type": "CHUNKS"}))
        assert theirs["results"] == []
        refused = await client.call_tool("forget", {"dataset": added["dataset_id"]})
        assert refused.is_error and "PermissionDeniedError (403)" in refused.content[0].text
        server_path = await client.call_tool("remember", {"text": str(Path.cwd())})
        assert server_path.is_error and "path on the server" in server_path.content[0].text


def test_streamable_http_without_a_key_is_401(mcp_http: LiveServer) -> None:
    for headers in ({}, {"Authorization": "Bearer egm_invalid"}):
        response = httpx.post(
            f"{mcp_http.url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers=headers,
        )
        assert response.status_code == 401
        assert response.headers["content-type"].startswith("application/problem+json")


async def test_feedback_and_forget_tools(mcp_http: LiveServer) -> None:
    alice = mcp_http.account("alice@example.com")
    async with _client(mcp_http, alice) as client:
        await client.call_tool("remember", {"text": "Cats sleep all day."})
        await client.call_tool(
            "recall", {"query": "Do cats sleep?", "query_type": "CHUNKS", "session_id": "s"}
        )
        from engramdb.engine import get_engine

        (turn,) = mcp_http.call(get_engine().session.get_session("s", user=alice.user))
        rated = _data(
            await client.call_tool("feedback", {"session_id": "s", "qa_id": turn.qa_id, "score": 5})
        )
        assert rated == {"saved": True}
        bad = await client.call_tool("feedback", {"session_id": "s", "qa_id": turn.qa_id})
        assert bad.is_error and "422" in bad.content[0].text
        gone = _data(await client.call_tool("forget", {"everything": True}))
        assert gone["datasets"] == 1


@pytest.mark.parametrize("allow_files", [False, True])
async def test_stdio_reads_local_files_only_when_allowed(
    isolated_config: Path, tmp_path: Path, allow_files: bool
) -> None:
    """A text naming a local file is refused over stdio unless the operator started the server
    with --allow-files."""
    note = tmp_path / "note.md"
    note.write_text("Kingfishers dive for fish.")
    env = {k: v for k, v in os.environ.items() if k != "ENGRAMDB_API_KEY"}
    flags = ["--allow-files"] if allow_files else []
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from engramdb.cli import main; main()", "mcp", *flags],
        env=env,
        cwd=str(Path.cwd()),
    )
    async with Client(params) as client:
        added = await client.call_tool("remember", {"text": str(note)})
        if allow_files:
            assert _data(added)["items"][0]["name"] == "note.md"
        else:
            assert added.is_error and "path on the server" in added.content[0].text


async def test_tools_over_stdio(isolated_config: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ENGRAMDB_API_KEY"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from engramdb.cli import main; main()", "mcp"],
        env=env,
        cwd=str(Path.cwd()),
    )
    async with Client(params) as client:
        listed = await client.list_tools()
        assert sorted(t.name for t in listed.tools) == TOOLS
        added = _data(await client.call_tool("remember", {"text": "Herons wade."}))
        assert added["status"] == "completed"
        found = _data(await client.call_tool("recall", {"query": "herons", "query_type": "CHUNKS"}))
        assert json.dumps(found).count("Herons wade.") >= 1


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


async def test_tool_schemas_are_the_verbs_options(mcp_http: LiveServer) -> None:
    """Each tool parameter is the verb's option: same type, default, limits, description (the
    tool schema is derived, so adding a limit to a request model shows up here)."""
    from engramdb.mcp_server.tools import TOOLS as DERIVED
    from engramdb.verbs import VERBS

    alice = mcp_http.account("alice@example.com")
    async with _client(mcp_http, alice) as client:
        listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    for tool in DERIVED:
        wire = VERBS[tool.verb].wire_model.model_json_schema()
        properties = listed[tool.name]["properties"]
        assert set(properties) == {public for public, _ in tool.options}, tool.name
        for public, option in tool.options:
            expected = _strip_titles(wire["properties"][option])
            assert _strip_titles(properties[public]) == expected, (tool.name, public)
    assert listed["feedback"]["properties"]["score"]["maximum"] == 5
