"""The PostgreSQL + pgvector implementation of :class:`~engramdb.storage.base.Store`.

One database holds records, graph, vectors (pgvector, HNSW) and full text (``tsvector``, GIN),
so a document is written in one transaction, exactly as in the embedded store. This class is
thin glue: every public coroutine runs a unit of work inside a transaction of
:class:`.database.Database` (psycopg 3, async, one connection pool per event loop). The SQL both
backends share (users, datasets, data records, runs, cache, access, session reads) is in
:mod:`engramdb.storage.sql`, whose units :mod:`.units` runs; the PostgreSQL-only SQL lives in
the sibling modules:

* :mod:`.config` — storage URLs; :mod:`.schema` — numbered migrations;
* :mod:`.database` — pools, transactions, retries, error translation;
* :mod:`.rows` — node/edge columns and JSON encoding;
* :mod:`.documents` — write/delete documents; :mod:`.reads` — graph reads and BM25;
* :mod:`.vectors` — pgvector encoding, HNSW indexes, filtered ANN search;
* :mod:`.sessions` — the session writes; :mod:`.derived` — improve()'s derived graph data;
* :mod:`.locks` — advisory locks; :mod:`.integrity` — invariant checks.

Nothing happens on construction: the server is contacted on first use, and the database, the
pgvector extension, the schema and its tables are created only by :meth:`PostgresStore.setup`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypeVar
from uuid import UUID

import psycopg
from psycopg import errors, sql

from engramdb.errors import (
    DatabaseNotCreatedError,
    EmbeddingMismatchError,
    FeatureNotAvailableError,
    StorageError,
)
from engramdb.models.records import (
    Edge,
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
from engramdb.storage.dialect import POSTGRES
from engramdb.storage.lending import lent_or
from engramdb.storage.postgres import (
    derived,
    documents,
    edits,
    integrity,
    reads,
    staging,
    vectors,
)
from engramdb.storage.postgres import sessions as session_sql
from engramdb.storage.postgres.config import PostgresTarget, parse_url
from engramdb.storage.postgres.database import (
    Conn,
    Database,
    is_missing_database,
    translate_error,
)
from engramdb.storage.postgres.locks import AdvisoryLocks
from engramdb.storage.postgres.query import run_read_only
from engramdb.storage.postgres.schema import (
    LATEST_VERSION,
    MIGRATION_LOCK_KEY,
    applied_version,
    apply_migrations,
)
from engramdb.storage.postgres.units import run_unit
from engramdb.storage.sql import derived as sql_derived
from engramdb.storage.sql.unit import UnitFactory

__all__ = ["PostgresStore"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: The pgvector release whose ``hnsw.iterative_scan`` keeps filtered searches' recall.
_ITERATIVE_SCAN_VERSION = (0, 8, 0)

_PGVECTOR_INSTALL_HINT = (
    "install pgvector on the server (Debian/Ubuntu: apt-get install postgresql-<major>-pgvector "
    "where the package exists; on Debian bookworm, scripts/postgres-for-tests.sh install builds "
    "it from Debian's source package; elsewhere see pgvector's installation notes), then run "
    "setup() again"
)


class PostgresStore(StoreCore):
    """The store in one PostgreSQL database with pgvector, safe to share between processes and
    hosts. ``url`` is a ``postgresql://`` URL (see :mod:`.config` for engramdb's parameters);
    ``exact_search_limit`` is how many candidate vectors a search may scan exactly before it
    uses the HNSW index."""

    capabilities = frozenset({Capability.CYPHER, Capability.APPROXIMATE_VECTORS})
    dialect = POSTGRES

    def __init__(self, url: str, *, exact_search_limit: int = vectors.EXACT_LIMIT) -> None:
        super().__init__()
        self._target: PostgresTarget = parse_url(url)
        self.url = url
        self._db = Database(self._target, on_connect=vectors.register_vector_dumper)
        self._locks = AdvisoryLocks(self._db)
        self._exact_limit = exact_search_limit
        #: (collection, dim) pairs whose HNSW index is known to exist.
        self._indexed: set[tuple[str, int]] = set()

    @property
    def schema(self) -> str:
        return self._target.schema

    async def _read_unit(self, unit: UnitFactory[T], *, snapshot: bool = False) -> T:
        return await self._db.read(partial(run_unit, unit=unit), snapshot=snapshot)

    async def _write_unit(self, unit: UnitFactory[T]) -> T:
        return await self._db.write(partial(run_unit, unit=unit))

    # --- lifecycle -------------------------------------------------------------------------------

    async def setup(self) -> None:
        conn = await self._connect_creating_database()
        try:
            # Up to date: no DDL, so that a read-only server (a standby) can be opened to read.
            current = await applied_version(conn, self._target.schema) == LATEST_VERSION
            applied = [] if current else await self._migrate(conn)
        except psycopg.Error as exc:
            raise translate_error(exc, self._target) from exc
        finally:
            await conn.close()
        if applied:
            logger.info("applied migrations %s to %s", applied, self._target.display)
        self._db.mark_verified()

    async def _migrate(self, conn: Conn) -> list[int]:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
            await self._ensure_extension(conn)
            await conn.execute(
                sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                    sql.Identifier(self._target.schema)
                )
            )
            # The schema (and pgvector) may be new: point this transaction at them again.
            await conn.execute(
                "SELECT set_config('search_path', format('%%I, %%s', %s::text, "
                "(SELECT format('%%I', n.nspname) FROM pg_extension e JOIN pg_namespace n "
                "ON n.oid = e.extnamespace WHERE e.extname = 'vector')), true)",
                (self._target.schema,),
            )
            return await apply_migrations(conn)

    async def _connect_creating_database(self) -> Conn:
        try:
            return await self._db.connect(autocommit=True)
        except StorageError as exc:
            if exc.__cause__ is None or not is_missing_database(exc.__cause__):
                raise
        dbname = self._target.dbname
        if dbname is None:
            raise StorageError(
                f"The database of {self._target.display} does not exist; name it in the URL "
                "(postgresql://.../dbname) or create it (CREATE DATABASE)."
            )
        admin = await self._db.connect(autocommit=True, dbname="postgres")
        try:
            await admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
        except errors.DuplicateDatabase:
            pass  # created meanwhile by a concurrent setup
        except errors.InsufficientPrivilege as exc:
            raise StorageError(
                f"Database {dbname!r} does not exist and the role of {self._target.display} "
                f"may not create it; create it as an administrator (CREATE DATABASE {dbname}) "
                "or grant CREATEDB."
            ) from exc
        except psycopg.Error as exc:
            raise translate_error(exc, self._target) from exc
        finally:
            await admin.close()
        return await self._db.connect(autocommit=True)

    async def _ensure_extension(self, conn: Conn) -> None:
        cur = await conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = await cur.fetchone()
        if row is None:
            cur = await conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
            if await cur.fetchone() is None:
                raise StorageError(
                    f"The PostgreSQL server of {self._target.display} does not have the pgvector "
                    f"extension; {_PGVECTOR_INSTALL_HINT}."
                )
            try:
                await conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
            except errors.InsufficientPrivilege as exc:
                raise StorageError(
                    "The pgvector extension is installed on the server but not enabled in this "
                    f"database, and the role of {self._target.display} may not enable it; ask a "
                    "superuser to run CREATE EXTENSION vector; in this database, then run "
                    "setup() again."
                ) from exc
            cur = await conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = await cur.fetchone()
        version = _version_tuple(str(row[0]) if row is not None else "0")
        if version < _ITERATIVE_SCAN_VERSION:
            logger.warning(
                "pgvector %s is older than 0.8.0: filtered vector searches cannot use iterative "
                "index scans and fall back to exact scans more often; upgrade pgvector",
                row[0] if row is not None else "?",
            )

    async def close(self) -> None:
        await self._db.close()

    async def exists(self) -> bool:
        try:
            conn = await self._db.connect(autocommit=True)
        except DatabaseNotCreatedError:
            return False  # the database does not exist: not created (an unreachable server
            # is an error to report, never "nothing stored yet")
        try:
            if await applied_version(conn, self._target.schema) is None:
                return False
            cur = await conn.execute(
                sql.SQL("SELECT 1 FROM {} WHERE is_default").format(
                    sql.Identifier(self._target.schema, "users")
                )
            )
            return await cur.fetchone() is not None
        except psycopg.Error:
            return False
        finally:
            await conn.close()

    # --- users -----------------------------------------------------------------------------------

    # --- datasets --------------------------------------------------------------------------------

    async def delete_dataset(self, dataset_id: UUID) -> DeleteReport:
        return await self._db.write(partial(documents.delete_dataset, dataset_id=dataset_id))

    async def delete_everything(self) -> None:
        await self._db.write(documents.delete_everything)

    # --- staged inputs ---------------------------------------------------------------------------

    async def stage_data(self, items: Sequence[StagedItem]) -> int:
        return await self._db.write(partial(staging.stage_data, items=list(items)))

    async def list_staged(self, dataset_id: UUID) -> list[StagedItem]:
        return await self._db.read(partial(staging.list_staged, dataset_id=dataset_id))

    async def unstage(self, dataset_id: UUID, content_hashes: Sequence[str]) -> int:
        return await self._db.write(
            partial(staging.unstage, dataset_id=dataset_id, content_hashes=list(content_hashes))
        )

    async def count_staged(self, dataset_ids: Sequence[UUID]) -> int:
        return await self._db.read(partial(staging.count_staged, dataset_ids=list(dataset_ids)))

    # --- data ------------------------------------------------------------------------------------

    async def write_document(self, doc: DocumentWrite) -> bool:
        prepared = documents.prepare(doc)
        await self._ensure_vector_indexes(prepared.vector_shapes)
        return await self._db.write(partial(documents.write_document, doc=prepared))

    async def _ensure_vector_indexes(self, shapes: set[tuple[str, int]]) -> None:
        pending = shapes - self._indexed
        if not pending:
            return
        schema = self._target.schema

        async def work(conn: Conn) -> None:
            missing = await vectors.missing_indexes(conn, schema, pending)
            if missing:
                await vectors.ensure_indexes(conn, missing)

        await self._db.write(work)
        self._indexed |= pending

    async def delete_data(self, data_id: UUID) -> DeleteReport:
        return await self._db.write(partial(documents.delete_data, data_id=data_id))

    async def _rewrite_nodes(self, dataset_id: UUID, rewrites: list[NodeRewrite]) -> int:
        await self._ensure_vector_indexes(edits.vector_shapes(rewrites))
        return await self._db.write(
            partial(edits.rewrite_nodes, dataset_id=dataset_id, rewrites=rewrites)
        )

    async def _merge_entities(self, dataset_id: UUID, merges: list[EntityMerge]) -> MergeReport:
        await self._ensure_vector_indexes(edits.vector_shapes([m.survivor for m in merges]))
        return await self._db.write(
            partial(edits.merge_entities, dataset_id=dataset_id, merges=merges)
        )

    # --- pipeline runs (record rules in :class:`.StoreCore`) ------------------------------------

    # --- reads (argument checks in :class:`.StoreCore`) -------------------------------------------

    async def _neighbourhood(self, node_ids: Sequence[UUID], depth: int, limit: int) -> Subgraph:
        return await self._db.read(
            partial(reads.neighbourhood, node_ids=node_ids, depth=depth, limit=limit),
            snapshot=True,
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
        return await self._db.read(
            partial(
                reads.incident_edges,
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
        return await self._db.read(
            partial(
                reads.edges_between,
                pairs=pairs,
                exclude_relations=exclude_relations,
                provenance=provenance,
            )
        )

    async def _vector_search(
        self, collection: str, vector: FloatArray, dataset_ids: list[UUID], top_k: int
    ) -> list[ScoredId]:
        """Exact below ``exact_search_limit`` candidates, HNSW with iterative scan above (see
        :mod:`.vectors`); distances are cosine distances, nearest first."""
        has_index = await self._has_index(collection, int(vector.shape[0]))

        async def work(conn: Conn) -> list[tuple[UUID, float]]:
            return await vectors.search(
                conn,
                collection,
                vector,
                dataset_ids,
                top_k,
                exact_limit=self._exact_limit,
                has_index=has_index,
            )

        try:
            hits = await self._db.read(work)
        except EmbeddingMismatchError as exc:
            raise EmbeddingMismatchError(
                f"Cannot search collection {collection!r} with a {vector.shape[0]}-dimensional "
                f"query: {exc} The query was embedded with a different model than the dataset."
            ) from exc
        return [ScoredId(node_id=node_id, score=distance) for node_id, distance in hits]

    async def _lexical_search(
        self, collection: str, query: str, dataset_ids: list[UUID], top_k: int
    ) -> list[ScoredId]:
        return await self._db.read(
            partial(
                reads.lexical_search,
                collection=collection,
                query=query,
                dataset_ids=dataset_ids,
                top_k=top_k,
            )
        )

    async def query_sql(
        self, sql: str, params: Sequence[object], *, timeout: float
    ) -> list[tuple[Any, ...]]:
        """Runs in a REPEATABLE READ, READ ONLY transaction with a ``statement_timeout``."""
        return await self._db.read(
            partial(run_read_only, sql=sql, params=params, timeout=timeout), snapshot=True
        )

    async def _has_index(self, collection: str, dim: int) -> bool:
        if (collection, dim) in self._indexed:
            return True
        schema = self._target.schema

        async def work(conn: Conn) -> bool:
            return not await vectors.missing_indexes(conn, schema, [(collection, dim)])

        if await self._db.read(work):
            self._indexed.add((collection, dim))
            return True
        return False

    # --- locks -----------------------------------------------------------------------------------

    def lock(self, name: str, *, timeout: float | None = None) -> AbstractAsyncContextManager[None]:
        """See :class:`.locks.AdvisoryLocks`; ``timeout=None`` waits up to 600 s. A lock its
        holder lent to the running code (:mod:`engramdb.storage.lending`) is not taken again."""
        return lent_or(self, name, lambda: self._locks.hold(name, timeout))

    # --- cache and diagnostics -------------------------------------------------------------------

    async def backup(self, dest: Path) -> Path:
        raise FeatureNotAvailableError(
            "engramdb backup of a PostgreSQL store: use PostgreSQL's own tools, e.g. pg_dump "
            f"--format=custom --schema={self._target.schema} <your ENGRAMDB_STORAGE_URL "
            "without ?schema=...> > engramdb.dump, and pg_restore to restore it; "
            "engramdb check verifies the result"
        )

    async def check_integrity(self) -> IntegrityReport:
        violations = await self._db.read(integrity.check_integrity, snapshot=True)
        return IntegrityReport(violations=violations)

    # --- sessions (see :mod:`.sessions`) ----------------------------------------------------------

    async def add_qa_entry(self, entry: QARecord) -> QARecord:
        return await self._db.write(partial(session_sql.add_qa_entry, entry=entry))

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
        return await self._db.write(
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
        return await self._db.write(
            partial(
                session_sql.clear_qa_feedback, user_id=user_id, session_id=session_id, qa_id=qa_id
            )
        )

    async def add_trace_entry(self, entry: TraceRecord) -> TraceRecord:
        return await self._db.write(partial(session_sql.add_trace_entry, entry=entry))

    async def add_context_entry(self, entry: ContextRecord) -> tuple[ContextRecord, bool]:
        return await self._db.write(partial(session_sql.add_context_entry, entry=entry))

    # --- derived graph data (see :mod:`.derived`) -------------------------------------------------

    async def write_derived(self, write: DerivedWrite) -> DerivedReport:
        return await self._db.write(partial(derived.write_derived, write=write))

    async def entity_mentions(self, dataset_id: UUID) -> list[MentionCount]:
        return await self._db.read(partial(derived.entity_mentions, dataset_id=dataset_id))

    async def document_counts(self, dataset_id: UUID, data_ids: Sequence[UUID]) -> DocumentCounts:
        only = sorted(set(data_ids), key=str)
        if not only:
            return DocumentCounts([], {})

        async def work(conn: Conn) -> DocumentCounts:
            mentions = await derived.entity_mentions(conn, dataset_id=dataset_id, data_ids=only)
            unit = partial(sql_derived.chunk_counts, POSTGRES, dataset_id, only)
            return DocumentCounts(mentions, await run_unit(conn, unit))

        return await self._db.read(work, snapshot=True)


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)
