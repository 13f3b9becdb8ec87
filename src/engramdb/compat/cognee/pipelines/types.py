"""``cognee.pipelines.types``: ``Drop``."""

from engramdb.pipelines import Drop

__all__ = ["Drop"]
