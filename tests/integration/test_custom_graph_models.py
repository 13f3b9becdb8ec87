"""Custom graph models through the public surface: ``DataPoint`` subclasses stored with
``add_data_points`` (cognee's example shapes), searched with the search types, weighted,
tagged and forgotten like everything else; ``cognify(graph_model=...)`` /
``remember(graph_model=...)`` extracting into the user's schema through the real LLM client
against the local OpenAI-protocol server. Re-run on PostgreSQL by tests/postgres/test_api.py."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from pydantic import SkipValidation

import engramdb
from engramdb import SearchType
from engramdb.engine import Engine, get_engine, set_engine
from engramdb.models.datapoints import DataPoint, Dedup, Edge, Embeddable
from engramdb.models.records import RunStatus
from engramdb.settings import config
from tests.integration.test_failed_runs import FlakyEmbedder
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply


class Person(DataPoint):
    name: str
    knows: SkipValidation[Any] = None
    metadata: dict = {"index_fields": ["name"]}  # noqa: RUF012 - cognee's spelling


class Activity(DataPoint):
    name: str
    metadata: dict = {"index_fields": ["name"], "identity_fields": ["name"]}  # noqa: RUF012


class Hobbyist(DataPoint):
    name: str
    likes: list[Activity] | None = None
    metadata: dict = {"index_fields": ["name"], "identity_fields": ["name"]}  # noqa: RUF012


class PeopleGraph(DataPoint):
    people: list[Hobbyist]


class Claim(DataPoint):
    text: Annotated[str, Embeddable("claim"), Dedup()]
    confidence: float = 1.0


def _people() -> list[Person]:
    alice, bob, charlie = Person(name="Alice"), Person(name="Bob"), Person(name="Charlie")
    alice.knows = bob
    bob.knows = (Edge(weight=0.9, relationship_type="friend_of"), charlie)
    return [alice, bob, charlie]


async def _graph(dataset: str = "main_dataset") -> engramdb.GraphSnapshot:
    return await engramdb.get_graph([dataset])


def _facts(graph: engramdb.GraphSnapshot) -> set[tuple[str, str, str]]:
    names = {n.id: n.name for n in graph.nodes}
    return {(names[e.source_id], e.relation, names[e.target_id]) for e in graph.edges}


async def test_data_points_become_typed_nodes_and_edges_every_search_finds() -> None:
    result = await engramdb.add_data_points(_people())
    assert result.counts["documents"] == 1 and result.counts["edges"] == 2
    graph = await _graph()
    assert sorted(n.name for n in graph.nodes_of_type("Person")) == ["Alice", "Bob", "Charlie"]
    assert _facts(graph) == {("Alice", "knows", "Bob"), ("Bob", "friend_of", "Charlie")}
    (friend,) = [e for e in graph.edges if e.relation == "friend_of"]
    assert friend.properties["weight"] == 0.9

    (hit,) = await engramdb.search("Charlie", query_type=SearchType.CHUNKS, top_k=1)
    assert hit["text"] == "Charlie" and hit["type"] == "Person"
    lexical = await engramdb.search('"Charlie"', query_type=SearchType.CHUNKS_LEXICAL)
    assert [x["text"] for x in lexical] == ["Charlie"]
    (context,) = await engramdb.search(
        "Who is Bob a friend of?", query_type=SearchType.GRAPH_COMPLETION, only_context=True
    )
    assert "Bob —friend_of→ Charlie" in context


async def test_the_same_points_again_are_skipped_and_changed_ones_update_in_place() -> None:
    people = _people()
    await engramdb.add_data_points(people)
    again = await engramdb.add_data_points(people)
    assert again.counts["skipped"] == 1 and again.counts["documents"] == 0
    people[2].name = "Charles"  # same DataPoint id, new content
    await engramdb.add_data_points(people)
    names = sorted(n.name for n in (await _graph()).nodes_of_type("Person"))
    assert names == ["Alice", "Bob", "Charles"]


async def test_identity_fields_and_markers_merge_what_names_the_same_thing() -> None:
    biking = Activity(name="biking")
    alice = Hobbyist(name="Alice", likes=[biking, Activity(name="Biking")])
    claims = [Claim(text="Owls hunt at night"), Claim(text="Owls hunt at night")]
    await engramdb.add_data_points([alice, *claims])
    graph = await _graph()
    assert [n.name for n in graph.nodes_of_type("Activity")] == ["biking"]
    assert len(graph.nodes_of_type("Claim")) == 1
    (hit,) = await engramdb.search("owls", query_type=SearchType.CHUNKS_LEXICAL)
    assert hit["text"] == "Owls hunt at night"  # indexed by the Embeddable marker


async def test_weights_and_node_sets_of_data_points() -> None:
    heavy = Person(name="Ada Lovelace", importance_weight=0.9, belongs_to_set=["pioneers"])
    light = Person(name="Ada Smith", importance_weight=0.1)
    await engramdb.add_data_points([heavy, light])
    weights = {n.name: n.importance_weight for n in (await _graph()).nodes_of_type("Person")}
    assert weights == {"Ada Lovelace": 0.9, "Ada Smith": 0.1}
    tagged = await engramdb.search("Ada", query_type=SearchType.CHUNKS, node_name=["pioneers"])
    assert [x["text"] for x in tagged] == ["Ada Lovelace"]


async def test_forget_removes_data_points_with_their_item_or_dataset() -> None:
    first = await engramdb.add_data_points(_people(), dataset_name="people")
    await engramdb.add_data_points([Person(name="Dora")], dataset_name="people")
    await engramdb.forget(data_id=first.data_ids[0])
    assert [n.name for n in (await _graph("people")).nodes_of_type("Person")] == ["Dora"]
    await engramdb.forget(dataset="people")
    assert await engramdb.search("Dora", query_type=SearchType.CHUNKS) == []


async def test_a_failed_add_writes_nothing_and_a_retry_writes_everything() -> None:
    set_engine(Engine(config.settings, embedder=FlakyEmbedder(fail_from="")))
    with pytest.raises(engramdb.EmbeddingProviderError):
        await engramdb.add_data_points(_people())
    store = get_engine().store
    owner = await store.get_or_create_default_user()
    dataset = await store.find_dataset(owner.id, "main_dataset")
    assert dataset is not None
    assert (await store.list_runs([dataset.id]))[0].status is RunStatus.ERRORED
    assert await store.list_nodes([dataset.id]) == [] and await store.list_data(dataset.id) == []
    set_engine(Engine(config.settings))
    await engramdb.add_data_points(_people())
    assert len((await _graph()).nodes_of_type("Person")) == 3


async def test_add_data_points_refuses_what_is_not_a_model() -> None:
    with pytest.raises(engramdb.EngramValidationError, match="DataPoint"):
        await engramdb.add_data_points(["Alice"])


# --- cognify(graph_model=...) -------------------------------------------------------------------

HOBBIES = "Alice likes biking and swimming. Bob likes basketball."
ANSWER = {
    "people": [
        # an answer that tries to change what is indexed is given the class's own metadata back
        {"name": "Alice", "likes": [{"name": "biking"}, {"name": "swimming"}], "metadata": {}},
        {"name": "Bob", "likes": [{"name": "basketball"}]},
    ]
}


def _schema_name(request: RecordedRequest) -> str:
    body = request.json if isinstance(request.json, dict) else {}
    return str(((body.get("response_format") or {}).get("json_schema") or {}).get("name", ""))


def _serve(server: OpenAIServer) -> None:
    def handler(request: RecordedRequest) -> Reply:
        if _schema_name(request) == "PeopleGraph":
            return Reply.json(server.chat_document(json.dumps(ANSWER)))
        return Reply.json(server.chat_document("{}"))

    server.set_default("chat/completions", handler)
    config.set("llm_endpoint", server.base_url)
    config.set("llm_api_key", "test-key")
    config.set("llm_max_retries", 0)


async def test_cognify_extracts_into_the_users_schema(openai_server: OpenAIServer) -> None:
    _serve(openai_server)
    await engramdb.add(HOBBIES)
    (built,) = (await engramdb.cognify(graph_model=PeopleGraph)).values()
    assert built.counts["documents"] == 1
    (asked,) = [r for r in openai_server.requests if _schema_name(r) == "PeopleGraph"]
    assert HOBBIES in json.dumps(asked.json)
    graph = await _graph()
    assert ("Alice", "likes", "swimming") in _facts(graph)
    assert ("Bob", "likes", "basketball") in _facts(graph)
    alice = graph.node_named("Alice", "Hobbyist")
    assert alice is not None and alice.properties["index_fields"] == ["name"]  # still indexed
    (chunk,) = graph.nodes_of_type("Chunk")
    contained = {e.target_id for e in graph.edges if e.source_id == chunk.id}
    assert {n.id for n in graph.nodes_of_type("Hobbyist")} <= contained
    (context,) = await engramdb.search(
        "What does Alice like?", query_type=SearchType.GRAPH_COMPLETION, only_context=True
    )
    assert "Alice —likes→" in context
    (hit,) = await engramdb.search("biking", query_type=SearchType.CHUNKS, top_k=1)
    assert hit["text"] == HOBBIES  # the chunk itself, as after any cognify


async def test_remember_with_a_graph_model_and_its_prompt(openai_server: OpenAIServer) -> None:
    _serve(openai_server)
    await engramdb.remember(
        HOBBIES, graph_model=PeopleGraph, custom_prompt="List every hobby.", self_improvement=False
    )
    (asked,) = [r for r in openai_server.requests if _schema_name(r) == "PeopleGraph"]
    assert "List every hobby." in json.dumps(asked.json)
    assert ("Alice", "likes", "biking") in _facts(await _graph())


async def test_a_graph_model_without_an_llm_names_the_settings() -> None:
    await engramdb.add(HOBBIES)
    with pytest.raises(engramdb.LLMNotConfiguredError, match="LLM_API_KEY") as caught:
        await engramdb.cognify(graph_model=PeopleGraph)
    assert "LLM_ENDPOINT" in str(caught.value)
    with pytest.raises(engramdb.LLMNotConfiguredError, match="LLM_ENDPOINT"):
        await engramdb.remember(HOBBIES, dataset_name="other", graph_model=PeopleGraph)
    # nothing was built: the added text is still there to build without the model
    (built,) = (await engramdb.cognify()).values()
    assert built.counts["documents"] == 1
