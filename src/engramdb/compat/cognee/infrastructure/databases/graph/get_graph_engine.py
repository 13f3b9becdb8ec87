"""``cognee.infrastructure.databases.graph.get_graph_engine``."""

from __future__ import annotations

from engramdb.compat.cognee.infrastructure.databases.graph.engine_adapter import GraphEngine

__all__ = ["GraphEngine", "get_graph_engine"]


async def get_graph_engine() -> GraphEngine:
    """The graph engine: cognee's read methods over the default engramdb engine, scoped by
    ``set_database_global_context_variables`` when the task set one (see
    :mod:`~engramdb.compat.cognee.infrastructure.databases.graph.engine_adapter`). Each read
    resolves the engine anew, so a handle kept across ``config.set`` or ``prune`` stays usable.
    Write methods raise FeatureNotAvailableError naming remember() / add_data_points() /
    forget(). In-process only."""
    return GraphEngine()
