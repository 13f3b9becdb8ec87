"""Draw a graph given as cognee's ``(nodes, edges)`` tuples (``get_graph_data()``'s shape):
``nodes`` ``[(node_id, {"name": ..., "type": ..., ...}), ...]``, ``edges``
``[(source_id, target_id, relation, {...}), ...]``, on engramdb's page."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.models.records import Edge, Node, stable_id
from engramdb.paths import user_path
from engramdb.viz.html import render_graph_html

__all__ = ["render_graph_data", "write_graph_data"]

_NO_DATASET = UUID(int=0)
_FIELDS = frozenset({"id", "name", "type", "text", "dataset_id"})


def _uuid(value: object) -> UUID:
    try:
        return UUID(str(value))
    except ValueError:
        return stable_id("graph_data", value)


def render_graph_data(graph_data: Any, *, title: str = "engramdb memory graph") -> str:
    """The HTML page of ``(nodes, edges)``; ids that are not UUIDs are hashed to one."""
    if not isinstance(graph_data, Sequence) or len(graph_data) != 2:
        raise EngramValidationError("graph_data must be a (nodes, edges) pair")
    raw_nodes, raw_edges = graph_data
    nodes: list[Node] = []
    for item in raw_nodes:
        node_id, props = (item[0], item[1]) if isinstance(item, Sequence) else (item, {})
        props = dict(props) if isinstance(props, Mapping) else {}
        nodes.append(
            Node(
                id=_uuid(node_id),
                dataset_id=_uuid(props["dataset_id"]) if props.get("dataset_id") else _NO_DATASET,
                type=str(props.get("type") or "Node"),
                name=str(props.get("name") or node_id),
                text=str(props.get("text") or ""),
                properties={k: v for k, v in props.items() if k not in _FIELDS},
            )
        )
    edges: list[Edge] = []
    for item in raw_edges:
        source, target, relation = item[0], item[1], item[2]
        props = dict(item[3]) if len(item) > 3 and isinstance(item[3], Mapping) else {}
        edges.append(
            Edge(
                id=stable_id("graph_data_edge", source, relation, target),
                dataset_id=_NO_DATASET,
                source_id=_uuid(source),
                target_id=_uuid(target),
                relation=str(relation),
                properties={k: v for k, v in props.items() if k != "relationship_name"},
            )
        )
    return render_graph_html(nodes, edges, title=title, dataset_names={})


async def write_graph_data(graph_data: Any, destination_file_path: str | None = None) -> str:
    """Write the page of ``(nodes, edges)`` to ``destination_file_path`` (default
    ``~/graph_visualization.html``, as cognee's); returns the HTML."""
    from engramdb.api.visualize import _write_atomically

    page = render_graph_data(graph_data)
    target = Path(destination_file_path or Path.home() / "graph_visualization.html")
    await asyncio.to_thread(_write_atomically, user_path(target), page)
    return page
