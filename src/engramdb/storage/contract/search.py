"""Vector and full-text search.

One concern of the :class:`~engramdb.storage.base.Store` contract; the semantics are in each
method's docstring. A backend implements :class:`~engramdb.storage.base.Store`, which
combines every concern.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from uuid import UUID

from engramdb.storage.types import (
    FloatArray,
    ScoredId,
)

__all__ = ["SearchStore"]


class SearchStore(ABC):
    """Vector and full-text search."""

    @abstractmethod
    async def vector_search(
        self,
        collection: str,
        query: FloatArray,
        dataset_ids: Sequence[UUID],
        top_k: int,
    ) -> list[ScoredId]:
        """The ``top_k`` nearest vectors of ``collection`` within ``dataset_ids`` by cosine
        distance (1 - cosine similarity), nearest first. Exact, not approximate, in the embedded
        backend. Empty dataset list or collection: []."""

    @abstractmethod
    async def lexical_search(
        self,
        collection: str,
        query: str,
        dataset_ids: Sequence[UUID],
        top_k: int,
    ) -> list[ScoredId]:
        """BM25 full-text search, best first; ``score`` is a relevance where higher is better.
        Any user text is accepted (query syntax characters are treated as words)."""

    @abstractmethod
    async def node_vectors(
        self,
        collection: str,
        node_ids: Sequence[UUID],
        dataset_ids: Sequence[UUID],
    ) -> dict[UUID, FloatArray]:
        """The stored vectors of ``node_ids`` in ``collection``, by node id, as float32 arrays
        exactly as written; only nodes of ``dataset_ids`` (a node without a vector there, or
        of another dataset, is left out). Empty id or dataset list: {}."""
