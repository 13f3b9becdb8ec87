"""remember() builds a knowledge graph: offline, and through an OpenAI-compatible LLM."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.models.records import NodeType, RunStatus
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

SEED = [
    (
        "Diana and Tom were born and raised in Helsinki. Diana currently resides in Berlin, "
        "while Tom never moved.",
        0.5,
    ),
    ("Alice moved to Paris in 2010, while Bob has always lived in New York.", 0.7),
    ("Andreas was born in Venice, but later settled in Lisbon.", 0.3),
]


async def _remember_seed() -> None:
    for text, weight in SEED:
        await engramdb.remember(
            text, dataset_name="importance_demo", importance_weight=weight, self_improvement=False
        )


async def test_offline_graph_has_the_seed_entities_and_relations() -> None:
    await _remember_seed()
    graph = await engramdb.get_graph(["importance_demo"])
    for name, type_ in [("Andreas", "PERSON"), ("Venice", "PLACE"), ("Lisbon", "PLACE")]:
        node = graph.node_named(name, NodeType.ENTITY)
        assert node is not None, f"{name} was not extracted"
        assert node.properties["entity_type"] == type_
    names = {n.id: n.name for n in graph.nodes}
    relations = {(names[e.source_id], e.relation, names[e.target_id]) for e in graph.edges}
    andreas = {(r, t) for s, r, t in relations if s == "Andreas"}
    assert {t for _, t in andreas} >= {"Venice", "Lisbon"}
    assert len(graph.nodes_of_type(NodeType.SUMMARY)) == 3


async def test_weights_propagate_exactly_as_the_seed_says() -> None:
    await _remember_seed()
    graph = await engramdb.get_graph(["importance_demo"])
    by_doc_weight = {w: t for t, w in SEED}
    for doc in graph.nodes_of_type(NodeType.DOCUMENT):
        text_weight = doc.importance_weight
        assert text_weight in by_doc_weight
    # every chunk, summary and entity carries the weight of the document it came from
    chunk_weight = {c.id: c.importance_weight for c in graph.nodes_of_type(NodeType.CHUNK)}
    for summary in graph.nodes_of_type(NodeType.SUMMARY):
        assert summary.importance_weight == chunk_weight[_uuid(summary.properties["chunk_id"])]
    expected = {"Andreas": 0.3, "Venice": 0.3, "Lisbon": 0.3, "Alice": 0.7, "Paris": 0.7}
    expected |= {"Diana": 0.5, "Helsinki": 0.5, "Berlin": 0.5}
    for name, weight in expected.items():
        node = graph.node_named(name, NodeType.ENTITY)
        assert node is not None and node.importance_weight == weight, name
    # shared EntityType nodes hold the weight of the last ingest that touched them
    types = {n.name: n.importance_weight for n in graph.nodes_of_type(NodeType.ENTITY_TYPE)}
    assert types["person"] == 0.3 and types["place"] == 0.3
    assert types["date"] == 0.7  # only the 0.7 document mentions a date (2010)


def _uuid(value: str) -> Any:
    import uuid

    return uuid.UUID(value)


async def test_one_entity_node_per_name_across_documents_and_forget_keeps_shared() -> None:
    first = await engramdb.remember("Marie Curie worked in Paris.", dataset_name="people")
    second = await engramdb.remember("Pierre Curie taught in Paris.", dataset_name="people")
    graph = await engramdb.get_graph(["people"])
    paris = [n for n in graph.nodes_of_type(NodeType.ENTITY) if n.name == "Paris"]
    assert len(paris) == 1
    assert set(paris[0].data_ids) == {first.data_ids[0], second.data_ids[0]}

    await engramdb.forget(data_id=first.data_ids[0])
    graph = await engramdb.get_graph(["people"])
    assert graph.node_named("Paris", NodeType.ENTITY) is not None  # still supported
    assert graph.node_named("Marie Curie", NodeType.ENTITY) is None  # only the first had it
    assert graph.node_named("Pierre Curie", NodeType.ENTITY) is not None
    assert (await get_engine().store.check_integrity()).ok

    await engramdb.forget(data_id=second.data_ids[0])
    graph = await engramdb.get_graph(["people"])
    assert graph.nodes_of_type(NodeType.ENTITY) == []
    assert graph.nodes_of_type(NodeType.ENTITY_TYPE) == []


async def test_node_set_tags_everything_created() -> None:
    await engramdb.remember(
        "Ada Lovelace wrote notes in London.", dataset_name="tags", node_set=["history"]
    )
    await engramdb.remember("Charles Babbage lived in London.", dataset_name="tags")
    graph = await engramdb.get_graph(["tags"])
    ada = graph.node_named("Ada Lovelace", NodeType.ENTITY)
    assert ada is not None and ada.properties["node_set"] == ["history"]
    london = graph.node_named("London", NodeType.ENTITY)
    assert london is not None and london.properties["node_set"] == ["history"]  # merged, kept
    for node in graph.nodes:
        if node.type in (NodeType.CHUNK, NodeType.SUMMARY) and "Ada" in node.text:
            assert node.properties["node_set"] == ["history"]


async def test_summaries_search() -> None:
    await _remember_seed()
    found = await engramdb.recall("Andreas Venice Lisbon", engramdb.SearchType.SUMMARIES)
    assert found and found[0].kind == "summary"
    assert "Andreas" in found[0].text
    assert isinstance(found[0].score, float)
    assert found[0].metadata["document_name"].startswith("text_")


# --- the LLM path, through the real client against a local OpenAI-protocol server -------------

_CHUNK = re.compile(r'<chunk id="(\d+)">\n(.*?)\n</chunk>', re.S)


def _scripted_extraction(server: OpenAIServer) -> Callable[[RecordedRequest], Reply]:
    """A rule-based stand-in for a model: capitalised words become entities, the first two are
    related, the first sentence is the summary."""
    return lambda request: Reply.json(server.chat_document(_extraction_answer(request)))


def _extraction_answer(request: RecordedRequest) -> str:
    user = request.json["messages"][-1]["content"]
    items = []
    for chunk_id, text in _CHUNK.findall(user):
        names = list(dict.fromkeys(re.findall(r"\b[A-Z][a-z]+\b", text)))
        entities = [{"name": n, "type": "CONCEPT", "description": ""} for n in names]
        relations = (
            [{"source": names[0], "relation": "related to", "target": names[1]}]
            if len(names) > 1
            else []
        )
        items.append(
            {
                "id": int(chunk_id),
                "summary": "LLM summary: " + text.split(".")[0] + ".",
                "entities": entities,
                "relations": relations,
            }
        )
    return json.dumps({"chunks": items})


def _use_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 1)
    engramdb.config.set("llm_timeout", 5)


async def test_llm_extraction_batches_chunks_and_reports_usage(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server)
    openai_server.set_default("chat/completions", _scripted_extraction(openai_server))
    texts = [f"Paragraph {i} says Alpha{i} met Beta{i} in Gamma." for i in range(12)]
    result = await engramdb.remember(texts, dataset_name="llm", self_improvement=False)
    calls = len(openai_server.requests_to("chat/completions"))
    assert result.counts["documents"] == 12 and result.counts["chunks"] == 12
    assert result.counts["llm_calls"] == calls
    assert 3 * calls <= 2 * 12  # at most a third of the reference's two calls per chunk
    assert result.counts["extraction_fallbacks"] == 0
    graph = await engramdb.get_graph(["llm"])
    summaries = graph.nodes_of_type(NodeType.SUMMARY)
    assert len(summaries) == 12 and all(s.text.startswith("LLM summary") for s in summaries)
    assert graph.node_named("Gamma", NodeType.ENTITY) is not None
    assert (await get_engine().store.check_integrity()).ok


async def test_garbled_llm_answer_falls_back_to_offline_and_is_counted(
    openai_server: OpenAIServer,
) -> None:
    _use_llm(openai_server)
    garbled = Reply.json(openai_server.chat_document("not json {"))
    openai_server.set_default("chat/completions", lambda r: garbled)
    result = await engramdb.remember(
        "Andreas was born in Venice, but later settled in Lisbon.", dataset_name="garbled"
    )
    assert result.counts["documents"] == 1
    assert result.counts["extraction_fallbacks"] == 1
    graph = await engramdb.get_graph(["garbled"])
    assert graph.node_named("Lisbon", NodeType.ENTITY) is not None  # from the offline extractor


@pytest.mark.parametrize(
    ("reply", "error", "recorded"),
    [
        (
            Reply.error(402, "insufficient credit"),
            engramdb.LLMPaymentRequiredError,
            "LLMPaymentRequiredError",
        ),
        # recall.md: the run keeps the provider's class ("AuthenticationError")
        (Reply.error(401, "bad key"), engramdb.LLMProviderError, "AuthenticationError"),
    ],
)
async def test_llm_failure_records_errored_run_and_writes_nothing(
    openai_server: OpenAIServer, reply: Reply, error: type[Exception], recorded: str
) -> None:
    _use_llm(openai_server)
    openai_server.set_default("chat/completions", lambda r: reply)
    with pytest.raises(error):
        await engramdb.remember("Grace Hopper served in the Navy.", dataset_name="broke")
    store = get_engine().store
    owner = await store.get_or_create_default_user()
    dataset = await store.find_dataset(owner.id, "broke")
    assert dataset is not None
    assert await store.list_data(dataset.id) == []
    runs = await store.list_runs([dataset.id])
    assert runs[0].status is RunStatus.ERRORED and runs[0].error_class == recorded

    openai_server.set_default(
        "chat/completions", _scripted_extraction(openai_server)
    )  # the user fixed it
    result = await engramdb.remember("Grace Hopper served in the Navy.", dataset_name="broke")
    assert result.counts["documents"] == 1


async def test_llm_unreachable_is_a_clear_error(unused_tcp_port: int) -> None:
    engramdb.config.set("llm_endpoint", f"http://127.0.0.1:{unused_tcp_port}/v1")
    engramdb.config.set("llm_max_retries", 0)
    with pytest.raises(engramdb.LLMProviderError):
        await engramdb.remember("Grace Hopper served in the Navy.", dataset_name="offline")
