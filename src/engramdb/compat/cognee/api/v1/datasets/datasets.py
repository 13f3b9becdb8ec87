"""``cognee.api.v1.datasets.datasets``: the ``datasets`` namespace (engramdb.datasets)."""

from engramdb import datasets

__all__ = ["datasets"]
