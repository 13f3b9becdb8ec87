"""Vectors in PostgreSQL: pgvector's binary format, per-(collection, dimension) HNSW indexes and
a filtered nearest-neighbour search that keeps its recall.

**Storage.** ``vectors.embedding`` is an unsized ``vector`` so that one table serves every
embedding model. An HNSW index needs a fixed dimension, so each (collection, dimension) pair gets
its own partial expression index, ``ON vectors USING hnsw ((embedding::vector(D))
vector_cosine_ops) WHERE collection = '<c>' AND dim = D`` — ``halfvec(D)`` above pgvector's 2,000
dimensions for ``vector`` indexes, none above 4,000 (those collections are always searched
exactly). :func:`ensure_indexes` creates the index when the first vector of a new pair is about to
be written, in its own short transaction (under an advisory lock, so concurrent writers do not
race), before the document's transaction starts.

**Search.** The planner can only match a partial index whose predicate it can prove from the
query, so the ANN query spells the collection and the dimension as literals (bind parameters
would let a generic plan miss the index). Within the requested datasets:

* at most ``exact_limit`` candidate rows (counted with a bounded index-only scan): an exact scan
  ``ORDER BY embedding <=> q`` — recall 1.0, as in the embedded store, and fast at that size;
* more: the HNSW index with pgvector 0.8's iterative scan (``hnsw.iterative_scan =
  relaxed_order``), which keeps walking the graph until ``top_k`` rows pass the dataset filter,
  with ``hnsw.ef_search`` widened for larger ``top_k``; relaxed order is undone by sorting the
  few hits again. If the scan still comes back short (``hnsw.max_scan_tuples`` reached on a very
  selective filter), the search falls back to the exact scan.

Distances are pgvector's cosine distance (``1 - cos``), the contract's score. A zero vector has no
direction: pgvector answers NaN for it, reported here as distance 1 (as the embedded store does).
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

import numpy as np
import numpy.typing as npt
from psycopg import sql
from psycopg.abc import Buffer
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.types import TypeInfo

from engramdb.errors import EngramValidationError
from engramdb.storage.postgres.database import Conn

__all__ = [
    "ANN_MIN_EF_SEARCH",
    "EXACT_LIMIT",
    "check_vector",
    "ensure_indexes",
    "index_name",
    "register_vector_dumper",
    "search",
]

FloatArray = npt.NDArray[np.float32]

#: Searches over at most this many candidate rows are exact scans (no index).
EXACT_LIMIT = 10_000
#: ``hnsw.ef_search`` for an ANN search (raised to ``2 * top_k`` for larger ``top_k``).
ANN_MIN_EF_SEARCH = 100
#: Rows an iterative index scan may visit before giving up (then the exact scan answers).
ANN_MAX_SCAN_TUPLES = 50_000
#: pgvector's HNSW limits: ``vector`` up to 2,000 dimensions, ``halfvec`` up to 4,000.
_VECTOR_INDEX_MAX_DIM = 2000
_HALFVEC_INDEX_MAX_DIM = 4000
#: Key space of the advisory locks that serialise index creation.
_INDEX_LOCK_BASE = 0x76656374 << 16  # "vect"


class _VectorBinaryDumper(Dumper):
    """numpy arrays as pgvector's binary ``vector``: int16 dim, int16 0, big-endian float32s."""

    format = Format.BINARY

    def dump(self, obj: Any) -> Buffer:
        array = np.asarray(obj, dtype=">f4").reshape(-1)
        return struct.pack(">HH", array.shape[0], 0) + array.tobytes()


async def register_vector_dumper(conn: Conn) -> bool:
    """Teach ``conn`` to send numpy arrays as ``vector`` (binary, ``%b``), and lists of them
    as ``vector[]`` (the batched writes); False when the pgvector extension is not installed in
    this database yet."""
    cur = await conn.execute(
        "SELECT t.oid, t.typarray FROM pg_type t "
        "JOIN pg_extension e ON e.extnamespace = t.typnamespace "
        "WHERE e.extname = 'vector' AND t.typname = 'vector'"
    )
    row = await cur.fetchone()
    if row is None:
        return False
    TypeInfo("vector", int(row[0]), int(row[1])).register(conn)
    dumper = type("VectorDumper", (_VectorBinaryDumper,), {"oid": int(row[0])})
    conn.adapters.register_dumper(np.ndarray, dumper)
    return True


def check_vector(vector: object, node_id: UUID, collection: str) -> FloatArray:
    """The vector as a finite, non-empty 1-D float32 array (else a validation error)."""
    array = np.asarray(vector, dtype=np.float32)
    if array.ndim != 1 or array.shape[0] == 0:
        raise EngramValidationError(
            f"Vector of node {node_id} in {collection!r} must be a non-empty 1-D array, "
            f"got shape {array.shape}."
        )
    if array.shape[0] > 16_000:
        raise EngramValidationError(
            f"Vector of node {node_id} in {collection!r} has {array.shape[0]} dimensions; "
            "pgvector stores at most 16,000."
        )
    if not np.all(np.isfinite(array)):
        raise EngramValidationError(f"Vector of node {node_id} in {collection!r} has NaN/inf.")
    return array


def index_name(collection: str, dim: int) -> str:
    digest = hashlib.blake2b(collection.encode(), digest_size=6).hexdigest()
    return f"vectors_hnsw_{dim}_{digest}"


def _indexed_expression(dim: int) -> tuple[sql.Composable, sql.Composable] | None:
    """(indexed expression, operator class) for ``dim``, or None when HNSW cannot index it."""
    if dim <= _VECTOR_INDEX_MAX_DIM:
        return sql.SQL("(embedding::vector({}))").format(sql.Literal(dim)), sql.SQL(
            "vector_cosine_ops"
        )
    if dim <= _HALFVEC_INDEX_MAX_DIM:
        return sql.SQL("(embedding::halfvec({}))").format(sql.Literal(dim)), sql.SQL(
            "halfvec_cosine_ops"
        )
    return None


def _lock_key(collection: str, dim: int) -> int:
    digest = hashlib.blake2b(f"{collection}\x1f{dim}".encode(), digest_size=2).digest()
    return _INDEX_LOCK_BASE + int.from_bytes(digest, "big")


async def missing_indexes(
    conn: Conn, schema: str, pairs: Iterable[tuple[str, int]]
) -> list[tuple[str, int]]:
    """Those (collection, dim) pairs whose HNSW index does not exist in ``schema`` yet."""
    wanted = sorted({p for p in pairs if _indexed_expression(p[1]) is not None})
    if not wanted:
        return []
    cur = await conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = %s AND indexname = ANY(%s)",
        (schema, [index_name(c, d) for c, d in wanted]),
    )
    present = {str(row[0]) for row in await cur.fetchall()}
    return [(c, d) for c, d in wanted if index_name(c, d) not in present]


async def ensure_indexes(conn: Conn, pairs: Sequence[tuple[str, int]]) -> None:
    """Create the HNSW index of each (collection, dim) pair (inside the caller's transaction)."""
    for collection, dim in sorted(set(pairs)):
        shape = _indexed_expression(dim)
        if shape is None:
            continue
        expression, opclass = shape
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key(collection, dim),))
        await conn.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON vectors USING hnsw ({} {}) "
                "WHERE collection = {} AND dim = {}"
            ).format(
                sql.Identifier(index_name(collection, dim)),
                expression,
                opclass,
                sql.Literal(collection),
                sql.Literal(dim),
            )
        )


def _hits(rows: Sequence[Sequence[Any]]) -> list[tuple[UUID, float]]:
    out: list[tuple[UUID, float]] = []
    for node_id, distance in rows:
        value = float(distance) if distance is not None else math.nan
        out.append((node_id, 1.0 if math.isnan(value) else value))
    return out


async def _exact(
    conn: Conn, collection: str, query: FloatArray, dataset_ids: list[UUID], top_k: int
) -> list[tuple[UUID, float]]:
    cur = await conn.execute(
        "SELECT node_id, embedding <=> %b AS distance FROM vectors "
        "WHERE collection = %s AND dataset_id = ANY(%s::uuid[]) "
        "ORDER BY distance, node_id LIMIT %s",
        (query, collection, dataset_ids, top_k),
    )
    return _hits(await cur.fetchall())


async def _approximate(
    conn: Conn, collection: str, query: FloatArray, dataset_ids: list[UUID], top_k: int
) -> list[tuple[UUID, float]]:
    dim = int(query.shape[0])
    shape = _indexed_expression(dim)
    assert shape is not None
    expression, _ = shape
    cast = sql.SQL("halfvec" if dim > _VECTOR_INDEX_MAX_DIM else "vector")
    ef_search = min(1000, max(ANN_MIN_EF_SEARCH, 2 * top_k))
    await conn.execute(
        "SELECT set_config('hnsw.ef_search', %s, true), "
        "set_config('hnsw.iterative_scan', 'relaxed_order', true), "
        "set_config('hnsw.max_scan_tuples', %s, true)",
        (str(ef_search), str(max(ANN_MAX_SCAN_TUPLES, 4 * top_k))),
    )
    statement = sql.SQL(
        "SELECT node_id, distance FROM ("
        "SELECT node_id, {expr} <=> %b::{cast}({dim}) AS distance FROM vectors "
        "WHERE collection = {collection} AND dim = {dim} AND dataset_id = ANY(%s::uuid[]) "
        "ORDER BY distance LIMIT %s) AS hits ORDER BY distance, node_id"
    ).format(
        expr=expression,
        cast=cast,
        dim=sql.Literal(dim),
        collection=sql.Literal(collection),
    )
    cur = await conn.execute(statement, (query, dataset_ids, top_k))
    return _hits(await cur.fetchall())


async def search(
    conn: Conn,
    collection: str,
    query: FloatArray,
    dataset_ids: list[UUID],
    top_k: int,
    *,
    exact_limit: int = EXACT_LIMIT,
    has_index: bool,
) -> list[tuple[UUID, float]]:
    """The ``top_k`` nearest vectors (cosine distance, nearest first); see the module docstring.
    Runs inside a transaction (the ANN settings are transaction-local)."""
    cur = await conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM vectors WHERE collection = %s "
        "AND dataset_id = ANY(%s::uuid[]) LIMIT %s) AS candidates",
        (collection, dataset_ids, exact_limit + 1),
    )
    row = await cur.fetchone()
    candidates = int(row[0]) if row is not None else 0
    if candidates == 0:
        return []
    if candidates <= exact_limit or not has_index or not np.any(query):
        return await _exact(conn, collection, query, dataset_ids, top_k)
    hits = await _approximate(conn, collection, query, dataset_ids, top_k)
    if len(hits) < top_k:  # the iterative scan gave up early: a very selective filter
        return await _exact(conn, collection, query, dataset_ids, top_k)
    return hits
