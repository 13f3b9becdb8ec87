"""HYBRID_COMPLETION's truth weight through the public API, offline: what a conversation
established (``improve(session_ids=..., build_truth_subspace=True)``) lifts the chunks that agree
with it when a recall asks for ``use_truth_weight``; off by default; gone with its learnings.
Also the reference's hybrid lane sizes in ``retriever_specific_config``."""

from __future__ import annotations

from typing import Any

import pytest

import engramdb
from engramdb.engine import get_engine

CORPUS = [
    "Espresso is brewed by forcing hot water through finely ground coffee under high pressure.",
    "A pour-over coffee drips a slow stream of hot water over a paper filter of ground coffee.",
    "Cold brew coffee steeps coarse coffee grounds in cold water for twelve hours or more.",
    "Green tea is brewed with water below boiling to avoid a bitter, astringent flavor.",
    "Black tea is steeped in fully boiling water for three to five minutes before serving.",
    "Matcha is a powdered green tea whisked into hot water with a bamboo whisk until frothy.",
]
COFFEE = set(CORPUS[:3])
LESSON = "The user is a dedicated coffee drinker: espresso, pour-over and cold brew coffee."
QUERY = "How should I prepare my morning drink with water at home?"


async def _order(**config: Any) -> list[str]:
    (result,) = await engramdb.recall(
        QUERY,
        query_type=engramdb.SearchType.HYBRID_COMPLETION,
        node_name=["beverages"],
        only_context=True,
        retriever_specific_config=config,
    )
    return [p for p in result.raw["context"].split("\n\n") if p]


async def _learn() -> Any:
    await engramdb.session.add_guidance("chat", LESSON, section="rules")
    return await engramdb.improve(
        session_ids=["chat"], build_truth_subspace=True, build_global_context_index=False
    )


async def test_truth_weight_lifts_the_chunks_the_conversation_agreed_with() -> None:
    await engramdb.remember(CORPUS, node_set=["beverages"], self_improvement=False)
    before = await _order(use_truth_weight=True)  # nothing learned yet: nothing to weigh
    assert set(before) == set(CORPUS)
    assert set(before[:3]) != COFFEE  # a tea chunk ranks among the first three

    result = await _learn()
    stage = result.stage("build_truth_subspace")
    assert stage is not None and stage.status == "completed" and stage.counts["slots"] == 1

    weighted = await _order(use_truth_weight=True)
    assert set(weighted[:3]) == COFFEE  # every coffee chunk now comes first
    assert sorted(weighted) == sorted(before)
    # off unless asked: the default and False rank alike, the coffee chunks not all first (the
    # learnings document joined the corpus, so lexical statistics may shift ranks slightly)
    unweighted = await _order()
    assert await _order(use_truth_weight=False) == unweighted
    assert set(unweighted[:3]) != COFFEE

    # a re-run with nothing new leaves the slots as they are
    again = await engramdb.improve(
        session_ids=["chat"], build_truth_subspace=True, build_global_context_index=False
    )
    rerun = again.stage("build_truth_subspace")
    assert rerun is not None and (rerun.status, rerun.reason) == (
        "already_completed",
        "no_new_entries",
    )
    assert await _order(use_truth_weight=True) == weighted


async def test_without_session_ids_the_session_learnings_documents_weigh() -> None:
    """The reference's rule: without session_ids, the statements are the application's own
    documents in the session_learnings node set."""
    await engramdb.remember(CORPUS, node_set=["beverages"], self_improvement=False)
    written = await engramdb.remember(
        [LESSON], node_set=["session_learnings"], self_improvement=False
    )
    unweighted = await _order()
    assert set(unweighted[:3]) != COFFEE
    result = await engramdb.improve(build_truth_subspace=True, build_global_context_index=False)
    stage = result.stage("build_truth_subspace")
    assert stage is not None and stage.status == "completed"
    assert (stage.counts["documents"], stage.counts["anchors"], stage.counts["slots"]) == (1, 1, 1)
    weighted = await _order(use_truth_weight=True)
    assert set(weighted[:3]) == COFFEE and await _order() == unweighted

    again = await engramdb.improve(build_truth_subspace=True, build_global_context_index=False)
    rerun = again.stage("build_truth_subspace")
    assert rerun is not None and (rerun.status, rerun.reason) == (
        "already_completed",
        "no_new_entries",
    )
    await engramdb.forget(data_id=written.data_ids[0])
    assert await _order(use_truth_weight=True) == await _order()  # its anchor went with it


async def test_forgetting_the_learnings_takes_the_weight_away() -> None:
    await engramdb.remember(CORPUS, node_set=["beverages"], self_improvement=False)
    baseline = await _order()
    await _learn()
    assert await _order(use_truth_weight=True) != baseline

    store = get_engine().store
    owner = await get_engine().resolve_user(None)
    dataset = await store.find_dataset(owner.id, "main_dataset")
    (learnings,) = [d for d in await store.list_data(dataset.id) if "learnings" in d.name]
    await engramdb.forget(data_id=learnings.id)
    assert await _order(use_truth_weight=True) == baseline  # at once, before any rebuild

    rebuilt = await engramdb.improve(
        session_ids=["chat"], build_truth_subspace=True, build_global_context_index=False
    )
    stage = rebuilt.stage("build_truth_subspace")
    assert stage is not None and stage.status == "completed" and stage.counts["slots"] == 0
    assert await _order(use_truth_weight=True) == baseline


async def test_lane_sizes_shape_the_hybrid_context() -> None:
    await engramdb.remember(CORPUS, node_set=["beverages"], self_improvement=False)
    assert set(await _order()) == set(CORPUS)
    two = await _order(chunks_top_k=2)  # passages of two chunks only
    assert len(two) == 2 and set(two) <= set(CORPUS)
    assert set(await _order(chunks_top_k=len(CORPUS), entities_top_k=0, facts_top_k=0)) == set(
        CORPUS
    )
    with pytest.raises(engramdb.EngramValidationError, match="chunks_top_k"):
        await _order(chunks_top_k=-1)
    with pytest.raises(engramdb.EngramValidationError, match="facts_top_k"):
        await _order(facts_top_k="many")
