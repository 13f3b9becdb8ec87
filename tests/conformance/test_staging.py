"""Staged inputs: what add() stored and cognify() has not built yet."""

from __future__ import annotations

from collections.abc import Callable
from uuid import uuid4

from engramdb.models.records import Dataset
from engramdb.storage.base import StagedItem, Store


def staged(dataset: Dataset, text: str, **options: object) -> StagedItem:
    return StagedItem(
        dataset_id=dataset.id,
        content_hash=f"hash-{text}",
        name=f"{text}.txt",
        text=text,
        mime_type="text/plain",
        size_bytes=len(text),
        options=options,
    )


async def test_staged_items_round_trip_in_order(store: Store, dataset: Dataset) -> None:
    first = staged(dataset, "owls", importance_weight=0.9, node_set=["birds"])
    second = StagedItem(
        dataset_id=dataset.id,
        content_hash="hash-file",
        name="notes.md",
        text="Notes about bats.",
        mime_type="text/markdown",
        size_bytes=17,
        source_path="/tmp/notes.md",
    )
    assert await store.stage_data([first, second]) == 2
    assert await store.list_staged(dataset.id) == [first, second]
    assert await store.count_staged([dataset.id]) == 2


async def test_staging_a_hash_twice_keeps_the_first(store: Store, dataset: Dataset) -> None:
    assert await store.stage_data([staged(dataset, "owls", importance_weight=0.2)]) == 1
    again = staged(dataset, "owls", importance_weight=0.8)
    assert await store.stage_data([again]) == 0
    (kept,) = await store.list_staged(dataset.id)
    assert kept.options == {"importance_weight": 0.2}


async def test_staging_is_per_dataset(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    await store.stage_data([staged(dataset, "owls"), staged(other_dataset, "owls")])
    await store.stage_data([staged(other_dataset, "bats")])
    assert [s.text for s in await store.list_staged(other_dataset.id)] == ["owls", "bats"]
    assert await store.count_staged([dataset.id]) == 1
    assert await store.count_staged([dataset.id, other_dataset.id]) == 3
    assert await store.count_staged([]) == 0


async def test_unstage_removes_only_the_named_items(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    await store.stage_data([staged(dataset, "owls"), staged(dataset, "bats")])
    await store.stage_data([staged(other_dataset, "owls")])
    assert await store.unstage(dataset.id, ["hash-owls", "hash-unknown"]) == 1
    assert [s.text for s in await store.list_staged(dataset.id)] == ["bats"]
    assert await store.count_staged([other_dataset.id]) == 1
    assert await store.unstage(dataset.id, []) == 0


async def test_staged_items_go_with_their_dataset(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    await store.stage_data([staged(dataset, "owls"), staged(other_dataset, "bats")])
    await store.delete_dataset(dataset.id)
    assert await store.count_staged([dataset.id]) == 0
    assert await store.count_staged([other_dataset.id]) == 1
    # a deleted (or never existing) dataset stages nothing
    assert await store.stage_data([staged(dataset, "late")]) == 0
    ghost = other_dataset.model_copy(update={"id": uuid4(), "name": "ghost"})
    assert await store.stage_data([staged(ghost, "late")]) == 0
    await store.delete_everything()
    assert await store.count_staged([other_dataset.id]) == 0


async def test_staged_items_are_seen_by_another_store_object(
    store: Store, dataset: Dataset, open_store: Callable[[], Store]
) -> None:
    await store.stage_data([staged(dataset, "owls")])
    other = open_store()
    await other.setup()
    try:
        assert [s.text for s in await other.list_staged(dataset.id)] == ["owls"]
    finally:
        await other.close()
