"""``cognee.api.v1.visualize``: ``visualize_graph`` (and ``visualize``, its other name)."""

from engramdb.facade import visualize, visualize_graph

__all__ = ["visualize", "visualize_graph"]
