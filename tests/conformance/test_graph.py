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


async def _hub(store: Store, dataset: Dataset, fans: int = 30) -> dict[str, Node]:
    """A hub contained in ``fans`` chunks, with one incoming and two outgoing facts."""
    hub, x, y, z = (entity(dataset.id, name) for name in ("hub", "x", "y", "z"))
    chunks = [entity(dataset.id, f"c{i}", type="Chunk") for i in range(fans)]
    edges = [edge(c, hub, "contains") for c in chunks]
    edges += [edge(x, hub, "knows"), edge(hub, y, "likes"), edge(hub, z, "likes")]
    edges.append(edge(hub, x, "is_a"))
    await store.write_document(
        DocumentWrite(data=data_record(dataset.id), nodes=[hub, x, y, z, *chunks], edges=edges)
    )
    return {"hub": hub, "x": x, "y": y, "z": z, "c0": chunks[0]}


async def test_incident_edges_by_direction_and_relation(store: Store, dataset: Dataset) -> None:
    n = await _hub(store, dataset)
    hub = n["hub"].id
    facts_in = await store.incident_edges(
        [hub], direction="in", exclude_relations=["contains", "is_a"]
    )
    assert [(e.source_id, e.relation) for e in facts_in] == [(n["x"].id, "knows")]
    facts_out = await store.incident_edges([hub], direction="out", exclude_relations=["is_a"])
    assert {(e.relation, e.target_id) for e in facts_out} == {
        ("likes", n["y"].id),
        ("likes", n["z"].id),
    }
    contained = await store.incident_edges([hub], direction="in", relations=["contains"])
    assert len(contained) == 30 and {e.relation for e in contained} == {"contains"}
    # the per-node cap, also per node when several are asked (and a repeated id counts once)
    capped = await store.incident_edges(
        [hub, n["c0"].id, hub], direction="in", relations=["contains"], limit_per_node=5
    )
    assert len(capped) == 5 and all(e.target_id == hub for e in capped)
    both = await store.incident_edges([n["c0"].id, hub], direction="out", limit_per_node=2)
    assert [e.source_id for e in both] == [n["c0"].id, hub, hub]  # grouped in the order asked
    assert await store.incident_edges([hub], direction="in", relations=[]) == []
    assert await store.incident_edges([hub], direction="in", limit_per_node=0) == []
    assert await store.incident_edges([], direction="out") == []
    assert await store.incident_edges([uuid4()], direction="out") == []


async def test_edges_between_pairs(store: Store, dataset: Dataset) -> None:
    n = await _hub(store, dataset)
    hub, x, y = n["hub"].id, n["x"].id, n["y"].id
    found = await store.edges_between([(hub, y), (x, hub), (hub, x), (hub, y)])
    assert [(e.source_id, e.relation, e.target_id) for e in found] == [
        (x, "knows", hub),  # insertion order, each edge once
        (hub, "likes", y),
        (hub, "is_a", x),
    ]
    without = await store.edges_between([(hub, x), (x, hub)], exclude_relations=["is_a"])
    assert [e.relation for e in without] == ["knows"]
    assert await store.edges_between([(y, hub)]) == []  # one direction only
    assert await store.edges_between([]) == []


async def test_reads_without_provenance_leave_data_ids_empty(
    store: Store, dataset: Dataset
) -> None:
    n = await _hub(store, dataset)
    hub = n["hub"].id
    (full,) = await store.get_nodes([hub])
    assert full.data_ids  # the document that wrote it
    (bare,) = await store.get_nodes([hub], provenance=False)
    assert bare.data_ids == [] and bare.model_dump(exclude={"data_ids"}) == full.model_dump(
        exclude={"data_ids"}
    )
    out = await store.incident_edges([hub], direction="out", provenance=False)
    assert out and all(e.data_ids == [] for e in out)
    assert all(e.data_ids for e in await store.incident_edges([hub], direction="out"))
    between = await store.edges_between([(n["x"].id, hub)], provenance=False)
    assert [e.relation for e in between] == ["knows"] and between[0].data_ids == []
