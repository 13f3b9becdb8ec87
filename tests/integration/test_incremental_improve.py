"""The automatic improve after remember() builds the global context index incrementally; what it
leaves is exactly what a full rebuild computes (also on PostgreSQL: tests/postgres/test_api.py).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from uuid import UUID

import engramdb
from engramdb.artifacts.global_index import OWNER
from engramdb.engine import get_engine
from engramdb.improvement import global_index_state

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


async def _check_against_full_rebuild(dataset_id: UUID) -> None:
    store = get_engine().store
    incremental = await _index_nodes(dataset_id)
    kept = global_index_state.cached(store, dataset_id)
    assert kept is not None
    # the kept mention counts and document frequencies are the dataset's
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
    # an explicit improve() after an incremental build rebuilds everything: nothing to change
    result = await engramdb.improve()
    stage = result.stage("global_context_index")
    assert stage is not None and stage.status == "completed", result.stage_summary()
    assert "reranked" not in stage.counts  # a full build
    assert (stage.counts["written"], stage.counts["deleted"]) == (0, 0)
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
    assert await store.get_improve_state(dataset_id, "global_context_index.token") == kept.token
    # another build (here: an explicit full one) moves the token; the kept state is replaced
    await engramdb.improve()
    rebuilt = global_index_state.cached(store, dataset_id)
    assert rebuilt is not None and rebuilt is not kept
