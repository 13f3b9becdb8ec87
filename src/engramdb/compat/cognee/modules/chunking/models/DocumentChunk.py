"""``cognee.modules.chunking.models.DocumentChunk``: a chunk as a DataPoint (indexed on
``text``), for programs that build chunks themselves and store them with
``add_data_points``: it is a passage CHUNKS search finds, of node type ``DocumentChunk``."""

from __future__ import annotations

from typing import Any

from engramdb.models.datapoints import DataPoint, MetaData

__all__ = ["DocumentChunk"]


class DocumentChunk(DataPoint):
    text: str
    chunk_size: int = 0
    chunk_index: int = 0
    cut_type: str = ""
    is_part_of: Any = None
    contains: Any = None
    metadata: MetaData = {"index_fields": ["text"]}  # noqa: RUF012 - a pydantic field
