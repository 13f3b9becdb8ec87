"""``cognee.api.v1.delete.delete``: ``delete``."""

from engramdb.facade import delete

__all__ = ["delete"]
