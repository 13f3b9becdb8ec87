"""``cognee.infrastructure.databases.cache``: ``get_cache_config`` (sessions live in engramdb's
store, always on)."""

from engramdb.compat.cognee.infrastructure.config_views import get_cache_config

__all__ = ["get_cache_config"]
