"""Names shared by the code that writes the graph and the code that reads it.

Ingest stores embeddings and full-text entries in these collections; every retriever searches
them. Node types are :class:`~engramdb.models.records.NodeType`; the derived artifacts improve
writes name their own types in :mod:`engramdb.artifacts`.
"""

from __future__ import annotations

__all__ = ["CHUNK_COLLECTION", "ENTITY_COLLECTION", "SUMMARY_COLLECTION"]

#: Vector / full-text collections.
CHUNK_COLLECTION = "chunks"
SUMMARY_COLLECTION = "summaries"
ENTITY_COLLECTION = "entities"
