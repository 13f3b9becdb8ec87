"""``cognee.infrastructure``: the engine models (``cognee.infrastructure.engine``)."""
