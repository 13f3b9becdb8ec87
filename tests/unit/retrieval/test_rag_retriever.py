"""RAG_COMPLETION: nearest chunks by similarity alone, answered by the LLM."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.models.search_type import SearchType
from engramdb.retrieval.completion import DEFAULT_SYSTEM_PROMPTS
from engramdb.retrieval.retrievers.chunks import search_chunks
from engramdb.retrieval.retrievers.rag import RagCompletionRetriever
from tests.support.openai_server import OpenAIServer
from tests.unit.retrieval._graph_fixtures import (
    SEED_QUERY,
    ask,
    close_llm,
    make_ctx,
    options,
    remember_seed,
    use_llm,
    user_text,
)

RAG = SearchType.RAG_COMPLETION


@pytest.fixture
async def llm_server(openai_server: OpenAIServer) -> AsyncIterator[OpenAIServer]:
    """The scripted server, its client closed on the test's loop afterwards."""
    yield openai_server
    await close_llm()


async def test_only_context_returns_the_passages_prompt_without_an_llm() -> None:
    await remember_seed()
    ctx = await make_ctx()
    (item,) = await ask(
        RagCompletionRetriever(), ctx, options(SEED_QUERY, RAG, only_context=True, top_k=3)
    )
    assert item.kind == "prompt" and item.text.startswith(f"Question: {SEED_QUERY}")
    assert "Andreas was born in Venice, but later settled in Lisbon." in item.text
    assert "[chunk 0 of text_" in item.text
    assert item.system_prompt == DEFAULT_SYSTEM_PROMPTS[RAG]
    assert [c["rank"] for c in item.raw["chunks"]] == [0, 1, 2]


async def test_ranks_by_similarity_alone() -> None:
    # The heavier memory must not move ahead: the order is exactly CHUNKS' distance order.
    await engramdb.remember("Alice moved to Dublin.", dataset_name="d", importance_weight=1.0)
    await engramdb.remember("Maria moved to Berlin.", dataset_name="d", importance_weight=0.0)
    ctx = await make_ctx()
    query = "Who moved to another city?"
    (item,) = await ask(
        RagCompletionRetriever(), ctx, options(query, RAG, only_context=True, top_k=2)
    )
    chunks = await search_chunks(ctx.store, ctx.embedder, ctx.datasets, query, 2)
    assert [c["chunk_id"] for c in item.raw["chunks"]] == [c.metadata["chunk_id"] for c in chunks]
    assert [c["score"] for c in item.raw["chunks"]] == [c.score for c in chunks]
    assert item.raw["chunks"][0]["score"] <= item.raw["chunks"][1]["score"]
    assert "Maria" in item.raw["context"].split("\n\n")[0]  # the closer one, despite weight 0


async def test_duplicates_are_dropped_without_renumbering() -> None:
    text = "Andreas was born in Venice, but later settled in Lisbon."
    await engramdb.remember(text, dataset_name="one")
    await engramdb.remember(text, dataset_name="two")
    await engramdb.remember("Alice moved to Paris in 2010.", dataset_name="two")
    ctx = await make_ctx()
    (item,) = await ask(
        RagCompletionRetriever(),
        ctx,
        options("Where was Andreas born?", RAG, only_context=True, top_k=3),
    )
    ranks = [c["rank"] for c in item.raw["chunks"]]
    assert ranks == [0, 2]
    assert item.raw["context"].count(text) == 1


async def test_node_name_keeps_only_tagged_chunks() -> None:
    await engramdb.remember(
        "Ada Lovelace wrote notes in London.", dataset_name="tags", node_set=["history"]
    )
    await engramdb.remember("Ada Lovelace was born in Venice.", dataset_name="tags")
    ctx = await make_ctx()
    (item,) = await ask(
        RagCompletionRetriever(),
        ctx,
        options("Ada Lovelace", RAG, only_context=True, node_name=["history"]),
    )
    assert [c["rank"] for c in item.raw["chunks"]] == [0]
    assert "London" in item.text and "Venice" not in item.text


async def test_an_answer_without_an_llm_is_a_clear_error() -> None:
    await remember_seed()
    ctx = await make_ctx()
    with pytest.raises(engramdb.LLMNotConfiguredError):
        await ask(RagCompletionRetriever(), ctx, options(SEED_QUERY, RAG))


async def test_answer_with_references_carries_scored_segments(llm_server: OpenAIServer) -> None:
    await remember_seed()
    use_llm(llm_server)
    ctx = await make_ctx(with_llm=True)
    (item,) = await ask(
        RagCompletionRetriever(), ctx, options(SEED_QUERY, RAG, top_k=2, include_references=True)
    )
    answer, block = item.text.split("\n\nEvidence:\n")
    assert answer == llm_server.chat_text
    bullets = block.splitlines()
    assert len(bullets) == 2 and all(b.startswith("- chunk 0 of document text_") for b in bullets)
    assert all(': "' in b for b in bullets)  # RAG bullets quote a snippet
    evidence = item.metadata["evidence"]
    assert [e["kind"] for e in evidence] == ["segment", "segment"]
    assert [e["rank"] for e in evidence] == [0, 1]
    assert all(isinstance(e["score"], float) for e in evidence)
    assert all(e["role"] == "used_as_context" for e in evidence)
    assert all({"data_id", "chunk_id", "chunk_index", "document_name"} <= set(e) for e in evidence)
    (request,) = llm_server.requests_to("chat/completions")
    assert "Question: " + SEED_QUERY in user_text(request)


async def test_nothing_searchable_gives_no_prompt() -> None:
    owner = await get_engine().resolve_user(None)
    await get_engine().store.get_or_create_dataset(owner.id, "empty")
    ctx = await make_ctx()
    assert await ask(RagCompletionRetriever(), ctx, options("x", RAG, only_context=True)) == []
