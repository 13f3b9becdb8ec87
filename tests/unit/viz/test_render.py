"""render_graph_html: one self-contained page, every stored field in its data, hostile text
inert."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from typing import Any
from uuid import UUID, uuid4

import pytest

from engramdb.models.records import Edge, Node, NodeType
from engramdb.viz import render_graph_html
from engramdb.viz.html import EMPTY_MESSAGE, TEXT_PREVIEW_CHARS, color_for_type, graph_payload

DATASET = UUID("11111111-2222-3333-4444-555555555555")
NAMES = {DATASET: "importance_demo"}

_DATA_BLOCK = re.compile(
    r'<script type="application/json" id="engram-data">(.*?)</script>', re.DOTALL
)


def _node(
    type_: str,
    name: str,
    *,
    text: str = "",
    weight: float = 0.5,
    props: dict[str, Any] | None = None,
) -> Node:
    return Node(
        id=uuid4(),
        dataset_id=DATASET,
        type=type_,
        name=name,
        text=text,
        properties=props or {},
        importance_weight=weight,
        feedback_weight=0.25,
        data_ids=[uuid4()],
    )


def _edge(source: Node, target: Node, relation: str = "is_part_of") -> Edge:
    return Edge(
        id=uuid4(),
        dataset_id=DATASET,
        source_id=source.id,
        target_id=target.id,
        relation=relation,
        properties={"confidence": 0.9},
        importance_weight=0.7,
        data_ids=[uuid4()],
    )


def _graph() -> tuple[list[Node], list[Edge]]:
    doc = _node(NodeType.DOCUMENT, "alice.txt", weight=0.7, props={"mime_type": "text/plain"})
    chunk = _node(
        NodeType.CHUNK,
        "alice.txt#0",
        text="Alice moved to Paris in 2010.",
        weight=0.7,
        props={"chunk_index": 0, "node_set": ["people"], "nested": {"a": [1, 2.5, None, True]}},
    )
    entity = _node(NodeType.ENTITY, "Alice", weight=0.3)
    return [doc, chunk, entity], [_edge(chunk, doc), _edge(chunk, entity, "mentions")]


def _render(nodes: list[Node], edges: list[Edge], **kwargs: Any) -> str:
    return render_graph_html(nodes, edges, title="test graph", dataset_names=NAMES, **kwargs)


def _data(page: str) -> dict[str, Any]:
    blocks = _DATA_BLOCK.findall(page)
    assert len(blocks) == 1
    data: dict[str, Any] = json.loads(blocks[0])
    return data


def test_page_is_self_contained() -> None:
    page = _render(*_graph())
    assert page.startswith("<!DOCTYPE html>")
    # Nothing is loaded from anywhere: no URL at all, no src/href attribute, no <link>, no CSS
    # url()/@import.
    assert "http://" not in page and "https://" not in page and "//cdn" not in page
    assert not re.search(r"\b(src|href|srcset|action)\s*=", page, re.IGNORECASE)
    assert "<link" not in page.lower()
    assert "url(" not in page and "@import" not in page
    # A CSP forbids loading anything even if a later edit slipped a URL in.
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # The renderer and the stylesheet are inlined, not referenced.
    assert "window.__engramGraph" in page
    assert page.count("<script") == 2  # the JSON data block and the inlined renderer
    assert "<style>" in page


def test_assets_are_package_resources_and_use_no_network_api() -> None:
    assets = resources.files("engramdb.viz").joinpath("assets")
    js = assets.joinpath("graph-renderer.js").read_text(encoding="utf-8")
    css = assets.joinpath("graph-renderer.css").read_text(encoding="utf-8")
    for forbidden in (
        "http:",
        "https:",
        "fetch(",
        "XMLHttpRequest",
        "WebSocket",
        "eval(",
    ):
        assert forbidden not in js, forbidden
    # No dynamic import() (graphology's Graph.import() method and its calls are not one).
    assert not re.search(r"(?<![\w.}$])import\(", js)
    assert "url(" not in css and "@import" not in css
    assert js.strip() in _render(*_graph())


def test_data_block_round_trips_every_node_field() -> None:
    nodes, edges = _graph()
    data = _data(_render(nodes, edges))
    rows = {row["id"]: row for row in data["nodes"]}
    assert set(rows) == {str(n.id) for n in nodes}
    # A field added to Node later must be added to the page too (the tooltip shows them all).
    assert set(Node.model_fields) <= set(next(iter(rows.values())))
    for node in nodes:
        row = rows[str(node.id)]
        assert row["type"] == node.type
        assert row["name"] == node.name
        assert row["text"] == node.text and row["text_chars"] == len(node.text)
        assert row["dataset_id"] == str(node.dataset_id)
        assert row["dataset"] == "importance_demo"
        assert row["importance_weight"] == node.importance_weight
        assert row["feedback_weight"] == node.feedback_weight
        assert row["data_ids"] == [str(d) for d in node.data_ids]
        assert row["properties"] == node.properties


def test_data_block_round_trips_every_edge_field() -> None:
    nodes, edges = _graph()
    data = _data(_render(nodes, edges))
    rows = {row["id"]: row for row in data["edges"]}
    assert set(rows) == {str(e.id) for e in edges}
    for edge in edges:
        row = rows[str(edge.id)]
        assert (row["source"], row["target"]) == (str(edge.source_id), str(edge.target_id))
        assert row["relation"] == edge.relation
        assert row["importance_weight"] == edge.importance_weight
        assert row["feedback_weight"] == edge.feedback_weight
        assert row["data_ids"] == [str(d) for d in edge.data_ids]
        assert row["properties"] == edge.properties
        assert row["dataset"] == "importance_demo"


HOSTILE = "</script><script>alert(1)</script><!-- x --> ]]> <b>bold</b> & \u2028 \u2029 </SCRIPT >"


def test_hostile_text_cannot_break_the_page() -> None:
    node = _node(NodeType.CHUNK, HOSTILE, text=HOSTILE, props={"</script>": HOSTILE})
    other = _node("</style><img src=x onerror=alert(1)>", "<!--")
    edge = _edge(node, other, relation=HOSTILE)
    page = render_graph_html(
        [node, other],
        [edge],
        title="<title></title><script>alert(2)</script>",
        dataset_names={DATASET: "<!-- ds </script>"},
    )
    # Only the two closing tags the page itself writes; no comment opener; no injected markup.
    assert page.lower().count("</script") == 2
    assert "<!--" not in page
    assert "alert(1)</script>" not in page and "<script>alert" not in page
    assert "<img" not in page and "</style><" not in page
    assert "\u2028" not in page and "\u2029" not in page
    # ... and the data still says exactly what was stored.
    data = _data(page)
    row = next(r for r in data["nodes"] if r["id"] == str(node.id))
    assert row["name"] == HOSTILE and row["text"] == HOSTILE
    assert row["properties"] == {"</script>": HOSTILE}
    assert row["dataset"] == "<!-- ds </script>"
    assert data["edges"][0]["relation"] == HOSTILE
    assert data["title"] == "<title></title><script>alert(2)</script>"
    assert "&lt;title&gt;&lt;/title&gt;&lt;script&gt;alert(2)" in page
    # The legend escapes type names.
    assert "&lt;/style&gt;&lt;img src=x onerror=alert(1)&gt;" in page


def test_non_finite_numbers_still_give_valid_json() -> None:
    node = _node(
        NodeType.ENTITY, "x", props={"score": float("nan"), "big": float("inf"), "tags": {"b", "a"}}
    )
    page = _render([node], [])

    def reject(constant: str) -> float:
        raise AssertionError(f"JSON.parse would reject {constant}")

    blocks = _DATA_BLOCK.findall(page)
    data = json.loads(blocks[0], parse_constant=reject)
    props = data["nodes"][0]["properties"]
    assert props["score"] == "nan" and props["big"] == "inf"
    assert sorted(props["tags"]) == ["a", "b"]


def test_legend_lists_the_types_present_in_pipeline_order() -> None:
    nodes, edges = _graph()
    custom = _node("Recipe", "pancakes")
    page = _render([*nodes, custom], edges)
    legend = page[page.index('id="engram-legend"') :]
    listed = re.findall(r'<li data-type="([^"]+)"', legend)
    assert listed == ["Document", "Chunk", "Entity", "Recipe"]  # absent types are not listed
    assert "EntityType" not in listed and "Summary" not in listed
    assert f"background:{color_for_type('Chunk')}" in legend
    assert f"background:{color_for_type('Recipe')}" in legend
    data = _data(page)
    assert {t["name"]: t["count"] for t in data["types"]} == {
        "Document": 1,
        "Chunk": 1,
        "Entity": 1,
        "Recipe": 1,
    }


#: The colours pages have always used: a type keeps its colour across pages, processes and
#: releases, so these are pinned (a salted ``hash()`` would change them per process).
EXPECTED_COLOURS = {
    "Document": "#4e79a7",
    "Chunk": "#f28e2b",
    "Summary": "#59a14f",
    "Entity": "#e15759",
    "EntityType": "#b07aa1",
    "Recipe": "#bab0ac",
    "Person": "#2f4b7c",
    "Whatever": "#2f4b7c",
    "Ünïcode": "#edc948",
    "": "#76b7b2",
}


def test_type_colours_are_distinct_and_stable() -> None:
    builtin = [color_for_type(t.value) for t in NodeType]
    assert len(set(builtin)) == len(builtin)
    assert {t: color_for_type(t) for t in EXPECTED_COLOURS} == EXPECTED_COLOURS
    assert re.fullmatch(r"#[0-9a-f]{6}", color_for_type("Whatever"))


def test_type_colours_do_not_depend_on_the_hash_seed() -> None:
    code = (
        "import json, sys; from engramdb.viz.html import color_for_type; "
        "print(json.dumps([color_for_type(t) for t in sys.argv[1:]]))"
    )
    names = [f"Type{i}" for i in range(40)]
    seen = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code, *names], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        seen.append(json.loads(done.stdout))
    assert seen[0] == seen[1] == [color_for_type(n) for n in names]


def test_empty_graph_says_the_memory_is_empty() -> None:
    page = _render([], [])
    assert EMPTY_MESSAGE in page
    assert 'id="engram-empty"' in page
    data = _data(page)
    assert data["nodes"] == [] and data["edges"] == [] and data["types"] == []
    assert EMPTY_MESSAGE not in _render(*_graph())


def test_edges_whose_ends_are_not_drawn_are_left_out_and_noted() -> None:
    nodes, edges = _graph()
    stray = _edge(nodes[0], _node(NodeType.ENTITY, "not drawn"))
    page = _render(nodes, [*edges, stray], notice="Showing the first 3 of 4 nodes.")
    data = _data(page)
    assert str(stray.id) not in {e["id"] for e in data["edges"]}
    assert data["dropped_edges"] == 1
    assert "Showing the first 3 of 4 nodes." in page
    assert "1 edge whose ends are not both drawn was left out." in page


def test_long_text_is_capped_but_its_length_is_kept() -> None:
    long_text = "word " * 2000
    node = _node(NodeType.CHUNK, "long", text=long_text)
    row = _data(_render([node], []))["nodes"][0]
    assert row["text"] == long_text[:TEXT_PREVIEW_CHARS]
    assert row["text_chars"] == len(long_text)


def test_output_is_deterministic_whatever_the_input_order() -> None:
    nodes, edges = _graph()
    first = _render(nodes, edges)
    assert _render(list(reversed(nodes)), edges) == first
    assert [r["id"] for r in _data(first)["nodes"]] == sorted(str(n.id) for n in nodes)


def test_unknown_dataset_ids_are_shown_as_ids() -> None:
    nodes, edges = _graph()
    payload = graph_payload(nodes, edges, title="t", dataset_names={})
    assert payload["nodes"][0]["dataset"] == str(DATASET)


@pytest.mark.parametrize("count", [0, 1, 2])
def test_header_counts_use_singular_and_plural(count: int) -> None:
    nodes = [_node(NodeType.ENTITY, f"e{i}") for i in range(count)]
    page = _render(nodes, [])
    expected = f"{count} node{'s' if count != 1 else ''} · 0 edges"
    assert expected in page
