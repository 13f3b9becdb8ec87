"""``cognee.infrastructure.databases.cache.get_cache_engine``: refused (see
:mod:`engramdb.compat.cognee.infrastructure.refused`)."""

from engramdb.compat.cognee.infrastructure.refused import RefusedFactory

__all__ = ["create_cache_engine", "get_cache_engine"]

_SESSIONS = "get_session_manager() or engramdb.session (sessions live in the store)"
create_cache_engine = RefusedFactory("create_cache_engine", _SESSIONS)
get_cache_engine = RefusedFactory("get_cache_engine", _SESSIONS)
