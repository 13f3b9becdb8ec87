"""``cognee.api.v1.cognify``: ``cognify``."""

from engramdb.facade import cognify

__all__ = ["cognify"]
