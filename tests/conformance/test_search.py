"""Vector and full-text search: exactness, dataset prefilters, hostile input."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

import numpy as np
import pytest

from engramdb.models.records import Dataset
from engramdb.storage.base import DocumentWrite, Store, VectorRow

from ._helpers import DIM, brute_force, data_record, make_doc, unit_rows


async def _fill(
    store: Store, dataset: Dataset, rng: np.random.Generator, docs: int, per_doc: int
) -> tuple[list[UUID], np.ndarray]:
    ids: list[UUID] = []
    rows = []
    for d in range(docs):
        doc = make_doc(dataset.id, [f"chunk {d}-{i}" for i in range(per_doc)], rng=rng)
        await store.write_document(doc.write)
        ids += [c.id for c in doc.chunks]
        rows.append(doc.vectors)
    return ids, np.vstack(rows)


async def test_vector_search_matches_brute_force(store: Store, dataset: Dataset) -> None:
    rng = np.random.default_rng(10)
    ids, rows = await _fill(store, dataset, rng, docs=4, per_doc=75)
    for query in unit_rows(rng, 15):
        hits = await store.vector_search("chunks", query, [dataset.id], 10)
        expected = brute_force(ids, rows, query, 10)
        assert [h.node_id for h in hits] == [e[0] for e in expected]
        assert [h.score for h in hits] == pytest.approx([e[1] for e in expected], abs=1e-5)


async def test_vector_search_is_cosine_for_unnormalised_vectors(
    store: Store, dataset: Dataset
) -> None:
    rng = np.random.default_rng(11)
    raw = rng.standard_normal((40, DIM)).astype(np.float32) * 3
    doc = make_doc(dataset.id, [f"c{i}" for i in range(40)], vectors=raw)
    await store.write_document(doc.write)
    query = rng.standard_normal(DIM).astype(np.float32) * 5
    hits = await store.vector_search("chunks", query, [dataset.id], 5)
    expected = brute_force([c.id for c in doc.chunks], raw, query, 5)
    assert [h.node_id for h in hits] == [e[0] for e in expected]
    assert [h.score for h in hits] == pytest.approx([e[1] for e in expected], abs=1e-5)


async def test_dataset_prefilter_never_leaks(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    rng = np.random.default_rng(12)
    ids_a, rows_a = await _fill(store, dataset, rng, docs=2, per_doc=50)
    ids_b, rows_b = await _fill(store, other_dataset, rng, docs=2, per_doc=50)
    for query in unit_rows(rng, 10):
        only_a = await store.vector_search("chunks", query, [dataset.id], 100)
        assert {h.node_id for h in only_a} == set(ids_a)
        only_b = await store.vector_search("chunks", query, [other_dataset.id], 7)
        assert [h.node_id for h in only_b] == [e[0] for e in brute_force(ids_b, rows_b, query, 7)]
        both = await store.vector_search("chunks", query, [dataset.id, other_dataset.id], 12)
        expected = brute_force(ids_a + ids_b, np.vstack([rows_a, rows_b]), query, 12)
        assert [h.node_id for h in both] == [e[0] for e in expected]


async def test_vector_search_edge_cases(store: Store, dataset: Dataset) -> None:
    rng = np.random.default_rng(13)
    ids, _rows = await _fill(store, dataset, rng, docs=1, per_doc=5)
    query = unit_rows(rng, 1)[0]
    assert await store.vector_search("chunks", query, [], 5) == []
    assert await store.vector_search("nothing-here", query, [dataset.id], 5) == []
    everything = await store.vector_search("chunks", query, [dataset.id], 50)
    assert sorted(h.node_id for h in everything) == sorted(ids)
    scores = [h.score for h in everything]
    assert scores == sorted(scores)


async def test_vector_collections_are_separate(store: Store, dataset: Dataset) -> None:
    rng = np.random.default_rng(14)
    doc = make_doc(dataset.id, ["one", "two"], rng=rng, collection="summaries")
    await store.write_document(doc.write)
    assert await store.vector_search("chunks", doc.vectors[0], [dataset.id], 5) == []
    hits = await store.vector_search("summaries", doc.vectors[0], [dataset.id], 1)
    assert hits[0].node_id == doc.chunks[0].id


async def test_node_vectors_reads_back_what_was_written(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    rng = np.random.default_rng(16)
    doc = make_doc(dataset.id, ["a", "b", "c"], rng=rng)
    other = make_doc(other_dataset.id, ["d"], rng=rng)
    await store.write_document(doc.write)
    await store.write_document(other.write)
    ids = [c.id for c in doc.chunks]
    found = await store.node_vectors("chunks", [*ids, other.chunks[0].id], [dataset.id])
    assert set(found) == set(ids)  # the other dataset's node is left out
    for chunk, row in zip(doc.chunks, doc.vectors, strict=True):
        np.testing.assert_allclose(found[chunk.id], row, rtol=1e-6)
        assert found[chunk.id].dtype == np.float32
    assert await store.node_vectors("summaries", ids, [dataset.id]) == {}
    assert await store.node_vectors("chunks", [], [dataset.id]) == {}
    assert await store.node_vectors("chunks", ids, []) == {}


async def test_replaced_vector_is_searched_with_its_new_value(
    store: Store, dataset: Dataset
) -> None:
    rng = np.random.default_rng(15)
    doc = make_doc(dataset.id, ["a", "b", "c"], rng=rng)
    await store.write_document(doc.write)
    target = doc.chunks[0]
    await store.vector_search("chunks", doc.vectors[0], [dataset.id], 1)  # warm any cache
    fresh = unit_rows(rng, 1)[0]
    again = DocumentWrite(
        data=data_record(dataset.id),
        nodes=[target],
        vectors=[VectorRow(target.id, "chunks", fresh)],
    )
    await store.write_document(again)
    hits = await store.vector_search("chunks", fresh, [dataset.id], 3)
    assert hits[0].node_id == target.id
    assert hits[0].score == pytest.approx(0.0, abs=1e-5)
    assert len(hits) == 3


async def test_another_store_object_sees_committed_writes(
    store: Store, dataset: Dataset, open_store: Callable[[], Store]
) -> None:
    rng = np.random.default_rng(16)
    reader = open_store()
    try:
        first = make_doc(dataset.id, ["first text"], rng=rng)
        await store.write_document(first.write)
        assert len(await reader.vector_search("chunks", first.vectors[0], [dataset.id], 5)) == 1
        second = make_doc(dataset.id, ["second text"], rng=rng)
        await store.write_document(second.write)
        hits = await reader.vector_search("chunks", second.vectors[0], [dataset.id], 5)
        assert hits[0].node_id == second.chunks[0].id
        assert len(hits) == 2
        await store.delete_data(first.data.id)
        hits = await reader.vector_search("chunks", first.vectors[0], [dataset.id], 5)
        assert [h.node_id for h in hits] == [second.chunks[0].id]
        assert len(await reader.lexical_search("chunks", "second", [dataset.id], 5)) == 1
    finally:
        await reader.close()


# --- lexical ---------------------------------------------------------------------------------


async def test_lexical_search_ranks_by_bm25(store: Store, dataset: Dataset) -> None:
    doc = make_doc(
        dataset.id,
        [
            "the quick brown fox jumps",
            "a slow brown dog sleeps",
            "quick quick fox fox runs",
            "nothing relevant here at all",
        ],
    )
    await store.write_document(doc.write)
    hits = await store.lexical_search("chunks", "quick fox", [dataset.id], 10)
    ids = [h.node_id for h in hits]
    assert set(ids) == {doc.chunks[0].id, doc.chunks[2].id}
    assert ids[0] == doc.chunks[2].id
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert len(await store.lexical_search("chunks", "brown", [dataset.id], 1)) == 1


async def test_lexical_search_ignores_case_and_diacritics(store: Store, dataset: Dataset) -> None:
    doc = make_doc(dataset.id, ["Crème brûlée at the CAFÉ", "plain water"])
    await store.write_document(doc.write)
    for query in ("creme", "BRULEE", "café", "Cafe"):
        hits = await store.lexical_search("chunks", query, [dataset.id], 5)
        assert [h.node_id for h in hits] == [doc.chunks[0].id], query


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '"unbalanced quote',
        "*",
        "fox*",
        "NEAR(",
        "NEAR(fox dog)",
        "a:b",
        "text:fox",
        "-",
        "-fox",
        "(",
        "fox)",
        "fox AND",
        "OR",
        "NOT fox",
        "^fox",
        "fox + dog",
        "'; DROP TABLE nodes; --",
        "{fox dog}",
        "fox\x00dog",
    ],
)
async def test_lexical_search_accepts_hostile_text(
    store: Store, dataset: Dataset, query: str
) -> None:
    doc = make_doc(dataset.id, ["the fox and the dog", "b a text near or not"])
    await store.write_document(doc.write)
    hits = await store.lexical_search("chunks", query, [dataset.id], 5)
    assert all(isinstance(h.node_id, UUID) for h in hits)
    if "fox" in query:
        assert doc.chunks[0].id in {h.node_id for h in hits}


@pytest.mark.parametrize("query", ["", "   ", "!!!", '"*:-()', "— … ·"])
async def test_lexical_search_without_words_is_empty(
    store: Store, dataset: Dataset, query: str
) -> None:
    await store.write_document(make_doc(dataset.id, ["some words"]).write)
    assert await store.lexical_search("chunks", query, [dataset.id], 5) == []


async def test_lexical_search_prefilters_dataset_and_collection(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    mine = make_doc(dataset.id, ["shared word"])
    theirs = make_doc(other_dataset.id, ["shared word"])
    summary = make_doc(dataset.id, ["shared word"], collection="summaries")
    for doc in (mine, theirs, summary):
        await store.write_document(doc.write)
    hits = await store.lexical_search("chunks", "shared", [dataset.id], 10)
    assert [h.node_id for h in hits] == [mine.chunks[0].id]
    hits = await store.lexical_search("summaries", "shared", [dataset.id], 10)
    assert [h.node_id for h in hits] == [summary.chunks[0].id]
    both = await store.lexical_search("chunks", "shared", [dataset.id, other_dataset.id], 10)
    assert {h.node_id for h in both} == {mine.chunks[0].id, theirs.chunks[0].id}
    assert await store.lexical_search("chunks", "shared", [], 10) == []
    assert await store.lexical_search("missing", "shared", [dataset.id], 10) == []


async def test_lexical_text_is_replaced_on_rewrite(store: Store, dataset: Dataset) -> None:
    doc = make_doc(dataset.id, ["original wording"])
    await store.write_document(doc.write)
    node = doc.chunks[0]
    rewrite = DocumentWrite(
        data=data_record(dataset.id), nodes=[node], lexical={"chunks": [(node.id, "revised")]}
    )
    await store.write_document(rewrite)
    assert await store.lexical_search("chunks", "original", [dataset.id], 5) == []
    hits = await store.lexical_search("chunks", "revised", [dataset.id], 5)
    assert [h.node_id for h in hits] == [node.id]


async def test_lexical_scores_forget_what_was_deleted(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    """After forgetting items (and rewriting a text), BM25 scores are those of a store that
    never held them: the words' document frequencies follow every write and delete."""
    kept = ["apple pie recipe", "banana bread", "apple banana smoothie", "cherry tart"]
    gone = [f"apple orchard note {i}" for i in range(6)] + ["banana split", "plain words"]

    async def scores(ds: Dataset) -> list[float]:
        hits = await store.lexical_search("chunks", "apple banana cherry", [ds.id], 10)
        return sorted(round(h.score, 9) for h in hits)

    doomed = make_doc(dataset.id, gone)
    await store.write_document(doomed.write)
    survivor = make_doc(dataset.id, ["apple cherry draft", *kept[1:]])
    await store.write_document(survivor.write)
    first = survivor.chunks[0]
    rewrite = DocumentWrite(
        data=data_record(dataset.id), nodes=[first], lexical={"chunks": [(first.id, kept[0])]}
    )
    await store.write_document(rewrite)
    await store.delete_data(doomed.data.id)
    await store.delete_data(rewrite.data.id)  # the rewritten chunk stays: survivor supports it
    await store.write_document(make_doc(other_dataset.id, kept).write)
    assert len(await scores(dataset)) == 4
    assert await scores(dataset) == await scores(other_dataset)
