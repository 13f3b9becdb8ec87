"""``cognee.infrastructure.databases.vector.get_vector_engine``: refused (see
:mod:`engramdb.compat.cognee.infrastructure.refused`)."""

from engramdb.compat.cognee.infrastructure.refused import RefusedFactory

__all__ = ["create_vector_engine", "get_vector_engine", "get_vector_engine_async"]

_SEARCH = "recall(query, SearchType.CHUNKS) (vector search over your datasets)"
create_vector_engine = RefusedFactory("create_vector_engine", _SEARCH)
get_vector_engine = RefusedFactory("get_vector_engine", _SEARCH)
get_vector_engine_async = RefusedFactory("get_vector_engine_async", _SEARCH)
