"""``cognee.tasks.storage``: ``add_data_points`` (a pipeline task writing DataPoints into the
run's dataset) and ``index_graph_edges``."""

from engramdb.pipelines.storage import add_data_points, index_graph_edges

__all__ = ["add_data_points", "index_graph_edges"]
