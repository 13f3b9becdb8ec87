"""improve()'s build_truth_subspace stage through the public API, offline: anchors from distilled
session learnings, idempotency, skip reasons, the graph-completion block and forgetting."""

from __future__ import annotations

from typing import Any

import engramdb
from engramdb.artifacts.truth import ANCHOR_TYPE, ANCHORS, OWNER
from engramdb.engine import get_engine
from engramdb.models.records import NodeType

FACTS = (
    "Ada Lovelace wrote the first program for the Analytical Engine. "
    "Charles Babbage designed the Analytical Engine in London."
)
RULE = "Always credit Ada Lovelace when the Analytical Engine comes up."


async def _dataset(name: str = "main_dataset") -> Any:
    engine = get_engine()
    owner = await engine.resolve_user(None)
    return await engine.store.find_dataset(owner.id, name)


async def _anchors(dataset: Any) -> Any:
    return await get_engine().store.list_derived(dataset.id, OWNER, node_type=ANCHOR_TYPE)


async def test_distilled_guidance_becomes_anchors_linked_to_named_entities() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_guidance("chat", RULE, section="rules")
    await engramdb.session.add_guidance("chat", "Keep answers short.", section="goals")
    await engramdb.session.add_guidance("chat", "Use metric units.", section="preferences")
    result = await engramdb.improve(
        session_ids=["chat"], build_truth_subspace=True, build_global_context_index=False
    )
    stage = result.stage("build_truth_subspace")
    assert stage is not None and stage.status == "completed", stage
    # the personal preference is never distilled, so never anchored
    assert stage.counts["anchors"] == 2

    dataset = await _dataset()
    store = get_engine().store
    graph = await _anchors(dataset)
    by_text = {n.text: n for n in graph.nodes}
    assert set(by_text) == {RULE, "Keep answers short."}
    anchor = by_text[RULE]
    (learnings,) = [d for d in await store.list_data(dataset.id) if "learnings" in d.name]
    assert anchor.properties["session_id"] == "chat"
    assert anchor.properties["section"] == "rules"
    assert anchor.properties["data_id"] == str(learnings.id)

    entities = {
        n.id: n.name for n in await store.list_nodes([dataset.id], type=NodeType.ENTITY, limit=1000)
    }
    linked = {entities[e.target_id].casefold() for e in graph.edges if e.source_id == anchor.id}
    assert all(e.relation == ANCHORS for e in graph.edges)
    assert "ada lovelace" in linked and "analytical engine" in linked
    assert "charles babbage" not in linked and "london" not in linked
    assert stage.counts["entities_linked"] == len(graph.edges) >= 2
    assert not [e for e in graph.edges if e.source_id == by_text["Keep answers short."].id]

    # a re-run anchors nothing new and changes nothing
    again = await engramdb.improve(
        session_ids=["chat"], build_truth_subspace=True, build_global_context_index=False
    )
    rerun = again.stage("build_truth_subspace")
    assert rerun is not None and rerun.status == "already_completed"
    assert rerun.reason == "no_new_entries"
    after = await _anchors(dataset)
    assert [n.id for n in after.nodes] == [n.id for n in graph.nodes]
    assert len(after.edges) == len(graph.edges)

    # new guidance later is anchored once, alone
    await engramdb.session.add_guidance("chat", "Charles Babbage lived in London.", section="rules")
    third = await engramdb.improve(
        session_ids=["chat"], build_truth_subspace=True, build_global_context_index=False
    )
    assert third.stage("build_truth_subspace").counts["anchors"] == 1  # type: ignore[union-attr]
    assert len((await _anchors(dataset)).nodes) == 3


async def test_graph_completion_context_shows_the_anchored_statement() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_guidance("chat", RULE, section="rules")
    await engramdb.improve(session_ids=["chat"], build_truth_subspace=True)
    (prompt,) = await engramdb.recall(
        "Who wrote the first program for the Analytical Engine?",
        query_type=engramdb.SearchType.GRAPH_COMPLETION,
        only_context=True,
    )
    context = prompt.raw["context"]
    block = context.split("Established in conversation:\n", 1)[1]
    assert block.splitlines()[0] == f"- {RULE}"
    assert block.count(RULE) == 1  # deduplicated across the entities naming it
    # anchors never become facts or hits of their own
    assert "anchors" not in context.split("Established in conversation:", 1)[0]
    hits = await engramdb.recall("Always credit Ada", query_type=engramdb.SearchType.CHUNKS)
    assert all(ANCHOR_TYPE not in str(h.metadata) for h in hits)


async def test_without_anchors_the_context_has_no_block() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_guidance("chat", RULE, section="rules")
    await engramdb.improve(session_ids=["chat"])  # distilled, but not anchored
    (prompt,) = await engramdb.recall(
        "Who wrote the first program for the Analytical Engine?",
        query_type=engramdb.SearchType.GRAPH_COMPLETION,
        only_context=True,
    )
    assert "Established in conversation:" not in prompt.raw["context"]


async def test_learnings_distilled_before_are_anchored_when_opted_in_later() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_guidance("chat", RULE, section="rules")
    first = await engramdb.improve(session_ids=["chat"], build_global_context_index=False)
    off = first.stage("build_truth_subspace")
    assert off is not None and (off.status, off.reason) == ("skipped", "opt_in_disabled")
    dataset = await _dataset()
    assert (await _anchors(dataset)).nodes == []

    later = await engramdb.improve(
        session_ids=["chat"], build_truth_subspace=True, build_global_context_index=False
    )
    assert later.stage("distill_sessions").reason == "no_new_entries"  # type: ignore[union-attr]
    assert later.stage("build_truth_subspace").counts["anchors"] == 1  # type: ignore[union-attr]


async def test_skip_reasons() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    result = await engramdb.improve(build_truth_subspace=True)  # no learnings documents either
    stage = result.stage("build_truth_subspace")
    assert stage is not None and (stage.status, stage.reason) == (
        "already_completed",
        "no_new_entries",
    )

    await engramdb.session.add_qa("chat", "q?", "a.")  # no guidance: nothing to anchor
    result = await engramdb.improve(session_ids=["chat"], build_truth_subspace=True)
    stage = result.stage("build_truth_subspace")
    assert stage is not None and stage.status == "already_completed"
    assert stage.reason == "no_new_entries"


async def test_forgetting_the_dataset_removes_anchors() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_guidance("chat", RULE, section="rules")
    await engramdb.improve(session_ids=["chat"], build_truth_subspace=True)
    dataset = await _dataset()
    assert len((await _anchors(dataset)).nodes) == 1
    store = get_engine().store
    assert (await store.check_integrity()).ok

    await engramdb.forget(dataset="main_dataset")
    graph = await _anchors(dataset)
    assert graph.nodes == [] and graph.edges == []
    assert (await store.check_integrity()).ok


async def test_forgetting_the_learnings_document_removes_its_anchors() -> None:
    await engramdb.remember(FACTS, self_improvement=False)
    await engramdb.session.add_guidance("chat", RULE, section="rules")
    await engramdb.improve(session_ids=["chat"], build_truth_subspace=True)
    dataset = await _dataset()
    store = get_engine().store
    (learnings,) = [d for d in await store.list_data(dataset.id) if "learnings" in d.name]
    await engramdb.forget(data_id=learnings.id)
    graph = await _anchors(dataset)
    assert graph.nodes == [] and graph.edges == []
    assert (await store.check_integrity()).ok
