"""improve()'s derived graph data: owned nodes and edges, feedback weights, improve state.

Backend-agnostic: every test runs against each store of ``BACKENDS`` (see conftest.py), and the
``store`` fixture checks the integrity invariants after each test.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from uuid import UUID, uuid4

import pytest

from engramdb.errors import ConflictError, EngramValidationError, StorageError
from engramdb.models.records import Dataset, Edge, Node, User, stable_id, utcnow
from engramdb.models.sessions import EntryMark, QARecord
from engramdb.storage.base import (
    DerivedWrite,
    DocumentWrite,
    EntityMerge,
    FeedbackUpdate,
    NodeRewrite,
    Store,
)
from engramdb.storage.types import (
    GRAPH_CHANGE_READERS,
    MEMBER_CHANGE_READER,
    DocumentCounts,
    StageInputs,
    graph_change_prefix,
    member_change_key,
)
from tests.conformance._helpers import edge, entity, make_doc


def derived_node(dataset: Dataset, name: str, **fields: Any) -> Node:
    values: dict[str, Any] = {
        "id": stable_id("derived", dataset.id, name),
        "dataset_id": dataset.id,
        "type": "ContextBucket",
        "name": name,
        "text": f"bucket {name}",
        "properties": {"internal": True},
    }
    values.update(fields)
    return Node.model_validate(values)


def link(source: Node, target: Node, relation: str = "highlights", **props: Any) -> Edge:
    return Edge(
        id=stable_id("derived-edge", source.id, relation, target.id),
        dataset_id=source.dataset_id,
        source_id=source.id,
        target_id=target.id,
        relation=relation,
        properties=props,
    )


async def _doc_with_entities(store: Store, dataset: Dataset, *names: str) -> Any:
    ents = [entity(dataset.id, n) for n in names]
    doc = make_doc(dataset.id, ["alpha text", "beta text"], entities=ents)
    assert await store.write_document(doc.write)
    return doc


async def test_write_and_list_derived_nodes_and_edges(store: Store, dataset: Dataset) -> None:
    doc = await _doc_with_entities(store, dataset, "Ada", "Bob")
    bucket = derived_node(dataset, "b1")
    report = await store.write_derived(
        DerivedWrite(
            dataset_id=dataset.id,
            owner="global_context_index",
            nodes=[bucket],
            edges=[link(bucket, doc.entities[0], weight=0.7)],
        )
    )
    assert (report.nodes_written, report.edges_written) == (1, 1)
    got = await store.list_derived(dataset.id, "global_context_index")
    assert [n.id for n in got.nodes] == [bucket.id]
    assert got.nodes[0].properties["internal"] is True
    assert [e.target_id for e in got.edges] == [doc.entities[0].id]
    assert got.edges[0].properties == {"weight": 0.7}
    # another owner sees nothing; the node is an ordinary graph node for get_nodes
    assert (await store.list_derived(dataset.id, "preferences:x")).nodes == []
    assert [n.name for n in await store.get_nodes([bucket.id])] == ["b1"]


async def test_rewrite_updates_text_and_replace_deletes_stale(
    store: Store, dataset: Dataset
) -> None:
    a, b = derived_node(dataset, "a"), derived_node(dataset, "b")
    await store.write_derived(DerivedWrite(dataset.id, "idx", nodes=[a, b], edges=[link(a, b)]))
    a2 = a.model_copy(update={"text": "new text"})
    report = await store.write_derived(DerivedWrite(dataset.id, "idx", nodes=[a2], replace=True))
    assert report.nodes_deleted == 1
    got = await store.list_derived(dataset.id, "idx")
    assert [(n.name, n.text) for n in got.nodes] == [("a", "new text")]
    assert got.edges == []  # the edge touching the deleted node went with it


async def test_replace_types_limits_what_is_replaced(store: Store, dataset: Dataset) -> None:
    root = derived_node(dataset, "root", type="ContextRoot")
    bucket = derived_node(dataset, "b")
    await store.write_derived(DerivedWrite(dataset.id, "idx", nodes=[root, bucket]))
    await store.write_derived(
        DerivedWrite(dataset.id, "idx", nodes=[], replace=True, replace_types=["ContextBucket"])
    )
    assert [n.name for n in (await store.list_derived(dataset.id, "idx")).nodes] == ["root"]


async def test_delete_node_ids_only_touch_the_owner(store: Store, dataset: Dataset) -> None:
    mine, theirs = derived_node(dataset, "mine"), derived_node(dataset, "theirs")
    await store.write_derived(DerivedWrite(dataset.id, "me", nodes=[mine]))
    await store.write_derived(DerivedWrite(dataset.id, "them", nodes=[theirs]))
    await store.write_derived(DerivedWrite(dataset.id, "me", delete_node_ids=[mine.id, theirs.id]))
    assert (await store.list_derived(dataset.id, "me")).nodes == []
    assert [n.name for n in (await store.list_derived(dataset.id, "them")).nodes] == ["theirs"]


async def test_refuses_to_take_over_ingested_or_foreign_nodes(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    doc = await _doc_with_entities(store, dataset, "Ada")
    hijack = doc.entities[0].model_copy(update={"text": "overwritten"})
    with pytest.raises(ConflictError):
        await store.write_derived(DerivedWrite(dataset.id, "idx", nodes=[hijack]))
    assert (await store.get_nodes([hijack.id]))[0].text == "Ada"
    theirs = derived_node(dataset, "x")
    await store.write_derived(DerivedWrite(dataset.id, "them", nodes=[theirs]))
    with pytest.raises(ConflictError):
        await store.write_derived(DerivedWrite(dataset.id, "me", nodes=[theirs]))
    with pytest.raises(EngramValidationError):
        await store.write_derived(
            DerivedWrite(other_dataset.id, "idx", nodes=[derived_node(dataset, "y")])
        )


async def test_edge_to_missing_node_writes_nothing(store: Store, dataset: Dataset) -> None:
    a = derived_node(dataset, "a")
    ghost = derived_node(dataset, "ghost")
    with pytest.raises(StorageError):
        await store.write_derived(
            DerivedWrite(dataset.id, "idx", nodes=[a], edges=[link(a, ghost)])
        )
    assert (await store.list_derived(dataset.id, "idx")).nodes == []


async def test_anchored_node_is_forgotten_with_its_data_item(
    store: Store, dataset: Dataset
) -> None:
    doc = await _doc_with_entities(store, dataset, "Ada")
    anchored = derived_node(dataset, "doc-bucket")
    free = derived_node(dataset, "root", type="ContextRoot")
    await store.write_derived(
        DerivedWrite(
            dataset.id,
            "idx",
            nodes=[anchored, free],
            edges=[link(anchored, doc.entities[0]), link(free, anchored)],
            anchors={anchored.id: doc.data.id},
        )
    )
    await store.delete_data(doc.data.id)
    got = await store.list_derived(dataset.id, "idx")
    assert [n.name for n in got.nodes] == ["root"]
    assert got.edges == []
    assert (await store.check_integrity()).ok


async def test_forgetting_dataset_or_everything_removes_derived_data(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    for ds in (dataset, other_dataset):
        await store.write_derived(
            DerivedWrite(ds.id, "idx", nodes=[derived_node(ds, "n")], state={"k": "v"})
        )
    await store.delete_dataset(dataset.id)
    assert (await store.list_derived(dataset.id, "idx")).nodes == []
    assert await store.get_improve_state(dataset.id, "k") is None
    assert await store.get_improve_state(other_dataset.id, "k") == "v"
    await store.delete_everything()
    assert (await store.list_derived(other_dataset.id, "idx")).nodes == []
    assert await store.get_improve_state(other_dataset.id, "k") is None


async def test_derived_edge_goes_when_its_target_is_forgotten(
    store: Store, dataset: Dataset
) -> None:
    doc = await _doc_with_entities(store, dataset, "Ada")
    pref = derived_node(dataset, "pref", type="UserPreference")
    await store.write_derived(
        DerivedWrite(dataset.id, "pref", nodes=[pref], edges=[link(pref, doc.chunks[0], "prefers")])
    )
    await store.delete_data(doc.data.id)
    got = await store.list_derived(dataset.id, "pref")
    assert [n.name for n in got.nodes] == ["pref"] and got.edges == []


def _qa(user: User, dataset: Dataset, **fields: Any) -> QARecord:
    values: dict[str, Any] = {
        "id": uuid4(),
        "user_id": user.id,
        "session_id": "s1",
        "question": "q",
        "answer": "a",
        "dataset_ids": [dataset.id],
        "created_at": utcnow(),
    }
    values.update(fields)
    return QARecord.model_validate(values)


async def test_marks_commit_with_the_write_and_are_spent_once(
    store: Store, user: User, dataset: Dataset
) -> None:
    entry = await store.add_qa_entry(_qa(user, dataset))
    mark = EntryMark("qa", entry.id)
    node = derived_node(dataset, "p")
    report = await store.write_derived(
        DerivedWrite(dataset.id, "pref", nodes=[node], marks={"prefs": [mark]})
    )
    assert report.marks == 1
    with pytest.raises(ConflictError):
        await store.write_derived(
            DerivedWrite(
                dataset.id,
                "pref",
                nodes=[node.model_copy(update={"text": "twice"})],
                marks={"prefs": [mark]},
            )
        )
    assert (await store.get_nodes([node.id]))[0].text == "bucket p"  # rolled back
    assert await store.list_qa_entries(user.id, unmarked_by="prefs") == []


async def test_feedback_weights_move_toward_target_once_per_rating(
    store: Store, user: User, dataset: Dataset
) -> None:
    doc = await _doc_with_entities(store, dataset, "Ada")
    chunk, edge_id = doc.chunks[0], doc.write.edges[0].id
    entry = await store.add_qa_entry(_qa(user, dataset))
    rated = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=5, text=None, source="explicit"
    )
    update = FeedbackUpdate(
        mark=EntryMark("qa", rated.id, rated.rating_rev),
        target=1.0,
        node_ids=[chunk.id, uuid4()],
        edge_ids=[edge_id],
    )
    report = await store.apply_feedback_weights(dataset.id, "fw", [update], alpha=0.1)
    assert (report.ratings, report.nodes, report.edges) == (1, 1, 1)
    again = await store.apply_feedback_weights(dataset.id, "fw", [update], alpha=0.1)
    assert again.ratings == 0
    [node] = await store.get_nodes([chunk.id])
    assert node.feedback_weight == pytest.approx(0.55)  # 0.5 + 0.1 * (1.0 - 0.5)
    edges = {e.id: e for e in await store.list_edges([dataset.id])}
    assert edges[edge_id].feedback_weight == pytest.approx(0.55)
    # a changed rating is pending again and moves the weight from where it is
    rerated = await store.set_qa_feedback(
        user.id, "s1", entry.id, score=1, text=None, source="explicit"
    )
    down = FeedbackUpdate(
        mark=EntryMark("qa", rerated.id, rerated.rating_rev), target=0.0, node_ids=[chunk.id]
    )
    await store.apply_feedback_weights(dataset.id, "fw", [down], alpha=0.1)
    [node] = await store.get_nodes([chunk.id])
    assert node.feedback_weight == pytest.approx(0.495)


async def test_feedback_weights_stay_inside_the_dataset(
    store: Store, user: User, dataset: Dataset, other_dataset: Dataset
) -> None:
    doc = await _doc_with_entities(store, other_dataset, "Ada")
    entry = await store.add_qa_entry(_qa(user, dataset))
    update = FeedbackUpdate(EntryMark("qa", entry.id), 1.0, node_ids=[doc.chunks[0].id])
    report = await store.apply_feedback_weights(dataset.id, "fw", [update], alpha=0.5)
    assert report.nodes == 0
    assert (await store.get_nodes([doc.chunks[0].id]))[0].feedback_weight == 0.5


async def test_improve_state_and_fingerprint(store: Store, dataset: Dataset) -> None:
    assert await store.get_improve_state(dataset.id, "k") is None
    await store.set_improve_state(dataset.id, "k", "1")
    await store.set_improve_state(dataset.id, "k", "2")
    assert await store.get_improve_state(dataset.id, "k") == "2"

    empty = await store.graph_fingerprint(dataset.id)
    doc = await _doc_with_entities(store, dataset, "Ada")
    after_write = await store.graph_fingerprint(dataset.id)
    assert after_write != empty
    await store.write_derived(
        DerivedWrite(dataset.id, "idx", nodes=[derived_node(dataset, "b")], fingerprint_key="fp")
    )
    assert await store.graph_fingerprint(dataset.id) == after_write  # derived writes don't count
    assert await store.get_improve_state(dataset.id, "fp") == after_write
    await store.delete_data(doc.data.id)
    assert await store.graph_fingerprint(dataset.id) != after_write


async def test_entity_mentions(store: Store, dataset: Dataset) -> None:
    ada, bob = entity(dataset.id, "Ada"), entity(dataset.id, "Bob")
    first = make_doc(dataset.id, ["one", "two", "three"], entities=[ada])
    rel = Edge(
        id=uuid4(), dataset_id=dataset.id, source_id=ada.id, target_id=bob.id, relation="knows"
    )
    second = make_doc(dataset.id, ["four"], entities=[ada, bob], extra_edges=[rel])
    for doc in (first, second):
        # make_doc chains chunks only; attach them to their document like ingestion does
        document = Node(id=doc.data.id, dataset_id=dataset.id, type="Document", name="d")
        parts = [
            Edge(
                id=uuid4(),
                dataset_id=dataset.id,
                source_id=c.id,
                target_id=document.id,
                relation="is_part_of",
            )
            for c in doc.chunks
        ]
        write = doc.write
        # ingestion links chunks to entities with "contains" (make_doc says "mentions")
        edges = [
            e.model_copy(update={"relation": "contains", "id": stable_id(e.id, "contains")})
            if e.relation == "mentions"
            else e
            for e in write.edges
        ]
        await store.write_document(
            type(write)(
                data=write.data,
                nodes=[*write.nodes, document],
                edges=[*edges, *parts],
                vectors=write.vectors,
                lexical=write.lexical,
            )
        )
    got = {(m.data_id, m.entity_id): m.chunks for m in await store.entity_mentions(dataset.id)}
    assert got == {
        (first.data.id, ada.id): 3,
        (second.data.id, ada.id): 1,
        (second.data.id, bob.id): 1,
    }
    # limited to some documents (the incremental global context index reads only new ones)
    only = (await store.document_counts(dataset.id, [second.data.id])).mentions
    assert {(m.data_id, m.entity_id): m.chunks for m in only} == {
        (second.data.id, ada.id): 1,
        (second.data.id, bob.id): 1,
    }
    assert await store.data_ids(dataset.id) == sorted([first.data.id, second.data.id], key=str)
    # both counts of some documents in one read
    both = await store.document_counts(dataset.id, [second.data.id, first.data.id])
    assert sorted(both.mentions, key=lambda m: (str(m.data_id), str(m.entity_id))) == sorted(
        await store.entity_mentions(dataset.id), key=lambda m: (str(m.data_id), str(m.entity_id))
    )
    assert both.chunks == await store.chunk_counts(dataset.id) != {}
    assert await store.document_counts(dataset.id, []) == DocumentCounts([], {})


async def test_fact_edges_leave_out_structural_and_derived_edges(
    store: Store, dataset: Dataset
) -> None:
    ada, bob = entity(dataset.id, "Ada"), entity(dataset.id, "Bob")
    rel = Edge(
        id=uuid4(), dataset_id=dataset.id, source_id=ada.id, target_id=bob.id, relation="knows"
    )
    doc = make_doc(dataset.id, ["one"], entities=[ada, bob], extra_edges=[rel])
    await store.write_document(doc.write)
    bucket = derived_node(dataset, "b")
    await store.write_derived(
        DerivedWrite(dataset.id, "idx", nodes=[bucket], edges=[link(bucket, ada, "knows")])
    )
    facts = await store.fact_edges(dataset.id, exclude_relations=["mentions", "next"])
    assert [(e.relation, e.source_id, e.data_ids) for e in facts] == [
        ("knows", ada.id, [doc.data.id])
    ]


async def test_state_by_prefix_and_conditional_drops(store: Store, dataset: Dataset) -> None:
    for key in ("p.doc:1", "p.doc:2", "p.doc;", "p.docs", "q.doc:1"):
        await store.set_improve_state(dataset.id, key, key.upper())
    assert await store.get_improve_states(dataset.id, "p.doc:") == {
        "p.doc:1": "P.DOC:1",
        "p.doc:2": "P.DOC:2",
    }
    await store.write_derived(
        DerivedWrite(
            dataset.id,
            "idx",
            state={"p.doc:3": "three"},
            # dropped unconditionally, kept (the value moved on), dropped (still the value)
            drop_state={"p.doc:1": None, "p.doc:2": "stale", "q.doc:1": "Q.DOC:1"},
        )
    )
    assert await store.get_improve_states(dataset.id, "p.doc:") == {
        "p.doc:2": "P.DOC:2",
        "p.doc:3": "three",
    }
    assert await store.get_improve_states(dataset.id, "q.") == {}


async def test_writes_that_change_mentions_in_place_leave_change_notes(
    store: Store, dataset: Dataset
) -> None:
    """An extends write, a node rewrite and an entity merge note what they changed, for each
    reader; a new document notes only that it came, for the member reader."""
    ada, bob = entity(dataset.id, "Ada"), entity(dataset.id, "Bob")
    doc = make_doc(dataset.id, ["one", "two"], entities=[ada])
    assert await store.write_document(doc.write)
    prefixes = [graph_change_prefix(r) for r in GRAPH_CHANGE_READERS]
    came = {member_change_key(doc.data.id)}
    assert [set(await store.get_improve_states(dataset.id, p)) for p in prefixes] == [came, set()]

    later = DocumentWrite(data=doc.write.data, nodes=[bob], edges=[edge(doc.chunks[0], bob)])
    assert await store.write_document(dataclasses.replace(later, extends=True))
    await store.rewrite_nodes(dataset.id, [NodeRewrite(ada.id, "Ada, a mathematician", {})])
    await store.merge_entities(dataset.id, [EntityMerge(NodeRewrite(ada.id, "Ada", {}), [bob.id])])
    for prefix, member in zip(prefixes, (came, set()), strict=True):
        notes = await store.get_improve_states(dataset.id, prefix)
        assert set(notes) == {
            f"{prefix}d:{doc.data.id}",
            f"{prefix}e:{ada.id}",
            f"{prefix}e:{bob.id}",
            *member,
        }
    # each reader drops its own notes (while their stamps are the ones it read)
    mine = await store.get_improve_states(dataset.id, prefixes[0])
    await store.write_derived(DerivedWrite(dataset.id, "idx", drop_state=dict(mine)))
    assert await store.get_improve_states(dataset.id, prefixes[0]) == {}
    assert len(await store.get_improve_states(dataset.id, prefixes[1])) == 3


async def test_chunk_counts_and_facts_by_source_or_document(store: Store, dataset: Dataset) -> None:
    ada, bob, cy = (entity(dataset.id, n) for n in ("Ada", "Bob", "Cy"))

    def knows(a: Node, b: Node) -> Edge:
        return Edge(
            id=uuid4(), dataset_id=dataset.id, source_id=a.id, target_id=b.id, relation="knows"
        )

    first = make_doc(
        dataset.id, ["a", "b", "c"], entities=[ada, bob], extra_edges=[knows(ada, bob)]
    )
    second = make_doc(dataset.id, ["d"], entities=[bob, cy], extra_edges=[knows(bob, cy)])
    for doc in (first, second):
        assert await store.write_document(doc.write)
    assert await store.chunk_counts(dataset.id) == {first.data.id: 3, second.data.id: 1}
    some = await store.document_counts(dataset.id, [second.data.id])
    assert some.chunks == {second.data.id: 1}
    assert await store.document_counts(dataset.id, []) == DocumentCounts([], {})

    def facts(edges: list[Edge]) -> set[tuple[UUID, UUID]]:
        return {(e.source_id, e.target_id) for e in edges}

    structural = ["mentions", "next"]
    by_source = await store.fact_edges(
        dataset.id, exclude_relations=structural, source_ids=[bob.id]
    )
    assert facts(by_source) == {(bob.id, cy.id)}
    by_doc = await store.fact_edges(
        dataset.id, exclude_relations=structural, data_ids=[first.data.id]
    )
    assert facts(by_doc) == {(ada.id, bob.id)}
    assert by_doc[0].data_ids == [first.data.id]
    assert await store.fact_edges(dataset.id, source_ids=[]) == []
    assert await store.fact_edges(dataset.id, data_ids=[]) == []


async def test_stage_inputs_reads_a_key_a_prefix_and_the_members_held(
    store: Store, dataset: Dataset
) -> None:
    assert await store.stage_inputs(dataset.id, key="s.token", prefix="s.note:") == StageInputs(
        None, {}, set()
    )
    for key in ("s.token", "s.note:1", "s.note:2", "s.notes", "t.note:1"):
        await store.set_improve_state(dataset.id, key, key.upper())
    inputs = await store.stage_inputs(dataset.id, key="s.token", prefix="s.note:")
    assert inputs == StageInputs("S.TOKEN", {"s.note:1": "S.NOTE:1", "s.note:2": "S.NOTE:2"}, set())


async def test_every_data_item_that_comes_or_goes_is_noted_with_it(
    store: Store, dataset: Dataset
) -> None:
    """The global context index learns which documents came and went from member notes, which
    the writing transaction writes: a document written (and not one skipped as present), one
    deleted, and those of another dataset in their own dataset only."""
    prefix = graph_change_prefix(MEMBER_CHANGE_READER)

    async def members() -> StageInputs:
        return await store.stage_inputs(dataset.id, key="none", prefix=prefix)

    kept, gone = make_doc(dataset.id, ["one"]), make_doc(dataset.id, ["two"])
    for doc in (kept, gone):
        assert await store.write_document(doc.write)
    twin = make_doc(dataset.id, ["three"], content_hash=kept.data.content_hash)
    assert not await store.write_document(twin.write)
    first = await members()
    assert set(first.states) == {member_change_key(d.data.id) for d in (kept, gone)}
    assert first.present == {kept.data.id, gone.data.id}
    await store.delete_data(gone.data.id)
    after = await members()
    assert (
        after.states[member_change_key(gone.data.id)]
        != first.states[member_change_key(gone.data.id)]
    )  # a fresh stamp: the note of the write, once read, is not the note of the delete
    assert after.present == {kept.data.id}
    other = await store.get_or_create_dataset(dataset.owner_id, "elsewhere")
    await store.write_document(make_doc(other.id, ["four"]).write)
    assert set((await members()).states) == set(after.states)
