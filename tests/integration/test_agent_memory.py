"""``engramdb.agent_memory`` (cognee's ``@cognee.agent_memory``) in the shapes of cognee's agent
memory quickstart, with the agent's LLM calls going through cognee's LLMGateway to a local
OpenAI-protocol server."""

from __future__ import annotations

import pytest

import engramdb
from engramdb import SearchType
from engramdb.compat.cognee.infrastructure.llm.LLMGateway import LLMGateway
from engramdb.errors import EngramValidationError
from tests.support.openai_server import OpenAIServer

FACT = "To fix error XQ-99, set XQ_TOKEN=1 in the .env file."


def _use_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 1)


def _inputs(server: OpenAIServer) -> list[str]:
    return [r.json["messages"][-1]["content"] for r in server.requests_to("chat/completions")]


async def ask(question: str) -> str:
    return await LLMGateway.acreate_structured_output(question, "Answer briefly.", str)


async def test_session_memory_carries_earlier_steps_into_later_calls(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server)

    @engramdb.agent_memory(
        with_memory=False,
        with_session_memory=True,
        save_session_traces=True,
        session_id="ticket_001",
        session_memory_last_n=2,
    )
    async def support_agent(question: str) -> str:
        return await ask(question)

    await support_agent("A user reports error XQ-99.")
    first = _inputs(openai_server)[-1]
    assert "Memory Context" not in first  # nothing happened before
    await support_agent("What did the user report?")
    second = _inputs(openai_server)[-1]
    assert "Recent Session Memory" in second and "XQ-99" in second
    assert second.endswith("What did the user report?")

    steps = await engramdb.session.get_traces("ticket_001")
    assert [s.origin_function.rsplit(".", 1)[-1] for s in steps] == ["support_agent"] * 2
    assert all(s.status == "success" for s in steps)
    assert steps[0].method_params == {"question": "A user reports error XQ-99."}


async def test_graph_memory_is_recalled_for_the_named_argument(
    openai_server: OpenAIServer,
) -> None:
    await engramdb.remember(FACT, self_improvement=False)
    await engramdb.remember("Penguins cannot fly.", self_improvement=False)
    _use_llm(openai_server)

    @engramdb.agent_memory(memory_query_from_method="question", memory_only_context=True)
    async def faq_bot(question: str, system_prompt: str) -> str:
        return await ask(question)

    await faq_bot("How do I fix error XQ-99?", "be brief")
    sent = _inputs(openai_server)[-1]
    assert "Relevant Memory" in sent and "XQ_TOKEN=1" in sent
    assert engramdb.agent_memory is not None
    assert await engramdb.session.list_sessions() == []  # no traces unless asked for


async def test_traces_are_bridged_into_the_graph_every_n_steps() -> None:
    @engramdb.agent_memory(
        with_memory=False,
        save_session_traces=True,
        session_id="worker",
        persist_session_trace_after=2,
    )
    async def worker(task: str) -> str:
        return f"done: {task}"

    await engramdb.remember("Tasks are filed daily.", self_improvement=False)
    await worker("rotate the zebra keys")
    found = await engramdb.recall("zebra keys", SearchType.CHUNKS_LEXICAL)
    assert found == []  # one step: not bridged yet
    await worker("archive the walrus logs")
    found = await engramdb.recall("walrus logs", SearchType.CHUNKS_LEXICAL)
    assert found and "walrus" in found[0].text


async def test_a_failing_agent_saves_an_error_step_and_raises() -> None:
    @engramdb.agent_memory(with_memory=False, save_session_traces=True, session_id="s")
    async def broken(task: str) -> str:
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        await broken("x")
    (step,) = await engramdb.session.get_traces("s")
    assert step.status == "error" and "disk on fire" in step.error_message


def test_bad_decorations_are_refused() -> None:
    with pytest.raises(EngramValidationError, match="async"):

        @engramdb.agent_memory()
        def sync_agent(q: str) -> str:  # pragma: no cover - never called
            return q

    with pytest.raises(EngramValidationError, match="memory_query_from_method"):

        @engramdb.agent_memory(memory_query_from_method="query")
        async def agent(question: str) -> str:  # pragma: no cover - never called
            return question

    with pytest.raises(EngramValidationError, match="session_trace_summary"):
        engramdb.agent_memory(session_trace_summary=True)
