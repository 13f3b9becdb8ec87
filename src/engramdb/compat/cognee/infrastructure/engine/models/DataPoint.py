"""``cognee.infrastructure.engine.models.DataPoint``."""

from engramdb.models.datapoints import DataPoint, MetaData

__all__ = ["DataPoint", "MetaData"]
