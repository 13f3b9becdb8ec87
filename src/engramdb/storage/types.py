"""The typed values the Store contract takes and returns (see :mod:`engramdb.storage.base`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from uuid import UUID

import numpy as np
import numpy.typing as npt

from engramdb.models.access import ApiKeyInfo
from engramdb.models.records import DataRecord, Edge, Node
from engramdb.models.sessions import EntryMark

__all__ = [
    "GRAPH_CHANGE_PREFIX",
    "GRAPH_CHANGE_READERS",
    "MEMBER_CHANGE_KIND",
    "MEMBER_CHANGE_PREFIX",
    "MEMBER_CHANGE_READER",
    "ArchivedGraph",
    "DeleteReport",
    "DerivedReport",
    "DerivedWrite",
    "DocumentCounts",
    "DocumentWrite",
    "EntityMerge",
    "FeedbackReport",
    "FeedbackUpdate",
    "FloatArray",
    "IntegrityReport",
    "Membership",
    "MentionCount",
    "MergeReport",
    "NodeRewrite",
    "ScoredId",
    "StageInputs",
    "StagedItem",
    "StoredApiKey",
    "StoredMark",
    "Subgraph",
    "VectorRow",
    "graph_change_keys",
    "graph_change_prefix",
    "member_change_key",
]

FloatArray = npt.NDArray[np.float32]

#: Writes that change what a document mentions, or an entity's content, without a data item
#: coming or going note it in the dataset's improve state, in their own transaction, once for
#: each reader (:data:`GRAPH_CHANGE_READERS`): ``graph.changed:<reader>:d:<data id>`` for a
#: document's queued extraction (``DocumentWrite.extends``), ``graph.changed:<reader>:e:<node
#: id>`` for a rewritten node and for both sides of an entity merge. Each value is a fresh
#: stamp; a reader reads its notes and deletes those it covered
#: (:attr:`DerivedWrite.drop_state`, only while the stamp is still the one it read).
GRAPH_CHANGE_PREFIX = "graph.changed:"
#: The improve stages that read change notes (their derived-data owners).
GRAPH_CHANGE_READERS = ("global_context_index", "review_conflicts")


def graph_change_prefix(reader: str) -> str:
    """The prefix of one reader's change notes."""
    if reader not in GRAPH_CHANGE_READERS:
        raise ValueError(f"{reader!r} reads no change notes (GRAPH_CHANGE_READERS)")
    return f"{GRAPH_CHANGE_PREFIX}{reader}:"


#: A data item that comes or goes (written, or deleted with everything only it supported) is
#: noted, in the same transaction, for this reader only: ``graph.changed:<reader>:m:<data
#: id>``, so that it learns which documents came and went without listing every one.
MEMBER_CHANGE_READER = "global_context_index"
MEMBER_CHANGE_KIND = "m"


#: The member notes' keys: this prefix, then the data id.
MEMBER_CHANGE_PREFIX = f"{graph_change_prefix(MEMBER_CHANGE_READER)}{MEMBER_CHANGE_KIND}:"


def member_change_key(data_id: UUID) -> str:
    """The improve-state key noting that data item ``data_id`` came or went."""
    return f"{MEMBER_CHANGE_PREFIX}{data_id}"


def graph_change_keys(kind: str, node_id: UUID) -> list[str]:
    """The improve-state keys of one change (``kind``: ``"d"`` document, ``"e"`` entity), one
    per reader."""
    return [f"{graph_change_prefix(r)}{kind}:{node_id}" for r in GRAPH_CHANGE_READERS]


@dataclass(frozen=True, slots=True)
class VectorRow:
    """One embedding of a node in a named collection ("chunks", "summaries", "entities", ...).

    ``vector`` is a 1-D float32 array; backends store it as given (callers L2-normalise).
    """

    node_id: UUID
    collection: str
    vector: FloatArray


@dataclass(frozen=True, slots=True)
class StagedItem:
    """An input added to a dataset and not built into its graph yet (cognee's ``add()``).

    ``content_hash`` is the input's identity in its dataset, as for data records; ``options``
    holds what the ingestion will need (importance weight, node set, external metadata, the
    loader's facts), JSON-serialisable.
    """

    dataset_id: UUID
    content_hash: str
    name: str
    text: str
    mime_type: str
    size_bytes: int
    source_path: str | None = None
    options: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DocumentWrite:
    """Everything one ingested document produces, written by :meth:`.Store.write_document`.

    ``lexical`` maps a full-text collection name to ``(node_id, text)`` pairs to index for BM25.
    Every node and edge gets ``data.id`` added to its provenance.

    ``extends=True`` adds to a document already stored (its queued graph extraction,
    :mod:`engramdb.ingest.queue`): the data record is not written, only looked up by
    ``data.id``; when it is gone (forgotten meanwhile) nothing is written.

    ``replaces`` names a stored data item that this document rebuilds
    (``remember(incremental_loading=False)``): it is deleted, with everything only it
    supported, in the same transaction that writes this one, so a crash leaves the old
    document or the new one, never neither.
    """

    data: DataRecord
    nodes: Sequence[Node] = ()
    edges: Sequence[Edge] = ()
    vectors: Sequence[VectorRow] = ()
    lexical: Mapping[str, Sequence[tuple[UUID, str]]] = field(default_factory=dict)
    extends: bool = False
    replaces: UUID | None = None


@dataclass(frozen=True, slots=True)
class ScoredId:
    """A search hit. ``score`` is a cosine distance (lower is better) for vector search and a
    BM25 relevance (higher is better) for lexical search."""

    node_id: UUID
    score: float


@dataclass(frozen=True, slots=True)
class DeleteReport:
    data_records: int = 0
    nodes: int = 0
    edges: int = 0
    vectors: int = 0
    lexical_rows: int = 0


@dataclass(frozen=True, slots=True)
class Subgraph:
    nodes: list[Node]
    edges: list[Edge]


@dataclass(frozen=True, slots=True)
class IntegrityReport:
    """Cross-table invariants; every list holds human-readable violations (empty = healthy)."""

    violations: list[str]

    @property
    def ok(self) -> bool:
        return not self.violations


@dataclass(frozen=True, slots=True)
class DerivedWrite:
    """One transactional write of derived graph data (see :meth:`.Store.write_derived`).

    * ``nodes`` / ``edges`` are upserted as the owner's: name, text, properties and weights
      take the given values (``feedback_weight`` of an existing element is kept).
    * ``anchors`` maps a node id of ``nodes`` to the data item it is derived from; the node is
      deleted when that item is (an anchor naming a missing item is ignored).
    * ``replace=True`` deletes the owner's nodes and edges of the dataset that are not in this
      write (``replace_types`` limits that to nodes of those types and to edges leaving them);
      ``delete_node_ids`` deletes those of the owner's nodes. Deleting a node deletes every
      edge touching it.
    * ``state`` sets improve-state values; ``drop_state`` deletes improve-state keys (one
      mapped to a value only while it still holds that value); ``fingerprint_key`` stores
      :meth:`.Store.graph_fingerprint` as computed at the end of the transaction.
    * ``marks`` maps a consumer name to session-entry marks that must all be new.
    """

    dataset_id: UUID
    owner: str
    nodes: Sequence[Node] = ()
    edges: Sequence[Edge] = ()
    anchors: Mapping[UUID, UUID] = field(default_factory=dict)
    replace: bool = False
    replace_types: Sequence[str] = ()
    delete_node_ids: Sequence[UUID] = ()
    state: Mapping[str, str] = field(default_factory=dict)
    drop_state: Mapping[str, str | None] = field(default_factory=dict)
    fingerprint_key: str | None = None
    marks: Mapping[str, Sequence[EntryMark]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DerivedReport:
    nodes_written: int = 0
    edges_written: int = 0
    nodes_deleted: int = 0
    edges_deleted: int = 0
    marks: int = 0


@dataclass(frozen=True, slots=True)
class FeedbackUpdate:
    """One rating to spend: move these elements' feedback weight toward ``target`` (0..1)."""

    mark: EntryMark
    target: float
    node_ids: Sequence[UUID] = ()
    edge_ids: Sequence[UUID] = ()


@dataclass(frozen=True, slots=True)
class FeedbackReport:
    ratings: int = 0
    nodes: int = 0
    edges: int = 0


@dataclass(frozen=True, slots=True)
class StageInputs:
    """What an improve stage reads at its start, in one snapshot (``Store.stage_inputs``)."""

    #: the improve-state value of the key asked for (None when unset)
    value: str | None
    #: the improve-state values whose key starts with the prefix asked for, by key
    states: dict[str, str]
    #: of the data items noted as come or gone among those states (:func:`member_change_key`),
    #: the ids the dataset holds
    present: set[UUID]


@dataclass(frozen=True, slots=True)
class MentionCount:
    data_id: UUID
    entity_id: UUID
    chunks: int


@dataclass(frozen=True, slots=True)
class DocumentCounts:
    """Of some documents, in one snapshot (``Store.document_counts``): their mention counts, as
    ``Store.entity_mentions`` gives them, and their chunk counts, as ``Store.chunk_counts``."""

    mentions: list[MentionCount]
    chunks: dict[UUID, int]


@dataclass(frozen=True, slots=True)
class Membership:
    """Where a user works: the selected tenant (None: their personal space), whether they are
    (still) a member of it, and the roles they hold in it."""

    tenant_id: UUID | None
    member: bool
    role_ids: tuple[UUID, ...]


@dataclass(frozen=True, slots=True)
class StoredApiKey:
    """An API key as the store holds it: metadata and the hex SHA-256 of its secret part."""

    info: ApiKeyInfo
    secret_hash: str


@dataclass(frozen=True, slots=True)
class ArchivedGraph:
    """A whole dataset's graph as :meth:`.Store.archive_graph` reads it, every list sorted.

    ``derived``: (element kind ``"node"``/``"edge"``, id, owner) of the derived elements;
    ``state``: improve-state (key, value) pairs; ``indexed``: (index ``"vector"``/``"lexical"``,
    node id, collection) of every vector and full-text row."""

    nodes: list[Node]
    edges: list[Edge]
    derived: list[tuple[str, UUID, str]]
    state: list[tuple[str, str]]
    indexed: list[tuple[str, UUID, str]]


@dataclass(frozen=True, slots=True)
class StoredMark:
    """A consumer's mark on a session entry (see :meth:`.Store.mark_session_entries`)."""

    kind: str
    entry_id: UUID
    consumer: str
    rating_rev: int


@dataclass(frozen=True, slots=True)
class NodeRewrite:
    """New content for one stored node (see :meth:`.Store.rewrite_nodes`).

    ``text`` and ``properties`` replace the node's (``properties`` whole, not key by key);
    ``vectors`` replace the node's embedding in each collection they name. The node's id, type,
    name, weights and provenance are kept.
    """

    node_id: UUID
    text: str
    properties: Mapping[str, object]
    vectors: Sequence[VectorRow] = ()


@dataclass(frozen=True, slots=True)
class EntityMerge:
    """Fold the ``absorbed`` entities into ``survivor`` (see :meth:`.Store.merge_entities`);
    ``survivor`` is also the survivor's new content (its text, properties and vectors)."""

    survivor: NodeRewrite
    absorbed: Sequence[UUID]


@dataclass(frozen=True, slots=True)
class MergeReport:
    """What :meth:`.Store.merge_entities` did: entities folded away, edges re-pointed onto a
    survivor, and edges dropped (self-loops, or duplicates of an edge the survivor had)."""

    entities_merged: int = 0
    edges_moved: int = 0
    edges_dropped: int = 0
