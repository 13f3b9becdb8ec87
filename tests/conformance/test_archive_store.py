"""The archive reads and the id-keeping dataset insert (ArchiveStore), alike on every backend."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import numpy as np
import pytest

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.records import Dataset, User
from engramdb.models.sessions import EntryMark, QARecord
from engramdb.storage.base import DerivedWrite, DocumentWrite, Store, VectorRow
from engramdb.storage.types import member_change_key
from tests.conformance._helpers import data_record, edge, entity


async def test_a_dataset_is_inserted_with_its_own_id_once(store: Store, user: User) -> None:
    wanted = Dataset(
        id=uuid4(),
        owner_id=user.id,
        name="moved",
        embedding_model="fake",
        embedding_dim=16,
        created_at=datetime(2024, 5, 1, 12, 30, 15, 123456, tzinfo=UTC),
    )
    assert await store.insert_dataset(wanted) == wanted
    assert await store.insert_dataset(wanted) == wanted  # idempotent
    assert await store.get_dataset(wanted.id) == wanted
    other = wanted.model_copy(update={"id": uuid4()})
    with pytest.raises(ConflictError, match="moved"):
        await store.insert_dataset(other)
    with pytest.raises(NotFoundError):
        await store.insert_dataset(other.model_copy(update={"owner_id": uuid4(), "name": "x"}))
    assert [d.id for d in await store.list_datasets(user.id)] == [wanted.id]


async def test_the_archive_graph_is_the_whole_dataset_sorted(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    record = data_record(dataset.id)
    nodes = [entity(dataset.id, name) for name in ("Owl", "Bat", "Heron")]
    rng = np.random.default_rng(3)
    vector = rng.standard_normal(16).astype(np.float32)
    await store.write_document(
        DocumentWrite(
            data=record,
            nodes=nodes,
            edges=[edge(nodes[0], nodes[1])],
            vectors=[VectorRow(nodes[0].id, "entities", vector)],
            lexical={"chunks": [(nodes[2].id, "Heron text")]},
        )
    )
    await store.write_document(DocumentWrite(data=data_record(other_dataset.id)))
    derived = entity(dataset.id, "Derived", properties={"internal": True})
    await store.write_derived(
        DerivedWrite(dataset.id, "owner-a", nodes=[derived], state={"watermark": "7"})
    )
    graph = await store.archive_graph(dataset.id)
    assert [n.id for n in graph.nodes] == sorted([*(n.id for n in nodes), derived.id], key=str)
    assert {n.id: n.data_ids for n in graph.nodes}[nodes[0].id] == [record.id]
    assert [e.id for e in graph.edges] == [edge(nodes[0], nodes[1]).id]
    assert graph.derived == [("node", derived.id, "owner-a")]
    # the document's write noted that it came (for the global context index), in its dataset
    assert [key for key, _ in graph.state] == [member_change_key(record.id), "watermark"]
    assert graph.state[1] == ("watermark", "7")
    assert graph.indexed == [
        ("lexical", nodes[2].id, "chunks"),
        ("vector", nodes[0].id, "entities"),
    ]
    (row,) = await store.archive_vectors(dataset.id)
    assert (row.node_id, row.collection) == (nodes[0].id, "entities")
    assert row.vector.dtype == np.float32 and np.array_equal(row.vector, vector)
    assert await store.archive_vectors(other_dataset.id) == []


async def test_marks_are_listed_by_entry(store: Store, user: User) -> None:
    entry = await store.add_qa_entry(
        QARecord(id=uuid4(), user_id=user.id, session_id="s", created_at=datetime.now(UTC))
    )
    assert await store.list_marks([entry.id]) == []
    await store.mark_session_entries("consumer-b", [EntryMark("qa", entry.id)])
    await store.mark_session_entries("consumer-a", [EntryMark("qa", entry.id, 0)])
    marks = await store.list_marks([entry.id, uuid4()])
    assert [(m.kind, m.entry_id, m.consumer, m.rating_rev) for m in marks] == [
        ("qa", entry.id, "consumer-a", 0),
        ("qa", entry.id, "consumer-b", 0),
    ]
    assert await store.list_marks([]) == []
