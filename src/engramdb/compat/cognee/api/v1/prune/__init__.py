"""``cognee.api.v1.prune``: ``prune`` (``prune.prune_data()``, ``prune.prune_system()``)."""

from engramdb import prune

__all__ = ["prune"]
