"""The graph page at 10,000 nodes in a real headless Chromium: it draws, says when (its first
frame, measured by the page itself), stays interactive (search and focus, hover with every
stored field) and its screenshot is not blank.

Issue 16: "readable and interactive at 10,000 nodes: clustering or level-of-detail, labels by
importance, search/focus on a node, hover showing every stored field (importance weights
included)".
"""

from __future__ import annotations

import random
from pathlib import Path
from uuid import UUID

import pytest

from engramdb.models.records import Edge, Node
from engramdb.viz import render_graph_html
from tests.support.browser import assert_not_blank, chromium_browser

pytestmark = pytest.mark.slow

NODES = 10_000
CLUSTERS = 100
#: Generous bound for this 2-core machine (software WebGL); the measured figure is printed.
FIRST_RENDER_BUDGET_MS = 30_000


def _graph() -> tuple[list[Node], list[Edge]]:
    """Clustered: 100 groups of 100 nodes, two in-group edges per node, a few across."""
    rng = random.Random(16)
    dataset = UUID(int=1)
    nodes = [
        Node(
            id=UUID(int=i + 10),
            dataset_id=dataset,
            type=("Entity", "Chunk", "Document", "EntityType")[i % 4],
            name=f"node {i} of cluster {i % CLUSTERS}",
            text=f"text of node {i}",
            importance_weight=round(rng.random(), 3),
            properties={"cluster_hint": i % CLUSTERS},
        )
        for i in range(NODES)
    ]
    edges: list[Edge] = []
    for i in range(NODES):
        group = [j for j in range(i % CLUSTERS, NODES, CLUSTERS)]
        for _ in range(2):
            j = rng.choice(group) if rng.random() > 0.02 else rng.randrange(NODES)
            if j != i:
                edges.append(
                    Edge(
                        id=UUID(int=NODES * 10 + len(edges)),
                        dataset_id=dataset,
                        source_id=nodes[i].id,
                        target_id=nodes[j].id,
                        relation="related_to",
                    )
                )
    return nodes, edges


def test_ten_thousand_nodes_render_and_stay_interactive(tmp_path: Path) -> None:
    nodes, edges = _graph()
    page_file = tmp_path / "big.html"
    page_file.write_text(
        render_graph_html(nodes, edges, title="10k", dataset_names={UUID(int=1): "big"}),
        encoding="utf-8",
    )
    with chromium_browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900}, bypass_csp=True)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_file.as_uri())
        page.wait_for_function(
            "window.__engramGraph && window.__engramGraph.ready", timeout=120_000
        )
        status = page.evaluate("window.__engramGraph")
        size_mb = page_file.stat().st_size / 1e6
        print(
            f"\n10,000-node page ({size_mb:.1f} MB, {len(edges)} edges): first render "
            f"{status['firstRenderMs']} ms after the renderer started, "
            f"{status['sinceNavigationMs']} ms after navigation; {status['clusters']} clusters"
        )
        assert status["nodes"] == NODES and status["edges"] == len(edges)
        assert status["firstRenderMs"] < FIRST_RENDER_BUDGET_MS
        assert 20 <= status["clusters"] <= 1000  # community detection found the groups
        assert_not_blank(browser, page.screenshot(path=str(tmp_path / "big.png")))

        # Search and focus: the camera moves to the node found and zooms in.
        page.fill("#engram-search", "node 4242 of")
        page.click("#engram-results button")
        page.wait_for_timeout(600)
        camera = page.evaluate("window.__engramView.sigma.getCamera().getState()")
        assert camera["ratio"] <= 0.15
        # Hover: every stored field, the importance weight included.
        at = page.evaluate(
            """() => {
              const v = window.__engramView;
              const id = v.search("node 4242 of", 1)[0].id;
              const p = v.sigma.graphToViewport(v.graph.getNodeAttributes(id));
              const box = document.getElementById("engram-canvas").getBoundingClientRect();
              return { x: box.left + p.x, y: box.top + p.y };
            }"""
        )
        page.mouse.move(at["x"], at["y"])
        page.wait_for_selector("#engram-tooltip:not([hidden])")
        tip = page.inner_text("#engram-tooltip")
        expected = nodes[4242]
        assert f"id: {expected.id}" in tip
        assert f"importance_weight: {expected.importance_weight}" in tip
        assert "properties.cluster_hint: 42" in tip
        assert_not_blank(browser, page.screenshot(path=str(tmp_path / "focus.png")))
        assert errors == []
