"""Derived graph data, feedback weights and improve state (improve and personalization).

One concern of the :class:`~engramdb.storage.base.Store` contract; the semantics are in each
method's docstring. A backend implements :class:`~engramdb.storage.base.Store`, which
combines every concern.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from uuid import UUID

from engramdb.models.records import Edge
from engramdb.storage.types import (
    DerivedReport,
    DerivedWrite,
    DocumentCounts,
    FeedbackReport,
    FeedbackUpdate,
    MentionCount,
    StageInputs,
    Subgraph,
)

__all__ = ["DerivedStore"]


class DerivedStore(ABC):
    """Derived graph data, feedback weights and improve state (improve and personalization)."""

    # --- derived graph data (issue 5: improve and personalization) ----------
    #
    # Graph elements that improve() derives from the graph and from sessions rather than from
    # one ingested document: global-context index buckets and roots, per-(user, dataset)
    # preference nodes with their weighted ``prefers`` edges, plus per-dataset improve state.
    # Rules every backend keeps:
    #
    # * Each derived node and edge is owned by a named ``owner`` (e.g. "global_context_index",
    #   "preferences:<user id>"). Writes and deletions through these methods only touch elements
    #   of that owner; a node id that exists as an ingested (non-derived) node, or as another
    #   owner's, is refused with ConflictError and nothing is written.
    # * A derived node needs no provenance (the integrity check exempts it), but may be
    #   *anchored* to a data item: it is then deleted with that item, like document-derived
    #   nodes. Deleting a dataset (or everything) deletes its derived elements and state;
    #   an edge touching a deleted node goes with it, as always.
    # * Callers mark derived nodes that retrieval must never return with
    #   ``properties["internal"] = True``.
    # * Every write is one transaction, including the session marks it spends: a consumer's
    #   marks and their effect commit or roll back together.

    @abstractmethod
    async def write_derived(self, write: DerivedWrite) -> DerivedReport:
        """Apply ``write`` in one transaction (see :class:`DerivedWrite`).

        Raises EngramValidationError when an element belongs to another dataset, ConflictError
        when a node id is taken by a non-derived node or another owner's node, or when a mark
        in ``write.marks`` is not new for its consumer (already spent, or its entry is gone);
        StorageError when an edge names a node that does not exist. Nothing is written then."""

    @abstractmethod
    async def list_derived(
        self, dataset_id: UUID, owner: str, *, node_type: str | None = None
    ) -> Subgraph:
        """The owner's derived nodes of the dataset (of one type, when given), in insertion
        order, with the owner's derived edges of the dataset. Unknown owner: empty."""

    @abstractmethod
    async def apply_feedback_weights(
        self,
        dataset_id: UUID,
        consumer: str,
        updates: Sequence[FeedbackUpdate],
        *,
        alpha: float,
    ) -> FeedbackReport:
        """Spend ratings on the graph's ``feedback_weight``, in one transaction.

        The updates' marks are recorded for ``consumer`` (see :meth:`mark_session_entries`);
        for each update whose mark is new, in the order given, every listed node and edge of
        ``dataset_id`` moves ``feedback_weight += alpha * (target - feedback_weight)``. Ids of
        elements that no longer exist (or belong to another dataset) are ignored. An update whose
        mark is not new changes nothing, so a rating is spent exactly once."""

    @abstractmethod
    async def get_improve_state(self, dataset_id: UUID, key: str) -> str | None:
        """A value improve stored for the dataset (watermarks, fingerprints), or None."""

    @abstractmethod
    async def set_improve_state(self, dataset_id: UUID, key: str, value: str) -> None:
        """Store or replace one improve-state value of the dataset (deleted with it)."""

    @abstractmethod
    async def get_improve_states(self, dataset_id: UUID, prefix: str) -> dict[str, str]:
        """The dataset's improve-state values whose key starts with ``prefix``, by key (the
        change notes of :data:`~engramdb.storage.types.GRAPH_CHANGE_PREFIX`, a stage's
        per-document state)."""

    @abstractmethod
    async def drop_improve_states(self, dataset_id: UUID, keys: Sequence[str]) -> None:
        """Delete these improve-state keys of the dataset (unknown keys are ignored)."""

    @abstractmethod
    async def stage_inputs(self, dataset_id: UUID, *, key: str, prefix: str) -> StageInputs:
        """In one read (one snapshot): :meth:`get_improve_state` of ``key``,
        :meth:`get_improve_states` of ``prefix`` and, of the data items those states note as
        come or gone (:func:`~engramdb.storage.types.member_change_key`), which the dataset
        holds — what an incremental improve stage reads at its start."""

    @abstractmethod
    async def graph_fingerprint(self, dataset_id: UUID) -> str:
        """A short string that changes whenever the dataset's ingested content changes (a data
        item, node or edge written or deleted) and stays equal under reads, feedback-weight
        updates and derived writes. Cheap: indexed counts, no scan of node texts."""

    @abstractmethod
    async def entity_mentions(self, dataset_id: UUID) -> list[MentionCount]:
        """For each (document, entity) of the dataset: in how many of the document's chunks the
        entity occurs (chunk ``contains`` edges; chunks belong to documents by ``is_part_of``).
        Ordered by document id, then entity id. Some documents' counts, by index lookups per
        document: :meth:`document_counts`."""

    @abstractmethod
    async def document_counts(self, dataset_id: UUID, data_ids: Sequence[UUID]) -> DocumentCounts:
        """:meth:`entity_mentions` and :meth:`chunk_counts` of these documents only, in one read
        (one snapshot; index lookups per document, no scan of the dataset)."""

    @abstractmethod
    async def chunk_counts(self, dataset_id: UUID) -> dict[UUID, int]:
        """How many chunks each document of the dataset has (documents without chunks left
        out); some documents' counts: :meth:`document_counts`."""

    @abstractmethod
    async def data_ids(self, dataset_id: UUID) -> list[UUID]:
        """The ids of the dataset's data items, sorted (one index range, no metadata read)."""

    @abstractmethod
    async def fact_edges(
        self,
        dataset_id: UUID,
        *,
        exclude_relations: Sequence[str] = (),
        source_ids: Sequence[UUID] | None = None,
        data_ids: Sequence[UUID] | None = None,
    ) -> list[Edge]:
        """The dataset's ingested edges (derived edges left out) whose relation is not in
        ``exclude_relations``, with their provenance, in insertion order: the facts a conflict
        review reads. ``source_ids`` keeps the edges leaving those nodes, ``data_ids`` those
        supported by those data items (index lookups, no scan of the dataset's edges); an
        empty sequence: []."""
