"""``cognee.infrastructure.databases.vector``: ``get_vectordb_config`` (engramdb's vectors live
in its store; the vector-engine factories refuse, naming recall)."""

from engramdb.compat.cognee.infrastructure.config_views import get_vectordb_config
from engramdb.compat.cognee.infrastructure.databases.vector.get_vector_engine import (
    get_vector_engine,
    get_vector_engine_async,
)

__all__ = ["get_vector_engine", "get_vector_engine_async", "get_vectordb_config"]
