"""The automatic improve after remember() builds the global context index incrementally; what it
leaves is exactly what a full rebuild computes, after every kind of write that changes what
documents mention (remember, a queued extraction's extends write, merge_entities,
rewrite_nodes, forget), and its state survives a new engine (also on PostgreSQL:
tests/postgres/test_api.py).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from uuid import UUID

import engramdb
from engramdb.artifacts.global_index import OWNER
from engramdb.engine import get_engine, set_engine
from engramdb.improvement import global_index, global_index_state
from engramdb.improvement.changes import read_notes
from engramdb.improvement.context import ImproveContext, ImproveOptions
from engramdb.improvement.runner import improve_dataset
from engramdb.ingest.queue import extract_queue
from engramdb.models.improve import StageResult
from engramdb.models.records import NodeType
from engramdb.storage.types import EntityMerge, NodeRewrite, graph_change_prefix
from tests.support.chunk_answers import chunk_answers
from tests.support.openai_server import OpenAIServer

TEXTS = (
    "Ada Lovelace wrote the first program for the Analytical Engine. Charles Babbage designed "
    "the Analytical Engine in London.",
    # relations between two entities of the first document's bucket: that bucket changes too
    "Ada Lovelace worked with Charles Babbage. Charles Babbage married Ada Lovelace.",
    "Grace Hopper built the first compiler at Remington Rand. Grace Hopper lived in New York. "
    "Ada Lovelace inspired Grace Hopper.",
    "Charles Babbage lived in London. Ada Lovelace met Charles Babbage in London. Mary Somerville "
    "introduced Ada Lovelace to Charles Babbage.",
    "Alan Turing worked at Bletchley Park. Alan Turing admired Ada Lovelace. Alan Turing lived in "
    "London.",
    "Grace Hopper worked with Howard Aiken at Harvard. Howard Aiken built the Harvard Mark I.",
)


async def _index_nodes(dataset_id: UUID) -> dict[UUID, tuple[str, Any]]:
    nodes = (await get_engine().store.list_derived(dataset_id, OWNER)).nodes
    return {n.id: (n.text, n.properties) for n in nodes}


async def _dataset_id() -> UUID:
    engine = get_engine()
    owner = await engine.resolve_user(None)
    dataset = await engine.store.find_dataset(owner.id, "main_dataset")
    assert dataset is not None
    return dataset.id


async def _check_state(kept: global_index_state.IndexState, dataset_id: UUID) -> None:
    """The state's mention counts, document frequencies, documents and N are the dataset's."""
    store = get_engine().store
    mentions: dict[UUID, dict[UUID, int]] = defaultdict(dict)
    for m in await store.entity_mentions(dataset_id):
        mentions[m.data_id][m.entity_id] = m.chunks
    df: dict[UUID, int] = defaultdict(int)
    for per_doc in mentions.values():
        for entity_id, count in per_doc.items():
            df[entity_id] += count
    assert kept.per_doc == dict(mentions)
    assert dict(kept.df) == dict(df)
    assert kept.data_ids == set(await store.data_ids(dataset_id))
    assert kept.chunks == await store.count_nodes([dataset_id], type=NodeType.CHUNK.value)


async def _check_against_full_rebuild(dataset_id: UUID) -> None:
    store = get_engine().store
    incremental = await _index_nodes(dataset_id)
    kept = global_index_state.cached(store, dataset_id)
    assert kept is not None
    await _check_state(kept, dataset_id)
    # what the build persisted, loaded as a new process would, is the same
    dataset = await store.get_dataset(dataset_id)
    assert dataset is not None
    await _check_state(await global_index_state.load(store, dataset, kept.token), dataset_id)
    # every change note was covered
    assert await store.get_improve_states(dataset_id, graph_change_prefix(OWNER)) == {}
    # a full rebuild computes the same nodes: nothing to change
    engine = get_engine()
    ctx = ImproveContext(engine, await engine.resolve_user(None), dataset, ImproveOptions())
    rebuilt = await global_index.build_full(ctx, await read_notes(store, dataset_id, OWNER))
    assert (rebuilt.counts["written"], rebuilt.counts["deleted"]) == (0, 0)
    assert await _index_nodes(dataset_id) == incremental


async def test_automatic_improve_is_incremental_and_equals_a_full_rebuild() -> None:
    """improve.md: "Every build writes only the texts that changed and deletes the dataset's
    index nodes it did not compute, so a deleted document loses its bucket." """
    first = await engramdb.remember(TEXTS[0])
    assert first.improve == "completed"
    dataset_id = await _dataset_id()
    data_ids = list(first.data_ids)
    for text in TEXTS[1:5]:
        added = await engramdb.remember(text)
        assert added.improve == "completed"
        data_ids += added.data_ids
        await _check_against_full_rebuild(dataset_id)
    nodes = await _index_nodes(dataset_id)
    assert len(nodes) == 6  # five buckets and the root

    await engramdb.forget(data_id=data_ids[2])
    added = await engramdb.remember(TEXTS[5])
    await _check_against_full_rebuild(dataset_id)
    nodes = await _index_nodes(dataset_id)
    assert len(nodes) == 6
    assert all(str(data_ids[2]) != p.get("data_id") for _, p in nodes.values())

    # a remember with content already stored changes nothing
    again = await engramdb.remember(TEXTS[5])
    assert again.improve == "completed"
    assert await _index_nodes(dataset_id) == nodes


async def test_the_automatic_improve_works_from_the_kept_state() -> None:
    await engramdb.remember(TEXTS[0])
    dataset_id = await _dataset_id()
    store = get_engine().store
    kept = global_index_state.cached(store, dataset_id)
    assert kept is not None
    token = kept.token
    await engramdb.remember(TEXTS[1])
    kept = global_index_state.cached(store, dataset_id)
    assert kept is not None and kept.token != token
    assert await store.get_improve_state(dataset_id, global_index.TOKEN_KEY) == kept.token
    # an explicit improve() works from the state too: nothing was written since
    result = await engramdb.improve()
    stage = result.stage("global_context_index")
    assert stage is not None and stage.reason == "no_writes_since_last_improve"
    assert global_index_state.cached(store, dataset_id) is kept
    # another process's build moves the token: this process loads the stored state instead
    await store.set_improve_state(dataset_id, global_index.TOKEN_KEY, "another process")
    await engramdb.remember(TEXTS[2])
    loaded = global_index_state.cached(store, dataset_id)
    assert loaded is not None and loaded is not kept
    await _check_against_full_rebuild(dataset_id)


async def _automatic_improve(dataset_id: UUID) -> StageResult:
    """The improve remember() runs after its write (here after a write that is no remember)."""
    engine = get_engine()
    owner = await engine.resolve_user(None)
    result = await improve_dataset(
        dataset_id, ImproveOptions(automatic=True), user=owner, engine=engine
    )
    stage = result.stage("global_context_index")
    assert stage is not None and stage.status == "completed", result.stage_summary()
    assert "reranked" in stage.counts  # incremental
    return stage


async def _entity(dataset_id: UUID, name: str) -> UUID:
    nodes = await get_engine().store.list_nodes([dataset_id], type=NodeType.ENTITY.value)
    return next(n.id for n in nodes if n.name == name)


async def test_merge_rewrite_and_forget_are_seen_by_the_incremental_build() -> None:
    for text in TEXTS[:4]:
        await engramdb.remember(text)
    dataset_id = await _dataset_id()
    store = get_engine().store
    before = await _index_nodes(dataset_id)

    # rewrite_nodes: a ranked entity's type changes, so the labels of its buckets do
    kept = global_index_state.cached(store, dataset_id)
    assert kept is not None
    ada = await _entity(dataset_id, "Ada Lovelace")
    assert any(ada in {s.entity_id for s in scored} for scored in kept.top.values())
    node = (await store.get_nodes([ada]))[0]
    relabelled = {**node.properties, "entity_type": "Mathematician"}
    await store.rewrite_nodes(dataset_id, [NodeRewrite(ada, node.text, relabelled)])
    assert await store.get_improve_states(dataset_id, graph_change_prefix(OWNER))
    stage = await _automatic_improve(dataset_id)
    assert stage.counts["written"] > 0
    assert any(
        "Ada Lovelace (mathematician)" in text
        for text, _ in (await _index_nodes(dataset_id)).values()
    )
    assert await _index_nodes(dataset_id) != before
    await _check_against_full_rebuild(dataset_id)

    # merge_entities: one entity's mentions move onto another's
    babbage = await _entity(dataset_id, "Charles Babbage")
    survivor = (await store.get_nodes([ada]))[0]
    await store.merge_entities(
        dataset_id,
        [EntityMerge(NodeRewrite(ada, survivor.text, dict(survivor.properties)), [babbage])],
    )
    await _automatic_improve(dataset_id)
    merged = await _index_nodes(dataset_id)
    assert all(str(babbage) not in props.get("entity_ids", []) for _, props in merged.values())
    await _check_against_full_rebuild(dataset_id)

    # forget of a document, then of the dataset: a later remember starts a new index
    data = await store.list_data(dataset_id)
    await engramdb.forget(data_id=data[0].id)
    await _automatic_improve(dataset_id)
    await _check_against_full_rebuild(dataset_id)
    await engramdb.forget(dataset="main_dataset")
    for text in TEXTS[4:]:  # a full build of the new dataset, then an incremental one
        again = await engramdb.remember(text)
        assert again.improve == "completed"
    assert await _dataset_id() != dataset_id
    await _check_against_full_rebuild(await _dataset_id())


async def test_a_queued_extraction_is_seen_by_the_incremental_build(
    openai_server: OpenAIServer,
) -> None:
    """A document the index saw before its queued extraction wrote its graph (a remember queued
    it between an improve's queue drain and its build): the extends write is noted and the next
    automatic improve re-reads the document."""
    openai_server.set_default("chat/completions", chunk_answers(openai_server))
    engramdb.config.set("llm_endpoint", openai_server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)
    engramdb.config.set("engramdb_extraction_batch_remembers", 5)
    engramdb.config.set("engramdb_extraction_batch_seconds", 0)
    try:
        await engramdb.remember(TEXTS[0], self_improvement=False)
        queued = await engramdb.remember(TEXTS[2])
        assert queued.improve == "queued"
        dataset_id = await _dataset_id()
        engine = get_engine()
        owner = await engine.resolve_user(None)
        dataset = await engine.store.get_dataset(dataset_id)
        assert dataset is not None
        # the build without the queue drained sees the documents' chunks and no entities
        ctx = ImproveContext(engine, owner, dataset, ImproveOptions(automatic=True))
        await global_index.build_global_context_index(ctx)
        assert len(await _index_nodes(dataset_id)) == 1  # the root alone
        await extract_queue(engine, dataset)  # extends writes, then the automatic improve
        nodes = await _index_nodes(dataset_id)
        assert len(nodes) == 3  # two buckets and the root
        await _check_against_full_rebuild(dataset_id)
    finally:
        engramdb.config.set("llm_endpoint", "")
        engramdb.config.set("llm_api_key", "")
        engramdb.config.set("engramdb_extraction_batch_remembers", 1)


async def test_the_state_survives_a_new_engine() -> None:
    """A new engine (as a new process) loads the persisted state: its first automatic improve is
    incremental, not a rebuild, and equals one."""
    for text in TEXTS[:3]:
        await engramdb.remember(text)
    dataset_id = await _dataset_id()
    await get_engine().close()
    set_engine(None)
    assert global_index_state.cached(get_engine().store, dataset_id) is None
    added = await engramdb.remember(TEXTS[3])
    assert added.improve == "completed"
    run = (await engramdb.list_improve_runs("main_dataset"))[0]
    stage = next(s for s in run.stages if s.stage == "global_context_index")
    assert "reranked" in stage.counts, stage
    await _check_against_full_rebuild(dataset_id)
