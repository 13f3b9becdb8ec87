"""Writing and deleting documents: the transactional heart of the PostgreSQL store.

:func:`prepare` turns a :class:`~engramdb.storage.base.DocumentWrite` into rows in plain Python
before any transaction starts (JSON encoded, vectors checked, full text normalised), so a value
that cannot be stored fails with nothing written and no connection held. :func:`write_document`
then runs inside ONE transaction the caller opened: a failure anywhere rolls the whole document
back, and a client killed mid-document leaves PostgreSQL to abort the open transaction.

Rows are written in the document's order (nodes and edges keep it as their insertion order).
Two concurrent documents that share entities in different orders can deadlock; PostgreSQL
aborts one of them and the transaction runner (:meth:`.database.Database.write`) retries it —
in practice rare, since ``remember`` serialises the writers of one dataset with its lock.
Each table gets ONE statement per document: the rows are bound as one array per column and
unpacked by ``unnest`` (:meth:`.dialect.SqlDialect.unnest`), so the server plans and runs one
``INSERT ... SELECT ... ON CONFLICT`` however many rows there are (:func:`prepare` makes the
conflict keys distinct, which a multi-row upsert requires).

Deletion is set-based, as in the embedded store: the ids to remove are collected into
per-connection temporary tables (``del_data``, ``del_nodes``, ``del_edges``; emptied at every
commit) with a few ``INSERT ... SELECT`` statements, then each table is purged with one
``DELETE`` — children before parents, so the foreign keys hold at every statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import LiteralString
from uuid import UUID

from engramdb.errors import EmbeddingMismatchError, StorageError
from engramdb.models.records import utcnow
from engramdb.storage.base import DeleteReport, DocumentWrite
from engramdb.storage.dialect import POSTGRES, columns_of, edge_upsert, node_upsert
from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.rows import to_json
from engramdb.storage.postgres.terms import DROP_SPENT, add_terms, subtract_terms
from engramdb.storage.postgres.text import document_words, scope_lexeme
from engramdb.storage.postgres.units import run_unit
from engramdb.storage.postgres.vectors import FloatArray, check_vector
from engramdb.storage.sql import documents as shared
from engramdb.storage.sql.derived import note_changes, note_doomed_members, note_members

__all__ = [
    "PreparedDocument",
    "delete_data",
    "delete_dataset",
    "delete_everything",
    "prepare",
    "upsert_vectors",
    "write_document",
]

#: Words of one text indexed for full-text search at most (PostgreSQL caps a tsvector at 1 MB).
MAX_INDEXED_WORDS = 100_000

_INSERT_DATA = """
INSERT INTO data (id, dataset_id, name, content_hash, mime_type, importance_weight,
                  external_metadata, node_set, size_bytes, chunk_count, created_at)
VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s)
ON CONFLICT (dataset_id, content_hash) DO NOTHING
"""

_UPSERT_NODES = node_upsert(POSTGRES, derived=False, batch=True)

_UPSERT_EDGES = edge_upsert(POSTGRES, derived=False, batch=True)

_ADD_NODE_SOURCES = (
    "INSERT INTO node_sources (node_id, data_id) "
    "SELECT n, %s FROM unnest(%b::uuid[]) AS t(n) ON CONFLICT DO NOTHING"
)

_ADD_EDGE_SOURCES = (
    "INSERT INTO edge_sources (edge_id, data_id) "
    "SELECT e, %s FROM unnest(%b::uuid[]) AS t(e) ON CONFLICT DO NOTHING"
)

#: Bound to (node ids, collections, dataset ids, dims, embeddings); distinct (node, collection).
_UPSERT_VECTORS = """
INSERT INTO vectors (node_id, collection, dataset_id, dim, embedding)
SELECT * FROM unnest(%b::uuid[], %b::text[], %b::uuid[], %b::int4[], %b::vector[])
ON CONFLICT (node_id, collection) DO UPDATE SET
    dataset_id = excluded.dataset_id, dim = excluded.dim, embedding = excluded.embedding
"""

#: Bound to (node ids, collections, dataset ids, words, scope lexemes, lengths).
_UPSERT_LEXICAL = """
INSERT INTO lexical (node_id, collection, dataset_id, words, length)
SELECT t.node_id, t.collection, t.dataset_id,
       to_tsvector('simple', t.words) || array_to_tsvector(ARRAY[t.scope]), t.length
FROM unnest(%b::uuid[], %b::text[], %b::uuid[], %b::text[], %b::text[], %b::int4[])
     AS t(node_id, collection, dataset_id, words, scope, length)
ON CONFLICT (node_id, collection) DO UPDATE SET
    dataset_id = excluded.dataset_id, words = excluded.words, length = excluded.length
"""

#: The document's full-text rows, bound to (node ids, collections).
_DOCUMENT_ROWS = "(l.node_id, l.collection) IN (SELECT * FROM unnest(%b::uuid[], %b::text[]))"
_SUBTRACT_REPLACED = subtract_terms(_DOCUMENT_ROWS)
_ADD_WRITTEN = add_terms(_DOCUMENT_ROWS)
_SUBTRACT_DOOMED = subtract_terms("l.node_id IN (SELECT id FROM del_nodes)")

#: Bound to (collections, dataset ids, docs, total lengths); distinct (collection, dataset).
_ADD_LEXICAL_STATS = """
INSERT INTO lexical_stats (collection, dataset_id, docs, total_length)
SELECT * FROM unnest(%b::text[], %b::uuid[], %b::int8[], %b::int8[])
ON CONFLICT (collection, dataset_id) DO UPDATE SET
    docs = lexical_stats.docs + excluded.docs,
    total_length = lexical_stats.total_length + excluded.total_length
"""


@dataclass(frozen=True, slots=True)
class _Vector:
    node_id: UUID
    collection: str
    array: FloatArray


@dataclass(frozen=True, slots=True)
class _Lexical:
    node_id: UUID
    collection: str
    words: str
    length: int


@dataclass(frozen=True, slots=True)
class PreparedDocument:
    """A document as rows, ready for one transaction."""

    data: tuple[object, ...]
    data_id: UUID
    dataset_id: UUID
    nodes: list[tuple[object, ...]]
    node_ids: list[UUID]
    edges: list[tuple[object, ...]]
    edge_ids: list[UUID]
    vectors: list[_Vector]
    lexical: list[_Lexical]
    referenced: list[UUID]
    #: Adds to the stored record ``data_id`` instead of writing ``data`` (DocumentWrite.extends).
    extends: bool = False
    #: The stored data item deleted first, in the same transaction (DocumentWrite.replaces).
    replaces: UUID | None = None

    @property
    def vector_shapes(self) -> set[tuple[str, int]]:
        """The (collection, dimension) pairs this document writes vectors for."""
        return {(v.collection, int(v.array.shape[0])) for v in self.vectors}


def prepare(doc: DocumentWrite) -> PreparedDocument:
    """Encode ``doc`` as rows (raises EngramValidationError for values that cannot be stored).
    When an id occurs twice, it keeps its first position and its last values, as sequential
    upserts would."""
    data = doc.data
    now = utcnow()
    data_row = (
        data.id,
        data.dataset_id,
        data.name,
        data.content_hash,
        data.mime_type,
        data.importance_weight,
        to_json(data.external_metadata),
        to_json(data.node_set),
        data.size_bytes,
        data.chunk_count,
        data.created_at,
    )
    nodes = {
        n.id: (
            n.id,
            n.dataset_id,
            n.type,
            n.name,
            n.text,
            to_json(n.properties),
            float(n.importance_weight),
            float(n.feedback_weight),
            now,
            now,
        )
        for n in doc.nodes
    }
    edges = {
        e.id: (
            e.id,
            e.dataset_id,
            e.source_id,
            e.target_id,
            e.relation,
            to_json(e.properties),
            float(e.importance_weight),
            float(e.feedback_weight),
        )
        for e in doc.edges
    }
    vectors = {
        (v.node_id, v.collection): _Vector(
            v.node_id, v.collection, check_vector(v.vector, v.node_id, v.collection)
        )
        for v in doc.vectors
    }
    lexical: dict[tuple[UUID, str], _Lexical] = {}
    for collection, pairs in doc.lexical.items():
        for node_id, text in pairs:
            words = document_words(text)[:MAX_INDEXED_WORDS]
            lexical[(node_id, collection)] = _Lexical(
                node_id, collection, " ".join(words), len(words)
            )
    referenced = {e.source_id for e in doc.edges} | {e.target_id for e in doc.edges}
    referenced |= {key[0] for key in vectors} | {key[0] for key in lexical}
    return PreparedDocument(
        data=data_row,
        data_id=data.id,
        dataset_id=data.dataset_id,
        nodes=list(nodes.values()),
        node_ids=list(nodes),
        edges=list(edges.values()),
        edge_ids=list(edges),
        vectors=list(vectors.values()),
        lexical=list(lexical.values()),
        referenced=sorted(referenced),
        extends=doc.extends,
        replaces=doc.replaces,
    )


async def write_document(conn: Conn, doc: PreparedDocument) -> bool:
    """Write ``doc`` (see ``Store.write_document``); False when its content hash is present."""
    if doc.extends:
        cur = await conn.execute("SELECT dataset_id FROM data WHERE id = %s", (doc.data_id,))
        row = await cur.fetchone()
        if row is None:
            return False
        # what the document mentions changes with no data item coming: noted for improve
        await run_unit(conn, partial(note_changes, POSTGRES, row[0], "d", [doc.data_id]))
    else:
        if doc.replaces is not None:
            await delete_data(conn, doc.replaces)
        cur = await conn.execute(_INSERT_DATA, doc.data)
        if cur.rowcount == 0:
            if doc.replaces is not None:  # roll the delete back with the rest
                raise StorageError(shared.replaced_twice(doc.data_id, doc.replaces))
            return False
        await run_unit(conn, partial(note_members, POSTGRES, doc.dataset_id, doc.data_id))
    if doc.nodes:
        await conn.execute(_UPSERT_NODES, columns_of(doc.nodes, len(doc.nodes[0])))
        await conn.execute(_ADD_NODE_SOURCES, (doc.data_id, doc.node_ids))
    known = await _node_datasets(conn, doc.referenced)
    missing = [str(node_id) for node_id in doc.referenced if node_id not in known]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise StorageError(
            f"Document {doc.data_id} refers to {len(missing)} node(s) that are neither in "
            f"the document nor in the store ({shown}); nothing was written."
        )
    if doc.edges:
        await conn.execute(_UPSERT_EDGES, columns_of(doc.edges, len(doc.edges[0])))
        await conn.execute(_ADD_EDGE_SOURCES, (doc.data_id, doc.edge_ids))
    if doc.vectors:
        await upsert_vectors(conn, await _vector_rows(conn, doc, known))
    if doc.lexical:
        await _write_lexical(conn, doc, known)
    return True


async def upsert_vectors(conn: Conn, rows: Sequence[tuple[object, ...]]) -> None:
    """Write (node id, collection, dataset id, dim, embedding) rows in one statement; a
    (node, collection) given twice keeps its last values, as sequential upserts would."""
    distinct = list({(row[0], row[1]): row for row in rows}.values())
    if distinct:
        await conn.execute(_UPSERT_VECTORS, columns_of(distinct, 5))


async def _node_datasets(conn: Conn, node_ids: Sequence[UUID]) -> dict[UUID, UUID]:
    """node id -> dataset id for those of ``node_ids`` that exist."""
    if not node_ids:
        return {}
    cur = await conn.execute(
        "SELECT id, dataset_id FROM nodes WHERE id = ANY(%s::uuid[])", (list(node_ids),)
    )
    return {row[0]: row[1] for row in await cur.fetchall()}


async def _vector_rows(
    conn: Conn, doc: PreparedDocument, datasets: dict[UUID, UUID]
) -> list[tuple[object, ...]]:
    dims: dict[tuple[str, UUID], int] = {}
    rows: list[tuple[object, ...]] = []
    for vector in doc.vectors:
        dataset_id = datasets[vector.node_id]
        dim = int(vector.array.shape[0])
        key = (vector.collection, dataset_id)
        if dims.setdefault(key, dim) != dim:
            raise EmbeddingMismatchError(
                f"Document {doc.data_id} mixes {dims[key]}- and {dim}-dimensional vectors in "
                f"collection {vector.collection!r}."
            )
        rows.append((vector.node_id, vector.collection, dataset_id, dim, vector.array))
    for (collection, dataset_id), dim in sorted(dims.items(), key=lambda item: str(item[0])):
        cur = await conn.execute(
            "SELECT dim FROM vectors WHERE collection = %s AND dataset_id = %s AND dim <> %s "
            "LIMIT 1",
            (collection, dataset_id, dim),
        )
        other = await cur.fetchone()
        if other is not None:
            raise EmbeddingMismatchError(
                f"Collection {collection!r} of dataset {dataset_id} holds {other[0]}-dimensional "
                f"vectors; this document brings {dim}-dimensional ones. Re-embed the dataset "
                "with one model (or forget it first)."
            )
    return rows


async def _write_lexical(conn: Conn, doc: PreparedDocument, datasets: dict[UUID, UUID]) -> None:
    cur = await conn.execute(
        "SELECT node_id, collection, length FROM lexical WHERE node_id = ANY(%s::uuid[])",
        (sorted({row.node_id for row in doc.lexical}),),
    )
    old = {(row[0], row[1]): int(row[2]) for row in await cur.fetchall()}
    deltas: dict[tuple[str, UUID], list[int]] = {}
    rows: list[tuple[object, ...]] = []
    for row in doc.lexical:
        dataset_id = datasets[row.node_id]
        scope = scope_lexeme(row.collection, dataset_id)
        rows.append((row.node_id, row.collection, dataset_id, row.words, scope, row.length))
        delta = deltas.setdefault((row.collection, dataset_id), [0, 0])
        previous = old.get((row.node_id, row.collection))
        delta[0] += 0 if previous is not None else 1
        delta[1] += row.length - (previous or 0)
    pairs = [[row.node_id for row in doc.lexical], [row.collection for row in doc.lexical]]
    if old:
        await conn.execute(_SUBTRACT_REPLACED, pairs)
        await conn.execute(DROP_SPENT)
    await conn.execute(_UPSERT_LEXICAL, columns_of(rows, 6))
    await conn.execute(_ADD_WRITTEN, pairs)
    stats = [
        (collection, dataset_id, docs, length)
        for (collection, dataset_id), (docs, length) in sorted(
            deltas.items(), key=lambda item: (item[0][0], str(item[0][1]))
        )
    ]
    await conn.execute(_ADD_LEXICAL_STATS, columns_of(stats, 4))


# --- deletion --------------------------------------------------------------------------------

_TEMP_TABLES = (
    "CREATE TEMP TABLE IF NOT EXISTS del_data (id uuid PRIMARY KEY) ON COMMIT DELETE ROWS",
    "CREATE TEMP TABLE IF NOT EXISTS del_nodes (id uuid PRIMARY KEY) ON COMMIT DELETE ROWS",
    "CREATE TEMP TABLE IF NOT EXISTS del_edges (id uuid PRIMARY KEY) ON COMMIT DELETE ROWS",
)


async def _reset_temp(conn: Conn) -> None:
    """Make sure this connection has the (empty: every commit or rollback empties them) tables."""
    for statement in _TEMP_TABLES:
        await conn.execute(statement)


async def _count(conn: Conn, statement: LiteralString) -> int:
    cur = await conn.execute(statement)
    return max(cur.rowcount, 0)


async def _purge(conn: Conn) -> DeleteReport:
    """Delete everything listed in the temp tables, children before parents."""
    await run_unit(conn, partial(note_doomed_members, POSTGRES))
    await conn.execute(
        """UPDATE lexical_stats s SET docs = s.docs - gone.docs,
                                      total_length = s.total_length - gone.total_length
           FROM (SELECT collection, dataset_id, count(*) AS docs, sum(length) AS total_length
                 FROM lexical WHERE node_id IN (SELECT id FROM del_nodes)
                 GROUP BY collection, dataset_id) AS gone
           WHERE s.collection = gone.collection AND s.dataset_id = gone.dataset_id"""
    )
    await conn.execute("DELETE FROM lexical_stats WHERE docs <= 0")
    await conn.execute(_SUBTRACT_DOOMED)
    await conn.execute(DROP_SPENT)
    await conn.execute(
        "DELETE FROM edge_sources WHERE edge_id IN (SELECT id FROM del_edges) "
        "OR data_id IN (SELECT id FROM del_data)"
    )
    edges = await _count(conn, "DELETE FROM edges WHERE id IN (SELECT id FROM del_edges)")
    await conn.execute(
        "DELETE FROM node_sources WHERE node_id IN (SELECT id FROM del_nodes) "
        "OR data_id IN (SELECT id FROM del_data)"
    )
    vectors = await _count(conn, "DELETE FROM vectors WHERE node_id IN (SELECT id FROM del_nodes)")
    lexical = await _count(conn, "DELETE FROM lexical WHERE node_id IN (SELECT id FROM del_nodes)")
    nodes = await _count(conn, "DELETE FROM nodes WHERE id IN (SELECT id FROM del_nodes)")
    await conn.execute("DELETE FROM kv_cache WHERE data_id IN (SELECT id FROM del_data)")
    data = await _count(conn, "DELETE FROM data WHERE id IN (SELECT id FROM del_data)")
    return DeleteReport(
        data_records=data, nodes=nodes, edges=edges, vectors=vectors, lexical_rows=lexical
    )


async def delete_data(conn: Conn, data_id: UUID) -> DeleteReport:
    await _reset_temp(conn)
    if not await run_unit(conn, partial(shared.collect_data, POSTGRES, data_id)):
        return DeleteReport()
    await run_unit(conn, partial(shared.collect_dependants, POSTGRES))
    return await _purge(conn)


#: A dataset's rows by its id (see the SQLite backend's ``_DATASET_ROWS``): set-based deletes,
#: no temp-table collection. Children before parents.
_DATASET_ROWS: tuple[tuple[LiteralString, LiteralString], ...] = (
    ("edge_sources", "edge_id IN (SELECT id FROM edges WHERE dataset_id = %s)"),
    ("edge_sources", "data_id IN (SELECT id FROM data WHERE dataset_id = %s)"),
    ("edges", "dataset_id = %s"),
    ("node_sources", "node_id IN (SELECT id FROM nodes WHERE dataset_id = %s)"),
    ("node_sources", "data_id IN (SELECT id FROM data WHERE dataset_id = %s)"),
    ("vectors", "dataset_id = %s"),
    ("lexical", "dataset_id = %s"),
    ("lexical_stats", "dataset_id = %s"),
    ("lexical_terms", "dataset_id = %s"),
    ("nodes", "dataset_id = %s"),
    ("kv_cache", "data_id IN (SELECT id FROM data WHERE dataset_id = %s)"),
    ("data", "dataset_id = %s"),
    ("pipeline_runs", "dataset_id = %s"),
)


async def delete_dataset(conn: Conn, dataset_id: UUID) -> DeleteReport:
    """Drop a dataset in one transaction with set-based deletes by its id."""
    cur = await conn.execute("SELECT 1 FROM datasets WHERE id = %s FOR UPDATE", (dataset_id,))
    if await cur.fetchone() is None:
        return DeleteReport()
    # Other datasets' rows first, exactly (see the SQLite backend's bulk module); the plan
    # walks from whichever side is smaller.
    cur = await conn.execute(
        "SELECT count(*) FILTER (WHERE dataset_id = %s), count(*) FROM nodes", (dataset_id,)
    )
    mine, total = await cur.fetchone() or (0, 0)
    await _reset_temp(conn)
    foreign = DeleteReport()
    collect = partial(shared.collect_foreign, POSTGRES, dataset_id, from_doomed=2 * mine < total)
    if await run_unit(conn, collect):
        foreign = await _purge(conn)
    counts: dict[str, int] = {}
    for table, where in _DATASET_ROWS:
        cur = await conn.execute(
            "DELETE FROM " + table + " WHERE " + where,
            (dataset_id,),
        )
        counts[table] = counts.get(table, 0) + max(cur.rowcount, 0)
    await conn.execute("DELETE FROM datasets WHERE id = %s", (dataset_id,))
    return DeleteReport(
        data_records=counts["data"] + foreign.data_records,
        nodes=counts["nodes"] + foreign.nodes,
        edges=counts["edges"] + foreign.edges,
        vectors=counts["vectors"] + foreign.vectors,
        lexical_rows=counts["lexical"] + foreign.lexical_rows,
    )


async def delete_everything(conn: Conn) -> None:
    """Empty every content table (users stay)."""
    for table in (
        "edge_sources",
        "node_sources",
        "edges",
        "vectors",
        "lexical",
        "lexical_stats",
        "lexical_terms",
        "nodes",
        "kv_cache",
        "data",
        "pipeline_runs",
        "datasets",
    ):
        await conn.execute(f"DELETE FROM {table}")
