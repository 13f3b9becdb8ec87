"""``cognee.infrastructure.databases.graph.get_graph_engine``."""

from __future__ import annotations

from engramdb.compat.cognee.infrastructure.databases.graph.engine_adapter import GraphEngine

__all__ = ["GraphEngine", "create_graph_engine", "get_graph_engine"]


async def get_graph_engine() -> GraphEngine:
    """The graph engine: cognee's read methods over the default engramdb engine, scoped by
    ``set_database_global_context_variables`` when the task set one (see
    :mod:`~engramdb.compat.cognee.infrastructure.databases.graph.engine_adapter`). Each read
    resolves the engine anew, so a handle kept across ``config.set`` or ``prune`` stays usable.
    Write methods raise FeatureNotAvailableError naming remember() / add_data_points() /
    forget(). In-process only."""
    return GraphEngine()


class _CreateGraphEngine:
    """``create_graph_engine()``: the same graph engine; engramdb's graph lives in its store,
    so the connection arguments of cognee's factory (provider, file path, URL...) are refused.
    ``cache_clear()`` has nothing to clear."""

    __name__ = __qualname__ = "create_graph_engine"

    def __call__(self, *args: object, **kwargs: object) -> GraphEngine:
        if args or any(v is not None for v in kwargs.values()):
            from engramdb.errors import FeatureNotAvailableError

            raise FeatureNotAvailableError(
                "create_graph_engine(...) with connection arguments is not supported: "
                "engramdb's graph lives in its store (ENGRAMDB_STORAGE_URL); call "
                "get_graph_engine() instead"
            )
        return GraphEngine()

    def cache_clear(self) -> None:
        """Nothing to clear."""


create_graph_engine = _CreateGraphEngine()
