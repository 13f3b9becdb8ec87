"""The embedded SQLite implementation of :class:`~engramdb.storage.base.Store`.

One file holds records, graph, vectors (float32 BLOBs) and full text (FTS5), so a document is
written in one transaction. This class is thin glue: every public coroutine hands a synchronous
unit of work to a worker thread (``asyncio.to_thread``) and the work runs inside a transaction of
:class:`.database.Database`. The SQL both backends share (users, datasets, data records, runs,
cache, access, session reads) is in :mod:`engramdb.storage.sql`, whose units :mod:`.units`
runs; the SQLite-only SQL lives in the sibling modules:

* :mod:`.schema` — numbered migrations; :mod:`.database` — connections, retries, errors;
* :mod:`.rows` — node/edge columns, time and JSON encoding;
* :mod:`.documents` — write/delete documents; :mod:`.graph` — graph reads and BM25;
* :mod:`.vector_cache` — in-memory exact vector search kept coherent across processes;
* :mod:`.locks` — lease locks; :mod:`.maintenance` — integrity checks.
* :mod:`.sessions` — the session writes (Q&A entries, feedback, marks, traces, guidance).
* :mod:`.derived` — improve()'s derived graph data, feedback weights and improve state.

Nothing happens on construction: the file is opened on first use, and created only by
:meth:`SqliteStore.setup`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypeVar
from uuid import UUID

from engramdb.errors import EmbeddingMismatchError
from engramdb.models.records import (
    Edge,
    utcnow,
)
from engramdb.models.sessions import (
    ContextRecord,
    FeedbackSource,
    QARecord,
    TraceRecord,
)
from engramdb.storage.base import (
    DeleteReport,
    DerivedReport,
    DerivedWrite,
    DocumentCounts,
    DocumentWrite,
    EntityMerge,
    FloatArray,
    IntegrityReport,
    MentionCount,
    MergeReport,
    NodeRewrite,
    ScoredId,
    StagedItem,
    Subgraph,
)
from engramdb.storage.capabilities import Capability
from engramdb.storage.core import StoreCore
from engramdb.storage.dialect import SQLITE
from engramdb.storage.lending import lent_or
from engramdb.storage.migrations import pending
from engramdb.storage.sql import derived as sql_derived
from engramdb.storage.sql.unit import UnitFactory
from engramdb.storage.sqlite import bulk, derived, documents, edits, graph, maintenance, staging
from engramdb.storage.sqlite import sessions as session_sql
from engramdb.storage.sqlite.ann import DEFAULT_THRESHOLD as DEFAULT_ANN_THRESHOLD
from engramdb.storage.sqlite.database import Database, damaged, is_busy, translate_error
from engramdb.storage.sqlite.locks import LeaseLocks
from engramdb.storage.sqlite.query import run_read_only
from engramdb.storage.sqlite.rows import to_time
from engramdb.storage.sqlite.schema import MIGRATIONS, applied_versions, apply_migrations
from engramdb.storage.sqlite.units import run_unit
from engramdb.storage.sqlite.vector_cache import VectorCache

__all__ = ["SqliteStore"]

T = TypeVar("T")


class SqliteStore(StoreCore):
    """The store in one SQLite file (WAL), safe to share between processes.

    ``lock_lease_seconds`` is how long a lock survives without renewal (holders renew every
    third of it); ``vector_log_keep`` is how many vector change-log entries are kept for other
    processes to catch up from before they must reload their matrices; (collection, dataset)
    pairs of at least ``ann_threshold`` vectors are searched through an approximate index file
    (:mod:`.ann`, needs the ``ann`` extra; 0 keeps every search exact).
    """

    capabilities = frozenset({Capability.CYPHER})
    dialect = SQLITE

    def __init__(
        self,
        path: Path | str,
        *,
        lock_lease_seconds: float = 60.0,
        vector_log_keep: int = 100_000,
        ann_threshold: int = DEFAULT_ANN_THRESHOLD,
    ) -> None:
        super().__init__()
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self._db = Database(self.path)
        self._vectors = VectorCache(self._db, ann_threshold)
        self._locks = LeaseLocks(self._db, self._hostname, lock_lease_seconds)
        self._log_keep = vector_log_keep

    @property
    def matrix_loads(self) -> int:
        """How many vector matrices this object (re)loaded from SQLite (diagnostics)."""
        return self._vectors.loads

    @property
    def ann_builds(self) -> int:
        """How many approximate index files this object built (diagnostics)."""
        return self._vectors.ann_files.builds

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.to_thread(self._db.write, work)

    async def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.to_thread(self._db.read, work)

    async def _read_unit(self, unit: UnitFactory[T], *, snapshot: bool = False) -> T:
        """Every read transaction is one WAL snapshot, ``snapshot`` or not."""
        return await self._read(partial(run_unit, unit=unit))

    async def _write_unit(self, unit: UnitFactory[T]) -> T:
        return await self._write(partial(run_unit, unit=unit))

    # --- lifecycle -------------------------------------------------------------------------------

    async def setup(self) -> None:
        await asyncio.to_thread(self._setup_sync)

    def _setup_sync(self) -> None:
        self._db.setup_file()
        # An up-to-date database needs no write transaction: opening a read-only store (or one
        # on a full disk) for reading must work.
        if pending(MIGRATIONS, self._db.applied()):
            self._db.write(lambda conn: apply_migrations(conn, to_time(utcnow())), verify=False)
        self._db.mark_verified()

    async def close(self) -> None:
        await asyncio.to_thread(self._db.close)
        self._vectors.clear()

    async def exists(self) -> bool:
        return await asyncio.to_thread(self._exists_sync)

    def _exists_sync(self) -> bool:
        if not self.path.is_file():
            return False
        try:
            # Read-only: looking must never create or change the database.
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
        except sqlite3.Error as exc:
            raise translate_error(exc, self.path) from exc
        try:
            if not applied_versions(conn):
                return False
            row = conn.execute("SELECT 1 FROM users WHERE is_default = 1").fetchone()
            return row is not None
        except sqlite3.Error as exc:
            # A file that is not (or no longer) a database is an error to report, never
            # "nothing stored yet": callers would then answer "no such key" or "no datasets".
            if damaged(exc) or is_busy(exc):
                raise translate_error(exc, self.path) from exc
            return False
        finally:
            conn.close()

    # --- users ---------------------------------------------------------------------------------

    # --- datasets ------------------------------------------------------------------------------

    async def delete_dataset(self, dataset_id: UUID) -> DeleteReport:
        work = partial(bulk.delete_dataset, dataset_id=dataset_id, log_keep=self._log_keep)
        report = await asyncio.to_thread(self._db.write, work, bulk_delete=True)
        await asyncio.to_thread(self._vectors.ann_files.remove, str(dataset_id))
        return report

    async def delete_everything(self) -> None:
        await self._write(partial(documents.delete_everything, log_keep=self._log_keep))
        await asyncio.to_thread(self._vectors.ann_files.remove, None)

    # --- staged inputs --------------------------------------------------------------------------

    async def stage_data(self, items: Sequence[StagedItem]) -> int:
        return await self._write(partial(staging.stage_data, items=list(items)))

    async def list_staged(self, dataset_id: UUID) -> list[StagedItem]:
        return await self._read(partial(staging.list_staged, dataset_id=dataset_id))

    async def unstage(self, dataset_id: UUID, content_hashes: Sequence[str]) -> int:
        return await self._write(
            partial(staging.unstage, dataset_id=dataset_id, content_hashes=list(content_hashes))
        )

    async def count_staged(self, dataset_ids: Sequence[UUID]) -> int:
        return await self._read(partial(staging.count_staged, dataset_ids=list(dataset_ids)))

    # --- data ----------------------------------------------------------------------------------

    async def write_document(self, doc: DocumentWrite) -> bool:
        return await self._write(
            partial(documents.write_document, doc=doc, log_keep=self._log_keep)
        )

    async def delete_data(self, data_id: UUID) -> DeleteReport:
        return await self._write(
            partial(documents.delete_data, data_id=data_id, log_keep=self._log_keep)
        )

    async def _rewrite_nodes(self, dataset_id: UUID, rewrites: list[NodeRewrite]) -> int:
        return await self._write(
            partial(
                edits.rewrite_nodes,
                dataset_id=dataset_id,
                rewrites=rewrites,
                log_keep=self._log_keep,
            )
        )

    async def _merge_entities(self, dataset_id: UUID, merges: list[EntityMerge]) -> MergeReport:
        return await self._write(
            partial(
                edits.merge_entities, dataset_id=dataset_id, merges=merges, log_keep=self._log_keep
            )
        )

    # --- pipeline runs ---------------------------------------------------------------------------

    # --- reads (argument checks in :class:`.StoreCore`) -------------------------------------------

    async def _neighbourhood(self, node_ids: Sequence[UUID], depth: int, limit: int) -> Subgraph:
        return await self._read(
            partial(graph.neighbourhood, node_ids=node_ids, depth=depth, limit=limit)
        )

    async def _incident_edges(
        self,
        node_ids: Sequence[UUID],
        direction: Literal["out", "in"],
        relations: Sequence[str] | None,
        exclude_relations: Sequence[str],
        limit_per_node: int,
        provenance: bool,
    ) -> list[Edge]:
        return await self._read(
            partial(
                graph.incident_edges,
                node_ids=node_ids,
                direction=direction,
                relations=relations,
                exclude_relations=exclude_relations,
                limit_per_node=limit_per_node,
                provenance=provenance,
            )
        )

    async def _edges_between(
        self,
        pairs: Sequence[tuple[UUID, UUID]],
        exclude_relations: Sequence[str],
        provenance: bool,
    ) -> list[Edge]:
        return await self._read(
            partial(
                graph.edges_between,
                pairs=pairs,
                exclude_relations=exclude_relations,
                provenance=provenance,
            )
        )

    async def _vector_search(
        self, collection: str, vector: FloatArray, dataset_ids: list[UUID], top_k: int
    ) -> list[ScoredId]:
        return await asyncio.to_thread(
            self._vector_search_sync, collection, vector, [str(d) for d in dataset_ids], top_k
        )

    def _vector_search_sync(
        self, collection: str, query: FloatArray, dataset_ids: list[str], top_k: int
    ) -> list[ScoredId]:
        try:
            hits = self._vectors.search(collection, dataset_ids, query, top_k)
        except ValueError as exc:
            raise EmbeddingMismatchError(
                f"Cannot search collection {collection!r} with a {query.shape[0]}-dimensional "
                f"query: {exc}. The query was embedded with a different model than the dataset."
            ) from exc
        return [ScoredId(node_id=UUID(node_id), score=distance) for node_id, distance in hits]

    async def _lexical_search(
        self, collection: str, query: str, dataset_ids: list[UUID], top_k: int
    ) -> list[ScoredId]:
        if graph.fts_query(query) is None:
            return []
        return await self._read(
            partial(
                graph.lexical_search,
                collection=collection,
                query=query,
                dataset_ids=dataset_ids,
                top_k=top_k,
            )
        )

    async def query_sql(
        self, sql: str, params: Sequence[object], *, timeout: float
    ) -> list[tuple[Any, ...]]:
        """Runs on the read connection inside its read transaction (one WAL snapshot), with
        ``PRAGMA query_only`` on; a progress handler stops it at the deadline."""
        return await self._read(partial(run_read_only, sql=sql, params=params, timeout=timeout))

    # --- locks ---------------------------------------------------------------------------------

    def lock(self, name: str, *, timeout: float | None = None) -> AbstractAsyncContextManager[None]:
        """See :class:`.locks.LeaseLocks`; ``timeout=None`` waits up to 600 s. A lock its holder
        lent to the running code (:mod:`engramdb.storage.lending`) is not taken again."""
        return lent_or(self, name, lambda: self._locks.hold(name, timeout))

    # --- diagnostics -----------------------------------------------------------------------------

    async def backup(self, dest: Path) -> Path:
        from engramdb.storage.sqlite.backup import backup_database

        return await asyncio.to_thread(backup_database, self.path, Path(dest))

    async def check_integrity(self) -> IntegrityReport:
        violations = await self._read(maintenance.check_integrity)
        return IntegrityReport(violations=violations)

    # --- sessions (see :mod:`.sessions`) ----------------------------------------------------------

    async def add_qa_entry(self, entry: QARecord) -> QARecord:
        return await self._write(partial(session_sql.add_qa_entry, entry=entry))

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
        return await self._write(
            partial(
                session_sql.set_qa_feedback,
                user_id=user_id,
                session_id=session_id,
                qa_id=qa_id,
                score=score,
                text=text,
                source=source,
            )
        )

    async def clear_qa_feedback(self, user_id: UUID, session_id: str, qa_id: UUID) -> QARecord:
        return await self._write(
            partial(
                session_sql.clear_qa_feedback, user_id=user_id, session_id=session_id, qa_id=qa_id
            )
        )

    async def add_trace_entry(self, entry: TraceRecord) -> TraceRecord:
        return await self._write(partial(session_sql.add_trace_entry, entry=entry))

    async def add_context_entry(self, entry: ContextRecord) -> tuple[ContextRecord, bool]:
        return await self._write(partial(session_sql.add_context_entry, entry=entry))

    # --- derived graph data (see :mod:`.derived`) ----------------------------------------------

    async def write_derived(self, write: DerivedWrite) -> DerivedReport:
        return await self._write(partial(derived.write_derived, write=write))

    async def entity_mentions(self, dataset_id: UUID) -> list[MentionCount]:
        return await self._read(partial(derived.entity_mentions, dataset_id=dataset_id))

    async def document_counts(self, dataset_id: UUID, data_ids: Sequence[UUID]) -> DocumentCounts:
        only = sorted(set(data_ids), key=str)
        if not only:
            return DocumentCounts([], {})

        def work(conn: sqlite3.Connection) -> DocumentCounts:
            mentions = derived.entity_mentions(conn, dataset_id=dataset_id, data_ids=only)
            chunks = run_unit(conn, partial(sql_derived.chunk_counts, SQLITE, dataset_id, only))
            return DocumentCounts(mentions, chunks)

        return await self._read(work)
