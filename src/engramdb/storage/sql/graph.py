"""The graph reads that are the same on both backends (units of :mod:`.unit`).

The walks (``neighbourhood``), per-node edge lists and full-text search differ by backend and
stay in each backend's module; these are plain filtered scans in insertion order.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.models.records import Edge, Node
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.port import UnitPort
from engramdb.storage.sql.rows import edge_columns, node_columns, row_to_edge, row_to_node
from engramdb.storage.sql.unit import Unit, all_rows, one
from engramdb.storage.sql.values import as_uuid

__all__ = ["GraphReads", "count_nodes", "get_nodes", "list_edges", "list_nodes"]


def get_nodes(d: SqlDialect, node_ids: Sequence[UUID], provenance: bool = True) -> Unit[list[Node]]:
    """The nodes that exist, in the order of ``node_ids`` (repeats once)."""
    if not node_ids:
        return []
    where, params = d.in_list("n.id", list(node_ids))
    rows = yield from all_rows(
        f"SELECT {node_columns(d, provenance=provenance)} FROM nodes n WHERE {where}", *params
    )
    by_id = {as_uuid(row[0]): row for row in rows}
    return [row_to_node(by_id[key]) for key in dict.fromkeys(node_ids) if key in by_id]


def _node_filter(
    d: SqlDialect, dataset_ids: Sequence[UUID], type_: str | None
) -> tuple[str, list[object]]:
    where, params = d.in_list("n.dataset_id", list(dataset_ids))
    if type_ is not None:
        where += f" AND n.type = {d.param}"
        params.append(type_)
    return where, params


def list_nodes(
    d: SqlDialect, dataset_ids: Sequence[UUID], type_: str | None, limit: int
) -> Unit[list[Node]]:
    where, params = _node_filter(d, dataset_ids, type_)
    rows = yield from all_rows(
        f"SELECT {node_columns(d)} FROM nodes n WHERE {where} ORDER BY n.seq LIMIT {d.param}",
        *params,
        limit,
    )
    return [row_to_node(row) for row in rows]


def count_nodes(d: SqlDialect, dataset_ids: Sequence[UUID], type_: str | None) -> Unit[int]:
    where, params = _node_filter(d, dataset_ids, type_)
    row = yield from one(f"SELECT count(*) FROM nodes n WHERE {where}", *params)
    return int(row[0]) if row is not None else 0


def list_edges(d: SqlDialect, dataset_ids: Sequence[UUID], limit: int) -> Unit[list[Edge]]:
    where, params = d.in_list("e.dataset_id", list(dataset_ids))
    rows = yield from all_rows(
        f"SELECT {edge_columns(d)} FROM edges e WHERE {where} ORDER BY e.seq LIMIT {d.param}",
        *params,
        limit,
    )
    return [row_to_edge(row) for row in rows]


class GraphReads(UnitPort):
    """The read ports of :class:`~engramdb.storage.core.StoreCore` that are one unit each
    (the core has checked the arguments)."""

    async def _get_nodes(self, node_ids: Sequence[UUID], provenance: bool) -> list[Node]:
        return await self._read_unit(partial(get_nodes, self.dialect, node_ids, provenance))

    async def _list_nodes(
        self, dataset_ids: Sequence[UUID], type_: str | None, limit: int
    ) -> list[Node]:
        return await self._read_unit(partial(list_nodes, self.dialect, dataset_ids, type_, limit))

    async def _count_nodes(self, dataset_ids: Sequence[UUID], type_: str | None) -> int:
        return await self._read_unit(partial(count_nodes, self.dialect, dataset_ids, type_))

    async def _list_edges(self, dataset_ids: Sequence[UUID], limit: int) -> list[Edge]:
        return await self._read_unit(partial(list_edges, self.dialect, dataset_ids, limit))
