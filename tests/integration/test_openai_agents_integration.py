"""engramdb.integrations.openai_agents against the real OpenAI Agents SDK (issue 15, item 4).

The session cases are the behaviours the SDK's own SQLiteSession tests check (round trip,
order, ``limit``, ``pop_item``, ``clear_session``, separate sessions, unicode and quoting,
concurrent writers, ``session_settings``), written anew for EngramdbSession; agent runs go
through the SDK's chat-completions model to the local OpenAI-protocol server.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents", reason="needs the openai-agents extra")

from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, Session
from agents.items import TResponseInputItem
from agents.memory import SessionSettings
from agents.tool_context import ToolContext
from openai import AsyncOpenAI

import engramdb
from engramdb.errors import EngramValidationError
from engramdb.integrations.openai_agents import (
    EngramdbSession,
    memory_tools,
    recall_tool,
    remember_tool,
)
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

ROOT = Path(__file__).resolve().parents[2]
RUN = RunConfig(tracing_disabled=True)

CONVERSATION: list[TResponseInputItem] = [
    {"role": "user", "content": "What's the weather in Graz?"},
    {
        "type": "function_call",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city": "Graz"}',
        "id": "fc_1",
        "status": "completed",
    },
    {"type": "function_call_output", "call_id": "call_1", "output": "Sunny, 21 °C"},
    {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "It is sunny in Graz.", "annotations": []}],
    },
]


def _messages(n: int) -> list[TResponseInputItem]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Message {i}"} for i in range(n)
    ]


def _contents(items: list[TResponseInputItem]) -> list[Any]:
    return [item.get("content") for item in items]  # type: ignore[union-attr]


# --- the Session protocol ------------------------------------------------------------------


def test_it_is_a_session_of_the_sdk() -> None:
    session = EngramdbSession("chat-1")
    assert isinstance(session, Session)
    assert session.session_id == "chat-1"
    assert session.session_settings is not None and session.session_settings.limit is None


async def test_items_round_trip_exactly_and_in_order() -> None:
    """SDK Session.get_items: "Retrieve the conversation history for this session"."""
    session = EngramdbSession("chat-1")
    assert await session.get_items() == []
    await session.add_items(CONVERSATION[:2])
    await session.add_items(CONVERSATION[2:])
    await session.add_items([])
    assert await session.get_items() == CONVERSATION
    # durable: a new object (a restarted program) reads the same history
    assert await EngramdbSession("chat-1").get_items() == CONVERSATION


async def test_unicode_quotes_and_sql_text_survive() -> None:
    items: list[TResponseInputItem] = [
        {"role": "user", "content": "こんにちは"},
        {"role": "assistant", "content": "😊👍"},
        {"role": "user", "content": 'O\'Reilly said "hi"; DROP TABLE sessions;--'},
        {"role": "user", "content": "line one\nline two\ttab \\ backslash"},
    ]
    session = EngramdbSession("unicode")
    await session.add_items(items)
    assert await session.get_items() == items


async def test_limit_returns_the_latest_items_oldest_first() -> None:
    """SDK: "When specified, returns the latest N items in chronological order"."""
    session = EngramdbSession("limits")
    await session.add_items(_messages(6))
    assert _contents(await session.get_items(limit=2)) == ["Message 4", "Message 5"]
    assert _contents(await session.get_items(limit=4)) == [f"Message {i}" for i in range(2, 6)]
    assert len(await session.get_items(limit=10)) == 6
    assert await session.get_items(limit=0) == []
    with pytest.raises(EngramValidationError, match="limit"):
        await session.get_items(limit="2")  # type: ignore[arg-type]


async def test_session_settings_limit_is_the_default_and_an_explicit_limit_wins() -> None:
    session = EngramdbSession("settings", session_settings=SessionSettings(limit=3))
    await session.add_items(_messages(5))
    assert _contents(await session.get_items()) == ["Message 2", "Message 3", "Message 4"]
    assert _contents(await session.get_items(limit=1)) == ["Message 4"]


async def test_pop_item_removes_and_returns_the_newest() -> None:
    """SDK: "Remove and return the most recent item from the session"; None when empty."""
    session = EngramdbSession("pops")
    assert await session.pop_item() is None
    await session.add_items(CONVERSATION)
    assert await session.pop_item() == CONVERSATION[-1]
    assert await session.get_items() == CONVERSATION[:-1]
    assert await session.pop_item() == CONVERSATION[-2]
    await session.add_items([{"role": "user", "content": "again"}])
    assert await session.get_items() == [*CONVERSATION[:2], {"role": "user", "content": "again"}]
    for _ in range(3):
        assert await session.pop_item() is not None
    assert await session.pop_item() is None
    assert await session.get_items() == []
    # a popped item stays popped for a new object too
    assert await EngramdbSession("pops").get_items() == []


async def test_limit_and_pop_see_past_a_long_run_of_pops() -> None:
    """get_items(limit) and pop_item read only the session's latest entries; many pops in a
    row must not hide the older items that are still there."""
    session = EngramdbSession("many-pops")
    items = _messages(40)
    await session.add_items(items)
    popped = [await session.pop_item() for _ in range(30)]
    assert popped == items[10:][::-1]
    assert await session.get_items(limit=5) == items[5:10]
    assert await session.get_items() == items[:10]
    await session.add_items([{"role": "user", "content": "new"}])
    assert await session.get_items(limit=2) == [items[9], {"role": "user", "content": "new"}]
    assert await session.pop_item() == {"role": "user", "content": "new"}
    assert await session.pop_item() == items[9]


async def test_clear_session_removes_everything_of_that_session_only() -> None:
    one, two = EngramdbSession("one"), EngramdbSession("two")
    await one.add_items(_messages(3))
    await two.add_items(_messages(2))
    await one.clear_session()
    assert await one.get_items() == []
    assert len(await two.get_items()) == 2
    assert "one" not in {s.session_id for s in await engramdb.session.list_sessions()}
    await one.add_items(_messages(1))  # usable again after clearing
    assert len(await one.get_items()) == 1


async def test_sessions_are_isolated_from_each_other() -> None:
    one, two = EngramdbSession("session_1"), EngramdbSession("session_2")
    await one.add_items([{"role": "user", "content": "Session 1 message"}])
    await two.add_items([{"role": "user", "content": f"Session 2 message {i}"} for i in (1, 2)])
    assert (await two.pop_item()) == {"role": "user", "content": "Session 2 message 2"}
    assert _contents(await one.get_items()) == ["Session 1 message"]
    assert _contents(await two.get_items()) == ["Session 2 message 1"]


async def test_users_are_isolated_even_with_the_same_session_id() -> None:
    """Sessions belong to a user: another user's session of the same id is a different one."""
    alice = await engramdb.create_user("alice@example.com")
    bob = await engramdb.create_user("bob@example.com")
    mine = EngramdbSession("shared-id", user=alice)
    theirs = EngramdbSession("shared-id", user=bob)
    await mine.add_items([{"role": "user", "content": "alice's secret"}])
    assert await theirs.get_items() == []
    assert await theirs.pop_item() is None
    await theirs.clear_session()
    assert _contents(await mine.get_items()) == ["alice's secret"]


async def test_concurrent_writers_lose_nothing() -> None:
    session = EngramdbSession("concurrent")
    items = _messages(10)
    await asyncio.gather(*(session.add_items([item]) for item in items))
    assert sorted(_contents(await session.get_items())) == sorted(_contents(items))
    popped = await asyncio.gather(*(session.pop_item() for _ in range(4)))
    assert len({json.dumps(p) for p in popped}) == 4  # each pop took a different item
    assert len(await session.get_items()) == 6


async def test_the_conversation_is_part_of_the_engramdb_session() -> None:
    """Items are Q&A entries of the engramdb session: readable there, and entries of the
    session that are not items (a recall turn) are left alone."""
    await engramdb.remember("Graz lies on the Mur river.", dataset_name="geo")
    session = EngramdbSession("chat-9")
    await session.add_items(CONVERSATION)
    await engramdb.recall("Which river flows through Graz?", "CHUNKS", session_id="chat-9")
    entries = await engramdb.session.get_session("chat-9")
    assert entries[0].question == "What's the weather in Graz?"
    assert entries[3].answer == "It is sunny in Graz."
    assert entries[-1].question == "Which river flows through Graz?"
    assert await session.get_items() == CONVERSATION
    assert await session.pop_item() == CONVERSATION[-1]
    hits = await engramdb.recall("weather Graz", scope="session", session_id="chat-9")
    assert any(getattr(h, "question", "") == "What's the weather in Graz?" for h in hits)


async def test_a_session_id_engramdb_refuses_is_refused_at_once() -> None:
    with pytest.raises(EngramValidationError, match="session_id"):
        EngramdbSession("  ")


async def test_an_explicit_engine_holds_the_session(tmp_path: Path) -> None:
    async with engramdb.Engine(data_dir=tmp_path / "mem") as mem:
        session = EngramdbSession("chat-1", engine=mem)
        await session.add_items(CONVERSATION)
        assert await session.get_items() == CONVERSATION
        assert len(await mem.session.get_session("chat-1")) == len(CONVERSATION)
    assert await EngramdbSession("chat-1").get_items() == []  # the default memory is elsewhere


# --- agent runs through the local OpenAI-protocol server -----------------------------------


def _model(server: OpenAIServer) -> OpenAIChatCompletionsModel:
    client = AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
    return OpenAIChatCompletionsModel(model="test-chat", openai_client=client)


def _tool_call(server: OpenAIServer, name: str, arguments: dict[str, Any]) -> Reply:
    """A chat completion whose assistant message calls tool ``name``."""
    document = server.chat_document("")
    document["choices"][0]["message"] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{name}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }
    document["choices"][0]["finish_reason"] = "tool_calls"
    return Reply.json(document)


def _tool_output(request: RecordedRequest) -> str:
    (message,) = [m for m in request.json["messages"] if m.get("role") == "tool"]
    return str(message["content"])


async def test_an_agent_recalls_a_fact_and_answers_with_it(openai_server: OpenAIServer) -> None:
    await engramdb.remember("The office wifi password is teal-otter-42.", "agent_memory")
    openai_server.enqueue(
        "chat/completions",
        _tool_call(openai_server, "recall", {"query": "office wifi password"}),
        lambda request: Reply.json(
            openai_server.chat_document(f"From memory: {_tool_output(request)}")
        ),
    )
    agent = Agent(
        name="assistant",
        instructions="Use recall before answering.",
        model=_model(openai_server),
        tools=memory_tools(),
    )
    session = EngramdbSession("support-1")
    result = await Runner.run(agent, "What is the wifi password?", session=session, run_config=RUN)

    assert "teal-otter-42" in result.final_output
    first, second = openai_server.requests_to("chat/completions")
    assert {t["function"]["name"] for t in first.json["tools"]} == {"remember", "recall"}
    assert "teal-otter-42" in _tool_output(second)  # the tool really read engramdb
    # the run's items (question, tool call, tool output, answer) are in the session
    items = await session.get_items()
    assert items[0] == {"role": "user", "content": "What is the wifi password?"}
    assert [i.get("type") for i in items[1:3]] == ["function_call", "function_call_output"]
    assert "teal-otter-42" in json.dumps(items[-1])

    # the next turn sends that history to the model
    openai_server.enqueue("chat/completions", Reply.json(openai_server.chat_document("Sure.")))
    await Runner.run(agent, "Thanks!", session=session, run_config=RUN)
    history = openai_server.requests_to("chat/completions")[-1].json["messages"]
    assert [m["role"] for m in history if m["role"] == "user"] == ["user", "user"]
    assert any("teal-otter-42" in str(m.get("content")) for m in history)


async def test_an_agent_remembers_a_fact_for_later(openai_server: OpenAIServer) -> None:
    openai_server.enqueue(
        "chat/completions",
        _tool_call(openai_server, "remember", {"fact": "Dana's birthday is on March 3."}),
        Reply.json(openai_server.chat_document("Noted.")),
    )
    agent = Agent(name="assistant", model=_model(openai_server), tools=memory_tools())
    result = await Runner.run(agent, "Remember: Dana's birthday is March 3.", run_config=RUN)
    assert result.final_output == "Noted."
    assert _tool_output(openai_server.requests_to("chat/completions")[1]) == "Remembered."
    found = await engramdb.recall("When is Dana's birthday?", "CHUNKS", datasets=["agent_memory"])
    assert found[0].text == "Dana's birthday is on March 3."


async def test_the_tools_report_what_they_did() -> None:
    remember, recall = remember_tool(dataset_name="notes"), recall_tool(datasets=["notes"])
    assert (remember.name, recall.name) == ("remember", "recall")
    assert remember.params_json_schema["required"] == ["fact"]
    assert recall.params_json_schema["required"] == ["query"]

    async def call(tool: Any, **arguments: str) -> Any:
        payload = json.dumps(arguments)
        return await tool.on_invoke_tool(_tool_context(tool.name, payload), payload)

    assert await call(recall, query="anything") == "Nothing relevant is remembered."
    assert await call(remember, fact="Kiwis are flightless birds.") == "Remembered."
    assert await call(remember, fact="Kiwis are flightless birds.") == "Already remembered."
    assert await call(recall, query="flightless birds") == "1. Kiwis are flightless birds."


def _tool_context(name: str, arguments: str) -> ToolContext[None]:
    """The context the SDK hands a FunctionTool, built outside a run."""
    return ToolContext(
        context=None, tool_name=name, tool_call_id="call_x", tool_arguments=arguments
    )


def test_an_unknown_search_type_is_refused_when_the_tool_is_made() -> None:
    with pytest.raises(EngramValidationError, match="CHUNKS_LEXICAL"):
        recall_tool(search_type="NEAREST")
    assert recall_tool(search_type="chunks_lexical").name == "recall"


def test_the_example_runs(openai_server: OpenAIServer, tmp_path: Path) -> None:
    """examples/openai_agents_memory.py runs against an OpenAI-protocol server."""

    def answer(request: RecordedRequest) -> Reply:
        return Reply.json(openai_server.chat_document(f"You told me: {_tool_output(request)}"))

    openai_server.enqueue(
        "chat/completions",
        _tool_call(openai_server, "remember", {"fact": "My favourite colour is teal."}),
        Reply.json(openai_server.chat_document("Got it.")),
        _tool_call(openai_server, "recall", {"query": "favourite colour"}),
        answer,
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAMDB_", "OPENAI_"))}
    env.update(
        EMBEDDING_PROVIDER="fake",
        EMBEDDING_DIMENSIONS="64",
        ENGRAMDB_DATA_DIR=str(tmp_path / "data"),
        OPENAI_BASE_URL=openai_server.base_url,
        OPENAI_API_KEY="sk-test",
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "openai_agents_memory.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "You told me: 1. My favourite colour is teal." in done.stdout
    assert openai_server.pending("chat/completions") == 0


@pytest.mark.parametrize("runner", ["run", "run_sync", "run_streamed"])
async def test_every_runner_keeps_the_history(openai_server: OpenAIServer, runner: str) -> None:
    """The SDK's three ways to run an agent all read and write the session."""
    agent = Agent(name="assistant", model=_model(openai_server))
    session = EngramdbSession(f"runner-{runner}")

    async def turn(text: str) -> Any:
        if runner == "run":
            return await Runner.run(agent, text, session=session, run_config=RUN)
        if runner == "run_sync":

            def in_thread() -> Any:
                # run_sync runs each call on a new event loop; an AsyncOpenAI client's pooled
                # connections belong to the loop that opened them, so each call gets its own.
                fresh = Agent(name="assistant", model=_model(openai_server))
                return Runner.run_sync(fresh, text, session=session, run_config=RUN)

            return await asyncio.to_thread(in_thread)
        streamed = Runner.run_streamed(agent, text, session=session, run_config=RUN)
        async for _event in streamed.stream_events():
            pass
        return streamed

    openai_server.chat_text = "Hello Dana"  # the default reply, streamed when asked to be
    first = await turn("I am Dana.")
    assert first.final_output == "Hello Dana"
    await turn("Who am I?")
    last = openai_server.requests_to("chat/completions")[-1].json["messages"]
    assert [m["content"] for m in last if m["role"] == "user"] == ["I am Dana.", "Who am I?"]
    assert len(await session.get_items()) == 4
