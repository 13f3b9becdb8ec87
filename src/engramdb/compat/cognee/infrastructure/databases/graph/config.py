"""``cognee.infrastructure.databases.graph.config``: ``get_graph_config``."""

from engramdb.compat.cognee.infrastructure.config_views import GraphConfig, get_graph_config

__all__ = ["GraphConfig", "get_graph_config"]
