"""Edge listing and the key-value cache (with its forget semantics)."""

from __future__ import annotations

from engramdb.models.records import Dataset
from engramdb.storage.base import DocumentWrite, Store

from ._helpers import data_record, edge, entity, make_doc


async def test_list_edges_per_dataset(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    a, b, c = (entity(dataset.id, n) for n in "abc")
    await store.write_document(
        DocumentWrite(
            data=data_record(dataset.id), nodes=[a, b, c], edges=[edge(a, b), edge(b, c, "next")]
        )
    )
    x, y = entity(other_dataset.id, "x"), entity(other_dataset.id, "y")
    await store.write_document(
        DocumentWrite(data=data_record(other_dataset.id), nodes=[x, y], edges=[edge(x, y)])
    )
    listed = await store.list_edges([dataset.id])
    assert [(e.source_id, e.relation, e.target_id) for e in listed] == [
        (a.id, "mentions", b.id),
        (b.id, "next", c.id),
    ]
    assert len(await store.list_edges([dataset.id, other_dataset.id])) == 3
    assert len(await store.list_edges([dataset.id], limit=1)) == 1
    assert await store.list_edges([]) == []


async def test_cache_round_trip_and_replace(store: Store) -> None:
    assert await store.cache_get("llm", "k1") is None
    await store.cache_put("llm", "k1", "first")
    await store.cache_put("llm", "k1", "second")
    assert await store.cache_get("llm", "k1") == "second"
    assert await store.cache_get("other", "k1") is None


async def test_forgetting_data_forgets_what_was_cached_from_it(
    store: Store, dataset: Dataset
) -> None:
    kept = make_doc(dataset.id, ["kept"])
    gone = make_doc(dataset.id, ["gone"])
    await store.write_document(kept.write)
    await store.write_document(gone.write)
    await store.cache_put("llm", "kept", "v", data_id=kept.data.id)
    await store.cache_put("llm", "gone", "v", data_id=gone.data.id)
    await store.cache_put("llm", "untagged", "v")
    await store.delete_data(gone.data.id)
    assert await store.cache_get("llm", "gone") is None
    assert await store.cache_get("llm", "kept") == "v"
    await store.delete_dataset(dataset.id)
    assert await store.cache_get("llm", "kept") is None
    assert await store.cache_get("llm", "untagged") == "v"
    await store.delete_everything()
    assert await store.cache_get("llm", "untagged") is None
