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
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

import numpy as np
import numpy.typing as npt

from engramdb.models.access import ApiKeyInfo, Grant
from engramdb.models.records import (
    DataRecord,
    Dataset,
    Edge,
    Node,
    PipelineRun,
    RunStatus,
    User,
)
from engramdb.models.sessions import (
    ContextProfile,
    ContextRecord,
    EntryMark,
    FeedbackSource,
    QARecord,
    SessionRecord,
    TraceRecord,
)

__all__ = [
    "DeleteReport",
    "DerivedReport",
    "DerivedWrite",
    "DocumentWrite",
    "FeedbackReport",
    "FeedbackUpdate",
    "IntegrityReport",
    "MentionCount",
    "ScoredId",
    "Store",
    "StoredApiKey",
    "Subgraph",
    "VectorRow",
]

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class VectorRow:
    """One embedding of a node in a named collection ("chunks", "summaries", "entities", ...).

    ``vector`` is a 1-D float32 array; backends store it as given (callers L2-normalise).
    """

    node_id: UUID
    collection: str
    vector: FloatArray


@dataclass(frozen=True, slots=True)
class DocumentWrite:
    """Everything one ingested document produces, written by :meth:`Store.write_document`.

    ``lexical`` maps a full-text collection name to ``(node_id, text)`` pairs to index for BM25.
    Every node and edge gets ``data.id`` added to its provenance.
    """

    data: DataRecord
    nodes: Sequence[Node] = ()
    edges: Sequence[Edge] = ()
    vectors: Sequence[VectorRow] = ()
    lexical: Mapping[str, Sequence[tuple[UUID, str]]] = field(default_factory=dict)


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


class Store(ABC):
    """The storage contract. All methods are coroutines unless noted; blocking drivers run in a
    worker thread, never on the event loop."""

    #: The URL the store was opened with (``sqlite:///path`` or ``postgresql://...``).
    url: str

    # --- lifecycle ----------

    @abstractmethod
    async def setup(self) -> None:
        """Create the database if needed and apply pending numbered migrations. Idempotent; safe
        to call from several processes at once."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections. The store may not be used afterwards."""

    @abstractmethod
    async def exists(self) -> bool:
        """True when the database has been created (``setup`` ran) and holds a default user.
        Must not create anything."""

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
        """The owner's dataset of that name, created if missing. Names are unique per owner; two
        concurrent calls return the same dataset."""

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
        ``content_hash`` (the stored record, and its weight, are kept). Nodes and edges that
        already exist (same id) are updated: name, text, properties and importance_weight take
        the new values, feedback_weight is kept, and the provenance gains ``doc.data.id``.
        A vector for an existing (node, collection) replaces the old one."""

    @abstractmethod
    async def delete_data(self, data_id: UUID) -> DeleteReport:
        """Delete one data item and everything only it supported, in one transaction."""

    # --- pipeline runs ----------

    @abstractmethod
    async def start_run(
        self, dataset_id: UUID, pipeline: str, *, graph_writing: bool = True
    ) -> PipelineRun:
        """Record a run as started by this process (pid and hostname are stored)."""

    @abstractmethod
    async def finish_run(
        self,
        run_id: UUID,
        status: RunStatus,
        *,
        error_class: str | None = None,
        error_message: str | None = None,
        counts: dict[str, int] | None = None,
    ) -> None:
        """Mark a run completed or errored. ``error_message`` must already be scrubbed."""

    @abstractmethod
    async def list_runs(self, dataset_ids: Sequence[UUID]) -> list[PipelineRun]:
        """Runs of these datasets, newest first."""

    @abstractmethod
    async def reap_dead_runs(self) -> int:
        """Mark errored (error_class ``ProcessDied``) every run still 'started' whose process is
        gone (same host, pid not alive). Returns how many were marked."""

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

    # --- locks ----------

    @abstractmethod
    def lock(self, name: str, *, timeout: float | None = None) -> Any:
        """An async context manager holding a cross-process lock named ``name`` (e.g.
        ``dataset:<uuid>``). Waits (polling, never surfacing 'database is locked') up to
        ``timeout`` seconds, then raises LockTimeoutError. A lock held by a dead process is
        taken over."""

    # --- cache ----------

    @abstractmethod
    async def cache_get(self, namespace: str, key: str) -> str | None:
        """A cached value (e.g. an LLM answer keyed by model + prompt hash), or None."""

    @abstractmethod
    async def cache_put(
        self, namespace: str, key: str, value: str, *, data_id: UUID | None = None
    ) -> None:
        """Store or replace a cached value. Committed at once, outside any document write, so
        a retried ingestion after a crash finds what the failed one already paid for. A value
        tagged with ``data_id`` is derived from that item's content: forgetting the item (or its
        dataset, or everything) deletes it too."""

    # --- diagnostics ----------

    @abstractmethod
    async def check_integrity(self) -> IntegrityReport:
        """Check cross-table invariants: no chunk without its data record, no node without
        provenance, no edge to a missing node, no vector without its node, no full-text row
        without its node, no provenance row pointing at a missing data record."""

    # --- sessions (issue 5) ----------
    #
    # The session store: per-user conversations that recall() and remember(session_id=...)
    # write, and improve() consumes. Rules every backend keeps:
    #
    # * A session is keyed by (user_id, session_id): every read filters by user_id, so a user
    #   never sees another user's session of the same id. A session may span datasets.
    # * Entries are durable (same database, committed before the call returns) and listed
    #   oldest first, in ``seq`` order; ``seq`` is assigned by the store, increases with
    #   insertion order and is never reused, even after deletions.
    # * Adding any entry creates its session row if missing and moves ``updated_at``, in the
    #   entry's transaction.
    # * Consumers (improve stages) process entries exactly once through marks keyed by
    #   (entry kind, entry id, consumer name): see :meth:`mark_session_entries`.

    @abstractmethod
    async def add_qa_entry(self, entry: QARecord) -> QARecord:
        """Store a Q&A entry and return it as stored (``seq`` assigned; other fields as given).

        Raises ConflictError when an entry with ``entry.id`` exists, NotFoundError when
        ``entry.user_id`` is not a user. ``dataset_ids`` are kept as a filterable set (see
        :meth:`list_qa_entries`) and read back sorted by their string form; datasets need not
        exist (a conversation outlives a deleted dataset)."""

    @abstractmethod
    async def get_qa_entry(self, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord | None:
        """The entry, or None when it does not exist *in that user's session* (an id of another
        user's or another session's entry is None too)."""

    @abstractmethod
    async def list_qa_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
        unmarked_by: str | None = None,
        last_n: int | None = None,
    ) -> list[QARecord]:
        """The user's Q&A entries, oldest first.

        ``session_ids`` None: every session of the user; an empty list: []. ``dataset_id``: only
        entries whose ``dataset_ids`` contain it. ``unmarked_by``: only entries that consumer has
        no mark on (any ``rating_rev``). ``last_n``: only the newest ``last_n`` of the selection
        (still returned oldest first)."""

    @abstractmethod
    async def count_qa_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
        unmarked_by: str | None = None,
    ) -> int:
        """How many entries :meth:`list_qa_entries` would return with the same filters."""

    @abstractmethod
    async def set_qa_feedback(
        self,
        user_id: UUID,
        session_id: str,
        qa_id: UUID,
        *,
        score: int | None,
        text: str | None,
        source: FeedbackSource,
    ) -> QARecord:
        """Rate an entry and return it as stored. ``score`` is 1..5 (the caller validates).

        * ``source="explicit"`` always applies: a given ``score`` / ``text`` replaces the stored
          one (None leaves that field as it is).
        * ``feedback_source`` follows the score: it becomes ``source`` when a score is given;
          text-only feedback keeps the stored source (``source`` when there was none).
        * ``source="auto"`` (an inferred rating) never overrides an explicit rating: when the
          stored feedback source is "explicit" nothing changes and the stored entry is returned.
        * ``rating_rev`` increases by one exactly when ``feedback_score`` changes value, in the
          same transaction; ``feedback_at`` is set whenever something changed.

        Raises NotFoundError when the entry does not exist in that user's session."""

    @abstractmethod
    async def clear_qa_feedback(self, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord:
        """Remove score, text and source (``rating_rev`` increases when a score was removed).
        Raises NotFoundError like :meth:`set_qa_feedback`."""

    @abstractmethod
    async def list_pending_ratings(
        self,
        user_id: UUID,
        consumer: str,
        *,
        session_ids: Sequence[str] | None = None,
        dataset_id: UUID | None = None,
    ) -> list[QARecord]:
        """Rated entries whose current rating ``consumer`` has not spent, oldest first: entries
        with a ``feedback_score`` and no mark of ``consumer`` at a ``rating_rev`` >= the entry's
        current one. Filters as in :meth:`list_qa_entries`."""

    @abstractmethod
    async def mark_session_entries(
        self, consumer: str, marks: Sequence[EntryMark]
    ) -> list[EntryMark]:
        """Record that ``consumer`` processed these entries; idempotent, in one transaction.

        A mark is new when the consumer had none on that entry, or had one at a lower
        ``rating_rev`` (which is then raised). Returns the marks that were new, in the order
        given; marks already present (at the same or a higher revision) and marks naming no
        existing entry of that kind are ignored. Marks are deleted with their entry.

        Same-transaction contract: a backend method that consumes entries while writing
        something else (e.g. feedback weights on nodes) records the marks inside *that* write's
        transaction with the backend's own step for it (SQLite:
        :func:`engramdb.storage.sqlite.sessions.mark_entries`) and applies only what the step
        reports as new, so a rating is spent exactly once even under concurrent consumers."""

    @abstractmethod
    async def add_trace_entry(self, entry: TraceRecord) -> TraceRecord:
        """Store an agent trace step and return it as stored (``seq`` assigned). Raises
        ConflictError for an existing id, NotFoundError for an unknown user."""

    @abstractmethod
    async def list_trace_entries(
        self,
        user_id: UUID,
        *,
        session_ids: Sequence[str] | None = None,
        unmarked_by: str | None = None,
        last_n: int | None = None,
    ) -> list[TraceRecord]:
        """The user's trace steps, oldest first; filters as in :meth:`list_qa_entries`."""

    @abstractmethod
    async def add_context_entry(self, entry: ContextRecord) -> tuple[ContextRecord, bool]:
        """Store a guidance entry unless its session already holds one with the same profile,
        section and :func:`~engramdb.models.sessions.normalize_content` of its content.

        Returns ``(stored, True)`` for a new entry; for a duplicate ``(existing, False)``, where
        the existing entry gained the new ``source_ids`` (no repeats, order kept), took the
        higher ``confidence`` and a new ``updated_at``. The caller validates the section against
        the profile. NotFoundError for an unknown user."""

    @abstractmethod
    async def list_context_entries(
        self,
        user_id: UUID,
        session_id: str,
        *,
        context_profile: ContextProfile | None = None,
        unmarked_by: str | None = None,
    ) -> list[ContextRecord]:
        """A session's guidance entries (of one profile, when given), oldest first. Reading
        never changes an entry."""

    @abstractmethod
    async def get_session(self, user_id: UUID, session_id: str) -> SessionRecord | None:
        """The user's session of that id, or None (another user's session is None too)."""

    @abstractmethod
    async def list_sessions(self, user_id: UUID) -> list[SessionRecord]:
        """The user's sessions, most recently updated first."""

    @abstractmethod
    async def delete_session(self, user_id: UUID, session_id: str) -> bool:
        """Delete the user's session with all its entries and their marks, in one transaction.
        False when there was no such session."""

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
    async def graph_fingerprint(self, dataset_id: UUID) -> str:
        """A short string that changes whenever the dataset's ingested content changes (a data
        item, node or edge written or deleted) and stays equal under reads, feedback-weight
        updates and derived writes. Cheap: indexed counts, no scan of node texts."""

    @abstractmethod
    async def entity_mentions(self, dataset_id: UUID) -> list[MentionCount]:
        """For each (document, entity) of the dataset: in how many of the document's chunks the
        entity occurs (chunk ``contains`` edges; chunks belong to documents by ``is_part_of``).
        Ordered by document id, then entity id."""

    @abstractmethod
    async def fact_edges(
        self, dataset_id: UUID, *, exclude_relations: Sequence[str] = ()
    ) -> list[Edge]:
        """The dataset's ingested edges (derived edges left out) whose relation is not in
        ``exclude_relations``, with their provenance, in insertion order: the facts a conflict
        review reads."""

    # --- users, api keys, grants (issue 6) ----------
    #
    # Access control data; the decisions live in :mod:`engramdb.access`, never in a backend.
    # Rules every backend keeps:
    #
    # * E-mails are unique (compared exactly; callers normalise them). Users are never deleted.
    # * An API key is stored as its metadata plus a hash of its secret; the key itself never
    #   reaches the store. Revoking keeps the row (with ``revoked_at``) so a listing shows it.
    # * A grant is one (dataset, grantee, permission) row: adding an existing one changes
    #   nothing, and grants are deleted with their dataset (also by ``delete_everything``).
    #   Owners hold no grant rows: ownership is ``Dataset.owner_id``.

    @abstractmethod
    async def find_user_by_email(self, email: str) -> User | None:
        """The user with exactly that e-mail, or None."""

    @abstractmethod
    async def list_users(self) -> list[User]:
        """Every user, oldest first."""

    @abstractmethod
    async def set_user_admin(self, user_id: UUID, is_admin: bool) -> User:
        """Set the user's administrator flag and return the user as stored. NotFoundError for an
        unknown user."""

    @abstractmethod
    async def add_api_key(self, key: ApiKeyInfo, secret_hash: str) -> ApiKeyInfo:
        """Store a new key (``revoked_at`` as given, normally None) with the hash of its secret.
        ConflictError when ``key.id`` exists, NotFoundError when ``key.user_id`` is not a user."""

    @abstractmethod
    async def get_api_key(self, key_id: UUID) -> StoredApiKey | None:
        """The key's metadata and stored hash (revoked keys too), or None."""

    @abstractmethod
    async def list_api_keys(self, user_id: UUID) -> list[ApiKeyInfo]:
        """The user's keys, revoked ones included, oldest first."""

    @abstractmethod
    async def revoke_api_key(self, key_id: UUID) -> ApiKeyInfo | None:
        """Set ``revoked_at`` (kept when already set) and return the key as stored; None for an
        unknown id. Committed before returning: the next lookup sees the revocation."""

    @abstractmethod
    async def add_grant(self, grant: Grant) -> Grant:
        """Store the grant unless that (dataset, grantee, permission) exists; return the stored
        one (an existing grant keeps its ``granted_by`` and ``created_at``). NotFoundError when
        the dataset or the grantee does not exist; nothing is written then."""

    @abstractmethod
    async def remove_grant(self, dataset_id: UUID, grantee_id: UUID, permission: str) -> bool:
        """Delete that one grant; False when there was none. Committed before returning."""

    @abstractmethod
    async def list_grants(self, dataset_id: UUID) -> list[Grant]:
        """The dataset's grants ordered by creation time, then grantee id, then permission."""

    @abstractmethod
    async def granted_permissions(self, dataset_id: UUID, grantee_id: UUID) -> frozenset[str]:
        """The permissions the grantee holds on the dataset through grants (one indexed lookup;
        empty for an unknown dataset or user). Ownership is not a grant: not included."""

    @abstractmethod
    async def list_granted_datasets(
        self, grantee_id: UUID, permission: str | None = None
    ) -> list[Dataset]:
        """Datasets on which the grantee holds ``permission`` (any permission when None) through
        a grant, each once, ordered by the dataset's creation time. Owned datasets are not
        included unless granted, which :mod:`engramdb.access` never does."""


@dataclass(frozen=True, slots=True)
class DerivedWrite:
    """One transactional write of derived graph data (see :meth:`Store.write_derived`).

    * ``nodes`` / ``edges`` are upserted as the owner's: name, text, properties and weights
      take the given values (``feedback_weight`` of an existing element is kept).
    * ``anchors`` maps a node id of ``nodes`` to the data item it is derived from; the node is
      deleted when that item is (an anchor naming a missing item is ignored).
    * ``replace=True`` deletes the owner's nodes and edges of the dataset that are not in this
      write (``replace_types`` limits that to nodes of those types and to edges leaving them);
      ``delete_node_ids`` deletes those of the owner's nodes. Deleting a node deletes every
      edge touching it.
    * ``state`` sets improve-state values; ``fingerprint_key`` stores
      :meth:`Store.graph_fingerprint` as computed at the end of the transaction.
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
class MentionCount:
    data_id: UUID
    entity_id: UUID
    chunks: int


@dataclass(frozen=True, slots=True)
class StoredApiKey:
    """An API key as the store holds it: metadata and the hex SHA-256 of its secret part."""

    info: ApiKeyInfo
    secret_hash: str
