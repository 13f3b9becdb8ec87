"""``cognee.api.v1.datasets``: the ``datasets`` namespace (engramdb.datasets)."""

from .datasets import datasets

__all__ = ["datasets"]
