"""``cognee.modules.visualization.cognee_network_visualization``: draw ``(nodes, edges)``
tuples on engramdb's graph page."""

from __future__ import annotations

from typing import Any

from engramdb.errors import FeatureNotAvailableError
from engramdb.viz.graph_data import write_graph_data

__all__ = ["cognee_network_visualization"]


async def cognee_network_visualization(
    graph_data: Any,
    destination_file_path: str | None = None,
    schema_data: dict[str, Any] | None = None,
    search_events: list[Any] | None = None,
) -> str:
    """Write the HTML page of ``graph_data`` (``(nodes, edges)`` as cognee's
    ``get_graph_data()`` gives them) to ``destination_file_path`` and return the HTML.
    cognee's schema tab and event timeline are not drawn: ``schema_data`` and
    ``search_events`` are refused."""
    if schema_data is not None or search_events:
        raise FeatureNotAvailableError(
            "cognee_network_visualization(schema_data=/search_events=) is not available on "
            "engramdb; its page draws the nodes and edges only"
        )
    return await write_graph_data(graph_data, destination_file_path)
