"""Records and graph: users, datasets, data items, documents and graph reads.

One concern of the :class:`~engramdb.storage.base.Store` contract; the semantics are in each
method's docstring. A backend implements :class:`~engramdb.storage.base.Store`, which
combines every concern.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Literal
from uuid import UUID

from engramdb.models.records import DataRecord, Dataset, Edge, Node, User
from engramdb.storage.types import (
    DeleteReport,
    DocumentWrite,
    StagedItem,
    Subgraph,
)

__all__ = ["DocumentStore"]


class DocumentStore(ABC):
    """Records and graph: users, datasets, data items, documents and graph reads."""

    # --- users ----------

    @abstractmethod
    async def get_or_create_default_user(self) -> User:
        """The default user, created on first call (exactly one, even under concurrency)."""

    @abstractmethod
    async def get_default_user(self) -> User | None: ...

    @abstractmethod
    async def create_user(self, email: str) -> User:
        """Create a user; raises ConflictError when the e-mail is taken."""

    @abstractmethod
    async def get_user(self, user_id: UUID) -> User | None: ...

    # --- datasets ----------

    @abstractmethod
    async def get_or_create_dataset(self, owner_id: UUID, name: str) -> Dataset:
        """The owner's dataset of that name, created if missing (in the tenant the owner has
        selected now). Names are unique per owner; two concurrent calls return the same
        dataset."""

    @abstractmethod
    async def recreate_dataset(self, dataset: Dataset) -> Dataset:
        """A new, empty dataset with ``dataset``'s owner, name and tenant and a new id (the old
        one deleted first); an existing dataset of that owner and name is returned as is."""

    @abstractmethod
    async def get_dataset(self, dataset_id: UUID) -> Dataset | None: ...

    @abstractmethod
    async def find_dataset(self, owner_id: UUID, name: str) -> Dataset | None:
        """The owner's dataset of that exact name, or None."""

    @abstractmethod
    async def list_datasets(self, owner_id: UUID | None = None) -> list[Dataset]:
        """Datasets of one owner (or all, when None), ordered by creation time."""

    @abstractmethod
    async def set_dataset_embedding(self, dataset_id: UUID, model: str, dim: int) -> Dataset:
        """Record the embedding model/dimension if the dataset has none yet; return the dataset
        as stored (the caller compares, a mismatch is the caller's error to raise)."""

    @abstractmethod
    async def delete_dataset(self, dataset_id: UUID) -> DeleteReport:
        """Delete a dataset with every data record, node, edge, vector, full-text row and run of
        it, in one transaction. Unknown id: an empty report."""

    @abstractmethod
    async def delete_everything(self) -> None:
        """Delete all datasets and their contents (users are kept)."""

    # --- data ----------

    @abstractmethod
    async def get_data(self, data_id: UUID) -> DataRecord | None: ...

    @abstractmethod
    async def find_data_by_hash(self, dataset_id: UUID, content_hash: str) -> DataRecord | None: ...

    @abstractmethod
    async def list_data(self, dataset_id: UUID) -> list[DataRecord]:
        """Data records of a dataset, ordered by creation time."""

    @abstractmethod
    async def write_document(self, doc: DocumentWrite) -> bool:
        """Write one document atomically (see the module docstring).

        Returns False and writes nothing when the dataset already holds a record with the same
        ``content_hash`` (the stored record, and its weight, are kept); with ``doc.extends``,
        when the record ``doc.data.id`` is NOT stored (the rest is added to the stored one).
        With ``doc.replaces``, that data item is deleted first in the same transaction (as
        :meth:`delete_data` would), so its content hash no longer counts as present.
        Nodes and edges that already exist (same id) are updated: name, text, properties and
        importance_weight take the new values, feedback_weight is kept, and the provenance
        gains ``doc.data.id``.
        A vector for an existing (node, collection) replaces the old one."""

    @abstractmethod
    async def delete_data(self, data_id: UUID) -> DeleteReport:
        """Delete one data item and everything only it supported, in one transaction."""

    # --- staged inputs (added, not built yet) ----------

    @abstractmethod
    async def stage_data(self, items: Sequence[StagedItem]) -> int:
        """Stage inputs for a later build, committed together. An item whose
        ``(dataset_id, content_hash)`` is already staged is skipped (the first one is kept), as
        is one whose dataset no longer exists. Returns how many rows were added. Staged items
        are deleted with their dataset (and by ``delete_everything``)."""

    @abstractmethod
    async def list_staged(self, dataset_id: UUID) -> list[StagedItem]:
        """The staged items of a dataset, in the order they were staged."""

    @abstractmethod
    async def unstage(self, dataset_id: UUID, content_hashes: Sequence[str]) -> int:
        """Remove these staged items of the dataset (unknown hashes are ignored); how many."""

    @abstractmethod
    async def count_staged(self, dataset_ids: Sequence[UUID]) -> int:
        """How many items are staged in these datasets (one indexed query)."""

    # --- reads ----------

    @abstractmethod
    async def get_nodes(self, node_ids: Sequence[UUID], *, provenance: bool = True) -> list[Node]:
        """Nodes by id, in the order asked; unknown ids are left out. ``provenance=False``
        leaves ``data_ids`` empty: a hot read path that never looks at it is spared an entity's
        whole source list (a name mentioned in 1,000 documents carries 1,000 ids)."""

    @abstractmethod
    async def list_nodes(
        self, dataset_ids: Sequence[UUID], *, type: str | None = None, limit: int = 1000
    ) -> list[Node]:
        """Nodes of these datasets (optionally of one type), at most ``limit``."""

    @abstractmethod
    async def count_nodes(self, dataset_ids: Sequence[UUID], *, type: str | None = None) -> int: ...

    @abstractmethod
    async def list_edges(self, dataset_ids: Sequence[UUID], *, limit: int = 5000) -> list[Edge]:
        """Edges of these datasets in insertion order, at most ``limit``."""

    @abstractmethod
    async def neighbourhood(
        self, node_ids: Sequence[UUID], *, depth: int = 1, limit: int = 1000
    ) -> Subgraph:
        """Nodes reachable from ``node_ids`` within ``depth`` hops (either direction), with the
        edges between them; at most ``limit`` nodes. Uses an indexed recursive query; never loads
        the whole graph."""

    @abstractmethod
    async def incident_edges(
        self,
        node_ids: Sequence[UUID],
        *,
        direction: Literal["out", "in"],
        relations: Sequence[str] | None = None,
        exclude_relations: Sequence[str] = (),
        limit_per_node: int = 50,
        provenance: bool = True,
    ) -> list[Edge]:
        """For each of ``node_ids`` (duplicates once), at most ``limit_per_node`` of its edges:
        outgoing (the node is the source) for ``direction="out"``, incoming for ``"in"``; only
        relations in ``relations`` when given, never those in ``exclude_relations``. Edges come
        grouped by node, in the order the nodes were given; within a node, and which ones are
        kept when more match, is the backend's index order (stable while the store is unchanged).
        Each node costs one indexed lookup: a hub's other edges are never loaded, so reading the
        facts of an entity named in 100k chunks costs what reading a rare one does.
        ``limit_per_node`` <= 0, ``relations=[]`` or no ids: []. ``provenance=False`` leaves
        each edge's ``data_ids`` empty (see :meth:`get_nodes`)."""

    @abstractmethod
    async def edges_between(
        self,
        pairs: Sequence[tuple[UUID, UUID]],
        *,
        exclude_relations: Sequence[str] = (),
        provenance: bool = True,
    ) -> list[Edge]:
        """Every edge from ``a`` to ``b`` for each ``(a, b)`` in ``pairs`` (one direction: give
        both orders for either), relations in ``exclude_relations`` left out; each edge once, in
        insertion order. One indexed probe per pair, whatever the endpoints' degrees.
        ``provenance=False`` leaves ``data_ids`` empty (see :meth:`get_nodes`)."""
