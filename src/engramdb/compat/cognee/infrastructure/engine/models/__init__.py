"""``cognee.infrastructure.engine.models``: ``DataPoint``, ``Edge`` and the field markers."""

from engramdb.models.datapoints import DataPoint, Dedup, Edge, Embeddable

__all__ = ["DataPoint", "Dedup", "Edge", "Embeddable"]
