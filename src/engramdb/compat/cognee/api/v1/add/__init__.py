"""``cognee.api.v1.add``: ``add``."""

from engramdb.facade import add

__all__ = ["add"]
