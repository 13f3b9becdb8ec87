"""``cognee.api.v1.update.update``: ``update``."""

from engramdb.facade import update

__all__ = ["update"]
