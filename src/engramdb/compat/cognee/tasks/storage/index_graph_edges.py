"""``cognee.tasks.storage.index_graph_edges``."""

from engramdb.pipelines.storage import index_graph_edges

__all__ = ["index_graph_edges"]
