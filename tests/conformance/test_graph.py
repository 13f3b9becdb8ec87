"""Node reads and neighbourhood walks."""

from __future__ import annotations

from uuid import uuid4

from engramdb.models.records import Dataset, Node
from engramdb.storage.base import DocumentWrite, Store

from ._helpers import data_record, edge, entity, make_doc


async def _chain(store: Store, dataset: Dataset) -> dict[str, Node]:
    """a -> b <- c -> d, e isolated, plus a cycle b -> f -> b."""
    nodes = {name: entity(dataset.id, name) for name in "abcdef"}
    n = nodes
    edges = [
        edge(n["a"], n["b"]),
        edge(n["c"], n["b"]),
        edge(n["c"], n["d"]),
        edge(n["b"], n["f"], "loop"),
        edge(n["f"], n["b"], "loop"),
    ]
    await store.write_document(
        DocumentWrite(data=data_record(dataset.id), nodes=list(nodes.values()), edges=edges)
    )
    return nodes


async def test_get_nodes_keeps_order_and_skips_unknown(store: Store, dataset: Dataset) -> None:
    doc = make_doc(dataset.id, ["one", "two", "three"])
    await store.write_document(doc.write)
    wanted = [doc.chunks[2].id, uuid4(), doc.chunks[0].id]
    assert [n.id for n in await store.get_nodes(wanted)] == [doc.chunks[2].id, doc.chunks[0].id]
    assert await store.get_nodes([]) == []


async def test_list_and_count_nodes(store: Store, dataset: Dataset, other_dataset: Dataset) -> None:
    doc = make_doc(dataset.id, ["a", "b", "c"], entities=[entity(dataset.id, "E")])
    await store.write_document(doc.write)
    await store.write_document(make_doc(other_dataset.id, ["z"]).write)
    assert await store.count_nodes([dataset.id]) == 4
    assert await store.count_nodes([dataset.id], type="Chunk") == 3
    assert await store.count_nodes([dataset.id, other_dataset.id]) == 5
    assert await store.count_nodes([]) == 0
    chunks = await store.list_nodes([dataset.id], type="Chunk")
    assert {n.id for n in chunks} == {c.id for c in doc.chunks}
    assert len(await store.list_nodes([dataset.id], limit=2)) == 2
    assert {n.dataset_id for n in await store.list_nodes([other_dataset.id])} == {other_dataset.id}
    assert await store.list_nodes([]) == []


async def test_neighbourhood_depth_one_follows_both_directions(
    store: Store, dataset: Dataset
) -> None:
    n = await _chain(store, dataset)
    sub = await store.neighbourhood([n["b"].id], depth=1)
    assert {x.name for x in sub.nodes} == {"a", "b", "c", "f"}
    assert {(e.source_id, e.target_id) for e in sub.edges} == {
        (n["a"].id, n["b"].id),
        (n["c"].id, n["b"].id),
        (n["b"].id, n["f"].id),
        (n["f"].id, n["b"].id),
    }


async def test_neighbourhood_depth_two(store: Store, dataset: Dataset) -> None:
    n = await _chain(store, dataset)
    sub = await store.neighbourhood([n["a"].id], depth=2)
    assert {x.name for x in sub.nodes} == {"a", "b", "c", "f"}
    sub3 = await store.neighbourhood([n["a"].id], depth=3)
    assert {x.name for x in sub3.nodes} == {"a", "b", "c", "d", "f"}
    assert len(sub3.edges) == 5
    assert sub.nodes[0].name == "a"  # nearest first


async def test_neighbourhood_bounds(store: Store, dataset: Dataset) -> None:
    n = await _chain(store, dataset)
    b = n["b"].id
    only = await store.neighbourhood([b], depth=0)
    assert [x.name for x in only.nodes] == ["b"] and only.edges == []
    limited = await store.neighbourhood([b], depth=2, limit=2)
    assert len(limited.nodes) == 2
    assert limited.nodes[0].name == "b"
    isolated = await store.neighbourhood([n["e"].id], depth=3)
    assert [x.name for x in isolated.nodes] == ["e"]
    unknown = await store.neighbourhood([uuid4()], depth=2)
    assert unknown.nodes == [] and unknown.edges == []
    assert (await store.neighbourhood([], depth=2)).nodes == []
