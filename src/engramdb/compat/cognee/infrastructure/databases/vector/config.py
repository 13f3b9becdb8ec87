"""``cognee.infrastructure.databases.vector.config``: ``get_vectordb_config``."""

from engramdb.compat.cognee.infrastructure.config_views import VectorConfig, get_vectordb_config

__all__ = ["VectorConfig", "get_vectordb_config"]
