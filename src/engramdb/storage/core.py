"""The backend-agnostic half of every store: argument checks and rules, over a narrow port.

:class:`StoreCore` implements the contract methods whose behaviour does not depend on the
database -- what an empty input returns, which arguments are refused, what a run record holds,
which query vectors a search accepts, which session marks a call records -- and hands the rest
to ``_``-prefixed port methods. The SQL both backends share is written once as units of work
(:mod:`.sql`), whose mixins implement the contract methods that are one unit each; a backend
subclasses ``StoreCore`` and implements the narrow port that runs a unit
(:class:`.sql.port.UnitPort`: ``_read_unit`` / ``_write_unit``) plus what truly differs:
connections, document writes and deletions, graph walks, search, locks and the session writes
that decide "new or not".

Every rule checked here is pinned by the conformance suite (``tests/conformance``), which runs
against every backend.
"""

from __future__ import annotations

import socket
from abc import abstractmethod
from collections.abc import Sequence
from typing import Literal
from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.models.improve import StageResult
from engramdb.models.records import Dataset, Edge, Node, PipelineRun, RunStatus, User
from engramdb.models.sessions import EntryMark
from engramdb.storage import rules
from engramdb.storage.base import Store
from engramdb.storage.sql.access import AccessMethods
from engramdb.storage.sql.archive import ArchiveMethods
from engramdb.storage.sql.derived import DerivedMethods
from engramdb.storage.sql.graph import GraphReads
from engramdb.storage.sql.records import RecordMethods
from engramdb.storage.sql.sessions import SessionReads
from engramdb.storage.sql.tools import ToolMethods
from engramdb.storage.sql.vector_reads import VectorReads
from engramdb.storage.types import (
    EntityMerge,
    FeedbackReport,
    FeedbackUpdate,
    FloatArray,
    MergeReport,
    NodeRewrite,
    ScoredId,
    Subgraph,
)

__all__ = ["StoreCore"]


class StoreCore(
    RecordMethods,
    AccessMethods,
    SessionReads,
    GraphReads,
    DerivedMethods,
    ToolMethods,
    ArchiveMethods,
    VectorReads,
    Store,
):
    """Rules and argument checks shared by every backend (see the module docstring); the
    methods that are one shared unit of work come from the mixins of :mod:`.sql`."""

    def __init__(self) -> None:
        self._hostname = socket.gethostname()

    # --- users and datasets: find, else create (the create is idempotent under races) --------

    async def get_or_create_default_user(self) -> User:
        existing = await self.get_default_user()
        return existing if existing is not None else await self._create_default_user()

    async def get_or_create_dataset(self, owner_id: UUID, name: str) -> Dataset:
        existing = await self.find_dataset(owner_id, name)
        if existing is not None:
            return existing
        return await self._create_dataset(owner_id, name)

    # --- pipeline runs ---------------------------------------------------------------------------

    async def start_run(
        self,
        dataset_id: UUID,
        pipeline: str,
        *,
        graph_writing: bool = True,
        run_id: UUID | None = None,
    ) -> PipelineRun:
        run = rules.new_run(
            dataset_id,
            pipeline,
            graph_writing=graph_writing,
            hostname=self._hostname,
            run_id=run_id,
        )
        await self._record_run(run)
        return run

    async def finish_run(
        self,
        run_id: UUID,
        status: RunStatus,
        *,
        error_class: str | None = None,
        error_message: str | None = None,
        counts: dict[str, int] | None = None,
        stages: Sequence[StageResult] | None = None,
    ) -> None:
        """Unknown run ids are ignored (the dataset may have been deleted meanwhile)."""
        final = rules.finished_status(status)
        await self._finish_run(
            run_id, final, error_class, error_message, dict(counts or {}), list(stages or [])
        )

    async def list_runs(self, dataset_ids: Sequence[UUID]) -> list[PipelineRun]:
        if not dataset_ids:
            return []
        return await self._list_runs(list(dict.fromkeys(dataset_ids)))

    # --- graph reads: empty inputs answer without a query ----------------------------------

    async def get_nodes(self, node_ids: Sequence[UUID], *, provenance: bool = True) -> list[Node]:
        if not node_ids:
            return []
        return await self._get_nodes(node_ids, provenance)

    async def list_nodes(
        self, dataset_ids: Sequence[UUID], *, type: str | None = None, limit: int = 1000
    ) -> list[Node]:
        if not dataset_ids or limit <= 0:
            return []
        return await self._list_nodes(dataset_ids, type, limit)

    async def count_nodes(self, dataset_ids: Sequence[UUID], *, type: str | None = None) -> int:
        if not dataset_ids:
            return 0
        return await self._count_nodes(dataset_ids, type)

    async def list_edges(self, dataset_ids: Sequence[UUID], *, limit: int = 5000) -> list[Edge]:
        if not dataset_ids or limit <= 0:
            return []
        return await self._list_edges(dataset_ids, limit)

    async def neighbourhood(
        self, node_ids: Sequence[UUID], *, depth: int = 1, limit: int = 1000
    ) -> Subgraph:
        if not node_ids or limit <= 0:
            return Subgraph(nodes=[], edges=[])
        return await self._neighbourhood(node_ids, max(depth, 0), limit)

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
        if not node_ids or limit_per_node <= 0 or (relations is not None and not relations):
            return []
        if direction not in ("out", "in"):
            raise EngramValidationError(f"direction must be 'out' or 'in', got {direction!r}.")
        return await self._incident_edges(
            node_ids, direction, relations, exclude_relations, limit_per_node, provenance
        )

    async def edges_between(
        self,
        pairs: Sequence[tuple[UUID, UUID]],
        *,
        exclude_relations: Sequence[str] = (),
        provenance: bool = True,
    ) -> list[Edge]:
        if not pairs:
            return []
        return await self._edges_between(pairs, exclude_relations, provenance)

    @abstractmethod
    async def _neighbourhood(
        self, node_ids: Sequence[UUID], depth: int, limit: int
    ) -> Subgraph: ...

    @abstractmethod
    async def _incident_edges(
        self,
        node_ids: Sequence[UUID],
        direction: Literal["out", "in"],
        relations: Sequence[str] | None,
        exclude_relations: Sequence[str],
        limit_per_node: int,
        provenance: bool,
    ) -> list[Edge]: ...

    @abstractmethod
    async def _edges_between(
        self,
        pairs: Sequence[tuple[UUID, UUID]],
        exclude_relations: Sequence[str],
        provenance: bool,
    ) -> list[Edge]: ...

    # --- search ---------------------------------------------------------------------------------

    async def vector_search(
        self,
        collection: str,
        query: FloatArray,
        dataset_ids: Sequence[UUID],
        top_k: int,
    ) -> list[ScoredId]:
        """The query is checked before anything else (EngramValidationError for an empty,
        multi-dimensional, NaN or infinite one), even when there is nothing to search."""
        vector = rules.query_vector(query)
        if not dataset_ids or top_k <= 0:
            return []
        return await self._vector_search(
            collection, vector, list(dict.fromkeys(dataset_ids)), top_k
        )

    async def lexical_search(
        self,
        collection: str,
        query: str,
        dataset_ids: Sequence[UUID],
        top_k: int,
    ) -> list[ScoredId]:
        if not dataset_ids or top_k <= 0:
            return []
        return await self._lexical_search(
            collection, query, list(dict.fromkeys(dataset_ids)), top_k
        )

    @abstractmethod
    async def _vector_search(
        self, collection: str, vector: FloatArray, dataset_ids: list[UUID], top_k: int
    ) -> list[ScoredId]:
        """``vector`` is checked (1-D, finite); a dimension other than the collection's stored
        vectors' raises EmbeddingMismatchError."""

    @abstractmethod
    async def _lexical_search(
        self, collection: str, query: str, dataset_ids: list[UUID], top_k: int
    ) -> list[ScoredId]: ...

    # --- session marks and feedback weights -------------------------------------------------

    async def mark_session_entries(
        self, consumer: str, marks: Sequence[EntryMark]
    ) -> list[EntryMark]:
        wanted = rules.normalise_marks(marks)
        if not wanted:
            return []
        return await self._mark_entries(consumer, wanted)

    async def apply_feedback_weights(
        self,
        dataset_id: UUID,
        consumer: str,
        updates: Sequence[FeedbackUpdate],
        *,
        alpha: float,
    ) -> FeedbackReport:
        if not updates:
            return FeedbackReport()
        if not 0.0 < alpha <= 1.0:
            raise EngramValidationError(f"feedback alpha must be in (0, 1], got {alpha}")
        rules.normalise_marks([u.mark for u in updates])  # kinds checked before any write
        return await self._apply_feedback_weights(dataset_id, consumer, list(updates), alpha)

    # --- graph edits: the listed ids are checked before the backend sees them --------------

    async def rewrite_nodes(self, dataset_id: UUID, rewrites: Sequence[NodeRewrite]) -> int:
        if not rewrites:
            return 0
        _check_rewrites(rewrites)
        return await self._rewrite_nodes(dataset_id, list(rewrites))

    async def merge_entities(self, dataset_id: UUID, merges: Sequence[EntityMerge]) -> MergeReport:
        merges = [m for m in merges if m.absorbed]
        if not merges:
            return MergeReport()
        _check_rewrites([m.survivor for m in merges])
        seen: set[UUID] = set()
        for merge in merges:
            ids = [merge.survivor.node_id, *merge.absorbed]
            if merge.survivor.node_id in merge.absorbed:
                raise EngramValidationError(
                    f"entity {merge.survivor.node_id} cannot be merged into itself"
                )
            repeated = seen.intersection(ids) or (len(set(ids)) != len(ids))
            if repeated:
                raise EngramValidationError(
                    "an entity is listed in two merges (or twice in one); merge each cluster "
                    "once, with one survivor"
                )
            seen.update(ids)
        return await self._merge_entities(dataset_id, merges)

    @abstractmethod
    async def _rewrite_nodes(self, dataset_id: UUID, rewrites: list[NodeRewrite]) -> int: ...

    @abstractmethod
    async def _merge_entities(self, dataset_id: UUID, merges: list[EntityMerge]) -> MergeReport: ...


def _check_rewrites(rewrites: Sequence[NodeRewrite]) -> None:
    """Each node once; a rewrite's vectors are its own node's, one per collection."""
    ids = [r.node_id for r in rewrites]
    if len(set(ids)) != len(ids):
        raise EngramValidationError("a node is rewritten twice in one call; list it once")
    for rewrite in rewrites:
        collections = [v.collection for v in rewrite.vectors]
        if any(v.node_id != rewrite.node_id for v in rewrite.vectors):
            raise EngramValidationError(
                f"a vector of the rewrite of node {rewrite.node_id} names another node"
            )
        if len(set(collections)) != len(collections):
            raise EngramValidationError(
                f"the rewrite of node {rewrite.node_id} has two vectors in one collection"
            )
