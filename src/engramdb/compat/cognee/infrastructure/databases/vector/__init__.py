"""``cognee.infrastructure.databases.vector``: ``get_vectordb_config`` (engramdb's vectors live
in its store; there is no separate vector engine to hand out)."""

from engramdb.compat.cognee.infrastructure.config_views import get_vectordb_config

__all__ = ["get_vectordb_config"]
