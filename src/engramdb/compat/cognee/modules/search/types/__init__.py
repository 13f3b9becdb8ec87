"""``cognee.modules.search.types``: the search types."""

from engramdb.models.search_type import SearchType

__all__ = ["SearchType"]
