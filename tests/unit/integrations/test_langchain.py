"""EngramdbRetriever and EngramdbChatMessageHistory against the real langchain-core.

Issue 15: "engramdb.integrations.langchain.EngramdbRetriever (BaseRetriever, documents with
metadata and scores, every search type) and EngramdbChatMessageHistory over sessions." The
completion types answer through the real LLM client against the local OpenAI-protocol server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever

import engramdb
from engramdb import SearchType
from engramdb.integrations.langchain import EngramdbChatMessageHistory, EngramdbRetriever
from engramdb.retrieval.registry import _REFUSED
from tests.support.openai_server import OpenAIServer, Reply

FACTS = [
    "Barn owls hunt at night over open fields.",
    "Ada Lovelace wrote the first computer program in 1843.",
]

#: A query each search type can answer (CYPHER takes a Cypher query; CODING_RULES a review ask).
QUERIES = {
    SearchType.CYPHER: "MATCH (n) RETURN n.name AS name LIMIT 3",
    SearchType.CODING_RULES: "coding rules for code review",
    SearchType.TEMPORAL: "What happened in 1843?",
}

#: Search types that answer as another one (recall.md: a type that defers reports the type
#: that ran).
_DEFERS: dict[SearchType, tuple[str, ...]] = {
    SearchType.FEELING_LUCKY: tuple(t.name for t in SearchType),  # it picks a type itself
}


@pytest.fixture
def remembered(openai_server: OpenAIServer) -> Iterator[None]:
    """Two facts remembered in dataset "facts", then an LLM configured (the local server)."""
    import asyncio

    async def setup() -> None:
        await engramdb.remember(FACTS, dataset_name="facts", self_improvement=False)
        rule = "Always name owls in code review comments."
        await engramdb.remember(
            rule, "facts", node_set=["coding_agent_rules"], self_improvement=False
        )
        await engramdb.remember_skill(
            "owl-watching",
            "Watching owls at night",
            "Go out at dusk; listen.",
            dataset_name="facts",
        )
        from engramdb.engine import close_default_engine

        await close_default_engine()

    asyncio.run(setup())
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    yield


@pytest.fixture
def retriever() -> Iterator[EngramdbRetriever]:
    made: list[EngramdbRetriever] = []

    def make(**options: object) -> EngramdbRetriever:
        r = EngramdbRetriever(**options)  # type: ignore[arg-type]
        made.append(r)
        return r

    yield make  # type: ignore[misc]
    for r in made:
        r.close()


def test_chunks_become_documents_with_provenance(remembered: None, retriever) -> None:  # type: ignore[no-untyped-def]
    r = retriever(datasets=["facts"], search_type=SearchType.CHUNKS, top_k=2)
    assert isinstance(r, BaseRetriever)
    docs = r.invoke("When do owls hunt?")
    assert "owls" in docs[0].page_content
    meta = docs[0].metadata
    assert meta["search_type"] == "CHUNKS" and meta["source"] == "graph"
    assert meta["dataset_name"] == "facts" and meta["kind"] == "chunk"
    assert isinstance(meta["score"], float) and meta["score"] <= docs[1].metadata["score"]
    assert meta["data_id"] and meta["chunk_id"] == docs[0].id
    assert meta["chunk_index"] == 0 and meta["document_name"]


async def test_session_entries_become_documents(
    remembered: None,
    retriever,  # type: ignore[no-untyped-def]
    openai_server: OpenAIServer,
) -> None:
    """recall_options reach recall(): scope="session" answers from the session's Q&A turns."""
    answer = openai_server.chat_document("At night.")
    openai_server.set_default("chat/completions", lambda r: Reply.json(answer))
    await engramdb.recall("When do owls hunt?", "RAG_COMPLETION", session_id="chat-9")
    from engramdb.engine import close_default_engine

    await close_default_engine()
    r = retriever(recall_options={"scope": "session", "session_id": "chat-9"})
    (doc,) = await r.ainvoke("owls hunt")
    assert doc.page_content == "At night."
    assert doc.metadata["source"] == "session" and doc.metadata["question"] == "When do owls hunt?"
    assert doc.id == doc.metadata["qa_id"]


#: Types engramdb refuses by name (FeatureNotAvailableError says what to use instead).
REFUSED = set(_REFUSED)


@pytest.mark.parametrize("search_type", list(SearchType), ids=lambda t: t.name)
async def test_every_search_type_answers_through_the_retriever(
    remembered: None,
    retriever,  # type: ignore[no-untyped-def]
    openai_server: OpenAIServer,
    search_type: SearchType,
    tmp_path: Path,
) -> None:
    query = QUERIES.get(search_type, "When do owls hunt?")
    if search_type is SearchType.CODE:  # the code graph of a source file in the same dataset
        source = tmp_path / "owls.py"
        source.write_text("class Owl:\n    def hunt(self):\n        return 'at night'\n")
        await engramdb.remember(str(source), dataset_name="facts", self_improvement=False)
        query = "Owl"
    if search_type is SearchType.NATURAL_LANGUAGE:  # the LLM writes the Cypher query
        cypher = "MATCH (n) RETURN n.name AS name LIMIT 3"
        answer = openai_server.chat_document(cypher)
        openai_server.set_default("chat/completions", lambda r: Reply.json(answer))
    r = retriever(datasets=["facts"], search_type=search_type, top_k=3)
    if search_type in REFUSED:
        with pytest.raises(engramdb.FeatureNotAvailableError):
            await r.ainvoke(query)
        return
    docs = await r.ainvoke(query)
    assert docs, f"{search_type.name} found nothing"
    for doc in docs:
        assert isinstance(doc.page_content, str)
        assert doc.metadata["source"] in {"graph", "code", "skills"}
        assert doc.metadata["search_type"] in {search_type.name, *_DEFERS.get(search_type, ())}


# --- chat message history ---------------------------------------------------------------------


@pytest.fixture
def history() -> Iterator[EngramdbChatMessageHistory]:
    h = EngramdbChatMessageHistory("chat-1")
    yield h
    h.close()


def test_a_turn_is_one_session_qa_entry(history: EngramdbChatMessageHistory) -> None:
    assert isinstance(history, BaseChatMessageHistory)
    history.add_messages([HumanMessage("Hi, I'm Ada"), AIMessage("Hello Ada!")])
    history.add_user_message("What is my name?")
    assert history.messages == [
        HumanMessage("Hi, I'm Ada"),
        AIMessage("Hello Ada!"),
        HumanMessage("What is my name?"),
    ]
    with EngramdbChatMessageHistory("chat-1") as again:  # another object, same session
        assert len(again.messages) == 3

    import asyncio

    async def entries() -> list[engramdb.ResponseQAEntry]:
        return await engramdb.session.get_session("chat-1")

    first, second = asyncio.run(entries())
    assert (first.question, first.answer, first.context) == ("Hi, I'm Ada", "Hello Ada!", "")
    assert second.question == "What is my name?" and second.answer == ""


def test_rich_messages_round_trip_exactly(history: EngramdbChatMessageHistory) -> None:
    call = {"name": "lookup", "args": {"q": "owls"}, "id": "call-1", "type": "tool_call"}
    messages = [
        SystemMessage("You are terse."),
        HumanMessage("Find owls", id="m1", additional_kwargs={"lang": "en"}),
        AIMessage("", tool_calls=[call]),
        ToolMessage("Barn owls hunt at night.", tool_call_id="call-1"),
        AIMessage("They hunt at night.", response_metadata={"model": "x"}),
    ]
    history.add_messages(messages)
    assert history.messages == messages


async def test_async_methods_and_clear(history: EngramdbChatMessageHistory) -> None:
    await history.aadd_messages([HumanMessage("one"), AIMessage("two")])
    assert [m.text for m in await history.aget_messages()] == ["one", "two"]
    await history.aclear()
    assert await history.aget_messages() == []
    history.add_ai_message("after clear")
    history.clear()
    assert history.messages == []


async def test_recall_turns_read_back_as_messages(
    openai_server: OpenAIServer, history: EngramdbChatMessageHistory
) -> None:
    await engramdb.remember(FACTS, dataset_name="facts", self_improvement=False)
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    answer = openai_server.chat_document("At night.")
    openai_server.set_default("chat/completions", lambda r: Reply.json(answer))
    await engramdb.recall("When do owls hunt?", "RAG_COMPLETION", session_id="chat-1")
    from engramdb.engine import close_default_engine

    await close_default_engine()
    assert await history.aget_messages() == [
        HumanMessage("When do owls hunt?"),
        AIMessage("At night."),
    ]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_runnable_with_message_history_keeps_the_conversation() -> None:
    from langchain_core.runnables import RunnableLambda
    from langchain_core.runnables.history import RunnableWithMessageHistory

    opened: list[EngramdbChatMessageHistory] = []

    def session(session_id: str) -> EngramdbChatMessageHistory:
        opened.append(EngramdbChatMessageHistory(session_id))
        return opened[-1]

    def model(messages: list[object]) -> AIMessage:
        return AIMessage(f"I have seen {len(messages)} messages")

    chat = RunnableWithMessageHistory(RunnableLambda(model), session)
    config = {"configurable": {"session_id": "s-1"}}
    chat.invoke([HumanMessage("hello")], config=config)  # type: ignore[arg-type]
    reply = chat.invoke([HumanMessage("again")], config=config)  # type: ignore[arg-type]
    assert reply.content == "I have seen 3 messages"
    for h in opened:
        h.close()
