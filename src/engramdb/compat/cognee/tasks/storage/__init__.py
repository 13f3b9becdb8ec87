"""``cognee.tasks.storage``: ``add_data_points`` (a pipeline task writing DataPoints into the
run's dataset) and ``index_graph_edges``."""

# imported from the sub-modules, so that importing those later keeps these names functions
from engramdb.compat.cognee.tasks.storage.add_data_points import add_data_points
from engramdb.compat.cognee.tasks.storage.index_graph_edges import index_graph_edges

__all__ = ["add_data_points", "index_graph_edges"]
