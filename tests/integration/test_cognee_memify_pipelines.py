"""cognee's memify pipelines (``cognee.memify_pipelines.*``) as cognee's example programs call
them: the session ones run one improve stage alone; the consolidation ones merge duplicate
entities and rewrite entity descriptions."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engramdb
from engramdb import SearchType
from engramdb.compat.cognee.memify_pipelines import (
    apply_feedback_weights_pipeline,
    consolidate_entities_pipeline,
    consolidate_entity_descriptions_pipeline,
    persist_sessions_in_knowledge_graph_pipeline,
)
from engramdb.compat.cognee.modules.users.methods import get_default_user
from engramdb.engine import get_engine
from engramdb.errors import EngramValidationError
from engramdb.settings import IMPROVE_STAGES
from tests.support.openai_server import OpenAIServer, Reply

FACTS = "Ada Lovelace wrote the first program for the Analytical Engine."


async def _rated_turn(session: str, score: int) -> None:
    await engramdb.recall("Who wrote the first program?", session_id=session)
    (qa,) = await engramdb.session.get_session(session)
    await engramdb.session.add_feedback(session, qa.qa_id, feedback_score=score)


async def test_apply_feedback_weights_runs_that_stage_alone() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await _rated_turn("chat", 5)
    user = await get_default_user()
    (record,) = await get_engine().store.list_qa_entries(user.id, session_ids=["chat"])

    result = await apply_feedback_weights_pipeline(user=user, session_ids=["chat"], alpha=0.9)

    reasons = {s.stage: (s.status, s.reason) for s in result.stages}
    assert reasons["feedback_weights"] == ("completed", None)
    for name in IMPROVE_STAGES:
        if name != "feedback_weights":
            assert reasons[name] == ("skipped", "not_requested")
    nodes = await get_engine().store.get_nodes(record.used_node_ids)
    assert nodes and all(n.feedback_weight == pytest.approx(0.95) for n in nodes)  # 0.5+0.9*0.5
    # the session was not turned into a document
    found = await engramdb.search("first program", query_type=SearchType.CHUNKS, top_k=10)
    assert [hit["text"] for hit in found] == [FACTS]


async def test_persist_sessions_makes_the_session_searchable() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.recall("Who wrote the first program?", session_id="talk")
    user = await get_default_user()

    nothing = await persist_sessions_in_knowledge_graph_pipeline(user=user)  # cognee: None = none
    assert nothing.stage("persist_session_qa").reason == "no_session_ids"  # type: ignore[union-attr]

    result = await persist_sessions_in_knowledge_graph_pipeline(user=user, session_ids=["talk"])
    assert result.stage("persist_session_qa").status == "completed"  # type: ignore[union-attr]
    assert result.stage("feedback_weights").reason == "not_requested"  # type: ignore[union-attr]
    found = await engramdb.search(
        "Who wrote the first program?", query_type=SearchType.CHUNKS, top_k=10
    )
    assert any("Who wrote the first program?" in hit["text"] for hit in found)


FIRST = "Sara visited NewYork last spring with Bob."
SECOND = "Bob visited New-York for the best bagels. Sara agrees with Bob."


def _entities(graph: engramdb.GraphSnapshot) -> dict[str, Any]:
    return {n.name: n for n in graph.nodes if n.type == "Entity"}


async def test_consolidate_entities_merges_duplicates_and_forget_still_deletes_exactly() -> None:
    """cognee's entity_deduplication: "NewYork" (first text) and "New-York" (second text) are
    one place (ingestion keeps them apart: they differ by more than case and dots); the dry
    run only plans, the merge keeps one node supported by both texts, and each forget deletes
    only what that text alone supported."""
    first = await engramdb.remember(FIRST, self_improvement=False)
    second = await engramdb.remember(SECOND, self_improvement=False)
    before = _entities(await engramdb.get_graph())
    assert {"NewYork", "New-York"} <= before.keys()

    plan = await consolidate_entities_pipeline(similarity_threshold=0.99, dry_run=True)
    [cluster] = plan.clusters
    assert {cluster.survivor.name, *(m.name for m in cluster.merged_from)} == {
        "NewYork",
        "New-York",
    }
    assert _entities(await engramdb.get_graph()).keys() == before.keys()

    done = await consolidate_entities_pipeline(similarity_threshold=0.99)

    assert done.entities_merged == 1
    graph = await engramdb.get_graph()
    after = _entities(graph)
    survivor, gone = cluster.survivor.name, cluster.merged_from[0].name
    assert gone not in after and survivor in after
    merged = after[survivor]
    assert set(merged.data_ids) == {*first.data_ids, *second.data_ids}
    assert merged.properties["aliases"] == [gone]
    assert merged.importance_weight == before[survivor].importance_weight
    chunks = {e.source_id for e in graph.edges if e.target_id == merged.id}
    assert len(chunks & {n.id for n in graph.nodes if n.type == "Chunk"}) == 2
    hits = await engramdb.recall(gone, query_type=SearchType.CHUNKS, top_k=5)
    assert any("bagels" in str(hit) for hit in hits)

    await engramdb.forget(data_id=first.data_ids[0])
    remaining = _entities(await engramdb.get_graph())
    assert remaining[survivor].data_ids == second.data_ids
    await engramdb.forget(data_id=second.data_ids[0])
    assert _entities(await engramdb.get_graph()) == {}


async def test_consolidate_entities_checks_its_options_as_cognee_does() -> None:
    for bad in ({"similarity_threshold": 0}, {"top_k": 0}, {"protect_node_types": [""]}):
        with pytest.raises(EngramValidationError):
            await consolidate_entities_pipeline(**bad)  # type: ignore[arg-type]
    with pytest.raises(EngramValidationError, match="no write access to dataset: nowhere"):
        await consolidate_entities_pipeline(dataset="nowhere")


async def test_consolidate_entities_leaves_protected_types_alone() -> None:
    await engramdb.remember(FIRST, self_improvement=False)
    await engramdb.remember(SECOND, self_improvement=False)
    result = await consolidate_entities_pipeline(
        similarity_threshold=0.99, protect_node_types=["place"]
    )
    assert result.clusters == [] and result.entities_merged == 0
    assert {"NewYork", "New-York"} <= _entities(await engramdb.get_graph()).keys()


async def test_consolidate_entity_descriptions_offline_adds_the_relations() -> None:
    await engramdb.remember(
        "Alice moved to Paris in 2010, while Bob has always lived in New York.",
        self_improvement=False,
    )
    before = _entities(await engramdb.get_graph())

    result = await consolidate_entity_descriptions_pipeline()

    assert result.method == "offline" and result.rewritten >= 1
    after = _entities(await engramdb.get_graph())
    changed = [n for n in after if after[n].text != before[n].text]
    assert "Alice" in changed
    assert "Paris" in after["Alice"].properties["description"]
    assert after["Alice"].text.startswith("Alice: ")
    again = await consolidate_entity_descriptions_pipeline()
    assert again.rewritten == 0  # nothing new to add: the rewrite is not repeated


async def test_consolidate_entity_descriptions_asks_the_llm(
    openai_server: OpenAIServer,
) -> None:
    """With an LLM configured, each entity's description is the model's rewording of its
    neighbourhood (the prompt holds its description and what it is connected to)."""
    await engramdb.remember("Ada Lovelace wrote programs in London.", self_improvement=False)
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    entities = _entities(await engramdb.get_graph())
    answer = json.dumps({"description": "A consolidated description."})
    for _ in entities:
        openai_server.enqueue("chat/completions", Reply.json(openai_server.chat_document(answer)))

    result = await consolidate_entity_descriptions_pipeline()

    assert (result.method, result.rewritten) == ("llm", len(entities))
    prompts = [str(r.json["messages"][-1]["content"]) for r in openai_server.requests]
    ada = next(p for p in prompts if p.startswith("Entity: Ada Lovelace"))
    assert "- is_a: person" in ada and "- program_in: London" in ada
    after = _entities(await engramdb.get_graph())
    assert after["Ada Lovelace"].text == "Ada Lovelace: A consolidated description."
    assert after["Ada Lovelace"].properties["description"] == "A consolidated description."
