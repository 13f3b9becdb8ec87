"""``cognee.infrastructure.engine.models.Edge``."""

from engramdb.models.datapoints import Edge

__all__ = ["Edge"]
