"""``cognee.infrastructure.engine``: custom graph models (``DataPoint``, ``Edge``) and the field
markers ``Embeddable`` / ``Dedup`` (see :mod:`engramdb.models.datapoints`)."""

from engramdb.models.datapoints import DataPoint, Dedup, Edge, Embeddable

__all__ = ["DataPoint", "Dedup", "Edge", "Embeddable"]
