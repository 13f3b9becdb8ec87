"""In-memory vector indexes follow writes made through other store objects on the same file."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from uuid import UUID

import numpy as np
import pytest

from engramdb.models.records import Dataset
from engramdb.storage.base import DocumentWrite, VectorRow
from engramdb.storage.sqlite import SqliteStore

from .conftest import DocBuilder

Rows = Callable[[int, int], np.ndarray]


@pytest.fixture
async def reader(db_path: Path, store: SqliteStore) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(db_path)
    yield opened
    await opened.close()


async def test_reader_applies_inserts_and_deletes_incrementally(
    store: SqliteStore, reader: SqliteStore, dataset: Dataset, chunk_doc: DocBuilder, rows: Rows
) -> None:
    first, first_ids = chunk_doc(dataset.id, rows(1, 20))
    await store.write_document(first)
    hits = await reader.vector_search("chunks", rows(1, 20)[0], [dataset.id], 50)
    assert {h.node_id for h in hits} == set(first_ids)
    loads = reader.matrix_loads

    second, second_ids = chunk_doc(dataset.id, rows(2, 10))
    await store.write_document(second)
    hits = await reader.vector_search("chunks", rows(2, 10)[3], [dataset.id], 50)
    assert hits[0].node_id == second_ids[3]
    assert {h.node_id for h in hits} == set(first_ids + second_ids)

    await store.delete_data(first.data.id)
    hits = await reader.vector_search("chunks", rows(1, 20)[0], [dataset.id], 50)
    assert {h.node_id for h in hits} == set(second_ids)
    assert reader.matrix_loads == loads  # followed the log, never reloaded


async def test_reader_reloads_when_the_log_was_pruned(
    db_path: Path, dataset: Dataset, chunk_doc: DocBuilder, rows: Rows
) -> None:
    writer = SqliteStore(db_path, vector_log_keep=5)
    reader = SqliteStore(db_path, vector_log_keep=5)
    try:
        first, first_ids = chunk_doc(dataset.id, rows(3, 4))
        await writer.write_document(first)
        await reader.vector_search("chunks", rows(3, 4)[0], [dataset.id], 5)
        loads = reader.matrix_loads
        later: list[UUID] = []
        for seed in range(10, 14):
            doc, ids = chunk_doc(dataset.id, rows(seed, 3))
            await writer.write_document(doc)
            later += ids
        hits = await reader.vector_search("chunks", rows(3, 4)[0], [dataset.id], 100)
        assert {h.node_id for h in hits} == set(first_ids + later)
        assert reader.matrix_loads == loads + 1
    finally:
        await writer.close()
        await reader.close()


async def test_reader_drops_a_deleted_dataset(
    store: SqliteStore, reader: SqliteStore, dataset: Dataset, chunk_doc: DocBuilder, rows: Rows
) -> None:
    user = await store.get_or_create_default_user()
    other = await store.get_or_create_dataset(user.id, "other")
    doc_a, _ = chunk_doc(dataset.id, rows(4, 5))
    doc_b, ids_b = chunk_doc(other.id, rows(5, 5))
    await store.write_document(doc_a)
    await store.write_document(doc_b)
    both = [dataset.id, other.id]
    assert len(await reader.vector_search("chunks", rows(4, 5)[0], both, 20)) == 10
    await store.delete_dataset(dataset.id)
    hits = await reader.vector_search("chunks", rows(4, 5)[0], both, 20)
    assert {h.node_id for h in hits} == set(ids_b)
    await store.delete_everything()
    assert await reader.vector_search("chunks", rows(4, 5)[0], both, 20) == []


async def test_replacing_a_vector_elsewhere_updates_the_reader(
    store: SqliteStore, reader: SqliteStore, dataset: Dataset, chunk_doc: DocBuilder, rows: Rows
) -> None:
    doc, ids = chunk_doc(dataset.id, rows(6, 6))
    await store.write_document(doc)
    await reader.vector_search("chunks", rows(6, 6)[0], [dataset.id], 3)
    fresh = rows(7, 1)[0]
    nodes = await store.get_nodes([ids[2]])
    replace, _ = chunk_doc(dataset.id, [])
    replace = DocumentWrite(
        data=replace.data, nodes=nodes, vectors=[VectorRow(ids[2], "chunks", fresh)]
    )
    await store.write_document(replace)
    hits = await reader.vector_search("chunks", fresh, [dataset.id], 6)
    assert hits[0].node_id == ids[2] and hits[0].score == pytest.approx(0.0, abs=1e-5)
    assert len(hits) == 6
