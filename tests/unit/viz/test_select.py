"""What a capped drawing keeps and the names it shows (engramdb.viz.select).

Issue 16: "when capping, keep the most important nodes and the edges among them — no orphan
ring"; "internal 'context of X' bucket nodes are hidden by default (an option shows them)";
"human names for documents".
"""

from __future__ import annotations

from uuid import UUID, uuid4

from engramdb.models.records import Edge, Node
from engramdb.viz.select import human_labels, select_graph

DS = uuid4()


def _node(name: str, *, type: str = "Entity", weight: float = 0.5, **props: object) -> Node:
    return Node(
        id=uuid4(), dataset_id=DS, type=type, name=name, importance_weight=weight, properties=props
    )


def _edge(a: Node, b: Node) -> Edge:
    return Edge(id=uuid4(), dataset_id=DS, source_id=a.id, target_id=b.id, relation="r")


def test_cap_keeps_the_most_important_nodes_and_only_edges_among_them() -> None:
    hub = _node("hub", weight=0.9)
    spokes = [_node(f"spoke {i}", weight=0.6) for i in range(5)]
    faint = [_node(f"faint {i}", weight=0.1) for i in range(20)]
    edges = [_edge(hub, s) for s in spokes] + [_edge(f, faint[0]) for f in faint[1:]]
    chosen = select_graph([*faint, *spokes, hub], edges, max_nodes=6, max_edges=100)
    assert {n.name for n in chosen.nodes} == {"hub", *(s.name for s in spokes)}
    kept = {n.id for n in chosen.nodes}
    assert chosen.edges and all(e.source_id in kept and e.target_id in kept for e in chosen.edges)
    # No orphan ring: every kept node still has an edge.
    touched = {e.source_id for e in chosen.edges} | {e.target_id for e in chosen.edges}
    assert touched == kept
    assert chosen.dropped_nodes == 20


def test_edge_cap_keeps_the_heaviest_edges() -> None:
    a, b, c = _node("a", weight=1.0), _node("b", weight=0.9), _node("c", weight=0.1)
    heavy, light = _edge(a, b), _edge(c, a)
    chosen = select_graph([a, b, c], [light, heavy], max_nodes=3, max_edges=1)
    assert chosen.edges == [heavy]


def test_internal_nodes_are_hidden_unless_asked_for() -> None:
    doc = _node("text_0123456789ab", type="Document")
    bucket = _node("context of text_0123456789ab", type="DocumentContext", internal=True)
    edges = [_edge(bucket, doc)]
    hidden = select_graph([doc, bucket], edges, max_nodes=10, max_edges=10)
    assert [n.name for n in hidden.nodes] == [doc.name] and hidden.internal_hidden == 1
    assert hidden.edges == []
    shown = select_graph([doc, bucket], edges, max_nodes=10, max_edges=10, include_internal=True)
    assert len(shown.nodes) == 2 and shown.edges == edges


def test_pasted_text_gets_human_names() -> None:
    doc = _node("text_0123456789ab", type="Document")
    chunk = Node(
        id=uuid4(),
        dataset_id=DS,
        type="Chunk",
        name="text_0123456789ab#0",
        text="Alice moved to Paris in 2010, while Bob has always lived in New York.",
        data_ids=[doc.id],
        properties={"chunk_index": 0},
    )
    summary = _node("summary of text_0123456789ab#0", type="Summary")
    bucket = _node("context of text_0123456789ab", type="DocumentContext", internal=True)
    named_file = _node("text_fedcba987654", type="Document", source_path="/notes/trip.md")
    plain = _node("report.pdf", type="Document")
    labels = human_labels([doc, chunk, summary, bucket, named_file, plain])
    assert labels[doc.id] == "“Alice moved to Paris in 2010, while…”"
    assert labels[chunk.id] == labels[doc.id]
    assert labels[summary.id] == f"summary of {labels[doc.id]}#0"
    assert labels[bucket.id] == f"context of {labels[doc.id]}"
    assert labels[named_file.id] == "trip.md"
    assert labels[plain.id] == "report.pdf"
    assert not any("text_" in label for label in labels.values())
    assert all(isinstance(k, UUID) for k in labels)
