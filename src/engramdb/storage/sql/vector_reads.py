"""Stored vectors read back by node id, once for both backends
(:meth:`~engramdb.storage.contract.search.SearchStore.node_vectors`), and the one decoding of
a stored vector that the archive reads share."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any
from uuid import UUID

import numpy as np

from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.port import UnitPort
from engramdb.storage.sql.unit import Unit, all_rows
from engramdb.storage.sql.values import as_uuid
from engramdb.storage.types import FloatArray

__all__ = ["EMBEDDING_COLUMN", "VectorReads", "as_vector", "node_vectors"]

#: How each backend hands over a vector: SQLite's float32 blob, pgvector's text form.
EMBEDDING_COLUMN = {"sqlite": "embedding", "postgres": "embedding::text"}


def as_vector(value: Any) -> FloatArray:
    """A stored embedding (SQLite blob or pgvector text) as a float32 array."""
    if isinstance(value, bytes | memoryview):
        return np.frombuffer(bytes(value), dtype=np.float32).copy()
    text = str(value).strip().strip("[]")
    return np.array([float(x) for x in text.split(",") if x], dtype=np.float32)


def node_vectors(
    d: SqlDialect, collection: str, node_ids: Sequence[UUID], dataset_ids: Sequence[UUID]
) -> Unit[dict[UUID, FloatArray]]:
    if not node_ids or not dataset_ids:
        return {}
    nodes, node_params = d.in_list("node_id", list(node_ids))
    datasets, dataset_params = d.in_list("dataset_id", list(dataset_ids))
    rows = yield from all_rows(
        f"SELECT node_id, {EMBEDDING_COLUMN[d.name]} FROM vectors "
        f"WHERE collection = {d.param} AND {nodes} AND {datasets}",
        collection,
        *node_params,
        *dataset_params,
    )
    return {as_uuid(r[0]): as_vector(r[1]) for r in rows}


class VectorReads(UnitPort):
    """:meth:`~engramdb.storage.contract.search.SearchStore.node_vectors`, one unit."""

    async def node_vectors(
        self, collection: str, node_ids: Sequence[UUID], dataset_ids: Sequence[UUID]
    ) -> dict[UUID, FloatArray]:
        ids = list(dict.fromkeys(node_ids))
        return await self._read_unit(
            partial(node_vectors, self.dialect, collection, ids, list(dict.fromkeys(dataset_ids)))
        )
