"""Approximate vector index files of the SQLite store: recall, dataset filters, coherence.

The threshold is lowered (``ann_threshold``) so a few thousand vectors take the approximate path;
every expectation is computed by brute force over the vectors the test wrote.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import numpy as np
import pytest

from engramdb.models.records import Dataset
from engramdb.storage.sqlite import SqliteStore, ann

from .conftest import DocBuilder

pytestmark = pytest.mark.skipif(not ann.available(), reason="needs the 'ann' extra (usearch)")

DIM = 32
THRESHOLD = 1_000
K = 10


def clustered(seed: int, n: int, centres: int = 40) -> np.ndarray:
    """Unit vectors around fixed random centres (neighbourhoods like sentence embeddings)."""
    base = np.random.default_rng(99).standard_normal((centres, DIM))
    rng = np.random.default_rng(seed)
    rows = base[rng.integers(0, centres, n)] + 0.35 * rng.standard_normal((n, DIM))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows.astype(np.float32)


def exact(ids: list[UUID], rows: np.ndarray, query: np.ndarray, k: int) -> list[UUID]:
    distances = 1.0 - rows @ query
    return [ids[i] for i in np.argsort(distances, kind="stable")[:k]]


def open_store(path: Path, **options: int) -> SqliteStore:
    return SqliteStore(path, ann_threshold=THRESHOLD, **options)


@pytest.fixture
async def big(
    db_path: Path, store: SqliteStore, dataset: Dataset, chunk_doc: DocBuilder
) -> AsyncIterator[tuple[list[UUID], np.ndarray, list[UUID]]]:
    """3,000 vectors in 30 documents of ``dataset``: (ids, rows, data ids)."""
    ids: list[UUID] = []
    data_ids: list[UUID] = []
    rows = clustered(1, 3_000)
    for start in range(0, len(rows), 100):
        doc, node_ids = chunk_doc(dataset.id, rows[start : start + 100])
        await store.write_document(doc)
        ids += node_ids
        data_ids.append(doc.data.id)
    yield ids, rows, data_ids


def files(db_path: Path) -> list[Path]:
    folder = db_path.with_name(db_path.name + ".ann")
    return sorted(folder.glob("*.usearch")) if folder.exists() else []


async def recall_at_k(
    store: SqliteStore, dataset: Dataset, ids: list[UUID], rows: np.ndarray, queries: np.ndarray
) -> float:
    found = 0
    for query in queries:
        hits = await store.vector_search("chunks", query, [dataset.id], K)
        assert len(hits) == K
        found += len({h.node_id for h in hits} & set(exact(ids, rows, query, K)))
    return found / (K * len(queries))


async def test_recall_against_exact_search_above_the_threshold(
    db_path: Path, dataset: Dataset, big: tuple[list[UUID], np.ndarray, list[UUID]]
) -> None:
    """Issue 17: "an approximate index for large collections ... (recall@10 >= 0.98 against
    exact)"; distances stay exact cosine distances."""
    ids, rows, _ = big
    store = open_store(db_path)
    try:
        queries = clustered(2, 60)
        assert await recall_at_k(store, dataset, ids, rows, queries) >= 0.98
        assert store.ann_builds == 1
        assert len(files(db_path)) == 1
        hits = await store.vector_search("chunks", queries[0], [dataset.id], K)
        by_id = dict(zip(ids, rows, strict=True))
        for hit in hits:
            assert hit.score == pytest.approx(
                1.0 - float(by_id[hit.node_id] @ queries[0]), abs=1e-5
            )
    finally:
        await store.close()


async def test_small_collections_stay_exact_and_write_no_index(
    db_path: Path, store: SqliteStore, dataset: Dataset, chunk_doc: DocBuilder
) -> None:
    rows = clustered(3, 200)
    doc, ids = chunk_doc(dataset.id, rows)
    await store.write_document(doc)
    small = open_store(db_path)
    try:
        for query in clustered(4, 10):
            hits = await small.vector_search("chunks", query, [dataset.id], K)
            assert [h.node_id for h in hits] == exact(ids, rows, query, K)
        assert small.ann_builds == 0
        assert files(db_path) == []
    finally:
        await small.close()


async def test_reopening_uses_the_file_without_rebuilding(
    db_path: Path, dataset: Dataset, big: tuple[list[UUID], np.ndarray, list[UUID]]
) -> None:
    """Issue 17: "A vector storage that opens without reading every vector"."""
    _ids, _rows, _ = big
    query = clustered(5, 1)[0]
    first = open_store(db_path)
    try:
        before = await first.vector_search("chunks", query, [dataset.id], K)
    finally:
        await first.close()
    again = open_store(db_path)
    try:
        after = await again.vector_search("chunks", query, [dataset.id], K)
        assert after == before
        assert again.ann_builds == 0
        assert again.matrix_loads == 0  # no vector matrix was read from SQLite
    finally:
        await again.close()


async def test_a_dataset_filter_returns_only_that_datasets_vectors(
    db_path: Path,
    store: SqliteStore,
    dataset: Dataset,
    chunk_doc: DocBuilder,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
) -> None:
    """Issue 17: "filtered by dataset without losing recall"."""
    ids_a, rows_a, _ = big
    user = await store.get_or_create_default_user()
    other = await store.get_or_create_dataset(user.id, "other")
    rows_b = clustered(6, 1_500)  # the same neighbourhoods as dataset A: filters must hold
    ids_b: list[UUID] = []
    for start in range(0, len(rows_b), 100):
        doc, node_ids = chunk_doc(other.id, rows_b[start : start + 100])
        await store.write_document(doc)
        ids_b += node_ids
    searcher = open_store(db_path)
    try:
        queries = clustered(7, 30)
        assert await recall_at_k(searcher, other, ids_b, rows_b, queries) >= 0.98
        both_ids, both_rows = ids_a + ids_b, np.vstack([rows_a, rows_b])
        found = 0
        for query in queries:
            only_b = await searcher.vector_search("chunks", query, [other.id], 50)
            assert {h.node_id for h in only_b} <= set(ids_b)
            both = await searcher.vector_search("chunks", query, [dataset.id, other.id], K)
            found += len({h.node_id for h in both} & set(exact(both_ids, both_rows, query, K)))
        assert found / (K * len(queries)) >= 0.98
        assert searcher.ann_builds == 2  # one index per (collection, dataset)
    finally:
        await searcher.close()


async def test_forget_removes_vectors_from_results_at_once_and_after_reopening(
    db_path: Path,
    store: SqliteStore,
    dataset: Dataset,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
) -> None:
    ids, rows, data_ids = big
    searcher = open_store(db_path)
    query = rows[5]  # a stored vector: its own chunk is the nearest hit
    try:
        assert (await searcher.vector_search("chunks", query, [dataset.id], K))[0].node_id == ids[5]
        await store.delete_data(data_ids[0])  # the document of ids[0:100]
        hits = await searcher.vector_search("chunks", query, [dataset.id], K)
        assert not {h.node_id for h in hits} & set(ids[:100])
        assert [h.node_id for h in hits] == exact(ids[100:], rows[100:], query, K)
    finally:
        await searcher.close()
    reopened = open_store(db_path)
    try:
        hits = await reopened.vector_search("chunks", query, [dataset.id], K)
        assert not {h.node_id for h in hits} & set(ids[:100])
        assert reopened.ann_builds == 0
    finally:
        await reopened.close()


async def test_writes_committed_without_an_index_update_are_searched(
    db_path: Path,
    dataset: Dataset,
    chunk_doc: DocBuilder,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
) -> None:
    """A crash between a database commit and an index write leaves the file behind the
    database; the next open must see every committed vector (never stale results)."""
    ids, rows, _ = big
    builder = open_store(db_path)
    await builder.vector_search("chunks", rows[0], [dataset.id], K)
    await builder.close()
    # Another writer commits more vectors; no process updates the index file.
    writer = SqliteStore(db_path, ann_threshold=0)
    extra = clustered(8, 50)
    doc, extra_ids = chunk_doc(dataset.id, extra)
    await writer.write_document(doc)
    await writer.close()
    reopened = open_store(db_path)
    try:
        for i in range(0, 50, 7):
            hits = await reopened.vector_search("chunks", extra[i], [dataset.id], K)
            assert hits[0].node_id == extra_ids[i]
        all_ids, all_rows = ids + extra_ids, np.vstack([rows, extra])
        assert await recall_at_k(reopened, dataset, all_ids, all_rows, clustered(9, 30)) >= 0.98
        assert reopened.ann_builds == 0  # caught up from the log, no rebuild
    finally:
        await reopened.close()


async def test_a_pruned_log_makes_the_next_open_rebuild(
    db_path: Path,
    dataset: Dataset,
    chunk_doc: DocBuilder,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
) -> None:
    _ids, rows, _ = big
    builder = open_store(db_path)
    await builder.vector_search("chunks", rows[0], [dataset.id], K)
    await builder.close()
    writer = SqliteStore(db_path, ann_threshold=0, vector_log_keep=10)
    extra = clustered(10, 40)
    doc, extra_ids = chunk_doc(dataset.id, extra)
    await writer.write_document(doc)
    await writer.close()
    reopened = open_store(db_path)
    try:
        hits = await reopened.vector_search("chunks", extra[3], [dataset.id], K)
        assert hits[0].node_id == extra_ids[3]
        assert reopened.ann_builds == 1
    finally:
        await reopened.close()


@pytest.mark.parametrize("damage", ["delete", "truncate", "garbage", "meta"])
async def test_a_missing_or_damaged_index_file_is_rebuilt(
    db_path: Path,
    dataset: Dataset,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
    damage: str,
) -> None:
    ids, rows, _ = big
    queries = clustered(11, 30)
    builder = open_store(db_path)
    await builder.vector_search("chunks", queries[0], [dataset.id], K)
    await builder.close()
    (path,) = files(db_path)
    if damage == "delete":
        path.unlink()
    elif damage == "truncate":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "garbage":
        path.write_bytes(b"\0" * path.stat().st_size)
    else:
        (meta,) = path.parent.glob("*.meta")
        meta.write_text("{not json", "utf-8")
    reopened = open_store(db_path)
    try:
        assert await recall_at_k(reopened, dataset, ids, rows, queries) >= 0.98
        assert reopened.ann_builds == 1
        assert len(files(db_path)) == 1
    finally:
        await reopened.close()


async def test_a_deleted_and_recreated_dataset_gets_a_fresh_index(
    db_path: Path,
    store: SqliteStore,
    dataset: Dataset,
    chunk_doc: DocBuilder,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
) -> None:
    builder = open_store(db_path)
    await builder.vector_search("chunks", big[1][0], [dataset.id], K)
    await builder.close()
    await store.delete_dataset(dataset.id)
    user = await store.get_or_create_default_user()
    fresh = await store.get_or_create_dataset(user.id, "main")
    rows = clustered(12, 1_200)
    ids: list[UUID] = []
    for start in range(0, len(rows), 100):
        doc, node_ids = chunk_doc(fresh.id, rows[start : start + 100])
        await store.write_document(doc)
        ids += node_ids
    reopened = open_store(db_path)
    try:
        hits = await reopened.vector_search("chunks", rows[7], [fresh.id], K)
        assert hits[0].node_id == ids[7]
        assert {h.node_id for h in hits} <= set(ids)
        assert await reopened.vector_search("chunks", rows[7], [dataset.id], K) == []
    finally:
        await reopened.close()


async def test_a_large_delta_triggers_a_rebuild(
    db_path: Path,
    store: SqliteStore,
    dataset: Dataset,
    chunk_doc: DocBuilder,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ann, "DELTA_MIN", 100)
    searcher = open_store(db_path)
    try:
        await searcher.vector_search("chunks", big[1][0], [dataset.id], K)
        extra = clustered(13, 400)
        doc, extra_ids = chunk_doc(dataset.id, extra)
        await store.write_document(doc)
        hits = await searcher.vector_search("chunks", extra[0], [dataset.id], K)
        assert hits[0].node_id == extra_ids[0]
        assert searcher.ann_builds == 2
    finally:
        await searcher.close()


@pytest.mark.slow
async def test_a_writer_process_and_a_reader_process_stay_coherent(
    db_path: Path,
    dataset: Dataset,
    chunk_doc: DocBuilder,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
) -> None:
    ids, rows, data_ids = big
    reader = open_store(db_path)
    try:
        assert (await reader.vector_search("chunks", rows[0], [dataset.id], K))[0].node_id == ids[0]
        script = textwrap.dedent(
            """
            import asyncio, json, sys, uuid
            import numpy as np
            from engramdb.models.records import DataRecord, Node, utcnow
            from engramdb.storage.base import DocumentWrite, VectorRow
            from engramdb.storage.sqlite import SqliteStore

            async def main():
                store = SqliteStore(sys.argv[1], ann_threshold=1000)
                dataset_id = uuid.UUID(sys.argv[2])
                vectors = np.asarray(json.loads(sys.argv[4]), dtype=np.float32)
                record = DataRecord(id=uuid.uuid4(), dataset_id=dataset_id, name="d",
                                    content_hash=uuid.uuid4().hex, mime_type="text/plain",
                                    created_at=utcnow())
                nodes = [Node(id=uuid.uuid4(), dataset_id=dataset_id, type="Chunk", text="t")
                         for _ in vectors]
                await store.write_document(DocumentWrite(data=record, nodes=nodes,
                    vectors=[VectorRow(n.id, "chunks", v) for n, v in zip(nodes, vectors)]))
                await store.delete_data(uuid.UUID(sys.argv[3]))
                await store.close()
                print(json.dumps([str(n.id) for n in nodes]))
            asyncio.run(main())
            """
        )
        extra = clustered(14, 20)
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                script,
                str(db_path),
                str(dataset.id),
                str(data_ids[0]),
                json.dumps(extra.tolist()),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        child_ids = [UUID(x) for x in json.loads(result.stdout)]
        hits = await reader.vector_search("chunks", extra[4], [dataset.id], K)
        assert hits[0].node_id == child_ids[4]
        hits = await reader.vector_search("chunks", rows[0], [dataset.id], K)
        assert not {h.node_id for h in hits} & set(ids[:100])
        assert [h.node_id for h in hits] == exact(
            ids[100:] + child_ids, np.vstack([rows[100:], extra]), rows[0], K
        )
    finally:
        await reader.close()


async def test_forgetting_a_dataset_or_everything_deletes_its_index_files(
    db_path: Path,
    store: SqliteStore,
    dataset: Dataset,
    chunk_doc: DocBuilder,
    big: tuple[list[UUID], np.ndarray, list[UUID]],
) -> None:
    """Forgotten vectors must not stay on disk in an index file."""
    user = await store.get_or_create_default_user()
    other = await store.get_or_create_dataset(user.id, "other")
    rows = clustered(15, 1_100)
    for start in range(0, len(rows), 100):
        doc, _ = chunk_doc(other.id, rows[start : start + 100])
        await store.write_document(doc)
    searcher = open_store(db_path)
    try:
        for ds in (dataset, other):
            await searcher.vector_search("chunks", rows[0], [ds.id], K)
        assert len(files(db_path)) == 2
        await searcher.delete_dataset(dataset.id)
        assert [p.name.split(".")[0] for p in files(db_path)] == [str(other.id)]
        hits = await searcher.vector_search("chunks", rows[0], [other.id], K)
        assert hits[0].score == pytest.approx(0.0, abs=1e-5)
        await searcher.delete_everything()
        assert files(db_path) == []
        assert await searcher.vector_search("chunks", rows[0], [other.id], K) == []
    finally:
        await searcher.close()


async def test_an_exact_matrix_that_grows_past_the_threshold_moves_to_an_index_file(
    db_path: Path, store: SqliteStore, dataset: Dataset, chunk_doc: DocBuilder
) -> None:
    searcher = open_store(db_path)
    try:
        first = clustered(16, 600)
        doc, ids = chunk_doc(dataset.id, first)
        await store.write_document(doc)
        await searcher.vector_search("chunks", first[0], [dataset.id], K)
        assert searcher.ann_builds == 0
        second = clustered(17, 600)
        doc, more = chunk_doc(dataset.id, second)
        await store.write_document(doc)
        rows, all_ids = np.vstack([first, second]), ids + more
        assert await recall_at_k(searcher, dataset, all_ids, rows, clustered(18, 20)) >= 0.98
        assert searcher.ann_builds == 1
    finally:
        await searcher.close()


@pytest.mark.slow
async def test_without_the_ann_extra_every_search_is_exact(
    db_path: Path, dataset: Dataset, big: tuple[list[UUID], np.ndarray, list[UUID]]
) -> None:
    """The default install (no ``usearch``) keeps exact search at any size."""
    ids, rows, _ = big
    script = textwrap.dedent(
        """
        import asyncio, json, sys, uuid
        sys.modules["usearch"] = None  # as if the 'ann' extra were not installed
        sys.modules["usearch.index"] = None
        import numpy as np
        from engramdb.storage.sqlite import SqliteStore

        async def main():
            store = SqliteStore(sys.argv[1], ann_threshold=1000)
            query = np.asarray(json.loads(sys.argv[3]), dtype=np.float32)
            hits = await store.vector_search("chunks", query, [uuid.UUID(sys.argv[2])], 10)
            print(json.dumps([str(h.node_id) for h in hits]))
            await store.close()
        asyncio.run(main())
        """
    )
    query = clustered(19, 1)[0]
    result = subprocess.run(
        [sys.executable, "-c", script, str(db_path), str(dataset.id), json.dumps(query.tolist())],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert [UUID(x) for x in json.loads(result.stdout)] == exact(ids, rows, query, K)
    assert files(db_path) == []


@pytest.mark.parametrize(
    "order", [("usearch.index", "onnxruntime"), ("onnxruntime", "usearch.index")]
)
def test_usearch_and_onnxruntime_load_in_either_order(order: tuple[str, str]) -> None:
    """A recall may load the ANN index before the ONNX embedder, or after: both native
    libraries must load into one process in either order (usearch 2.26.6 with onnxruntime 1.32
    crashed the process with a segmentation fault when usearch came first)."""
    pytest.importorskip("usearch")
    code = f"import {order[0]}; import {order[1]}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
