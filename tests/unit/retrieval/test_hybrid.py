"""HYBRID_COMPLETION: lane fusion, passages, fact lines, importance weight and completion.

The unit-test embedder is a hashed bag of words (``FakeEmbedder``): texts sharing more words
are closer. Cases are built on that: a rare term the dense lane cannot favour is found by BM25.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.errors import LLMNotConfiguredError
from engramdb.graph_schema import CHUNK_COLLECTION
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext
from engramdb.retrieval.completion import DEFAULT_SYSTEM_PROMPTS
from engramdb.retrieval.ranking import hybrid_importance_factor
from engramdb.retrieval.retrievers.hybrid import (
    DEFAULT_HYBRID_CONFIG,
    HybridRetriever,
    hybrid_context_items,
    split_passages,
    stem,
)
from tests.support.openai_server import OpenAIServer

HYBRID = SearchType.HYBRID_COMPLETION


async def context_for(*names: str) -> RetrievalContext:
    """A retrieval context over the named datasets of the default user."""
    engine = get_engine()
    store = engine.store
    user = await store.get_or_create_default_user()
    datasets = []
    for name in names:
        dataset = await store.find_dataset(user.id, name)
        assert dataset is not None, name
        datasets.append(dataset)
    return RetrievalContext(
        store=store,
        embedder=engine.embedder,
        llm=engine.llm,
        settings=engine.settings,
        datasets=datasets,
        user=user,
    )


def options(query: str, **kwargs: Any) -> RecallOptions:
    return RecallOptions(query=query, search_type=HYBRID, **kwargs)


def use_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 1)
    engramdb.config.set("llm_timeout", 5)


SEED = [
    (
        "Diana and Tom were born and raised in Helsinki. Diana currently resides in Berlin, "
        "while Tom never moved.",
        0.5,
    ),
    ("Alice moved to Paris in 2010, while Bob has always lived in New York.", 0.7),
    ("Andreas was born in Venice, but later settled in Lisbon.", 0.3),
]


async def remember_seed(dataset: str = "importance_demo") -> None:
    for text, weight in SEED:
        await engramdb.remember(
            text, dataset_name=dataset, importance_weight=weight, self_improvement=False
        )


# --- importance weight -------------------------------------------------------------------------


async def test_importance_weight_orders_equally_relevant_passages() -> None:
    # Two passages that answer the question equally well, at 0.3 and 0.7.
    await engramdb.remember(
        "The lighthouse keeper logged a storm at dawn, the ledger says.",
        dataset_name="weights",
        importance_weight=0.3,
        self_improvement=False,
    )
    await engramdb.remember(
        "The lighthouse keeper logged a storm at dusk, the diary says.",
        dataset_name="weights",
        importance_weight=0.7,
        self_improvement=False,
    )
    ctx = await context_for("weights")
    query = "What did the lighthouse keeper log about the storm?"

    weighted = await hybrid_context_items(ctx, options(query))
    plain = await hybrid_context_items(
        ctx, options(query, retriever_specific_config={"use_importance_weight": False})
    )
    assert "diary" in weighted[0].text  # the 0.7 passage first
    # Without the weight the scores are relevance alone; with it each is multiplied by exactly
    # hybrid_importance_factor(w): 1.2 for 0.7 and 0.8 for 0.3.
    by_text = {i.text: i.score for i in plain}
    for item in weighted:
        factor = hybrid_importance_factor(0.7 if "diary" in item.text else 0.3)
        assert item.score == pytest.approx(by_text[item.text] * factor)
    relevance_order = sorted(plain, key=lambda i: -i.score)
    assert [i.text for i in plain] == [i.text for i in relevance_order]


async def test_use_importance_weight_false_ranks_by_relevance_alone() -> None:
    # The 0.3 passage is the better match; the weight lifts the 0.7 one above it, and turning
    # the weight off restores relevance order.
    await engramdb.remember(
        "Andreas was born in Venice, but later settled in Lisbon near Venice.",
        dataset_name="flip",
        importance_weight=0.3,
        self_improvement=False,
    )
    await engramdb.remember(
        "Andreas visited Venice once.",
        dataset_name="flip",
        importance_weight=1.0,
        self_improvement=False,
    )
    ctx = await context_for("flip")
    query = "Where did Andreas settle after Venice?"
    plain = await hybrid_context_items(
        ctx, options(query, retriever_specific_config={"use_importance_weight": False})
    )
    weighted = await hybrid_context_items(ctx, options(query))
    assert "Lisbon" in plain[0].text and "visited" in plain[1].text
    # The relevance gap is smaller than the weights' 1.5 / 0.8, so the weight reorders them.
    assert plain[0].score / plain[1].score < hybrid_importance_factor(1.0) / (
        hybrid_importance_factor(0.3)
    )
    assert "visited" in weighted[0].text and "Lisbon" in weighted[1].text


async def test_default_weight_is_neutral() -> None:
    await engramdb.remember("Quarks combine into hadrons.", dataset_name="neutral")
    ctx = await context_for("neutral")
    a = await hybrid_context_items(ctx, options("What do quarks form?"))
    b = await hybrid_context_items(
        ctx,
        options("What do quarks form?", retriever_specific_config={"use_importance_weight": False}),
    )
    assert [(i.text, i.score) for i in a] == [(i.text, i.score) for i in b]


# --- lanes --------------------------------------------------------------------------------------


async def test_lexical_lane_finds_a_rare_term_the_dense_lane_misses() -> None:
    distractors = [
        f"Quarterly revenue figures for region {i} were reported in the annual finance report."
        for i in range(10)
    ]
    await engramdb.remember(
        [*distractors, "The zorblax ledger is archived in the basement."],
        dataset_name="rare",
        self_improvement=False,
    )
    ctx = await context_for("rare")
    query = "Which finance report lists quarterly revenue figures next to the zorblax ledger?"
    config = replace(DEFAULT_HYBRID_CONFIG, dense_k=3, lexical_k=3, expand_chunks=5)

    vector = (await ctx.embedder.embed([query]))[0]
    dense = await ctx.store.vector_search(CHUNK_COLLECTION, vector, ctx.dataset_ids, 3)
    dense_texts = [n.text for n in await ctx.store.get_nodes([h.node_id for h in dense])]
    assert not any("zorblax" in t for t in dense_texts)  # the dense lane misses it

    items = await hybrid_context_items(ctx, options(query), config)
    assert "zorblax" in items[0].text  # BM25 brings it in, and it ranks first


async def test_fact_lines_for_hit_entities() -> None:
    await remember_seed()
    ctx = await context_for("importance_demo")
    items = await hybrid_context_items(ctx, options("In which cities did Andreas live?"))
    facts = [i for i in items if i.kind == "fact"]
    assert facts, [i.text for i in items]
    assert all("—" in f.text and "→" in f.text for f in facts)
    assert any(f.text.startswith("Andreas —") for f in facts)
    # facts come after every passage
    kinds = [i.kind for i in items]
    assert kinds.index("fact") == len(kinds) - len(facts)
    # The seed's point: a 0.3 weight biases ranking but never hides the fact.
    assert any("Andreas" in i.text for i in items if i.kind == "passage")


async def test_passages_are_deduplicated_and_best_first() -> None:
    text = "\n\n".join(
        [
            "Caroline: I went to a pottery class yesterday.",
            "Melanie: How was it?",
            "Caroline: Great, I made a blue bowl with a glaze.",
            "Melanie: I went hiking with my kids in the mountains.",
        ]
    )
    await engramdb.remember(text, dataset_name="chat", self_improvement=False)
    await engramdb.remember(
        "Melanie: I went hiking with my kids in the mountains.",
        dataset_name="chat",
        self_improvement=False,
    )
    ctx = await context_for("chat")
    items = await hybrid_context_items(ctx, options("What did Caroline make in pottery class?"))
    texts = [i.text for i in items if i.kind == "passage"]
    assert texts[0].startswith("Caroline: I went to a pottery class")
    assert len(texts) == len(set(texts))
    assert all(i.chunk_id for i in items)


def test_split_passages_keeps_paragraphs_and_splits_long_ones() -> None:
    long = " ".join(f"Sentence number {i} is here." for i in range(30))
    parts = split_passages(f"First.\n\nSecond para.\n\n{long}", max_words=40)
    assert parts[:2] == ["First.", "Second para."]
    assert all(len(p.split()) <= 40 for p in parts[2:]) and len(parts) > 3
    assert " ".join(parts[2:]) == long


@pytest.mark.parametrize(
    ("a", "b"),
    [("researching", "research"), ("painted", "paints"), ("hiking", "hike"), ("babies", "baby")],
)
def test_stem_merges_inflections(a: str, b: str) -> None:
    assert stem(a) == stem(b)


# --- completion ---------------------------------------------------------------------------------


async def test_only_context_returns_the_prompt_with_passages_and_system_prompt() -> None:
    await remember_seed()
    ctx = await context_for("importance_demo")
    results = await HybridRetriever().retrieve(
        ctx, options("In which cities did Andreas live?", only_context=True)
    )
    assert len(results) == 1
    item = results[0]
    assert item.kind == "prompt" and item.search_type == "HYBRID_COMPLETION"
    assert "Andreas was born in Venice, but later settled in Lisbon." in item.text
    assert item.text.startswith("Question: In which cities did Andreas live?")
    assert item.system_prompt == DEFAULT_SYSTEM_PROMPTS[HYBRID]
    assert item.metadata == {}


async def test_only_context_with_nothing_found_is_empty() -> None:
    await engramdb.remember("Alpha beta gamma.", dataset_name="tiny")
    ctx = await context_for("tiny")
    ctx.datasets = []
    assert await HybridRetriever().retrieve(ctx, options("anything", only_context=True)) == []


async def test_without_llm_an_answer_raises() -> None:
    await remember_seed()
    ctx = await context_for("importance_demo")
    assert ctx.llm is None
    with pytest.raises(LLMNotConfiguredError):
        await HybridRetriever().retrieve(ctx, options("In which cities did Andreas live?"))


async def test_answer_with_references_has_evidence_block_and_empty_metadata(
    openai_server: OpenAIServer,
) -> None:
    await remember_seed()  # offline extraction
    use_llm(openai_server)  # then an LLM for the answer
    ctx = await context_for("importance_demo")
    assert ctx.llm is not None
    results = await HybridRetriever().retrieve(
        ctx, options("In which cities did Andreas live?", include_references=True)
    )
    assert len(results) == 1
    answer = results[0]
    assert answer.kind == "answer"
    assert answer.text.startswith(openai_server.chat_text)
    assert "\n\nEvidence:\n- chunk 0 of document " in answer.text
    assert "Andreas was born in Venice" in answer.text.split("Evidence:")[1]
    assert answer.metadata == {}  # HYBRID cites in the block only
    sent = openai_server.requests_to("chat/completions")[-1].json["messages"]
    assert sent[0]["content"] == DEFAULT_SYSTEM_PROMPTS[HYBRID]
    assert "Andreas was born in Venice" in sent[1]["content"]

    plain = await HybridRetriever().retrieve(ctx, options("In which cities did Andreas live?"))
    assert "Evidence:" not in plain[0].text and plain[0].metadata == {}
