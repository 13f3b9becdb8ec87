"""``cognee.infrastructure.databases.cache.config``: ``get_cache_config``."""

from engramdb.compat.cognee.infrastructure.config_views import CacheConfig, get_cache_config

__all__ = ["CacheConfig", "get_cache_config"]
