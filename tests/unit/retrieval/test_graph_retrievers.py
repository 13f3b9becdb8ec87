"""Graph-family retrievers and TRIPLET_COMPLETION against a real memory built by remember()."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import pytest
from pydantic import BaseModel

import engramdb
from engramdb.engine import get_engine
from engramdb.models.records import DataRecord, Edge, Node, NodeType, stable_id, utcnow
from engramdb.models.search_type import SearchType
from engramdb.retrieval.completion import DEFAULT_SYSTEM_PROMPTS
from engramdb.retrieval.ranking import graph_score
from engramdb.retrieval.retrievers.graph import FACTS_PER_ENTITY, NODES_PER_SEED, TripletSearch
from engramdb.retrieval.retrievers.graph_completion import (
    GRAPH_RETRIEVERS,
    GraphCompletionRetriever,
)
from engramdb.storage.base import DocumentWrite, VectorRow
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.unit.retrieval._graph_fixtures import (
    SEED_QUERY,
    ask,
    chat_reply,
    close_llm,
    counting_store,
    make_ctx,
    options,
    remember_seed,
    system_text,
    use_llm,
    user_text,
)

GRAPH_TYPES = sorted(GRAPH_RETRIEVERS, key=str)


@pytest.fixture
async def llm_server(openai_server: OpenAIServer) -> AsyncIterator[OpenAIServer]:
    """The scripted server; tests point the engine at it with ``use_llm`` once the memory is
    built offline (an LLM configured earlier would do the extraction)."""
    yield openai_server
    await close_llm()


def _facts(result: Any) -> list[tuple[str, str, str]]:
    return [
        (t["source"]["name"], t["relation"], t["target"]["name"]) for t in result.raw["triplets"]
    ]


# --- ranking ------------------------------------------------------------------------------------


async def test_heavier_fact_ranks_first_in_graph_completion_not_in_triplet_completion() -> None:
    # Two facts of the same shape, equally close to a query naming neither (the fake embedder
    # puts them within 1 % of each other; the 0.3 one is a hair closer).
    await engramdb.remember("Alice moved to Dublin.", dataset_name="d", importance_weight=0.7)
    await engramdb.remember("Maria moved to Berlin.", dataset_name="d", importance_weight=0.3)
    ctx = await make_ctx()
    query = "Who moved to another city?"

    graph = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION],
        ctx,
        options(query, SearchType.GRAPH_COMPLETION, only_context=True, verbose=True),
    )
    triplet = await ask(
        GRAPH_RETRIEVERS[SearchType.TRIPLET_COMPLETION],
        ctx,
        options(query, SearchType.TRIPLET_COMPLETION, only_context=True, verbose=True),
    )
    alice, maria = ("Alice", "move_to", "Dublin"), ("Maria", "move_to", "Berlin")
    by_fact = {f: t for f, t in zip(_facts(graph[0]), graph[0].raw["triplets"], strict=True)}
    d_alice, d_maria = by_fact[alice]["distance"], by_fact[maria]["distance"]
    assert abs(d_alice - d_maria) / d_maria < 0.02  # premise: equally close

    assert _facts(graph[0])[:2] == [alice, maria]  # weight 0.7 beats 0.3
    assert graph[0].text.index("Alice —move_to→ Dublin") < graph[0].text.index("Maria —move_to→")
    assert _facts(triplet[0])[:2] == [maria, alice]  # similarity alone: the closer one

    # The graph score is exactly the ranking module's formula on the triplet's distance/weight.
    for t in graph[0].raw["triplets"]:
        breakdown = t["score_breakdown"]
        expected = graph_score(t["distance"], importance_weight=breakdown["importance_weight"])
        assert t["score"] == pytest.approx(expected.final)
    assert by_fact[alice]["score_breakdown"]["importance_weight"] == 0.7
    for t in triplet[0].raw["triplets"]:
        assert t["score"] == t["distance"]
        assert t["score_breakdown"]["importance_factor"] == 1.0


async def test_verbose_adds_the_breakdown_only_when_asked() -> None:
    await remember_seed()
    ctx = await make_ctx()
    retriever = GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION]
    quiet = await ask(
        retriever, ctx, options(SEED_QUERY, SearchType.GRAPH_COMPLETION, only_context=True)
    )
    loud = await ask(
        retriever,
        ctx,
        options(SEED_QUERY, SearchType.GRAPH_COMPLETION, only_context=True, verbose=True),
    )
    assert all("score_breakdown" not in t for t in quiet[0].raw["triplets"])
    for t in loud[0].raw["triplets"]:
        b = t["score_breakdown"]
        assert b["higher_is_better"] is False and b["final"] == t["score"]
        assert b["base_distance"] == t["distance"]


# --- only_context and the missing LLM --------------------------------------------------------


@pytest.mark.parametrize("search_type", GRAPH_TYPES)
async def test_only_context_returns_the_prompt_without_an_llm(search_type: SearchType) -> None:
    await remember_seed()
    ctx = await make_ctx()
    results = await ask(
        GRAPH_RETRIEVERS[search_type], ctx, options(SEED_QUERY, search_type, only_context=True)
    )
    assert len(results) == 1
    item = results[0]
    assert item.kind == "prompt" and item.search_type == search_type.value
    assert item.text.startswith(f"Question: {SEED_QUERY}")
    assert "Andreas —born_in→ Venice" in item.text
    assert item.system_prompt == DEFAULT_SYSTEM_PROMPTS[search_type]
    assert item.metadata == {}


async def test_context_holds_facts_descriptions_and_passages() -> None:
    await remember_seed()
    ctx = await make_ctx()
    (item,) = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION],
        ctx,
        options(SEED_QUERY, SearchType.GRAPH_COMPLETION, only_context=True),
    )
    context = item.raw["context"]
    assert context.startswith("Passages:\n")  # passages lead, facts follow
    assert "\n\nFacts:\n" in context
    assert "- Andreas (person)" in context
    assert context.count("Andreas was born in Venice, but later settled in Lisbon.") == 1

    (summary,) = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_SUMMARY_COMPLETION],
        ctx,
        options(SEED_QUERY, SearchType.GRAPH_SUMMARY_COMPLETION, only_context=True),
    )
    assert "Summaries:\n" in summary.raw["context"]

    (bare,) = await ask(
        GRAPH_RETRIEVERS[SearchType.TRIPLET_COMPLETION],
        ctx,
        options(SEED_QUERY, SearchType.TRIPLET_COMPLETION, only_context=True),
    )
    assert "Passages:" not in bare.raw["context"] and "Entities:" not in bare.raw["context"]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Where was Andreas born?", "Andreas was born in Venice"),
        ("When did Alice move to Paris?", "Alice moved to Paris in 2010"),
        ("Which city does Diana reside in now?", "Diana currently resides in Berlin"),
    ],
)
async def test_the_passage_answering_the_question_comes_first(question: str, answer: str) -> None:
    # Facts rank by entity-name similarity; the passages shown above them rank by their own match
    # with the question, so the sentence that answers it is what a reader (or a word budget)
    # meets first.
    await remember_seed()
    ctx = await make_ctx()
    (item,) = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION],
        ctx,
        options(question, SearchType.GRAPH_COMPLETION, only_context=True),
    )
    first = str(item.raw["context"]).removeprefix("Passages:\n").split("\n\n", 1)[0]
    assert answer in first


async def test_passage_budget_caps_the_passages() -> None:
    await remember_seed()
    ctx = await make_ctx()
    retriever = GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION]

    async def context(budget: object) -> str:
        config = {"passage_char_budget": budget}
        opts = options(SEED_QUERY, SearchType.GRAPH_COMPLETION, only_context=True)
        opts = dataclasses.replace(opts, retriever_specific_config=config)
        (item,) = await ask(retriever, ctx, opts)
        return str(item.raw["context"])

    assert "Passages:" not in await context(0)
    short = await context(30)
    passages = short.split("Passages:\n", 1)[1].split("\n\nFacts:\n", 1)[0]
    assert "\n\n" not in passages and passages.endswith("…")  # one passage, clipped
    with pytest.raises(engramdb.EngramValidationError, match="passage_char_budget"):
        await context("lots")


@pytest.mark.parametrize("search_type", GRAPH_TYPES)
async def test_an_answer_without_an_llm_is_a_clear_error(search_type: SearchType) -> None:
    await remember_seed()
    ctx = await make_ctx()
    with pytest.raises(engramdb.LLMNotConfiguredError):
        await ask(GRAPH_RETRIEVERS[search_type], ctx, options(SEED_QUERY, search_type))


async def test_nothing_retrieved_gives_no_prompt() -> None:
    owner = await get_engine().resolve_user(None)
    await get_engine().store.get_or_create_dataset(owner.id, "empty")
    ctx = await make_ctx()
    results = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION],
        ctx,
        options(SEED_QUERY, SearchType.GRAPH_COMPLETION, only_context=True),
    )
    assert results == []


async def test_graph_summary_refuses_response_model() -> None:
    class Answer(BaseModel):
        city: str

    await remember_seed()
    ctx = await make_ctx()
    with pytest.raises(engramdb.EngramValidationError, match="GRAPH_SUMMARY_COMPLETION"):
        await ask(
            GRAPH_RETRIEVERS[SearchType.GRAPH_SUMMARY_COMPLETION],
            ctx,
            options(SEED_QUERY, SearchType.GRAPH_SUMMARY_COMPLETION, response_model=Answer),
        )


# --- projection ---------------------------------------------------------------------------------


async def test_context_extension_adds_facts_around_the_top_entities() -> None:
    await remember_seed()
    ctx = await make_ctx()
    query = "Where was Andreas born?"
    plain = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION],
        ctx,
        options(query, SearchType.GRAPH_COMPLETION, only_context=True, top_k=1),
    )
    extended = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION],
        ctx,
        options(query, SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION, only_context=True, top_k=1),
    )
    first = _facts(plain[0])
    facts = _facts(extended[0])
    assert len(first) == 1 and facts[0] == first[0]
    assert 1 < len(facts) <= 2  # at most top_k facts were added
    top = {first[0][0], first[0][2]}
    assert all(s in top or o in top for s, _, o in facts[1:])
    assert extended[0].raw["extended_from"]


async def test_internal_nodes_never_reach_the_context() -> None:
    await remember_seed()
    engine = get_engine()
    ctx = await make_ctx()
    (dataset,) = ctx.datasets
    andreas = next(
        n
        for n in await engine.store.list_nodes([dataset.id], type=NodeType.ENTITY)
        if n.name == "Andreas"
    )
    data = DataRecord(
        id=stable_id("internal-test"),
        dataset_id=dataset.id,
        name="internal",
        content_hash="internal-test",
        mime_type="text/plain",
        created_at=utcnow(),
    )
    secret = Node(
        id=stable_id("secret"),
        dataset_id=dataset.id,
        type=NodeType.ENTITY,
        name="Andreas secret ledger",
        properties={"internal": True},
    )
    vector = (await engine.embedder.embed([secret.name]))[0]
    await engine.store.write_document(
        DocumentWrite(
            data=data,
            nodes=[secret],
            edges=[
                Edge(
                    id=stable_id("secret-edge"),
                    dataset_id=dataset.id,
                    source_id=andreas.id,
                    target_id=secret.id,
                    relation="keeps",
                )
            ],
            vectors=[VectorRow(node_id=secret.id, collection="entities", vector=vector)],
        )
    )
    for search_type in (SearchType.GRAPH_COMPLETION, SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION):
        (item,) = await ask(
            GRAPH_RETRIEVERS[search_type],
            ctx,
            options("Andreas secret ledger", search_type, only_context=True),
        )
        assert "secret" not in item.raw["context"]
        assert "Andreas —" in item.raw["context"]


async def test_entities_without_relations_come_with_their_passage() -> None:
    await engramdb.remember("We love Zanzibar and Madagascar.", dataset_name="lonely")
    ctx = await make_ctx()
    (item,) = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION],
        ctx,
        options("Zanzibar", SearchType.GRAPH_COMPLETION, only_context=True),
    )
    assert _facts(item)[0][1:] == ("contains", "Zanzibar")
    assert "—contains→ Zanzibar" in item.raw["context"]
    assert "Passages:" in item.raw["context"]


async def test_node_name_keeps_only_tagged_facts() -> None:
    await engramdb.remember(
        "Ada Lovelace wrote notes in London.", dataset_name="tags", node_set=["history"]
    )
    await engramdb.remember("Andreas was born in Venice.", dataset_name="tags")
    ctx = await make_ctx()
    for search_type in (SearchType.GRAPH_COMPLETION, SearchType.TRIPLET_COMPLETION):
        everything = await ask(
            GRAPH_RETRIEVERS[search_type],
            ctx,
            options("Who was where?", search_type, only_context=True),
        )
        assert {"Ada Lovelace", "Andreas"} <= {s for s, _, _ in _facts(everything[0])}
        (tagged,) = await ask(
            GRAPH_RETRIEVERS[search_type],
            ctx,
            options("Who was where?", search_type, only_context=True, node_name=["history"]),
        )
        assert {s for s, _, _ in _facts(tagged)} == {"Ada Lovelace"}
        assert "Venice" not in tagged.text


async def test_wide_search_top_k_bounds_candidates_and_reads_stay_small() -> None:
    texts = [f"Person{i} Smith moved to City{i} in Norway." for i in range(40)]
    await engramdb.remember(texts, dataset_name="many", self_improvement=False)
    store = await counting_store()
    try:
        ctx = await make_ctx(store=store)
        total_nodes = await store.count_nodes(ctx.dataset_ids)
        (item,) = await ask(
            GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION],
            ctx,
            options(
                "Where did Person7 Smith move?",
                SearchType.GRAPH_COMPLETION,
                only_context=True,
                wide_search_top_k=2,
                top_k=50,
            ),
        )
        reads = store.reads
        assert reads.vector_top_k == [2, 2, 2]  # three collections, each bounded
        assert "list_nodes" not in reads.calls and "list_edges" not in reads.calls
        assert "neighbourhood" not in reads.calls  # no walk follows a whole fan-out
        # + the graph walk's two bounded incident_edges reads and one get_nodes (graph_rank)
        # the chunks' entities, the facts among them (per entity: no hub here, so no pair
        # probe), the unreached entity hits' three reads, the walk's chunks of entities
        assert reads.calls["incident_edges"] <= 6 and "edges_between" not in reads.calls
        # summaries, two projections, passages; + the global context overview (issue 5: the
        # dataset root and the cited documents' buckets, read by id); + the walk's entities
        assert reads.calls.get("get_nodes", 0) <= 6
        seeds = 2 * 3
        assert reads.nodes <= NODES_PER_SEED * seeds + 2 + seeds
        assert reads.nodes < total_nodes / 4  # nowhere near the whole graph
        # only the candidates' neighbourhood is projected: few triplets despite top_k=50
        assert 0 < len(item.raw["triplets"]) <= 12
        assert ("Person7 Smith", "move_to", "City7") in _facts(item)
    finally:
        await store.close()


async def test_penalty_ranks_triplets_with_unmatched_elements_last() -> None:
    await remember_seed()
    ctx = await make_ctx()
    search = TripletSearch(ctx, wide_top_k=1, penalty=3.5)
    (vector,) = await search.embed(["Andreas"])
    view = await search.search(vector)
    triplets = search.triplets(view)
    assert triplets, "the entity hit must project onto its relations"
    for t in triplets:
        assert 3.5 in t.element_distances  # one hit per collection: some element is unmatched
        assert t.distance == pytest.approx(sum(t.element_distances) / 3)
    assert all(a.score <= b.score for a, b in itertools.pairwise(triplets))


# --- with the scripted LLM server ---------------------------------------------------------------


async def test_graph_completion_answers_with_references(llm_server: OpenAIServer) -> None:
    await remember_seed()
    use_llm(llm_server)
    ctx = await make_ctx(with_llm=True)
    (item,) = await ask(
        GraphCompletionRetriever(),
        ctx,
        options(SEED_QUERY, SearchType.GRAPH_COMPLETION, include_references=True),
    )
    assert item.kind == "answer" and item.text.startswith(llm_server.chat_text)
    assert "\n\nEvidence:\n- chunk 0 of document text_" in item.text
    assert '"' not in item.text.split("Evidence:")[1]  # graph bullets carry no snippet
    evidence = item.metadata["evidence"]
    kinds = [e["kind"] for e in evidence]
    assert kinds == sorted(kinds, key=["graph_node", "graph_edge", "segment"].index)
    assert [e["rank"] for e in evidence] == list(range(len(evidence)))
    assert all(e["score"] is None for e in evidence)
    segments = [e for e in evidence if e["kind"] == "segment"]
    assert segments and all(e["role"] == "supports_assertion" for e in segments)
    assert all({"data_id", "chunk_id", "chunk_index", "document_name"} <= set(e) for e in segments)
    (request,) = llm_server.requests_to("chat/completions")
    assert "Andreas —born_in→ Venice" in user_text(request)

    (plain,) = await ask(
        GraphCompletionRetriever(), ctx, options(SEED_QUERY, SearchType.GRAPH_COMPLETION)
    )
    assert plain.metadata == {} and "Evidence:" not in plain.text


async def test_a_shown_passage_asserting_no_fact_is_cited_as_context(
    llm_server: OpenAIServer,
) -> None:
    await remember_seed()
    # no names, so no entity and no fact: this chunk can only arrive as a passage
    await engramdb.remember(
        "the harbour was quiet and the ferries ran late all week.",
        dataset_name="importance_demo",
        self_improvement=False,
    )
    use_llm(llm_server)
    ctx = await make_ctx(with_llm=True)
    (item,) = await ask(
        GraphCompletionRetriever(),
        ctx,
        options("Did the ferries run late?", SearchType.GRAPH_COMPLETION, include_references=True),
    )
    (request,) = llm_server.requests_to("chat/completions")
    assert "the ferries ran late" in user_text(request)
    segments = [e for e in item.metadata["evidence"] if e["kind"] == "segment"]
    roles = {e["role"] for e in segments}
    assert roles == {"supports_assertion", "used_as_context"}
    context_only = [e for e in segments if e["role"] == "used_as_context"]
    asserting = [e for e in segments if e["role"] == "supports_assertion"]
    assert max(e["rank"] for e in asserting) < min(e["rank"] for e in context_only)
    assert len({e["chunk_id"] for e in segments}) == len(segments)


async def test_triplet_completion_cites_chunks_but_leaves_metadata_empty(
    llm_server: OpenAIServer,
) -> None:
    await remember_seed()
    use_llm(llm_server)
    ctx = await make_ctx(with_llm=True)
    (item,) = await ask(
        GRAPH_RETRIEVERS[SearchType.TRIPLET_COMPLETION],
        ctx,
        options(SEED_QUERY, SearchType.TRIPLET_COMPLETION, include_references=True),
    )
    assert "Evidence:\n- chunk 0 of document" in item.text
    assert item.metadata == {}


async def test_response_model_gives_structured_output(llm_server: OpenAIServer) -> None:
    class Cities(BaseModel):
        person: str
        cities: list[str]

    await remember_seed()
    use_llm(llm_server)
    llm_server.enqueue(
        "chat/completions", chat_reply({"person": "Andreas", "cities": ["Venice", "Lisbon"]})
    )
    ctx = await make_ctx(with_llm=True)
    (item,) = await ask(
        GraphCompletionRetriever(),
        ctx,
        options(SEED_QUERY, SearchType.GRAPH_COMPLETION, response_model=Cities),
    )
    assert item.structured == {"person": "Andreas", "cities": ["Venice", "Lisbon"]}


async def test_decomposition_asks_for_sub_questions_and_retrieves_each(
    llm_server: OpenAIServer,
) -> None:
    await remember_seed()
    use_llm(llm_server)
    subs = ["Where was Andreas born?", "Where did Alice move?"]

    def answer(request: RecordedRequest) -> Reply:
        if system_text(request).startswith("Split the user's question"):
            return chat_reply({"questions": subs})
        return chat_reply("Venice and Paris.")

    llm_server.set_default("chat/completions", answer)
    ctx = await make_ctx(with_llm=True)
    search_type = SearchType.GRAPH_COMPLETION_DECOMPOSITION
    (item,) = await ask(
        GRAPH_RETRIEVERS[search_type],
        ctx,
        options("Where was Andreas born, and where did Alice move?", search_type),
    )
    decompose, final = llm_server.requests_to("chat/completions")
    assert "Where was Andreas born, and where did Alice move?" in user_text(decompose)
    assert item.text == "Venice and Paris."
    prompt = user_text(final)
    assert "Sub-questions:\n- Where was Andreas born?\n- Where did Alice move?" in prompt
    assert "Andreas —born_in→ Venice" in prompt and "Alice —move_to→ Paris" in prompt
    assert item.raw["sub_questions"] == subs


async def test_decomposition_without_llm_uses_the_question() -> None:
    await remember_seed()
    ctx = await make_ctx()
    search_type = SearchType.GRAPH_COMPLETION_DECOMPOSITION
    (item,) = await ask(
        GRAPH_RETRIEVERS[search_type], ctx, options(SEED_QUERY, search_type, only_context=True)
    )
    assert "Sub-questions:" not in item.text and item.raw["sub_questions"] == []


async def test_cot_follows_up_once_then_answers(llm_server: OpenAIServer) -> None:
    await remember_seed()
    use_llm(llm_server)
    check = {"reasoning": "Only one city", "sufficient": False, "follow_up_question": "Bob?"}
    llm_server.enqueue("chat/completions", chat_reply(check), chat_reply("Venice, Lisbon."))
    ctx = await make_ctx(with_llm=True)
    search_type = SearchType.GRAPH_COMPLETION_COT
    (item,) = await ask(
        GRAPH_RETRIEVERS[search_type], ctx, options(SEED_QUERY, search_type, top_k=2)
    )
    requests = llm_server.requests_to("chat/completions")
    assert len(requests) == 2
    assert item.text == "Venice, Lisbon."
    assert item.raw["follow_up_questions"] == ["Bob?"]
    assert "Bob —live_in→ New York" in user_text(requests[1])

    llm_server.reset()
    (prompt,) = await ask(
        GRAPH_RETRIEVERS[search_type],
        ctx,
        options(SEED_QUERY, search_type, top_k=2, only_context=True),
    )
    assert llm_server.requests_to("chat/completions") == []
    assert prompt.system_prompt == DEFAULT_SYSTEM_PROMPTS[search_type]


def test_every_graph_type_has_a_retriever() -> None:
    assert set(GRAPH_RETRIEVERS) == {
        SearchType.GRAPH_COMPLETION,
        SearchType.GRAPH_COMPLETION_COT,
        SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION,
        SearchType.GRAPH_COMPLETION_DECOMPOSITION,
        SearchType.GRAPH_SUMMARY_COMPLETION,
        SearchType.TRIPLET_COMPLETION,
    }
    for search_type, retriever in GRAPH_RETRIEVERS.items():
        assert search_type in retriever.search_types


# --- projection reads -----------------------------------------------------------------------


async def test_every_fact_of_a_hub_entity_with_its_chunk_neighbours_is_found() -> None:
    # Alice has more facts than are read per entity; each of them is asserted in a chunk that
    # names both ends, so each must reach the triplets (the hub's pairs are probed one by one).
    cities = [f"Town{i}" for i in range(FACTS_PER_ENTITY + 8)]
    await engramdb.remember(
        [f"Alice moved to {c}." for c in cities], dataset_name="hub", self_improvement=False
    )
    ctx = await make_ctx()
    (item,) = await ask(
        GRAPH_RETRIEVERS[SearchType.GRAPH_COMPLETION],
        ctx,
        options("Where did Alice move?", SearchType.GRAPH_COMPLETION, only_context=True, top_k=50),
    )
    moves = {t for s, r, t in _facts(item) if s == "Alice" and r == "move_to"}
    assert moves == set(cities)


async def test_a_summary_hit_lends_its_distance_to_its_chunk_with_or_without_node_name() -> None:
    # Several sentences each: a summary (at most two sentences) is not its chunk's text.
    tail = " The guide wrote it down. Later that year a second edition was printed. The end."
    docs = [
        "Zebras graze on the open savanna at dawn. Herds move slowly toward the river." + tail,
        "Glaciers carve valleys over many centuries. Meltwater feeds the alpine lakes." + tail,
        "Harbour cranes unload containers at night. Trucks leave before the morning rush." + tail,
    ]
    await engramdb.remember(docs, dataset_name="sums", node_set=["nature"])
    ctx = await make_ctx()
    store = get_engine().store
    summaries = await store.list_nodes(ctx.dataset_ids, type=NodeType.SUMMARY)
    summary = next(s for s in summaries if "Glaciers" in s.text)
    chunk_id = UUID(summary.properties["chunk_id"])
    for node_name in ([], ["nature"]):
        opts = options(summary.text, SearchType.GRAPH_COMPLETION, node_name=node_name)
        search = TripletSearch.for_options(ctx, opts)
        (vector,) = await search.embed([summary.text])
        own = {
            h.node_id: h.score
            for h in await store.vector_search("chunks", vector, ctx.dataset_ids, 10)
        }
        lent = {
            h.node_id: h.score
            for h in await store.vector_search("summaries", vector, ctx.dataset_ids, 10)
        }
        assert lent[summary.id] < own[chunk_id]  # the summary is the closer hit
        view = await search.search(vector, summary.text)
        assert view.distance[chunk_id] == pytest.approx(lent[summary.id])
