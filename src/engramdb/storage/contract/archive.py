"""Whole-dataset reads and the id-keeping dataset insert that export and import need
(:mod:`engramdb.archive`).

One concern of the :class:`~engramdb.storage.base.Store` contract. Everything else an import
writes goes through the ordinary write methods (``write_document``, ``write_derived``, the
session writes), so an imported store obeys the same rules as one built by ingestion.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from uuid import UUID

from engramdb.models.records import Dataset
from engramdb.storage.types import ArchivedGraph, StoredMark, VectorRow

__all__ = ["ArchiveStore"]


class ArchiveStore(ABC):
    """Reads of a whole dataset, and a dataset insert that keeps the dataset's id."""

    @abstractmethod
    async def archive_graph(self, dataset_id: UUID) -> ArchivedGraph:
        """Every node and edge of the dataset (with provenance), which of them are derived and
        by which owner, its improve state, and which (node, collection) pairs hold a vector
        and a full-text row: one consistent snapshot, sorted by id (see
        :class:`~engramdb.storage.types.ArchivedGraph`)."""

    @abstractmethod
    async def archive_vectors(self, dataset_id: UUID) -> list[VectorRow]:
        """Every vector of the dataset, sorted by (node id, collection)."""

    @abstractmethod
    async def list_marks(self, entry_ids: Sequence[UUID]) -> list[StoredMark]:
        """The consumer marks on these session entries, sorted by (entry, consumer)."""

    @abstractmethod
    async def insert_dataset(self, dataset: Dataset) -> Dataset:
        """Store ``dataset`` with its own id, owner, name, tenant, embedding and creation time
        unless a dataset with that id exists (then it is returned as stored). ConflictError when
        its owner already has another dataset of that name; NotFoundError for an unknown
        owner."""
