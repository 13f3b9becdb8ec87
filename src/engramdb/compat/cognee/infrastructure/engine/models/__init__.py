"""``cognee.infrastructure.engine.models``: ``DataPoint``, ``Edge`` and the field markers."""

from engramdb.models.datapoints import Dedup, Embeddable

from .DataPoint import DataPoint
from .Edge import Edge

__all__ = ["DataPoint", "Dedup", "Edge", "Embeddable"]
