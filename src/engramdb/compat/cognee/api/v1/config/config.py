"""``cognee.api.v1.config.config``: ``config``."""

from engramdb.settings import config

__all__ = ["config"]
