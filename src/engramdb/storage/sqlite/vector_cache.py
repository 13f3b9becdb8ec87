"""In-memory vector indexes kept coherent with the SQLite file across processes.

The vectors live in the ``vectors`` table (float32 BLOBs); searching them goes through one
:class:`~engramdb.storage.vectors.VectorIndex` per (collection, dataset), loaded lazily on the
first search that needs it. Other processes (or other store objects) may write to the same file,
so every vector write appends to ``vector_log`` in the writer's transaction. Before each search,
inside one read transaction (one snapshot):

1. ``SELECT max(seq) FROM vector_log`` — an O(log n) probe; equal to the last applied seq means
   nothing changed and costs nothing more.
2. Otherwise the new entries are read and their net effect per node applied to the loaded
   indexes (upserts re-read the current embedding, deletes swap-remove). A ``drop`` entry (a
   deleted dataset, or everything) evicts matrices. If the entries we need were pruned (the
   first one is not ``last + 1``) or the log went backwards (file recreated), every matrix is
   evicted.
3. Matrices the search needs but that are not loaded are loaded from the same snapshot.

Writes are serialised by SQLite, so log sequence numbers commit in order and a reader never
misses an entry that commits "behind" one it already applied.

Pairs of at least ``ann_threshold`` vectors (with the optional ``usearch`` installed) are
served by an approximate index file instead of a matrix (:mod:`.ann`): the slot then holds the
memory-mapped graph plus an exact *delta* matrix of the vectors upserted since the file was
built, kept up to date from the log like any matrix; candidates from the graph are re-scored
exactly from SQLite in the same snapshot.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

import numpy as np

from engramdb.errors import StorageError
from engramdb.storage.sqlite import ann
from engramdb.storage.sqlite.database import Database
from engramdb.storage.sqlite.rows import to_json
from engramdb.storage.vectors import FloatArray, VectorIndex, search_indexes

__all__ = ["VectorCache"]

_Key = tuple[str, str]  # (collection, dataset_id)
_LOAD_BATCH = 4096


class _Slot:
    """The loaded state of one (collection, dataset): an exact index (None while empty), or an
    approximate index file with ``index`` as its exact delta."""

    __slots__ = ("ann", "index")

    def __init__(self, index: VectorIndex | None, graph: ann.AnnIndex | None = None) -> None:
        self.index = index
        self.ann = graph

    def delta_too_large(self) -> bool:
        if self.ann is None or self.index is None:
            return False
        return len(self.index) > max(ann.DELTA_MIN, ann.DELTA_FRACTION * self.ann.meta.count)


def _matrix(rows: Sequence[tuple[str, int, bytes]], what: str) -> tuple[list[str], FloatArray]:
    dims = {int(row[1]) for row in rows}
    if len(dims) != 1:
        raise StorageError(f"{what} mixes vector dimensions {sorted(dims)}; re-embed it.")
    dim = dims.pop()
    flat = np.frombuffer(b"".join(row[2] for row in rows), dtype="<f4")
    return [row[0] for row in rows], flat.astype(np.float32, copy=False).reshape(len(rows), dim)


class VectorCache:
    """Lazily loaded per-(collection, dataset) indexes of one store object (thread-safe)."""

    def __init__(self, db: Database, ann_threshold: int = ann.DEFAULT_THRESHOLD) -> None:
        self._db = db
        self.ann_files = ann.AnnFiles(db.path, ann_threshold)
        self._lock = threading.Lock()
        self._slots: dict[_Key, _Slot] = {}
        self._applied_seq: int | None = None
        #: How many times matrices were (re)loaded from SQLite; lets tests observe coherence.
        self.loads = 0

    def clear(self) -> None:
        with self._lock:
            self._slots.clear()
            self._applied_seq = None

    def search(
        self, collection: str, dataset_ids: Sequence[str], query: FloatArray, k: int
    ) -> list[tuple[str, float]]:
        """Exact top-``k`` over the requested datasets' matrices of ``collection``.

        Raises ValueError when the query dimension does not match the stored vectors.
        """
        wanted = list(dict.fromkeys(dataset_ids))
        with self._lock:
            return self._db.read(lambda conn: self._search(conn, collection, wanted, query, k))

    def _search(
        self,
        conn: sqlite3.Connection,
        collection: str,
        wanted: list[str],
        query: FloatArray,
        k: int,
    ) -> list[tuple[str, float]]:
        self._sync(conn, collection, wanted)
        slots = [(ds, slot) for ds in wanted if (slot := self._slots.get((collection, ds)))]
        hits = search_indexes([s.index for _, s in slots if s.index is not None], query, k)
        if k <= 0 or all(slot.ann is None for _, slot in slots):
            return hits
        for ds, slot in slots:
            if slot.ann is None:
                continue
            dim = slot.ann.meta.dim
            if query.shape[0] != dim:
                raise ValueError(f"query has dimension {query.shape[0]}, the index holds {dim}")
            rowids = slot.ann.candidates(query, ann.candidates_for(k))
            hits.extend(ann.rescore(conn, collection, ds, rowids, query))
        best: dict[str, float] = {}
        for node_id, distance in hits:
            best.setdefault(node_id, distance)
        return sorted(best.items(), key=lambda hit: hit[1])[:k]

    # --- coherence ---------------------------------------------------------------------------

    def _sync(self, conn: sqlite3.Connection, collection: str, dataset_ids: list[str]) -> None:
        head = int(conn.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()[0])
        applied = self._applied_seq
        if applied is None or not self._slots:
            pass  # nothing loaded: there is nothing to bring up to date
        elif head < applied:
            self._slots.clear()
        elif head > applied:
            entries = conn.execute(
                "SELECT seq, collection, dataset_id, node_id, op FROM vector_log "
                "WHERE seq > ? ORDER BY seq",
                (applied,),
            ).fetchall()
            if not entries or int(entries[0][0]) != applied + 1:
                self._slots.clear()
            else:
                self._apply(conn, entries)
        self._applied_seq = head
        for ds in dataset_ids:
            slot = self._slots.get((collection, ds))
            if slot is not None and (slot.delta_too_large() or self._outgrown(slot)):
                del self._slots[(collection, ds)]  # (re)build the index file from the database
            if (collection, ds) not in self._slots:
                self._slots[(collection, ds)] = self._load(conn, collection, ds, head)

    def _outgrown(self, slot: _Slot) -> bool:
        """An exact matrix that grew past the threshold while loaded."""
        files = self.ann_files
        return (
            slot.ann is None
            and slot.index is not None
            and files.enabled
            and len(slot.index) >= files.threshold
        )

    def _load(self, conn: sqlite3.Connection, collection: str, dataset_id: str, head: int) -> _Slot:
        """An approximate index file for a large pair, else the exact matrix (streamed into a
        preallocated matrix, no second full-size copy)."""
        files = self.ann_files
        if files.enabled:
            graph = files.open(conn, collection, dataset_id, head)
            if graph is not None:
                slot = self._with_delta(conn, collection, dataset_id, graph)
                if not slot.delta_too_large():
                    return slot
        where = "WHERE collection = ? AND dataset_id = ?"
        params = (collection, dataset_id)
        count = int(conn.execute(f"SELECT count(*) FROM vectors {where}", params).fetchone()[0])
        self.loads += 1
        if count == 0:
            return _Slot(None)
        if files.enabled and count >= files.threshold:
            built = files.build(conn, collection, dataset_id, head)
            if built is not None:
                return _Slot(None, built)
        cursor = conn.execute(f"SELECT node_id, dim, embedding FROM vectors {where}", params)
        index: VectorIndex | None = None
        while batch := cursor.fetchmany(_LOAD_BATCH):
            ids, matrix = _matrix(batch, f"Collection {collection!r} of dataset {dataset_id}")
            if index is None:
                index = VectorIndex(matrix.shape[1], capacity=count)
            elif index.dim != matrix.shape[1]:
                raise StorageError(
                    f"Collection {collection!r} of dataset {dataset_id} mixes vector "
                    f"dimensions {index.dim} and {matrix.shape[1]}; re-embed it."
                )
            index.add(ids, matrix)
        return _Slot(index)

    def _with_delta(
        self, conn: sqlite3.Connection, collection: str, dataset_id: str, graph: ann.AnnIndex
    ) -> _Slot:
        """The slot of an index file plus the vectors upserted since its build."""
        entries = conn.execute(
            "SELECT node_id, op FROM vector_log WHERE seq > ? AND collection = ? "
            "AND dataset_id = ? ORDER BY seq",
            (graph.meta.seq, collection, dataset_id),
        ).fetchall()
        ops = {node_id: op for node_id, op in entries}
        slot = _Slot(None, graph)
        upserts = [node for node, op in ops.items() if op == "upsert"]
        if upserts and not self._upsert(conn, (collection, dataset_id), slot, upserts):
            raise StorageError(
                f"Collection {collection!r} of dataset {dataset_id} mixes vector dimensions; "
                "re-embed it."
            )
        return slot

    def _apply(
        self, conn: sqlite3.Connection, entries: list[tuple[int, str, str, str, str]]
    ) -> None:
        pending: dict[_Key, dict[str, str]] = {}
        for _seq, collection, dataset_id, node_id, op in entries:
            if op == "drop":
                doomed = [k for k in self._slots if dataset_id is None or k[1] == dataset_id]
                for key in doomed:
                    del self._slots[key]
                    pending.pop(key, None)
            elif (collection, dataset_id) in self._slots:
                pending.setdefault((collection, dataset_id), {})[node_id] = op
        for key, ops in pending.items():
            slot = self._slots[key]
            deletes = [node for node, op in ops.items() if op == "delete"]
            upserts = [node for node, op in ops.items() if op == "upsert"]
            if slot.index is not None:
                slot.index.remove(deletes)
            if upserts and not self._upsert(conn, key, slot, upserts):
                del self._slots[key]  # inconsistent dimensions: reload from scratch next time

    def _upsert(self, conn: sqlite3.Connection, key: _Key, slot: _Slot, nodes: list[str]) -> bool:
        collection, dataset_id = key
        rows = conn.execute(
            "SELECT node_id, dim, embedding FROM vectors WHERE collection = ? "
            "AND dataset_id = ? AND node_id IN (SELECT value FROM json_each(?))",
            (collection, dataset_id, to_json(nodes)),
        ).fetchall()
        found = {row[0] for row in rows}
        if slot.index is not None:
            # Logged as upserted but gone (or moved) in this snapshot: a later entry deleted it.
            slot.index.remove(node for node in nodes if node not in found)
        if not rows:
            return True
        try:
            ids, matrix = _matrix(rows, "A vector update")
        except StorageError:
            return False
        if slot.index is None:
            slot.index = VectorIndex(matrix.shape[1], capacity=len(ids))
        elif slot.index.dim != matrix.shape[1]:
            return False
        slot.index.add(ids, matrix)
        return True
