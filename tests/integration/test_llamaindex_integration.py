"""engramdb.integrations.llamaindex against the real LlamaIndex (issue 15, item 3): the
retriever inside LlamaIndex's own query engine, and the memory block inside its ``Memory``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core", reason="needs the llamaindex extra")

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import MockLLM
from llama_index.core.memory import Memory
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

import engramdb
from engramdb.errors import EngramValidationError
from engramdb.integrations.llamaindex import EngramdbMemoryBlock, EngramdbRetriever
from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]

OWLS = "Owls hunt small rodents at night in the forest."
BATS = "Bats sleep in caves during the day and eat insects."


async def _zoo() -> None:
    await engramdb.remember(OWLS, dataset_name="zoo")
    await engramdb.remember(BATS, dataset_name="zoo")
    await engramdb.remember("The invoice is due on Friday.", dataset_name="office")


# --- the retriever -------------------------------------------------------------------------


async def test_retrieve_returns_scored_text_nodes_with_their_provenance() -> None:
    await _zoo()
    nodes = await EngramdbRetriever(datasets=["zoo"], top_k=2).aretrieve("Where do owls hunt?")
    assert all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in nodes)
    assert [n.node.get_content() for n in nodes] == [OWLS, BATS]
    # LlamaIndex reads scores as higher-is-better; recall's CHUNKS score is a distance
    assert nodes[0].score is not None and nodes[1].score is not None
    assert nodes[0].score > nodes[1].score
    raw = await engramdb.recall("Where do owls hunt?", "CHUNKS", datasets=["zoo"], top_k=2)
    assert [n.node.metadata["distance"] for n in nodes] == [r.score for r in raw]
    assert nodes[0].score == pytest.approx(1.0 - raw[0].score)
    meta = nodes[0].node.metadata
    (zoo,) = [d for d in await engramdb.list_datasets() if d.name == "zoo"]
    assert meta["dataset_name"] == "zoo" and meta["dataset_id"] == str(zoo.id)
    assert meta["search_type"] == "CHUNKS" and meta["source"] == "graph"
    assert meta["kind"] == "chunk" and meta["chunk_index"] == 0
    assert nodes[0].node.node_id == meta["chunk_id"]  # stable: the chunk's own id
    documents = {str(item.id): item.name for item in await engramdb.datasets.list_data(zoo.id)}
    assert meta["document_name"] == documents[meta["document_id"]]
    # ids stay out of what an LLM reads; the dataset name stays in
    shown = nodes[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert "dataset_name: zoo" in shown and meta["chunk_id"] not in shown


async def test_datasets_limit_what_is_retrieved() -> None:
    await _zoo()
    office = await EngramdbRetriever(datasets=["office"]).aretrieve("When is it due?")
    assert [n.node.get_content() for n in office] == ["The invoice is due on Friday."]
    everything = await EngramdbRetriever(top_k=10).aretrieve("anything")
    assert {n.node.metadata["dataset_name"] for n in everything} == {"zoo", "office"}


@pytest.mark.parametrize("search_type", ["CHUNKS", "CHUNKS_LEXICAL", "SUMMARIES", "chunks"])
async def test_every_offline_search_type_is_an_option(search_type: str) -> None:
    await _zoo()
    retriever = EngramdbRetriever(search_type=search_type, datasets=["zoo"], top_k=1)
    (node,) = await retriever.aretrieve("owls hunt rodents")
    assert node.node.metadata["search_type"] == search_type.upper()
    assert "Owls" in node.node.get_content()


@pytest.mark.parametrize(
    "search_type", ["RAG_COMPLETION", "GRAPH_COMPLETION", "TRIPLET_COMPLETION", "HYBRID_COMPLETION"]
)
async def test_completion_search_types_return_the_answer(
    openai_server: OpenAIServer, search_type: str
) -> None:
    await _zoo()
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    retriever = EngramdbRetriever(search_type=search_type, datasets=["zoo"])
    nodes = await retriever.aretrieve("Where do owls hunt?")
    assert [n.node.get_content() for n in nodes] == [openai_server.chat_text]
    assert nodes[0].node.metadata["search_type"] == search_type
    prompt = str(openai_server.requests_to("chat/completions")[-1].json["messages"])
    assert "Where do owls hunt?" in prompt
    if search_type == "RAG_COMPLETION":  # answered from the remembered passage
        assert OWLS in prompt


async def test_session_results_become_nodes_too() -> None:
    await _zoo()
    await engramdb.recall("Where do owls hunt?", "CHUNKS", session_id="chat-1")
    retriever = EngramdbRetriever(search_type=None, session_id="chat-1", scope="session")
    (node,) = await retriever.aretrieve("owls hunting")
    assert node.node.metadata["source"] == "session"
    assert node.node.get_content().startswith("Q: Where do owls hunt?")
    (turn,) = await engramdb.session.get_session("chat-1")
    assert node.node.node_id == turn.qa_id


async def test_an_unknown_search_type_is_refused_naming_the_choices() -> None:
    with pytest.raises(EngramValidationError, match="CHUNKS_LEXICAL"):
        EngramdbRetriever(search_type="NEAREST")
    with pytest.raises(ValueError, match="CHUNKS_LEXICAL"):
        EngramdbMemoryBlock(search_type="NEAREST")
    assert EngramdbMemoryBlock(search_type="summaries").search_type is engramdb.SearchType.SUMMARIES


def test_the_sync_api_works_outside_an_event_loop() -> None:
    import asyncio

    asyncio.run(_zoo())
    nodes = EngramdbRetriever(datasets=["zoo"], top_k=1).retrieve("owls")
    assert nodes[0].node.get_content() == OWLS


async def test_it_serves_llamaindex_query_engine() -> None:
    """The retriever plugs into RetrieverQueryEngine; the (mock) LLM gets the recalled text."""
    await _zoo()
    engine = RetrieverQueryEngine.from_args(
        EngramdbRetriever(datasets=["zoo"], top_k=1), llm=MockLLM()
    )
    response = await engine.aquery("Where do owls hunt?")
    assert [n.node.get_content() for n in response.source_nodes] == [OWLS]
    assert OWLS in str(response)  # MockLLM echoes its prompt: the context was in it


async def test_an_explicit_engine_and_user_are_used(tmp_path: Path) -> None:
    async with engramdb.Engine(data_dir=tmp_path / "mem") as mem:
        alice = await mem.create_user("alice@example.com")
        await mem.remember("Alice's locker is number 12.", "lockers", user=alice)
        mine = EngramdbRetriever(datasets=["lockers"], user=alice, engine=mem)
        assert [n.node.get_content() for n in await mine.aretrieve("locker")] == [
            "Alice's locker is number 12."
        ]
        with pytest.raises(engramdb.DatasetNotFoundError):
            await EngramdbRetriever(datasets=["lockers"], engine=mem).aretrieve("locker")


# --- the memory block ----------------------------------------------------------------------


def _memory(session_id: str, block: EngramdbMemoryBlock) -> Memory:
    """A Memory whose short-term history holds only a few words, so it flushes quickly."""
    return Memory.from_defaults(
        session_id=session_id,
        token_limit=40,
        chat_history_token_ratio=0.5,
        token_flush_size=10,
        memory_blocks=[block],
        tokenizer_fn=lambda text: text.split(),
    )


CHAT = [
    ("user", "My cat is called Miso and she loves tuna."),
    ("assistant", "Miso is a lovely name for a cat."),
    ("user", "I also moved to Vienna last spring."),
    ("assistant", "Vienna is a beautiful city."),
    ("user", "What was my cat called again?"),
]


async def _chat(memory: Memory, turns: list[tuple[str, str]]) -> None:
    for role, text in turns:
        await memory.aput(ChatMessage(role=role, content=text))


async def test_flushed_messages_are_remembered_and_recalled_in_the_memory() -> None:
    block = EngramdbMemoryBlock(top_k=2)
    memory = _memory("chat-1", block)
    await _chat(memory, CHAT)
    messages = await memory.aget()
    # older turns left the short-term history and came back from engramdb
    history = [m.content for m in messages[1:]]
    assert "My cat is called Miso and she loves tuna." not in history
    assert messages[0].role.value == "system"
    assert "<engramdb_memory>" in str(messages[0].content)
    assert "user: My cat is called Miso and she loves tuna." in str(messages[0].content)
    # stored as a document of the block's dataset, tagged with the Memory session
    found = await engramdb.recall("Miso", "CHUNKS", datasets=["llamaindex_memory"])
    assert "assistant: Miso is a lovely name for a cat." in found[0].text
    graph = await engramdb.get_graph(["llamaindex_memory"])
    assert "llamaindex-session:chat-1" in str(graph)


async def test_get_and_put_directly() -> None:
    block = EngramdbMemoryBlock(dataset_name="notes", top_k=1)
    asking = [ChatMessage(role="user", content="Where do I live?")]
    assert await block.aget(asking) == ""  # nothing remembered yet
    await block.aput([ChatMessage(role="user", content="")])  # no text: nothing written
    assert await engramdb.list_datasets() == []
    await block.aput([ChatMessage(role="user", content="I live in Vienna.")])
    assert await block.aget(asking) == "user: I live in Vienna."
    assert await block.aget([]) == ""


async def test_sessions_keep_their_memories_apart_unless_shared() -> None:
    block = EngramdbMemoryBlock(top_k=5)
    await block.aput([ChatMessage(role="user", content="My cat is Miso.")], session_id="a")
    await block.aput([ChatMessage(role="user", content="My dog is Rex.")], session_id="b")
    asking = [ChatMessage(role="user", content="What are my pets called?")]
    assert await block.aget(asking, session_id="a") == "user: My cat is Miso."
    assert await block.aget(asking, session_id="b") == "user: My dog is Rex."
    shared = EngramdbMemoryBlock(top_k=5, share_across_sessions=True)
    both = await shared.aget(asking, session_id="a")
    assert "Miso" in both and "Rex" in both


async def test_users_keep_their_memories_apart() -> None:
    alice = await engramdb.create_user("alice@example.com")
    bob = await engramdb.create_user("bob@example.com")
    asking = [ChatMessage(role="user", content="What is my PIN?")]
    await EngramdbMemoryBlock(user=alice).aput([ChatMessage(role="user", content="PIN 4711")])
    assert "4711" in await EngramdbMemoryBlock(user=alice).aget(asking)
    assert await EngramdbMemoryBlock(user=bob).aget(asking) == ""


def test_the_example_runs(tmp_path: Path) -> None:
    """examples/llamaindex_memory.py runs offline and prints what it found."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAMDB_", "LLM_"))}
    env.update(
        EMBEDDING_PROVIDER="fake",
        EMBEDDING_DIMENSIONS="64",
        ENGRAMDB_DATA_DIR=str(tmp_path / "data"),
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "llamaindex_memory.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Owls hunt small rodents at night." in done.stdout
    assert "user: My cat is called Miso." in done.stdout


@pytest.mark.parametrize(("window", "expected"), [(1, ["Miso"]), (2, ["Miso", "Rex"])])
async def test_the_query_is_the_latest_messages(window: int, expected: list[str]) -> None:
    block = EngramdbMemoryBlock(
        search_type="CHUNKS_LEXICAL", retrieval_context_window=window, top_k=5
    )
    await block.aput([ChatMessage(role="user", content="My dog is Rex.")])
    await block.aput([ChatMessage(role="user", content="My cat is Miso.")])
    asking = [
        ChatMessage(role="user", content="Tell me about the dog."),
        ChatMessage(role="user", content="And the cat?"),
    ]
    found = await block.aget(asking)
    assert [name for name in ("Miso", "Rex") if name in found] == expected
