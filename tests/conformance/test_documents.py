"""write_document, dedupe, upserts, provenance-based deletion."""

from __future__ import annotations

import dataclasses
from uuid import uuid4

import numpy as np
import pytest

from engramdb.errors import EngramError
from engramdb.models.records import Dataset, Edge, Node, NodeType, User
from engramdb.storage.base import DeleteReport, DocumentWrite, Store, VectorRow

from ._helpers import DIM, data_record, edge, entity, make_doc, unit_rows


async def _nothing_of(store: Store, doc: DocumentWrite, dataset: Dataset) -> None:
    """Assert that no trace of ``doc`` is stored."""
    assert await store.get_data(doc.data.id) is None
    assert await store.get_nodes([n.id for n in doc.nodes]) == []
    assert await store.count_nodes([dataset.id]) == 0
    query = np.ones(DIM, dtype=np.float32)
    assert await store.vector_search("chunks", query, [dataset.id], 10) == []
    assert await store.lexical_search("chunks", "alpha beta gamma", [dataset.id], 10) == []


async def test_write_and_read_back(store: Store, dataset: Dataset) -> None:
    record = data_record(
        dataset.id,
        name="notes.md",
        mime_type="text/markdown",
        importance_weight=0.9,
        external_metadata={"source": "unit", "n": [1, 2]},
        node_set=["work", "ideas"],
        size_bytes=42,
        chunk_count=2,
    )
    doc = make_doc(dataset.id, ["alpha one", "beta two"])
    write = DocumentWrite(
        data=record,
        nodes=doc.write.nodes,
        edges=doc.write.edges,
        vectors=doc.write.vectors,
        lexical=doc.write.lexical,
    )
    assert await store.write_document(write) is True
    stored = await store.get_data(record.id)
    assert stored == record
    assert await store.find_data_by_hash(dataset.id, record.content_hash) == record
    assert await store.list_data(dataset.id) == [record]
    nodes = await store.get_nodes([c.id for c in doc.chunks])
    assert [n.text for n in nodes] == ["alpha one", "beta two"]
    assert all(n.data_ids == [record.id] for n in nodes)


async def test_list_data_in_creation_order(store: Store, dataset: Dataset) -> None:
    ids = []
    for i in range(4):
        doc = make_doc(dataset.id, [f"text {i}"])
        await store.write_document(doc.write)
        ids.append(doc.data.id)
    assert [d.id for d in await store.list_data(dataset.id)] == ids


async def test_same_content_hash_is_not_written_twice(store: Store, dataset: Dataset) -> None:
    first = make_doc(dataset.id, ["alpha"], content_hash="same")
    assert await store.write_document(first.write) is True
    stored = await store.get_data(first.data.id)
    second = make_doc(dataset.id, ["beta"], content_hash="same")
    second_write = DocumentWrite(
        data=second.data.model_copy(update={"importance_weight": 1.0}),
        nodes=second.write.nodes,
        edges=second.write.edges,
        vectors=second.write.vectors,
        lexical=second.write.lexical,
    )
    assert await store.write_document(second_write) is False
    assert await store.get_data(second.data.id) is None
    assert await store.get_data(first.data.id) == stored
    assert await store.get_nodes([c.id for c in second.chunks]) == []
    assert await store.lexical_search("chunks", "beta", [dataset.id], 5) == []
    assert await store.count_nodes([dataset.id]) == 1


async def test_same_hash_in_another_dataset_is_written(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    assert await store.write_document(make_doc(dataset.id, ["a"], content_hash="h").write)
    assert await store.write_document(make_doc(other_dataset.id, ["a"], content_hash="h").write)


async def test_edge_to_missing_node_writes_nothing(store: Store, dataset: Dataset) -> None:
    ghost = Node(id=uuid4(), dataset_id=dataset.id, type="Entity", name="ghost")
    doc = make_doc(dataset.id, ["alpha", "beta"])
    bad = DocumentWrite(
        data=doc.data,
        nodes=doc.write.nodes,
        edges=[*doc.write.edges, edge(doc.chunks[0], ghost)],
        vectors=doc.write.vectors,
        lexical=doc.write.lexical,
    )
    with pytest.raises(EngramError):
        await store.write_document(bad)
    await _nothing_of(store, bad, dataset)
    # The same document without the bad edge goes through afterwards.
    assert await store.write_document(doc.write) is True


async def test_vector_of_missing_node_writes_nothing(store: Store, dataset: Dataset) -> None:
    doc = make_doc(dataset.id, ["alpha", "gamma"])
    stray = VectorRow(uuid4(), "chunks", np.ones(DIM, dtype=np.float32))
    bad = DocumentWrite(
        data=doc.data,
        nodes=doc.write.nodes,
        edges=doc.write.edges,
        vectors=[*doc.write.vectors, stray],
        lexical=doc.write.lexical,
    )
    with pytest.raises(EngramError):
        await store.write_document(bad)
    await _nothing_of(store, bad, dataset)


async def test_full_text_of_missing_node_writes_nothing(store: Store, dataset: Dataset) -> None:
    doc = make_doc(dataset.id, ["alpha"])
    bad = DocumentWrite(
        data=doc.data,
        nodes=doc.write.nodes,
        edges=doc.write.edges,
        vectors=doc.write.vectors,
        lexical={"chunks": [*doc.write.lexical["chunks"], (uuid4(), "beta")]},
    )
    with pytest.raises(EngramError):
        await store.write_document(bad)
    await _nothing_of(store, bad, dataset)


async def test_data_id_reused_with_other_hash_writes_nothing(
    store: Store, dataset: Dataset
) -> None:
    first = make_doc(dataset.id, ["alpha"])
    await store.write_document(first.write)
    second = make_doc(dataset.id, ["beta"])
    clash = DocumentWrite(
        data=second.data.model_copy(update={"id": first.data.id}),
        nodes=second.write.nodes,
        vectors=second.write.vectors,
        lexical=second.write.lexical,
    )
    with pytest.raises(EngramError):
        await store.write_document(clash)
    assert await store.get_nodes([c.id for c in second.chunks]) == []
    assert await store.lexical_search("chunks", "beta", [dataset.id], 5) == []


async def test_upsert_takes_new_values_keeps_weights_and_merges_provenance(
    store: Store, dataset: Dataset
) -> None:
    rng = np.random.default_rng(1)
    old = entity(dataset.id, "Ada", text="old", importance_weight=0.2, feedback_weight=0.9)
    new = old.model_copy(
        update={
            "text": "new",
            "properties": {"born": 1815},
            "importance_weight": 0.7,
            "feedback_weight": 0.1,
        }
    )
    v_old, v_new = unit_rows(rng, 2)
    first = make_doc(dataset.id, ["one"], entities=[old], entity_vectors=v_old[None, :])
    second = make_doc(dataset.id, ["two"], entities=[new], entity_vectors=v_new[None, :])
    assert await store.write_document(first.write)
    assert await store.write_document(second.write)
    (stored,) = await store.get_nodes([old.id])
    assert stored.text == "new"
    assert stored.properties == {"born": 1815}
    # importance-weight.md: a later document does not re-weight an entity it mentions again
    assert stored.importance_weight == pytest.approx(0.2)
    assert stored.feedback_weight == pytest.approx(0.9)
    assert sorted(stored.data_ids) == sorted([first.data.id, second.data.id])
    # The entity's vector was replaced, not duplicated.
    hits = await store.vector_search("entities", v_new, [dataset.id], 5)
    assert [h.node_id for h in hits] == [old.id]
    assert hits[0].score == pytest.approx(0.0, abs=1e-5)
    assert len(await store.lexical_search("entities", "ada", [dataset.id], 5)) == 1


async def test_an_entity_type_node_takes_the_weight_of_the_last_ingest(
    store: Store, dataset: Dataset
) -> None:
    """importance-weight.md: the EntityType nodes "are shared rather than per-document, and each
    ingest rewrites the one it uses"."""
    kind = entity(dataset.id, "person", type=NodeType.ENTITY_TYPE.value, importance_weight=0.7)
    again = kind.model_copy(update={"importance_weight": 0.3})
    await store.write_document(DocumentWrite(data=data_record(dataset.id), nodes=[kind]))
    await store.write_document(DocumentWrite(data=data_record(dataset.id), nodes=[again]))
    (stored,) = await store.get_nodes([kind.id])
    assert stored.importance_weight == pytest.approx(0.3)


async def test_upserted_edge_keeps_feedback_and_merges_provenance(
    store: Store, dataset: Dataset
) -> None:
    a, b = entity(dataset.id, "A"), entity(dataset.id, "B")
    link = edge(a, b, "knows").model_copy(update={"feedback_weight": 0.8})
    first = DocumentWrite(data=data_record(dataset.id), nodes=[a, b], edges=[link])
    relinked = link.model_copy(update={"properties": {"since": 2020}, "feedback_weight": 0.1})
    second = DocumentWrite(data=data_record(dataset.id), nodes=[a, b], edges=[relinked])
    await store.write_document(first)
    await store.write_document(second)
    sub = await store.neighbourhood([a.id], depth=1)
    (stored,) = sub.edges
    assert stored.properties == {"since": 2020}
    assert stored.feedback_weight == pytest.approx(0.8)
    assert sorted(stored.data_ids) == sorted([first.data.id, second.data.id])


async def test_delete_data_keeps_what_another_item_supports(store: Store, dataset: Dataset) -> None:
    rng = np.random.default_rng(2)
    shared, only_a = entity(dataset.id, "Shared"), entity(dataset.id, "OnlyA")
    doc_a = make_doc(dataset.id, ["apple pie", "apple tart"], rng=rng, entities=[shared, only_a])
    doc_b = make_doc(dataset.id, ["banana split"], rng=rng, entities=[shared])
    await store.write_document(doc_a.write)
    await store.write_document(doc_b.write)

    report = await store.delete_data(doc_a.data.id)
    # 2 chunks + OnlyA; 1 'next' edge + 2x2 'mentions' edges; 3 vectors; 3 full-text rows.
    assert report == DeleteReport(data_records=1, nodes=3, edges=5, vectors=3, lexical_rows=3)
    assert await store.get_data(doc_a.data.id) is None
    assert await store.get_nodes([c.id for c in doc_a.chunks] + [only_a.id]) == []
    (kept,) = await store.get_nodes([shared.id])
    assert kept.data_ids == [doc_b.data.id]
    assert await store.lexical_search("chunks", "apple", [dataset.id], 5) == []
    assert await store.lexical_search("entities", "onlya", [dataset.id], 5) == []
    assert len(await store.lexical_search("entities", "shared", [dataset.id], 5)) == 1
    hits = await store.vector_search("chunks", doc_a.vectors[0], [dataset.id], 10)
    assert [h.node_id for h in hits] == [doc_b.chunks[0].id]
    entity_hits = await store.vector_search("entities", doc_a.vectors[0], [dataset.id], 10)
    assert [h.node_id for h in entity_hits] == [shared.id]
    sub = await store.neighbourhood([shared.id], depth=1)
    assert {n.id for n in sub.nodes} == {shared.id, doc_b.chunks[0].id}

    report_b = await store.delete_data(doc_b.data.id)
    assert report_b.nodes == 2 and report_b.vectors == 2
    assert await store.count_nodes([dataset.id]) == 0


async def test_delete_data_removes_an_edge_only_it_supports(store: Store, dataset: Dataset) -> None:
    a, b = entity(dataset.id, "A"), entity(dataset.id, "B")
    doc_a = DocumentWrite(data=data_record(dataset.id), nodes=[a, b])
    link = edge(a, b, "likes")
    doc_b = DocumentWrite(data=data_record(dataset.id), nodes=[a], edges=[link])
    await store.write_document(doc_a)
    await store.write_document(doc_b)
    report = await store.delete_data(doc_b.data.id)
    assert (report.nodes, report.edges) == (0, 1)
    sub = await store.neighbourhood([a.id], depth=1)
    assert {n.id for n in sub.nodes} == {a.id}
    assert sub.edges == []


async def test_delete_unknown_data_is_an_empty_report(store: Store, dataset: Dataset) -> None:
    assert await store.delete_data(uuid4()) == DeleteReport()


async def test_delete_dataset_leaves_other_datasets_alone(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    rng = np.random.default_rng(3)
    doomed = make_doc(dataset.id, ["cherry", "plum"], rng=rng, entities=[entity(dataset.id, "X")])
    kept = make_doc(other_dataset.id, ["cherry", "pear"], rng=rng)
    await store.write_document(doomed.write)
    await store.write_document(kept.write)
    await store.start_run(dataset.id, "remember")
    kept_run = await store.start_run(other_dataset.id, "remember")

    report = await store.delete_dataset(dataset.id)
    assert report == DeleteReport(data_records=1, nodes=3, edges=3, vectors=3, lexical_rows=3)
    assert await store.get_dataset(dataset.id) is None
    assert await store.list_data(dataset.id) == []
    assert await store.count_nodes([dataset.id]) == 0
    assert await store.list_runs([dataset.id]) == []
    assert await store.vector_search("chunks", doomed.vectors[0], [dataset.id], 5) == []

    assert await store.get_dataset(other_dataset.id) == other_dataset
    assert await store.list_data(other_dataset.id) == [kept.data]
    assert await store.count_nodes([other_dataset.id]) == 2
    assert [r.id for r in await store.list_runs([other_dataset.id])] == [kept_run.id]
    hits = await store.lexical_search("chunks", "cherry", [dataset.id, other_dataset.id], 5)
    assert [h.node_id for h in hits] == [kept.chunks[0].id]
    vec = await store.vector_search("chunks", kept.vectors[1], [other_dataset.id], 1)
    assert vec[0].node_id == kept.chunks[1].id


async def test_delete_dataset_with_shared_entities_in_bulk(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    """forget of a dataset deletes every row of it by its id (issue 17: set-based deletes):
    entities several documents support go with it, the store stays consistent."""
    rng = np.random.default_rng(5)
    shared = entity(dataset.id, "Shared")
    docs = [
        make_doc(dataset.id, [f"text {i} alpha", f"text {i} beta"], rng=rng, entities=[shared])
        for i in range(3)
    ]
    for doc in docs:
        await store.write_document(doc.write)
    kept = make_doc(
        other_dataset.id, ["kept alpha"], rng=rng, entities=[entity(other_dataset.id, "Shared")]
    )
    await store.write_document(kept.write)
    await store.set_improve_state(dataset.id, "some.key", "value")

    report = await store.delete_dataset(dataset.id)
    assert (report.data_records, report.nodes) == (3, 7)  # 6 chunks and the shared entity
    assert report.vectors == 7 and report.lexical_rows == 7  # the entity is embedded too
    assert await store.count_nodes([dataset.id]) == 0
    assert await store.get_improve_state(dataset.id, "some.key") is None
    assert await store.data_ids(dataset.id) == []
    assert await store.count_nodes([other_dataset.id]) == 2
    assert await store.data_ids(other_dataset.id) == [kept.data.id]
    assert (await store.check_integrity()).ok


@pytest.mark.parametrize(
    ("doomed_chunks", "kept_chunks"), [(12, 2), (2, 12)], ids=["most-of-the-store", "small-part"]
)
async def test_delete_dataset_is_exact_about_other_datasets_rows(
    store: Store, dataset: Dataset, other_dataset: Dataset, doomed_chunks: int, kept_chunks: int
) -> None:
    """forget of a dataset in bulk (issue 17), whether it is most of the store or a small part:
    another dataset's entity its data also supports stays (with its other provenance), one only
    its data supports goes, and so do other datasets' edges touching its nodes."""
    rng = np.random.default_rng(8)
    doomed, other = dataset.id, other_dataset.id
    kept, lent, mine = entity(other, "Kept"), entity(other, "Lent"), entity(doomed, "Mine")
    kept_doc = make_doc(other, [f"pear {i}" for i in range(kept_chunks)], rng=rng, entities=[kept])
    await store.write_document(kept_doc.write)
    doomed_doc = make_doc(
        doomed,
        [f"plum {i}" for i in range(doomed_chunks)],
        rng=rng,
        entities=[mine, kept, lent],
        extra_edges=[edge(kept, mine, "likes")],  # the other dataset's edge, in this document
    )
    await store.write_document(doomed_doc.write)
    late = make_doc(other, ["pear late"], rng=rng, extra_edges=[edge(kept, mine, "knows")])
    await store.write_document(late.write)

    report = await store.delete_dataset(doomed)
    assert (report.data_records, report.nodes) == (1, doomed_chunks + 2)  # + Mine and Lent
    (still,) = await store.get_nodes([kept.id])
    assert still.data_ids == [kept_doc.data.id]
    assert await store.get_nodes([lent.id, mine.id, *(c.id for c in doomed_doc.chunks)]) == []
    assert await store.lexical_search("entities", "lent", [other], 5) == []
    assert [h.node_id for h in await store.lexical_search("entities", "kept", [other], 5)] == [
        kept.id
    ]
    assert await store.lexical_search("chunks", "plum", [doomed, other], 5) == []
    assert len(await store.lexical_search("chunks", "pear", [other], 50)) == kept_chunks + 1
    entity_hits = await store.vector_search("entities", unit_rows(rng, 1)[0], [other], 10)
    assert [h.node_id for h in entity_hits] == [kept.id]
    sub = await store.neighbourhood([kept.id], depth=1)
    assert {n.id for n in sub.nodes} == {kept.id, *(c.id for c in kept_doc.chunks)}
    assert await store.count_nodes([other]) == kept_chunks + 2
    assert sorted(await store.data_ids(other), key=str) == sorted(
        [kept_doc.data.id, late.data.id], key=str
    )
    integrity = await store.check_integrity()
    assert integrity.ok, integrity.violations


async def test_delete_unknown_dataset_is_an_empty_report(store: Store) -> None:
    assert await store.delete_dataset(uuid4()) == DeleteReport()


async def test_dataset_name_can_be_reused_after_delete(
    store: Store, user: User, dataset: Dataset
) -> None:
    await store.write_document(make_doc(dataset.id, ["x"]).write)
    await store.delete_dataset(dataset.id)
    again = await store.get_or_create_dataset(user.id, dataset.name)
    assert again.id != dataset.id
    assert await store.count_nodes([again.id]) == 0


async def test_delete_everything_keeps_users(
    store: Store, user: User, dataset: Dataset, other_dataset: Dataset
) -> None:
    rng = np.random.default_rng(4)
    first = make_doc(dataset.id, ["kiwi"], rng=rng)
    await store.write_document(first.write)
    await store.write_document(make_doc(other_dataset.id, ["lime"], rng=rng).write)
    await store.start_run(dataset.id, "remember")
    await store.delete_everything()
    assert await store.list_datasets() == []
    assert await store.get_default_user() == user
    assert await store.count_nodes([dataset.id, other_dataset.id]) == 0
    assert await store.vector_search("chunks", first.vectors[0], [dataset.id], 5) == []
    assert await store.lexical_search("chunks", "kiwi lime", [dataset.id], 5) == []
    fresh = await store.get_or_create_dataset(user.id, "main")
    assert await store.write_document(make_doc(fresh.id, ["kiwi"], content_hash="h").write)


async def test_nodes_of_two_documents_can_be_linked(store: Store, dataset: Dataset) -> None:
    a = entity(dataset.id, "A")
    await store.write_document(DocumentWrite(data=data_record(dataset.id), nodes=[a]))
    b = entity(dataset.id, "B")
    link: Edge = edge(b, a, "refers")
    await store.write_document(DocumentWrite(data=data_record(dataset.id), nodes=[b], edges=[link]))
    sub = await store.neighbourhood([a.id], depth=1)
    assert {n.id for n in sub.nodes} == {a.id, b.id}


async def test_failure_late_in_the_write_leaves_nothing(store: Store, dataset: Dataset) -> None:
    doc = make_doc(dataset.id, ["alpha", "beta"])
    broken = doc.write.edges[0].model_copy(update={"properties": {"bad": object()}})
    bad = DocumentWrite(
        data=doc.data,
        nodes=doc.write.nodes,
        edges=[broken],
        vectors=doc.write.vectors,
        lexical=doc.write.lexical,
    )
    with pytest.raises(EngramError):
        await store.write_document(bad)
    await _nothing_of(store, bad, dataset)


async def test_extends_adds_to_a_stored_document_and_deletes_with_it(
    store: Store, dataset: Dataset
) -> None:
    """DocumentWrite(extends=True): what a queued extraction adds to a stored document (the
    record is looked up, not written), with vectors and provenance; gone with the document."""
    doc = make_doc(dataset.id, ["alpha beta gamma"])
    assert await store.write_document(doc.write) is True
    ada = entity(dataset.id, "Ada")
    vector = unit_rows(np.random.default_rng(3), 1)[0]
    extension = DocumentWrite(
        data=doc.data,
        nodes=[ada],
        edges=[edge(doc.chunks[0], ada, "contains")],
        vectors=[VectorRow(ada.id, "entities", vector)],
        extends=True,
    )
    assert await store.write_document(extension) is True
    (stored,) = await store.get_nodes([ada.id])
    assert stored.data_ids == [doc.data.id]
    assert await store.list_data(dataset.id) == [doc.data]  # no second record
    hits = await store.vector_search("entities", vector, [dataset.id], 1)
    assert [h.node_id for h in hits] == [ada.id]
    await store.delete_data(doc.data.id)
    assert await store.get_nodes([ada.id]) == []


async def test_extends_of_a_forgotten_document_writes_nothing(
    store: Store, dataset: Dataset
) -> None:
    doc = make_doc(dataset.id, ["alpha beta gamma"])
    ada = entity(dataset.id, "Ada")
    extension = DocumentWrite(data=doc.data, nodes=[ada], extends=True)
    assert await store.write_document(extension) is False
    assert await store.get_nodes([ada.id]) == []
    assert await store.get_data(doc.data.id) is None


async def test_a_large_document_is_stored_whole(store: Store, dataset: Dataset) -> None:
    """Hundreds of rows of every kind in one document (the batched write path), entities met
    again by a second document, and a node given twice (its last values count)."""
    rng = np.random.default_rng(5)
    people = [entity(dataset.id, f"Person {i}") for i in range(40)]
    texts = [f"chunk {i} word{i} shared text" for i in range(300)]
    first = make_doc(dataset.id, texts, rng=rng, entities=people[:4])
    again = people[0].model_copy(update={"text": "Person 0, met again"})
    write = dataclasses.replace(first.write, nodes=[*first.write.nodes, again])
    assert await store.write_document(write) is True
    assert (await store.get_nodes([people[0].id]))[0].text == "Person 0, met again"
    second = make_doc(dataset.id, ["a later chunk"], rng=rng, entities=people)
    assert await store.write_document(second.write) is True
    assert await store.count_nodes([dataset.id]) == 300 + 40 + 1
    stored = await store.get_nodes([c.id for c in first.chunks])
    assert [n.text for n in stored] == texts
    assert (await store.get_nodes([people[0].id]))[0].text == "Person 0"  # the second doc's
    shared = (await store.get_nodes([people[1].id]))[0]
    assert set(shared.data_ids) == {first.data.id, second.data.id}
    hits = await store.lexical_search("chunks", "word217", [dataset.id], 5)
    assert [h.node_id for h in hits] == [first.chunks[217].id]
    nearest = await store.vector_search("chunks", first.vectors[123], [dataset.id], 1)
    assert [h.node_id for h in nearest] == [first.chunks[123].id]
    sub = await store.neighbourhood([first.chunks[0].id], depth=1, limit=1000)
    assert {n.id for n in sub.nodes} >= {first.chunks[1].id, *(p.id for p in people[:4])}
    report = await store.delete_data(first.data.id)
    assert report.nodes == 300 and report.vectors == 300 and report.lexical_rows == 300
    assert await store.count_nodes([dataset.id]) == 1 + 40


async def test_replaces_swaps_a_stored_document_in_one_write(
    store: Store, dataset: Dataset
) -> None:
    """A rebuild (``remember(incremental_loading=False)``): the new copy of the same content
    goes in and the old one, with what only it supported, goes out, in the same write."""
    rng = np.random.default_rng(5)
    shared, only_old = entity(dataset.id, "Shared"), entity(dataset.id, "OnlyOld")
    old = make_doc(
        dataset.id, ["apple pie"], rng=rng, entities=[shared, only_old], content_hash="h"
    )
    other = make_doc(dataset.id, ["banana split"], rng=rng, entities=[shared])
    await store.write_document(old.write)
    await store.write_document(other.write)
    new = make_doc(dataset.id, ["apple crumble"], rng=rng, content_hash="h")
    assert await store.write_document(dataclasses.replace(new.write, replaces=old.data.id))
    assert await store.get_data(old.data.id) is None
    assert await store.find_data_by_hash(dataset.id, "h") == new.data
    assert await store.get_nodes([old.chunks[0].id, only_old.id]) == []
    (kept,) = await store.get_nodes([shared.id])
    assert kept.data_ids == [other.data.id]
    assert await store.lexical_search("chunks", "pie", [dataset.id], 5) == []
    assert len(await store.lexical_search("chunks", "crumble", [dataset.id], 5)) == 1
    assert (await store.check_integrity()).ok


async def test_a_failed_replacing_write_keeps_the_stored_document(
    store: Store, dataset: Dataset
) -> None:
    old = make_doc(dataset.id, ["alpha beta gamma"], content_hash="h")
    await store.write_document(old.write)
    ghost = Node(id=uuid4(), dataset_id=dataset.id, type="Entity", name="ghost")
    new = make_doc(dataset.id, ["delta"], content_hash="h")
    bad = dataclasses.replace(new.write, edges=[edge(new.chunks[0], ghost)], replaces=old.data.id)
    with pytest.raises(EngramError):
        await store.write_document(bad)
    assert await store.get_data(old.data.id) == old.data
    assert [n.text for n in await store.get_nodes([old.chunks[0].id])] == ["alpha beta gamma"]
    assert await store.get_data(new.data.id) is None
    # content another item holds: the replacing write is refused whole, the old one stays
    twin = make_doc(dataset.id, ["epsilon"], content_hash="h")
    unrelated = make_doc(dataset.id, ["zeta"], content_hash="z")
    await store.write_document(unrelated.write)
    with pytest.raises(EngramError, match="same content"):
        await store.write_document(dataclasses.replace(twin.write, replaces=unrelated.data.id))
    assert await store.get_data(unrelated.data.id) == unrelated.data
    assert await store.get_data(old.data.id) == old.data
