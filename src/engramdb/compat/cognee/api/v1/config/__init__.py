"""``cognee.api.v1.config``: ``config`` (engramdb's settings, with cognee's setters)."""

from engramdb.settings import config

__all__ = ["config"]
