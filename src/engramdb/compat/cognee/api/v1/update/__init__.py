"""``cognee.api.v1.update``: ``update`` and its result model ``UpdateResult``."""

from engramdb.models.datasets import UpdateResult

from .update import update

__all__ = ["UpdateResult", "update"]
