"""Approximate vector index files (HNSW, usearch) kept coherent with the SQLite file.

Large (collection, dataset) pairs — at least ``threshold`` vectors — are searched through an
HNSW graph stored in a file beside the database (``<db>.ann/``), opened memory-mapped
(``view=True``): opening reads the file header, never every vector, and a search touches only
the pages of the graph nodes it visits. Smaller pairs keep the exact in-memory matrix of
:mod:`.vector_cache` (so small stores keep their exact results).

**Keys are ``vectors.rowid``.** A search asks the graph for a few times ``k`` candidate rowids,
then re-reads those rows from SQLite in the caller's read snapshot, keeps the ones still in the
wanted (collection, dataset) and scores them exactly from their float32 BLOBs. So a stale,
corrupt or half-written index file can only cost recall, never return a deleted row, a row of
another dataset or an inexact distance. The graph stores float16 (half the memory of float32; the
exact re-scoring makes the rounding invisible in the result).

**Coherence.** Each index file records (in its JSON ``.meta`` file) the ``vector_log`` sequence
number of the snapshot it was built from and a token of the database it belongs to. On load:

* meta missing or unreadable, token or dimension different, file missing or of another size, a
  ``drop`` of the dataset logged after the recorded seq, the log pruned past it, or the log
  behind it → the file is not used and the index is rebuilt from the database;
* otherwise the vectors upserted after the recorded seq (read from the log) are loaded into a
  small exact *delta* matrix searched beside the graph; deletions need nothing (re-scoring drops
  rows that are gone). When the delta outgrows ``max(DELTA_MIN, DELTA_FRACTION × size)`` the
  index is rebuilt from the database.

Files are written to a temporary name, renamed to a name that includes their seq, and only then
the meta file is replaced (rename is atomic), so a crash at any point leaves either the previous
consistent pair or a file the meta does not name. Rebuilds happen in whichever process searches
first; two processes racing both write valid pairs and the last rename wins.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engramdb.errors import StorageError
from engramdb.settings import DEFAULT_VECTOR_ANN_THRESHOLD
from engramdb.storage.vectors import FloatArray

__all__ = [
    "DEFAULT_THRESHOLD",
    "AnnFiles",
    "AnnIndex",
    "available",
    "candidates_for",
]

logger = logging.getLogger(__name__)

#: Pairs with at least this many vectors use the approximate index by default.
DEFAULT_THRESHOLD = DEFAULT_VECTOR_ANN_THRESHOLD
#: HNSW parameters (see bench/ann_compare.py for the measurements behind them).
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 96
SCALAR = "f16"
#: Candidates asked of the graph per query: ``max(MIN_CANDIDATES, CANDIDATE_FACTOR * k)``.
MIN_CANDIDATES = 64
CANDIDATE_FACTOR = 4
#: The delta matrix that triggers a rebuild: ``max(DELTA_MIN, DELTA_FRACTION * indexed)``.
DELTA_MIN = 20_000
DELTA_FRACTION = 0.1
_FORMAT = 1
_BUILD_BATCH = 16_384


def available() -> bool:
    """True when the optional ``usearch`` package (extra ``ann``) is installed."""
    try:
        import usearch.index  # noqa: F401
    except ImportError:
        return False
    return True


def candidates_for(k: int) -> int:
    return max(MIN_CANDIDATES, CANDIDATE_FACTOR * k)


@dataclass(frozen=True, slots=True)
class AnnMeta:
    """What an index file was built from (stored as JSON beside it)."""

    format: int
    token: str
    collection: str
    dataset_id: str
    seq: int
    dim: int
    count: int
    file: str
    size: int


class AnnIndex:
    """One opened (memory-mapped) graph and the meta it was validated against."""

    def __init__(self, graph: Any, meta: AnnMeta) -> None:
        self._graph = graph
        self.meta = meta

    def candidates(self, query: FloatArray, count: int) -> list[int]:
        """Rowids of up to ``count`` approximate nearest neighbours of ``query``."""
        found = self._graph.search(np.asarray(query, dtype=np.float32), count, threads=1)
        return [int(key) for key in np.asarray(found.keys)]


def database_token(conn: sqlite3.Connection) -> str:
    """Identifies one database file across reopenings (not a copy made by recreating it)."""
    row = conn.execute(
        "SELECT applied_at FROM schema_migrations ORDER BY version LIMIT 1"
    ).fetchone()
    return "" if row is None else str(row[0])


def log_head(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()[0])


def index_dir(db_path: Path) -> Path:
    """Where the index files of the database at ``db_path`` live: ``<db>.ann/`` beside it."""
    return db_path.with_name(db_path.name + ".ann")


class AnnFiles:
    """The index files of one database, in ``<db>.ann/``: ``<dataset>.<collection hash>.meta``
    and the ``<dataset>.<collection hash>.<seq>.<nonce>.usearch`` it names."""

    def __init__(self, db_path: Path, threshold: int) -> None:
        self.dir = index_dir(db_path)
        self.threshold = threshold
        #: How many indexes this object built (diagnostics for tests and benchmarks).
        self.builds = 0

    @property
    def enabled(self) -> bool:
        return self.threshold > 0 and available()

    def _stem(self, collection: str, dataset_id: str) -> str:
        return f"{dataset_id}.{hashlib.sha256(collection.encode()).hexdigest()[:16]}"

    def remove(self, dataset_id: str | None) -> None:
        """Delete the files of one dataset (every dataset when None), after the database
        committed its deletion: forgotten vectors must not linger on disk (best effort — a
        file that stays behind is never served, its pair's ``drop`` is in the log)."""
        if not self.dir.exists():
            return
        pattern = "*" if dataset_id is None else f"{dataset_id}.*"
        for path in self.dir.glob(pattern):
            with contextlib.suppress(OSError):
                path.unlink()

    def meta_path(self, collection: str, dataset_id: str) -> Path:
        return self.dir / f"{self._stem(collection, dataset_id)}.meta"

    # --- open ----------------------------------------------------------------------------------

    def open(
        self, conn: sqlite3.Connection, collection: str, dataset_id: str, head: int
    ) -> AnnIndex | None:
        """The index file of the pair if it is usable at log position ``head``, else None."""
        meta = self._read_meta(collection, dataset_id)
        if meta is None or meta.token != database_token(conn) or meta.seq > head:
            return None
        if meta.seq < head:
            first = conn.execute("SELECT min(seq) FROM vector_log").fetchone()[0]
            if first is None or int(first) > meta.seq + 1:
                return None  # the entries since the build were pruned: changes are unknown
            dropped = conn.execute(
                "SELECT 1 FROM vector_log WHERE seq > ? AND op = 'drop' "
                "AND (dataset_id IS NULL OR dataset_id = ?) LIMIT 1",
                (meta.seq, dataset_id),
            ).fetchone()
            if dropped is not None:
                return None
        path = self.dir / meta.file
        try:
            if path.stat().st_size != meta.size:
                return None
            from usearch.index import Index

            graph = Index.restore(str(path), view=True, enable_key_lookups=False)
        except (OSError, ValueError, RuntimeError) as exc:
            logger.warning("vector index file %s is unusable (%s); rebuilding", path.name, exc)
            return None
        if graph is None or graph.ndim != meta.dim or len(graph) != meta.count:
            return None
        return AnnIndex(graph, meta)

    def _read_meta(self, collection: str, dataset_id: str) -> AnnMeta | None:
        try:
            raw = json.loads(self.meta_path(collection, dataset_id).read_text("utf-8"))
            meta = AnnMeta(**raw)
        except (OSError, ValueError, TypeError):
            return None
        if (
            meta.format != _FORMAT
            or meta.collection != collection
            or meta.dataset_id != dataset_id
            or "/" in meta.file
        ):
            return None
        return meta

    # --- build ---------------------------------------------------------------------------------

    def build(
        self, conn: sqlite3.Connection, collection: str, dataset_id: str, head: int
    ) -> AnnIndex | None:
        """Index every vector of the pair in this snapshot (log position ``head``); None when
        the pair is empty. The file is saved for later opens; if it cannot be written (a
        read-only directory) the in-memory graph still serves this process."""
        from usearch.index import Index

        cursor = conn.execute(
            "SELECT rowid, dim, embedding FROM vectors WHERE collection = ? AND dataset_id = ?",
            (collection, dataset_id),
        )
        graph: Any = None
        dim = 0
        while batch := cursor.fetchmany(_BUILD_BATCH):
            keys, matrix = _keyed_matrix(batch, collection, dataset_id)
            if graph is None:
                dim = matrix.shape[1]
                graph = Index(
                    ndim=dim,
                    metric="cos",
                    dtype=SCALAR,
                    connectivity=CONNECTIVITY,
                    expansion_add=EXPANSION_ADD,
                    expansion_search=EXPANSION_SEARCH,
                )
            elif matrix.shape[1] != dim:
                raise StorageError(
                    f"Collection {collection!r} of dataset {dataset_id} mixes vector "
                    f"dimensions {dim} and {matrix.shape[1]}; re-embed it."
                )
            graph.add(keys, matrix)
        if graph is None:
            return None
        self.builds += 1
        name = f"{self._stem(collection, dataset_id)}.{head}.{uuid.uuid4().hex[:8]}.usearch"
        meta = AnnMeta(
            _FORMAT, database_token(conn), collection, dataset_id, head, dim, len(graph), name, 0
        )
        try:
            meta = self._save(graph, meta)
        except OSError as exc:
            logger.warning("could not save the vector index of %r (%s)", collection, exc)
            return AnnIndex(graph, meta)
        try:  # reopen memory-mapped, so the built copy's memory is returned
            view = Index.restore(str(self.dir / meta.file), view=True, enable_key_lookups=False)
        except (OSError, ValueError, RuntimeError):
            view = None  # a racing rebuild removed it: keep serving the built copy
        return AnnIndex(graph if view is None else view, meta)

    def _save(self, graph: Any, meta: AnnMeta) -> AnnMeta:
        self.dir.mkdir(parents=True, exist_ok=True)
        final = self.dir / meta.file
        tmp = self.dir / f".{meta.file}.tmp"
        graph.save(str(tmp))
        _fsync(tmp)
        os.replace(tmp, final)
        meta = AnnMeta(**{**asdict(meta), "size": final.stat().st_size})
        meta_path = self.meta_path(meta.collection, meta.dataset_id)
        meta_tmp = self.dir / f".{meta_path.name}.{uuid.uuid4().hex[:8]}.tmp"
        meta_tmp.write_text(json.dumps(asdict(meta)), "utf-8")
        _fsync(meta_tmp)
        os.replace(meta_tmp, meta_path)
        _fsync_dir(self.dir)
        # Older files of the pair (the previous one, or one a crash left unnamed). A process
        # that still has one mapped keeps its pages until it unmaps it (POSIX).
        for old in self.dir.glob(f"{self._stem(meta.collection, meta.dataset_id)}.*.usearch"):
            seq = old.name.split(".")[2]
            if old.name != meta.file and seq.isdigit() and int(seq) <= meta.seq:
                with contextlib.suppress(OSError):
                    old.unlink()
        return meta


def _keyed_matrix(
    rows: Sequence[tuple[int, int, bytes]], collection: str, dataset_id: str
) -> tuple[np.ndarray[Any, np.dtype[np.uint64]], FloatArray]:
    dims = {int(row[1]) for row in rows}
    if len(dims) != 1:
        raise StorageError(
            f"Collection {collection!r} of dataset {dataset_id} mixes vector dimensions "
            f"{sorted(dims)}; re-embed it."
        )
    dim = dims.pop()
    flat = np.frombuffer(b"".join(row[2] for row in rows), dtype="<f4")
    keys = np.fromiter((int(row[0]) for row in rows), dtype=np.uint64, count=len(rows))
    return keys, flat.astype(np.float32, copy=False).reshape(len(rows), dim)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not supported everywhere (Windows)
        _fsync(path)


def rescore(
    conn: sqlite3.Connection,
    collection: str,
    dataset_id: str,
    rowids: Sequence[int],
    query: FloatArray,
) -> list[tuple[str, float]]:
    """Exact cosine distances of the rows among ``rowids`` still in the pair."""
    if not rowids:
        return []
    rows = conn.execute(
        "SELECT node_id, dim, embedding FROM vectors WHERE rowid IN "
        "(SELECT value FROM json_each(?)) AND collection = ? AND dataset_id = ?",
        (json.dumps(list(rowids)), collection, dataset_id),
    ).fetchall()
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    rows = [row for row in rows if int(row[1]) == q.shape[0]]
    if not rows:
        return []
    from engramdb.storage.vectors import VectorIndex

    index = VectorIndex(q.shape[0], capacity=len(rows))
    flat = np.frombuffer(b"".join(row[2] for row in rows), dtype="<f4")
    index.add([row[0] for row in rows], flat.astype(np.float32).reshape(len(rows), -1))
    return index.search(query, len(rows))
