"""``cognee.api.v1.config``: ``config`` (engramdb's settings, with cognee's setters)."""

from .config import config

__all__ = ["config"]
