"""Personalization end to end, offline: rate → improve → recall, for one user and one dataset."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

import engramdb
from engramdb.engine import get_engine
from engramdb.models.records import Node
from engramdb.personalization.lookup import load_preferences
from engramdb.personalization.update import preference_node_id, preference_owner
from engramdb.settings import config
from engramdb.storage.base import DerivedWrite

SearchType = engramdb.SearchType
TOPICS = [
    "Oliver Owl hunts small rodents at night in Sherwood Forest.",
    "Betty Bat sleeps in Carlsbad Caverns during the day.",
    "Frank Fox digs dens at the edge of Hampstead Heath.",
    "Harriet Heron fishes near the bank of the River Thames.",
    "Bruno Badger forages for worms in Epping Forest at dusk.",
    "Otto Otter plays in the cold water of Loch Ness.",
]


async def _setup(personalize: bool = True) -> tuple[Any, Any, list[Node]]:
    if personalize:
        config.set("personalization_enabled", True)
    await engramdb.remember(TOPICS, dataset_name="nature", self_improvement=False)
    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, "nature")
    assert dataset is not None
    chunks = await engine.store.list_nodes([dataset.id], type="Chunk")
    return owner, dataset, chunks


async def _rate(session: str, node: Node, score: int | None, n: int = 1) -> None:
    for i in range(n):
        await engramdb.session.add_qa(
            session,
            f"question {i} about {node.text[:20]}?",
            "an answer",
            feedback_score=score,
            used_graph_element_ids={"node_ids": [str(node.id)]},
        )


async def _weights(owner: Any, dataset: Any) -> dict[UUID, float]:
    view = await load_preferences(get_engine().store, config.settings, owner.id, [dataset.id])
    return view.weights


async def test_ratings_fold_into_weights_with_the_pinned_numbers() -> None:
    owner, dataset, chunks = await _setup()
    liked, disliked = chunks[0], chunks[1]
    await _rate("chat", liked, 5, n=3)
    await _rate("chat", disliked, 3)  # neutral: spent, no effect
    result = await engramdb.improve("nature", session_ids=["chat"])
    stage = result.stage("update_user_preferences")
    assert stage is not None and stage.status == "completed"
    assert stage.counts["ratings"] == 3 and stage.counts["turns"] == 4
    weights = await _weights(owner, dataset)
    assert weights == {liked.id: pytest.approx(0.8285)}  # 0.5 -> 0.65 -> 0.755 -> 0.8285

    # idempotent: the same sessions again change nothing
    again = await engramdb.improve("nature", session_ids=["chat"])
    assert again.stage("update_user_preferences").status == "already_completed"  # type: ignore[union-attr]
    assert await _weights(owner, dataset) == {liked.id: pytest.approx(0.8285)}

    # idle turns decay the weight on read: 0.5 + (w - 0.5)(1 - beta)^N
    await _rate("chat", disliked, None, n=7)
    await engramdb.improve("nature", session_ids=["chat"])
    assert (await _weights(owner, dataset))[liked.id] == pytest.approx(0.5 + 0.3285 * 0.98**7)

    # a one-star rating pulls its node below neutral
    await _rate("chat", disliked, 1)
    await engramdb.improve("nature", session_ids=["chat"])
    weights = await _weights(owner, dataset)
    assert weights[disliked.id] == pytest.approx(0.35)
    assert weights[liked.id] == pytest.approx(0.5 + 0.3285 * 0.98**8)


async def test_weights_near_neutral_are_pruned() -> None:
    config.set("preference_beta", 0.5)
    owner, dataset, chunks = await _setup()
    await _rate("chat", chunks[0], 4)  # 0.5 + 0.3 * (0.75 - 0.5) = 0.575
    await engramdb.improve("nature", session_ids=["chat"])
    assert (await _weights(owner, dataset))[chunks[0].id] == pytest.approx(0.575)
    await _rate("chat", chunks[1], None, n=3)  # 0.075 * 0.5^3 < 0.01
    result = await engramdb.improve("nature", session_ids=["chat"])
    assert result.stage("update_user_preferences").counts["pruned"] == 1  # type: ignore[union-attr]
    assert await _weights(owner, dataset) == {}


async def test_personalization_off_writes_nothing() -> None:
    owner, dataset, chunks = await _setup(personalize=False)
    await _rate("chat", chunks[0], 5)
    result = await engramdb.improve("nature", session_ids=["chat"])
    stage = result.stage("update_user_preferences")
    assert stage is not None and stage.reason == "personalization_disabled"
    graph = await get_engine().store.list_derived(dataset.id, preference_owner(owner.id))
    assert graph.nodes == [] and graph.edges == []


async def test_stated_preferences_reach_completion_prompts_newest_first() -> None:
    await _setup()
    await engramdb.session.add_guidance("chat", "Use metric units.", section="preferences")
    await engramdb.session.add_guidance("chat", "Answer in bullet points.", section="preferences")
    await engramdb.improve("nature", session_ids=["chat"])
    for query_type in (
        SearchType.RAG_COMPLETION,
        SearchType.GRAPH_COMPLETION,
        SearchType.HYBRID_COMPLETION,
    ):
        (prompt,) = await engramdb.recall(
            "Where does Oliver Owl hunt?",
            query_type=query_type,
            datasets=["nature"],
            only_context=True,
        )
        assert (
            "The user stated these preferences (newest first):\n"
            "Answer in bullet points.\nUse metric units." in prompt.text
        ), query_type
    # CHUNKS has no prompt; preference nodes never appear among hits
    hits = await engramdb.recall(
        "bullet points metric units preferences", query_type=SearchType.CHUNKS
    )
    assert all("bullet points" not in h.text for h in hits)


async def test_no_personalization_across_datasets_or_at_influence_zero() -> None:
    await _setup()
    await engramdb.remember(
        "Cats sleep most of the day.", dataset_name="pets", self_improvement=False
    )
    await engramdb.session.add_guidance("chat", "Answer in bullet points.", section="preferences")
    await engramdb.improve("nature", session_ids=["chat"])
    (both,) = await engramdb.recall(
        "Where does Oliver Owl hunt?",
        query_type=SearchType.RAG_COMPLETION,
        datasets=["nature", "pets"],
        only_context=True,
    )
    assert "stated these preferences" not in both.text

    config.set("personalization_influence", 0.0)
    (zero,) = await engramdb.recall(
        "Where does Oliver Owl hunt?",
        query_type=SearchType.RAG_COMPLETION,
        datasets=["nature"],
        only_context=True,
    )
    config.set("personalization_enabled", False)
    (off,) = await engramdb.recall(
        "Where does Oliver Owl hunt?",
        query_type=SearchType.RAG_COMPLETION,
        datasets=["nature"],
        only_context=True,
    )
    assert zero.raw["context"] == off.raw["context"]  # ranking identical at influence 0


async def test_rag_completion_widens_and_a_liked_chunk_makes_the_cut() -> None:
    owner, dataset, chunks = await _setup()
    query = "Where does Oliver Owl hunt?"
    plain = await engramdb.recall(
        query,
        query_type=SearchType.RAG_COMPLETION,
        datasets=["nature"],
        only_context=True,
        top_k=len(TOPICS),
    )
    order = [line for line in plain[0].raw["context"].split("\n") if line.strip()]
    assert len(order) >= 3
    # the user loves the chunk ranked last among the six
    by_text = {c.text: c for c in chunks}
    last = next(c for text, c in by_text.items() if text in order[-1])
    await _rate("chat", last, 5, n=6)
    await engramdb.improve("nature", session_ids=["chat"])
    weight = (await _weights(owner, dataset))[last.id]
    assert weight == pytest.approx(1 - 0.5 * 0.7**6)
    config.set("personalization_influence", 1.0)
    (top1,) = await engramdb.recall(
        query, query_type=SearchType.RAG_COMPLETION, datasets=["nature"], only_context=True, top_k=1
    )
    assert last.text in top1.raw["context"]

    # weights matching no chunk leave RAG untouched
    config.set("personalization_enabled", False)
    (unpersonalized,) = await engramdb.recall(
        query, query_type=SearchType.RAG_COMPLETION, datasets=["nature"], only_context=True, top_k=1
    )
    assert last.text not in unpersonalized.raw["context"]


async def test_a_broken_preference_node_costs_the_personalization_not_the_search() -> None:
    owner, dataset, _ = await _setup()
    store = get_engine().store
    broken = Node(
        id=preference_node_id(owner.id, dataset.id),
        dataset_id=dataset.id,
        type="UserPreference",
        properties={"internal": True, "turn": "not a number"},
    )
    await store.write_derived(DerivedWrite(dataset.id, preference_owner(owner.id), nodes=[broken]))
    assert (await load_preferences(store, config.settings, owner.id, [dataset.id])).empty
    results = await engramdb.recall(
        "Where does Oliver Owl hunt?",
        query_type=SearchType.RAG_COMPLETION,
        datasets=["nature"],
        only_context=True,
    )
    assert results and "Oliver Owl hunts" in results[0].text


async def test_graph_completion_multiplies_the_personal_weight_into_triplet_scores() -> None:
    _, dataset, _ = await _setup()
    store = get_engine().store
    entities = {n.name: n for n in await store.list_nodes([dataset.id], type="Entity")}
    oliver = entities["Oliver Owl"]
    await _rate("chat", oliver, 5, n=3)
    await engramdb.improve("nature", session_ids=["chat"])
    (prompt,) = await engramdb.recall(
        "Where does Oliver Owl hunt?",
        query_type=SearchType.GRAPH_COMPLETION,
        datasets=["nature"],
        only_context=True,
        verbose=True,
        top_k=20,
    )
    triplets = prompt.raw["triplets"]
    touching = [
        t for t in triplets if oliver.id in {UUID(t["source"]["id"]), UUID(t["target"]["id"])}
    ]
    others = [t for t in triplets if t not in touching]
    assert touching
    for t in touching:  # mean of the rated ends' weights (only Oliver's is rated): 0.8285
        assert t["score_breakdown"]["personal_weight"] == pytest.approx(0.8285)
        assert t["score_breakdown"]["personal_factor"] == pytest.approx(1 - 0.3 * 2 * 0.3285)
    for t in others:  # untouched elements: exactly 1.0
        assert t["score_breakdown"]["personal_factor"] == 1.0


@pytest.mark.parametrize(
    "query_type",
    [
        SearchType.CHUNKS,
        SearchType.CHUNKS_LEXICAL,
        SearchType.SUMMARIES,
        SearchType.RAG_COMPLETION,
        SearchType.TRIPLET_COMPLETION,
        SearchType.GRAPH_COMPLETION,
        SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION,
        SearchType.HYBRID_COMPLETION,
        SearchType.TEMPORAL,
    ],
)
async def test_preference_data_never_appears_in_retrieval_output(query_type: SearchType) -> None:
    _, dataset, chunks = await _setup()
    entities = await get_engine().store.list_nodes([dataset.id], type="Entity")
    for node in [*entities[:4], *chunks[:2]]:
        await _rate("chat", node, 5)
    await engramdb.session.add_guidance("chat", "Zebraword answers only.", section="preferences")
    await engramdb.improve("nature", session_ids=["chat"])
    config.set("personalization_enabled", False)  # what anyone else sees: no own-prompt guidance
    for query in ("Where does Oliver Owl hunt?", "preferences prefers Zebraword"):
        results = await engramdb.recall(
            query, query_type=query_type, datasets=["nature"], only_context=True, top_k=30
        )
        dumped = str([r.model_dump() for r in results]).replace(query, "")
        for secret in ("Zebraword", "preferences of user", "UserPreference", "prefers"):
            assert secret not in dumped, (query_type, secret)
