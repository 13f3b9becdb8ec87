"""``cognee.modules.chunking.models``: ``DocumentChunk``."""

from engramdb.compat.cognee.modules.chunking.models.DocumentChunk import DocumentChunk

__all__ = ["DocumentChunk"]
