"""``cognee.api.v1.visualize.visualize``: ``visualize_graph``."""

from engramdb.facade import visualize_graph

__all__ = ["visualize_graph"]
