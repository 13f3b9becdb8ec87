"""The archive reads and the id-keeping dataset insert, once for both backends
(:class:`~engramdb.storage.contract.archive.ArchiveStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.errors import ConflictError, NotFoundError, StorageError
from engramdb.models.records import Dataset
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.access import user_by_id
from engramdb.storage.sql.port import UnitPort
from engramdb.storage.sql.records import dataset_by_id, dataset_by_name
from engramdb.storage.sql.rows import edge_columns, node_columns, row_to_edge, row_to_node
from engramdb.storage.sql.unit import Unit, all_rows, execute
from engramdb.storage.sql.values import as_uuid
from engramdb.storage.sql.vector_reads import EMBEDDING_COLUMN, as_vector
from engramdb.storage.types import ArchivedGraph, StoredMark, VectorRow

__all__ = ["ArchiveMethods", "archive_graph", "archive_vectors", "insert_dataset", "list_marks"]

#: The full-text table of each backend: its name holds one row per (node, collection).
_LEXICAL_TABLE = {"sqlite": "lexical_docs", "postgres": "lexical"}


def archive_graph(d: SqlDialect, dataset_id: UUID) -> Unit[ArchivedGraph]:
    p = d.param
    rows = yield from all_rows(
        f"SELECT {node_columns(d)} FROM nodes n WHERE n.dataset_id = {p}", dataset_id
    )
    nodes = sorted((row_to_node(r) for r in rows), key=lambda n: str(n.id))
    rows = yield from all_rows(
        f"SELECT {edge_columns(d)} FROM edges e WHERE e.dataset_id = {p}", dataset_id
    )
    edges = sorted((row_to_edge(r) for r in rows), key=lambda e: str(e.id))
    derived: list[tuple[str, UUID, str]] = []
    for kind, table, column in (
        ("node", "derived_nodes", "node_id"),
        ("edge", "derived_edges", "edge_id"),
    ):
        rows = yield from all_rows(
            f"SELECT {column}, owner FROM {table} WHERE dataset_id = {p}", dataset_id
        )
        derived += [(kind, as_uuid(r[0]), str(r[1])) for r in rows]
    derived.sort(key=lambda t: (t[0], str(t[1])))
    rows = yield from all_rows(
        f"SELECT key, value FROM improve_state WHERE dataset_id = {p}", dataset_id
    )
    state = sorted((str(r[0]), str(r[1])) for r in rows)
    indexed: list[tuple[str, UUID, str]] = []
    for index, table in (("lexical", _LEXICAL_TABLE[d.name]), ("vector", "vectors")):
        rows = yield from all_rows(
            f"SELECT node_id, collection FROM {table} WHERE dataset_id = {p}", dataset_id
        )
        indexed += [(index, as_uuid(r[0]), str(r[1])) for r in rows]
    indexed.sort(key=lambda t: (t[0], str(t[1]), t[2]))
    return ArchivedGraph(nodes=nodes, edges=edges, derived=derived, state=state, indexed=indexed)


def archive_vectors(d: SqlDialect, dataset_id: UUID) -> Unit[list[VectorRow]]:
    rows = yield from all_rows(
        f"SELECT node_id, collection, {EMBEDDING_COLUMN[d.name]} FROM vectors "
        f"WHERE dataset_id = {d.param}",
        dataset_id,
    )
    found = [VectorRow(as_uuid(r[0]), str(r[1]), as_vector(r[2])) for r in rows]
    return sorted(found, key=lambda v: (str(v.node_id), v.collection))


def list_marks(d: SqlDialect, entry_ids: Sequence[UUID]) -> Unit[list[StoredMark]]:
    if not entry_ids:
        return []
    where, params = d.in_list("entry_id", list(entry_ids))
    rows = yield from all_rows(
        f"SELECT kind, entry_id, consumer, rating_rev FROM session_marks WHERE {where}", *params
    )
    marks = [StoredMark(str(r[0]), as_uuid(r[1]), str(r[2]), int(r[3])) for r in rows]
    return sorted(marks, key=lambda m: (str(m.entry_id), m.kind, m.consumer))


def insert_dataset(d: SqlDialect, dataset: Dataset) -> Unit[Dataset]:
    existing = yield from dataset_by_id(d, dataset.id)
    if existing is not None:
        return existing
    if (yield from user_by_id(d, dataset.owner_id)) is None:
        raise NotFoundError(f"No user with id {dataset.owner_id}; create the user first.")
    clash = yield from dataset_by_name(d, dataset.owner_id, dataset.name)
    if clash is not None:
        raise ConflictError(
            f"the owner already has a dataset named {dataset.name!r} with another id "
            f"({clash.id}, the archive's is {dataset.id}); forget or rename it first"
        )
    yield from execute(
        "INSERT INTO datasets (id, owner_id, name, embedding_model, embedding_dim, created_at, "
        f"tenant_id) VALUES ({d.params(7)})",
        dataset.id,
        dataset.owner_id,
        dataset.name,
        dataset.embedding_model,
        dataset.embedding_dim,
        dataset.created_at,
        dataset.tenant_id,
    )
    stored = yield from dataset_by_id(d, dataset.id)
    if stored is None:  # cannot happen: inserted just above, in this transaction
        raise StorageError(f"Dataset {dataset.name!r} could not be created.")
    return stored


class ArchiveMethods(UnitPort):
    """The :class:`~engramdb.storage.contract.archive.ArchiveStore` methods, one unit each."""

    async def archive_graph(self, dataset_id: UUID) -> ArchivedGraph:
        return await self._read_unit(
            partial(archive_graph, self.dialect, dataset_id), snapshot=True
        )

    async def archive_vectors(self, dataset_id: UUID) -> list[VectorRow]:
        return await self._read_unit(partial(archive_vectors, self.dialect, dataset_id))

    async def list_marks(self, entry_ids: Sequence[UUID]) -> list[StoredMark]:
        return await self._read_unit(partial(list_marks, self.dialect, list(entry_ids)))

    async def insert_dataset(self, dataset: Dataset) -> Dataset:
        return await self._write_unit(partial(insert_dataset, self.dialect, dataset))
