"""``cognee.api.v1.update``: ``update`` and its result model ``UpdateResult``."""

from engramdb.facade import update
from engramdb.models.datasets import UpdateResult

__all__ = ["UpdateResult", "update"]
