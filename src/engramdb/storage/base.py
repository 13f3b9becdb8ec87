"""The Store contract: records, graph, vectors and full-text in ONE transactional store.

Every backend (embedded SQLite, server PostgreSQL) implements :class:`Store` and passes the same
conformance suite (``tests/conformance``). The semantics are written into each method's
docstring; where a docstring says "raises", the backend translates its driver's errors into
:mod:`engramdb.errors` classes at this boundary.

Ground rules every backend keeps:

* **One transaction per document.** :meth:`Store.write_document` writes the data record, its
  nodes, edges, provenance, vectors and full-text rows atomically: after a crash either all of a
  document's rows exist or none do.
* **Provenance decides deletion.** Every node and edge records which data items it came from.
  Deleting a data item removes its provenance; a node or edge left with none is deleted with its
  vectors and full-text rows, and edges touching a deleted node go too. Elements another data item
  still supports stay.
* **Datasets are hard filters.** Every search takes the dataset ids to search and never returns
  anything outside them.
* **Several processes may share one store.** A write committed by one process is visible to the
  searches of every other process that starts after the commit.
* Ids are UUIDs; times are timezone-aware UTC datetimes.

The contract is split by concern, one abstract class per module of :mod:`.contract`
(documents and graph, search, sessions, derived data, access, archive, operations); :class:`Store`
combines them. The rules every backend shares (feedback semantics, session marks, run records,
argument checks) are written once in :mod:`.rules`, :mod:`.migrations` and :mod:`.dialect`,
and the SQL they share as units of work in :mod:`.sql`;
optional features are declared in :attr:`Store.capabilities` (:mod:`.capabilities`).
"""

from __future__ import annotations

from engramdb.storage.capabilities import Capability
from engramdb.storage.contract import (
    AccessStore,
    ArchiveStore,
    DerivedStore,
    DocumentStore,
    EditStore,
    OperationsStore,
    SearchStore,
    SessionStore,
    ToolStore,
)
from engramdb.storage.types import (
    DeleteReport,
    DerivedReport,
    DerivedWrite,
    DocumentCounts,
    DocumentWrite,
    EntityMerge,
    FeedbackReport,
    FeedbackUpdate,
    FloatArray,
    IntegrityReport,
    MentionCount,
    MergeReport,
    NodeRewrite,
    ScoredId,
    StagedItem,
    StoredApiKey,
    Subgraph,
    VectorRow,
)

__all__ = [
    "AccessStore",
    "ArchiveStore",
    "Capability",
    "DeleteReport",
    "DerivedReport",
    "DerivedStore",
    "DerivedWrite",
    "DocumentCounts",
    "DocumentStore",
    "DocumentWrite",
    "EditStore",
    "EntityMerge",
    "FeedbackReport",
    "FeedbackUpdate",
    "FloatArray",
    "IntegrityReport",
    "MentionCount",
    "MergeReport",
    "NodeRewrite",
    "OperationsStore",
    "ScoredId",
    "SearchStore",
    "SessionStore",
    "StagedItem",
    "Store",
    "StoredApiKey",
    "Subgraph",
    "VectorRow",
]


class Store(
    DocumentStore,
    EditStore,
    SearchStore,
    SessionStore,
    DerivedStore,
    AccessStore,
    ArchiveStore,
    OperationsStore,
    ToolStore,
):
    """The storage contract. All methods are coroutines unless noted; blocking drivers run in a
    worker thread, never on the event loop."""

    #: The URL the store was opened with (``sqlite:///path`` or ``postgresql://...``).
    url: str
