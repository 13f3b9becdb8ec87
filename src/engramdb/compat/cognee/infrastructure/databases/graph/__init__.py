"""``cognee.infrastructure.databases.graph``: ``get_graph_engine`` and ``get_graph_config``."""

from engramdb.compat.cognee.infrastructure.config_views import get_graph_config
from engramdb.compat.cognee.infrastructure.databases.graph.get_graph_engine import (
    get_graph_engine,
)

__all__ = ["get_graph_config", "get_graph_engine"]
