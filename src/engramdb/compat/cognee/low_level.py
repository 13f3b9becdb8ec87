"""``cognee.low_level``: ``DataPoint``, ``Edge`` and ``setup``."""

from engramdb.compat.cognee.modules.engine.operations.setup import setup
from engramdb.models.datapoints import DataPoint, Edge

__all__ = ["DataPoint", "Edge", "setup"]
