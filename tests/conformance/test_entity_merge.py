"""Graph edits: merging a duplicate entity into another, and rewriting a node's content.

Seed pinned (importance-weight.md): "The weight is set at ingestion time, so it applies to the
records written by that remember() call, and nothing rewrites it afterwards." -- a merge keeps
the survivor's stored weights and each re-pointed edge keeps its own.
"""

from __future__ import annotations

from uuid import UUID, uuid4

import numpy as np
import pytest

from engramdb.errors import EmbeddingMismatchError, EngramValidationError, NotFoundError
from engramdb.models.records import Dataset, Edge, Node
from engramdb.storage.base import EntityMerge, MergeReport, NodeRewrite, Store, VectorRow

from ._helpers import DIM, Doc, edge, entity, make_doc, unit_rows


def _survivor(node: Node, text: str | None = None, **properties: object) -> NodeRewrite:
    return NodeRewrite(node.id, text or node.text, {**node.properties, **properties})


async def _two_documents(store: Store, dataset: Dataset) -> tuple[Doc, Doc, dict[str, Node]]:
    """doc1 names "New York City" and "Sara"; doc2 names "NYC" and "Sara". Both state
    ``<person> visited <city>``; doc2 also says ``NYC same_as New York City``."""
    rng = np.random.default_rng(7)
    nyc_long = entity(dataset.id, "New York City", importance_weight=0.3, feedback_weight=0.6)
    nyc = entity(dataset.id, "NYC", importance_weight=0.9)
    sara = entity(dataset.id, "Sara")
    doc1 = make_doc(
        dataset.id,
        ["Sara visited New York City."],
        rng=rng,
        entities=[nyc_long, sara],
        extra_edges=[edge(sara, nyc_long, "visited")],
    )
    await store.write_document(doc1.write)
    visited = edge(sara, nyc, "visited").model_copy(update={"importance_weight": 0.9})
    doc2 = make_doc(
        dataset.id,
        ["Sara thinks NYC has the best bagels."],
        rng=rng,
        entities=[nyc, sara],
        extra_edges=[visited, edge(nyc, nyc_long, "same_as")],
    )
    await store.write_document(doc2.write)
    return doc1, doc2, {"long": nyc_long, "short": nyc, "sara": sara}


def _by_triple(edges: list[Edge]) -> dict[tuple[UUID, str, UUID], Edge]:
    return {(e.source_id, e.relation, e.target_id): e for e in edges}


async def test_merge_repoints_edges_unions_provenance_and_drops_the_duplicate(
    store: Store, dataset: Dataset
) -> None:
    doc1, doc2, n = await _two_documents(store, dataset)
    long, short, sara = n["long"], n["short"], n["sara"]

    report = await store.merge_entities(
        dataset.id,
        [EntityMerge(_survivor(long, "New York City: a city", aliases=["NYC"]), [short.id])],
    )

    assert report.entities_merged == 1
    assert await store.get_nodes([short.id]) == []
    [merged] = await store.get_nodes([long.id])
    assert set(merged.data_ids) == {doc1.data.id, doc2.data.id}
    assert merged.text == "New York City: a city"
    assert merged.properties["aliases"] == ["NYC"]
    assert (merged.importance_weight, merged.feedback_weight) == (0.3, 0.6)

    edges = _by_triple(await store.list_edges([dataset.id]))
    assert all(short.id not in (e.source_id, e.target_id) for e in edges.values())
    # doc2's chunk now mentions the survivor, supported by doc2 only, with its own weight
    mention = edges[(doc2.chunks[0].id, "mentions", long.id)]
    assert mention.data_ids == [doc2.data.id]
    # both documents stated "Sara visited <city>": one edge, both provenances, the weight kept
    visited = edges[(sara.id, "visited", long.id)]
    assert set(visited.data_ids) == {doc1.data.id, doc2.data.id}
    assert visited.importance_weight == 0.5
    # "NYC same_as New York City" would be a self-loop: dropped
    assert (long.id, "same_as", long.id) not in edges
    assert report.edges_moved == 1  # doc2's mention
    assert report.edges_dropped == 2  # "visited" (a duplicate), "same_as" (a self-loop)
    assert len(edges) == len(set(edges))


async def test_merge_removes_the_duplicate_from_vector_and_full_text_search(
    store: Store, dataset: Dataset
) -> None:
    _, doc2, n = await _two_documents(store, dataset)
    short = n["short"]
    query = doc2.write.vectors[-2].vector  # the vector written for "NYC"
    assert (await store.vector_search("entities", query, [dataset.id], 1))[0].node_id == short.id
    assert [h.node_id for h in await store.lexical_search("entities", "NYC", [dataset.id], 5)] == [
        short.id
    ]

    await store.merge_entities(dataset.id, [EntityMerge(_survivor(n["long"]), [short.id])])

    hits = await store.vector_search("entities", query, [dataset.id], 10)
    assert short.id not in {h.node_id for h in hits}
    assert await store.lexical_search("entities", "NYC", [dataset.id], 5) == []


@pytest.mark.parametrize("forget_first", ["absorbed_side", "survivor_side"])
async def test_forget_after_merge_deletes_exactly_what_only_that_document_supports(
    store: Store, dataset: Dataset, forget_first: str
) -> None:
    doc1, doc2, n = await _two_documents(store, dataset)
    long, sara = n["long"], n["sara"]
    await store.merge_entities(dataset.id, [EntityMerge(_survivor(long), [n["short"].id])])
    gone, kept = (doc2, doc1) if forget_first == "absorbed_side" else (doc1, doc2)

    await store.delete_data(gone.data.id)

    [merged] = await store.get_nodes([long.id])  # the other document still names the city
    assert merged.data_ids == [kept.data.id]
    edges = _by_triple(await store.list_edges([dataset.id]))
    assert (kept.chunks[0].id, "mentions", long.id) in edges
    assert (gone.chunks[0].id, "mentions", long.id) not in edges
    assert edges[(sara.id, "visited", long.id)].data_ids == [kept.data.id]

    await store.delete_data(kept.data.id)
    assert await store.get_nodes([long.id, sara.id]) == []
    assert await store.list_edges([dataset.id]) == []


async def test_merge_is_one_transaction(store: Store, dataset: Dataset) -> None:
    """A merge that fails part-way (here: the second cluster's vector has the wrong dimension)
    leaves every entity as it was."""
    _, _, n = await _two_documents(store, dataset)
    lone = entity(dataset.id, "Paris")
    await store.write_document(make_doc(dataset.id, ["Paris."], entities=[lone]).write)
    other = entity(dataset.id, "Sarah")
    await store.write_document(make_doc(dataset.id, ["Sarah."], entities=[other]).write)
    bad = np.ones(DIM + 3, dtype=np.float32)
    sara_rewrite = NodeRewrite(n["sara"].id, "Sara", {}, [VectorRow(n["sara"].id, "entities", bad)])
    before = await store.list_edges([dataset.id])

    with pytest.raises(EmbeddingMismatchError):
        await store.merge_entities(
            dataset.id,
            [
                EntityMerge(_survivor(n["long"]), [n["short"].id]),
                EntityMerge(sara_rewrite, [other.id]),
            ],
        )

    assert len(await store.get_nodes([n["short"].id, other.id])) == 2
    assert {e.id for e in await store.list_edges([dataset.id])} == {e.id for e in before}


async def test_merge_refuses_what_is_not_an_entity_of_the_dataset(
    store: Store, dataset: Dataset, other_dataset: Dataset
) -> None:
    doc1, _, n = await _two_documents(store, dataset)
    elsewhere = entity(other_dataset.id, "NYC")
    await store.write_document(make_doc(other_dataset.id, ["x"], entities=[elsewhere]).write)
    long = _survivor(n["long"])
    cases: list[tuple[type[Exception], list[EntityMerge]]] = [
        (EngramValidationError, [EntityMerge(long, [doc1.chunks[0].id])]),  # a chunk
        (EngramValidationError, [EntityMerge(long, [elsewhere.id])]),  # another dataset
        (EngramValidationError, [EntityMerge(long, [n["long"].id])]),  # itself
        (EngramValidationError, [EntityMerge(long, [n["short"].id, n["short"].id])]),
        (NotFoundError, [EntityMerge(long, [uuid4()])]),
    ]
    for error, merges in cases:
        with pytest.raises(error):
            await store.merge_entities(dataset.id, merges)
    assert len(await store.get_nodes([n["short"].id, doc1.chunks[0].id, elsewhere.id])) == 3
    assert await store.merge_entities(dataset.id, [EntityMerge(long, [])]) == MergeReport()


async def test_rewrite_nodes_replaces_text_properties_and_vectors(
    store: Store, dataset: Dataset
) -> None:
    _, _, n = await _two_documents(store, dataset)
    sara = n["sara"]
    vector = unit_rows(np.random.default_rng(3), 1)[0]

    written = await store.rewrite_nodes(
        dataset.id,
        [
            NodeRewrite(
                sara.id,
                "Sara: a traveller",
                {"description": "a traveller"},
                [VectorRow(sara.id, "entities", vector)],
            )
        ],
    )

    assert written == 1
    [node] = await store.get_nodes([sara.id])
    assert (node.text, node.properties, node.name) == (
        "Sara: a traveller",
        {"description": "a traveller"},
        "Sara",
    )
    assert (await store.vector_search("entities", vector, [dataset.id], 1))[0].node_id == sara.id
    with pytest.raises(NotFoundError):
        await store.rewrite_nodes(dataset.id, [NodeRewrite(uuid4(), "x", {})])
    wrong = VectorRow(sara.id, "entities", np.ones(DIM + 1, dtype=np.float32))
    with pytest.raises(EmbeddingMismatchError):
        await store.rewrite_nodes(dataset.id, [NodeRewrite(sara.id, "lost", {}, [wrong])])
    assert (await store.get_nodes([sara.id]))[0].text == "Sara: a traveller"
