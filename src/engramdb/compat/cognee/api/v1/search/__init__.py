"""``cognee.api.v1.search``: ``search`` and ``SearchType``."""

from engramdb.facade import search
from engramdb.models.search_type import SearchType

__all__ = ["SearchType", "search"]
