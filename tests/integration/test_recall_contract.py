"""recall()'s contract around retrieval: warm-up markers, routing, graph-only options."""

from __future__ import annotations

import json

import pytest

import engramdb
from engramdb.engine import get_engine
from tests.support.openai_server import OpenAIServer, Reply


@pytest.fixture(autouse=True)
def _fresh_warmup_cache() -> None:
    get_engine().warmup_cache.forget()


async def _empty_dataset(name: str) -> None:
    """A dataset that exists but was never ingested into (as a dataset-create API makes)."""
    engine = get_engine()
    owner = await engine.resolve_user(None)
    await engine.store.get_or_create_dataset(owner.id, name)


async def test_never_built_dataset_gets_a_warming_up_marker() -> None:
    await engramdb.remember("Cognee-like memory is stored in one file.", dataset_name="docs")
    await _empty_dataset("analytics")
    results = await engramdb.recall("What does Cognee do?", datasets=["analytics"])
    assert len(results) == 1
    marker = results[0]
    assert marker.source == "system"
    assert marker.status == "memory_warming_up"
    assert marker.text == (
        "Memory is still warming up: no knowledge graph data exists yet for the requested datasets."
    )
    assert marker.datapoint_count == 0 and marker.threshold == 1


async def test_marker_rules_only_context_multi_source_and_switch() -> None:
    await engramdb.remember("A fact.", dataset_name="docs")
    await _empty_dataset("analytics")
    # only_context bypasses the check and runs normal retrieval (nothing there)
    assert await engramdb.recall("x", datasets=["analytics"], only_context=True) == []
    # a cold graph in a multi-source recall contributes nothing instead of a marker
    assert await engramdb.recall("x", datasets=["analytics"], scope=["graph", "session"]) == []
    engramdb.config.set("recall_warmup_shortcircuit", False)
    assert await engramdb.recall("x", datasets=["analytics"]) == []


async def test_warm_dataset_searches_normally() -> None:
    await engramdb.remember("Owls hunt at night.", dataset_name="birds")
    results = await engramdb.recall("owls", datasets=["birds"])
    assert results and results[0].source == "graph"


def _use_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)


async def test_failed_first_build_gets_build_failed_then_clears(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server)
    openai_server.set_default("chat/completions", lambda r: Reply.error(402, "no credit left"))
    with pytest.raises(engramdb.LLMPaymentRequiredError):
        await engramdb.remember("Grace Hopper served in the Navy.", dataset_name="navy")
    results = await engramdb.recall("Who served?", datasets=["navy"])
    assert [r.source for r in results] == ["system"]
    marker = results[0]
    assert marker.status == "build_failed"
    assert marker.error_class == "LLMPaymentRequiredError"
    assert marker.text.startswith("Memory build failed: the last ingestion")
    assert "Fix the cause and re-run remember()" in marker.text

    # the cause is fixed: the next successful build clears the marker at once
    engramdb.config.set("llm_endpoint", "")
    engramdb.config.set("llm_api_key", "")
    await engramdb.remember("Grace Hopper served in the Navy.", dataset_name="navy")
    results = await engramdb.recall("Grace Hopper Navy", datasets=["navy"])
    assert results and results[0].source == "graph"


async def test_graph_only_options_are_rejected_on_hybrid(openai_server: OpenAIServer) -> None:
    await engramdb.remember("A fact.")
    _use_llm(openai_server)
    with pytest.raises(engramdb.InvalidHybridSearchConfig) as info:
        await engramdb.recall("an ordinary question", wide_search_top_k=50)
    assert info.value.status_code == 422
    with pytest.raises(engramdb.InvalidHybridSearchConfig):
        await engramdb.recall("q", auto_route=False, triplet_distance_penalty=2.0)


async def test_fully_quoted_query_routes_to_lexical_with_an_llm(
    openai_server: OpenAIServer,
) -> None:
    await engramdb.remember("The zeppelin hangar is in Friedrichshafen.")
    _use_llm(openai_server)
    results = await engramdb.recall('"zeppelin hangar"')
    assert results and results[0].search_type == "CHUNKS_LEXICAL"
    assert "Friedrichshafen" in results[0].text


async def test_without_an_llm_routing_falls_to_chunks_even_for_quotes() -> None:
    await engramdb.remember("The zeppelin hangar is in Friedrichshafen.")
    results = await engramdb.recall('"zeppelin hangar"', auto_route=False)
    assert results and results[0].search_type == "CHUNKS"


async def test_skill_gate_appends_matching_skills_without_the_procedure() -> None:
    await engramdb.remember("The service runs on port 8080.", dataset_name="ops")
    await engramdb.remember_skill(
        "deploy-service",
        "Deploy the web service to production",
        "1. run make release\n2. SECRET-STEP push the image",
        dataset_name="ops",
    )
    results = await engramdb.recall("How do I deploy the web service?", datasets=["ops"])
    sources = [r.source for r in results]
    assert sources[0] == "graph" and "skills" in sources
    skill = next(r for r in results if r.source == "skills")
    assert skill.text.startswith("deploy-service")
    assert isinstance(skill.score, float)
    assert "SECRET-STEP" not in str([r.model_dump() for r in results])
    # not a procedural question, or more than one dataset: no skills lane
    plain = await engramdb.recall("What port does the service use?", datasets=["ops"])
    assert "skills" not in [r.source for r in plain]
    await engramdb.remember("Another dataset.", dataset_name="misc")
    both = await engramdb.recall("How do I deploy the web service?", datasets=["ops", "misc"])
    assert "skills" not in [r.source for r in both]
    engramdb.config.set("skill_gate_enabled", False)
    off = await engramdb.recall("How do I deploy the web service?", datasets=["ops"])
    assert "skills" not in [r.source for r in off]


async def test_cypher_through_recall_is_read_only_and_scoped() -> None:
    await engramdb.remember("Andreas was born in Venice.", dataset_name="a")
    await engramdb.remember("Beatrix was born in Vienna.", dataset_name="b")
    rows = await engramdb.recall(
        "MATCH (p:Entity)-[r]->(c:Entity) RETURN p.name AS person, type(r) AS rel, c.name AS city",
        engramdb.SearchType.CYPHER,
        datasets=["a"],
    )
    found = [r.raw for r in rows]
    assert {"person": "Andreas", "rel": "born_in", "city": "Venice"} in found
    assert all(row["person"] != "Beatrix" for row in found)
    with pytest.raises(engramdb.EngramValidationError, match="read-only"):
        await engramdb.recall("MATCH (n) DETACH DELETE n", "CYPHER", datasets=["a"])
    graph = await engramdb.get_graph(["a"])
    assert graph.node_named("Andreas") is not None  # nothing was deleted


async def test_node_name_filters_chunk_results_by_node_set() -> None:
    await engramdb.remember("Tigers hunt alone at dusk.", dataset_name="zoo", node_set=["cats"])
    await engramdb.remember("Wolves hunt in packs at dusk.", dataset_name="zoo", node_set=["dogs"])
    both = await engramdb.recall("hunt at dusk", datasets=["zoo"])
    assert len(both) == 2
    cats = await engramdb.recall("hunt at dusk", datasets=["zoo"], node_name=["cats"])
    assert [r.text for r in cats] == ["Tigers hunt alone at dusk."]
    lexical = await engramdb.recall("dusk", "CHUNKS_LEXICAL", node_name=["dogs"])
    assert [r.text for r in lexical] == ["Wolves hunt in packs at dusk."]
    none = await engramdb.recall(
        "hunt", datasets=["zoo"], node_name=["cats", "dogs"], node_name_filter_operator="AND"
    )
    assert none == []


@pytest.mark.parametrize("search_type", ["HYBRID_COMPLETION", "TEMPORAL"])
async def test_node_name_filters_the_hybrid_context(search_type: str) -> None:
    await engramdb.remember(
        "In 2019 Tigers hunted alone at dusk near the river.", dataset_name="zoo", node_set=["cats"]
    )
    await engramdb.remember(
        "In 2019 Wolves hunted in packs at dusk near the river.",
        dataset_name="zoo",
        node_set=["dogs"],
    )
    both = await engramdb.recall(
        "Who hunted at dusk in 2019?", search_type, datasets=["zoo"], only_context=True
    )
    assert "Tigers" in str(both[0]) and "Wolves" in str(both[0])
    cats = await engramdb.recall(
        "Who hunted at dusk in 2019?",
        search_type,
        datasets=["zoo"],
        node_name=["cats"],
        only_context=True,
    )
    assert "Tigers" in str(cats[0]) and "Wolves" not in str(cats[0])


async def test_malformed_response_model_is_rejected_before_anything_runs() -> None:
    await engramdb.remember("A fact.")
    with pytest.raises(engramdb.EngramValidationError, match="response_model"):
        await engramdb.recall("q", "GRAPH_COMPLETION", response_model=dict)  # type: ignore[arg-type]


async def test_graph_completion_only_context_needs_no_llm() -> None:
    await engramdb.remember(
        "Andreas was born in Venice, but later settled in Lisbon.", dataset_name="demo"
    )
    results = await engramdb.recall(
        "In which cities did Andreas live?",
        engramdb.SearchType.GRAPH_COMPLETION,
        datasets=["demo"],
        only_context=True,
    )
    assert len(results) == 1
    prompt = results[0]
    assert prompt.kind == "prompt" and prompt.system_prompt
    assert "Question: In which cities did Andreas live?" in prompt.text
    assert "Venice" in prompt.text and "Lisbon" in prompt.text
    with pytest.raises(engramdb.LLMNotConfiguredError, match="LLM_API_KEY"):
        await engramdb.recall("Where?", "GRAPH_COMPLETION", datasets=["demo"])


async def test_completion_types_answer_through_the_llm_with_references(
    openai_server: OpenAIServer,
) -> None:
    await engramdb.remember(
        "Andreas was born in Venice, but later settled in Lisbon.", dataset_name="demo"
    )
    _use_llm(openai_server)
    openai_server.chat_text = "Venice and Lisbon."
    for search_type in ("GRAPH_COMPLETION", "RAG_COMPLETION"):
        results = await engramdb.recall(
            "In which cities did Andreas live?",
            search_type,
            datasets=["demo"],
            include_references=True,
        )
        assert results[0].text.startswith("Venice and Lisbon.")
        assert "Evidence:" in results[0].text
        assert results[0].metadata["evidence"], search_type
    sent = openai_server.requests_to("chat/completions")[-1].json["messages"]
    assert "Andreas was born in Venice" in sent[-1]["content"]


async def test_ordinary_question_routes_to_hybrid_and_empty_lexical_retries(
    openai_server: OpenAIServer,
) -> None:
    await engramdb.remember("The lighthouse keeper is called Ingrid.", dataset_name="coast")
    _use_llm(openai_server)
    openai_server.chat_text = "Ingrid."
    results = await engramdb.recall("Who keeps the lighthouse?", datasets=["coast"])
    assert results[0].search_type == "HYBRID_COMPLETION" and results[0].text == "Ingrid."
    # a routed (quoted) lexical search that finds nothing is retried once as hybrid ...
    retried = await engramdb.recall('"submarine periscope"', datasets=["coast"])
    assert retried[0].search_type == "HYBRID_COMPLETION"
    # ... but a pinned type never is
    pinned = await engramdb.recall('"submarine periscope"', "CHUNKS_LEXICAL", datasets=["coast"])
    assert pinned == []


async def test_response_model_given_twice_must_be_the_same_class() -> None:
    from pydantic import BaseModel

    class Facts(BaseModel):
        cities: list[str]

    class Other(BaseModel):
        name: str

    await engramdb.remember("Andreas settled in Lisbon.")
    with pytest.raises(engramdb.EngramValidationError, match="different") as info:
        await engramdb.recall(
            "q",
            "GRAPH_COMPLETION",
            response_model=Facts,
            retriever_specific_config={"response_model": Other},
        )
    assert info.value.status_code == 422
    same = await engramdb.recall(
        "Lisbon",
        "GRAPH_COMPLETION",
        response_model=Facts,
        retriever_specific_config={"response_model": Facts},
        only_context=True,
    )
    assert same and same[0].kind == "prompt"


async def test_verbose_reports_each_results_score_breakdown() -> None:
    await engramdb.remember("Owls hunt at night.", importance_weight=0.9)
    plain = await engramdb.recall("owls", "CHUNKS")
    assert "score_breakdown" not in plain[0].raw
    verbose = await engramdb.recall("owls", "CHUNKS", verbose=True)
    breakdown = verbose[0].raw["score_breakdown"]
    assert breakdown["base_distance"] == verbose[0].score == breakdown["final"]
    assert breakdown["importance_weight"] == 0.9 and breakdown["importance_factor"] == 1.0


async def test_node_name_is_refused_where_it_would_be_ignored() -> None:
    await engramdb.remember("A fact.", node_set=["x"])
    with pytest.raises(engramdb.FeatureNotAvailableError, match="node_name"):
        await engramdb.recall("q", "CYPHER", node_name=["x"])


async def test_a_hybrid_request_with_feedback_influence_defers_to_graph_completion(
    openai_server: OpenAIServer,
) -> None:
    """recall.md, Source provenance: "A hybrid request that defers to GRAPH_COMPLETION (for
    example with neighborhood_depth or feedback_influence set) reports
    search_type="GRAPH_COMPLETION" and does carry metadata.evidence" (with include_references,
    as every metadata.evidence)."""
    await engramdb.remember("Ada Lovelace wrote the first program.", self_improvement=False)
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    question = "Who wrote the first program?"
    refs = {"include_references": True}
    (plain,) = await engramdb.recall(question, "HYBRID_COMPLETION", **refs)
    assert plain.search_type == "HYBRID_COMPLETION" and not plain.metadata
    (deferred,) = await engramdb.recall(
        question, "HYBRID_COMPLETION", feedback_influence=0.5, **refs
    )
    assert deferred.search_type == "GRAPH_COMPLETION"
    assert deferred.metadata.get("evidence")


async def test_a_refused_llm_key_is_named_by_the_providers_class(
    openai_server: OpenAIServer,
) -> None:
    """recall.md, warming-up marker: results[0].error_class is "AuthenticationError" and the
    text names it, when the first build ended in an LLM that refused the key."""
    _use_llm(openai_server)
    openai_server.set_default("chat/completions", lambda r: Reply.error(401, "bad key"))
    with pytest.raises(engramdb.LLMProviderError):
        await engramdb.remember("Grace Hopper served in the Navy.", dataset_name="navy")
    (marker,) = await engramdb.recall("Who served?", datasets=["navy"])
    assert marker.status == "build_failed" and marker.error_class == "AuthenticationError"
    assert "(AuthenticationError:" in marker.text


async def test_graph_summary_completion_ranks_summaries_by_importance() -> None:
    """Issue 13 / importance-weight.md: GRAPH_SUMMARY_COMPLETION's summaries follow the same
    importance ranking as the rest of its context (boosted first, dampened last)."""
    await engramdb.remember(
        "Ada Lovelace wrote notes about the Analytical Engine in London.",
        importance_weight=0.1,
        self_improvement=False,
    )
    await engramdb.remember(
        "Ada Lovelace wrote letters about the Analytical Engine in Paris.",
        importance_weight=0.9,
        self_improvement=False,
    )
    (context,) = await engramdb.recall(
        "What did Ada Lovelace write about the Analytical Engine?",
        "GRAPH_SUMMARY_COMPLETION",
        only_context=True,
    )
    text = str(context.text)
    assert text.index("Paris") < text.index("London")


async def test_node_name_restricts_what_the_agent_searches(openai_server: OpenAIServer) -> None:
    """recall.md lists node_name as a general option: AGENTIC_COMPLETION's tools search only the
    named node sets."""
    await engramdb.remember("Tigers hunt alone at dusk.", dataset_name="zoo", node_set=["cats"])
    await engramdb.remember("Wolves hunt in packs at dusk.", dataset_name="zoo", node_set=["dogs"])
    context = await engramdb.recall(
        "Who hunts at dusk?", "AGENTIC_COMPLETION", node_name=["cats"], only_context=True
    )
    assert [c.text for c in context] == ["Tigers hunt alone at dusk."]
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    for action in (
        {"action": "search_chunks", "query": "hunt at dusk"},
        {"action": "search_graph", "query": "hunt dusk"},
        {"action": "answer", "answer": "Tigers."},
    ):
        openai_server.enqueue(
            "chat/completions", Reply.json(openai_server.chat_document(json.dumps(action)))
        )
    (answer,) = await engramdb.recall(
        "Who hunts at dusk?", "AGENTIC_COMPLETION", node_name=["cats"]
    )
    assert answer.text == "Tigers."
    seen = json.dumps([r.json for r in openai_server.requests_to("chat/completions")])
    assert "Tigers" in seen and "Wolves" not in seen
