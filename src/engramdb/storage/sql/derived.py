"""Derived graph data, feedback weights and improve state: the units both backends share.

Derived nodes and edges live in the ordinary ``nodes`` / ``edges`` tables, so every graph read
and every deletion path sees them; ``derived_nodes`` / ``derived_edges`` record their owner and
cascade away with them. ``write_derived`` (which deletes nodes with the backend's full-text and
vector rows) and ``entity_mentions`` (a backend-tuned query) stay in each backend's ``derived``
module; session marks are spent with :func:`.sessions.mark_entries` in the caller's
transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from uuid import UUID

from engramdb.errors import ConflictError, EngramValidationError
from engramdb.models.records import Edge, utcnow
from engramdb.models.sessions import EntryMark
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.graph import get_nodes
from engramdb.storage.sql.port import UnitPort
from engramdb.storage.sql.rows import edge_columns, row_to_edge
from engramdb.storage.sql.sessions import mark_entries
from engramdb.storage.sql.unit import Unit, all_rows, count, execute, one
from engramdb.storage.sql.values import as_uuid
from engramdb.storage.types import (
    MEMBER_CHANGE_PREFIX,
    DerivedWrite,
    FeedbackReport,
    FeedbackUpdate,
    StageInputs,
    Subgraph,
    graph_change_keys,
    member_change_key,
)

__all__ = [
    "DerivedMethods",
    "apply_feedback_weights",
    "check_datasets",
    "check_owners",
    "chunk_counts",
    "data_ids",
    "doomed_nodes",
    "drop_states",
    "fact_edges",
    "get_state",
    "get_states",
    "graph_fingerprint",
    "list_derived",
    "note_changes",
    "note_doomed_members",
    "note_members",
    "set_state",
    "spend_marks",
    "stage_inputs",
    "stale_edges",
]


# --- the steps of write_derived ------------------------------------------------------------------


def spend_marks(d: SqlDialect, write: DerivedWrite) -> Unit[int]:
    """Spend the write's session marks; all must be new (else nothing is written)."""
    spent = 0
    for consumer, marks in write.marks.items():
        new = yield from mark_entries(d, consumer, marks)
        if len(new) != len(marks):
            raise ConflictError(
                f"{len(marks) - len(new)} session entr(y/ies) were already processed by "
                f"{consumer!r} (or deleted); nothing was written, the entries are not spent twice"
            )
        spent += len(new)
    return spent


def check_datasets(write: DerivedWrite) -> None:
    elements: list[tuple[str, UUID, UUID]] = [("node", n.id, n.dataset_id) for n in write.nodes]
    elements += [("edge", e.id, e.dataset_id) for e in write.edges]
    for kind, element_id, element_ds in elements:
        if element_ds != write.dataset_id:
            raise EngramValidationError(
                f"derived {kind} {element_id} belongs to dataset {element_ds}, not to the "
                f"written dataset {write.dataset_id}"
            )


def check_owners(d: SqlDialect, write: DerivedWrite) -> Unit[None]:
    """Derived writes of an owner may only replace that owner's nodes and edges."""
    nodes, params = d.in_list("n.id", sorted({n.id for n in write.nodes}))
    row = yield from one(
        "SELECT n.id, d.owner FROM nodes n LEFT JOIN derived_nodes d ON d.node_id = n.id "
        f"WHERE {nodes} AND (d.owner IS NULL OR d.owner <> {d.param}) LIMIT 1",
        *params,
        write.owner,
    )
    if row is not None:
        whose = "an ingested node" if row[1] is None else f"a node of owner {row[1]!r}"
        raise ConflictError(
            f"derived node id {row[0]} is already {whose}; derived writes of owner "
            f"{write.owner!r} may only replace their own nodes"
        )
    edges, params = d.in_list("e.id", sorted({e.id for e in write.edges}))
    row = yield from one(
        "SELECT e.id FROM edges e LEFT JOIN derived_edges d ON d.edge_id = e.id "
        f"WHERE {edges} AND (d.owner IS NULL OR d.owner <> {d.param}) LIMIT 1",
        *params,
        write.owner,
    )
    if row is not None:
        raise ConflictError(
            f"derived edge id {row[0]} is already an ingested edge or another owner's"
        )


def doomed_nodes(d: SqlDialect, write: DerivedWrite) -> Unit[list[UUID]]:
    """The owner's derived nodes the write replaces or deletes, sorted."""
    p = d.param
    doomed: list[UUID] = []
    if write.replace:
        keep = {n.id for n in write.nodes}
        types = set(write.replace_types)
        rows = yield from all_rows(
            "SELECT d.node_id, n.type FROM derived_nodes d JOIN nodes n ON n.id = d.node_id "
            f"WHERE d.dataset_id = {p} AND d.owner = {p}",
            write.dataset_id,
            write.owner,
        )
        found = [(as_uuid(row[0]), row[1]) for row in rows]
        doomed = [i for i, t in found if i not in keep and (not types or t in types)]
    if write.delete_node_ids:
        mine, params = d.in_list("node_id", sorted(set(write.delete_node_ids)))
        rows = yield from all_rows(
            f"SELECT node_id FROM derived_nodes WHERE owner = {p} AND dataset_id = {p} AND {mine}",
            write.owner,
            write.dataset_id,
            *params,
        )
        doomed += [as_uuid(row[0]) for row in rows]
    return sorted(set(doomed))


def stale_edges(d: SqlDialect, write: DerivedWrite) -> Unit[list[UUID]]:
    """The owner's derived edges a replacing write leaves out (of ``replace_types``)."""
    keep = {e.id for e in write.edges}
    types = set(write.replace_types)
    rows = yield from all_rows(
        "SELECT d.edge_id, n.type FROM derived_edges d JOIN edges e ON e.id = d.edge_id "
        "JOIN nodes n ON n.id = e.source_id "
        f"WHERE d.dataset_id = {d.param} AND d.owner = {d.param}",
        write.dataset_id,
        write.owner,
    )
    found = [(as_uuid(row[0]), row[1]) for row in rows]
    return [i for i, t in found if i not in keep and (not types or t in types)]


# --- improve state and reads ---------------------------------------------------------------------


def data_ids(d: SqlDialect, dataset_id: UUID) -> Unit[list[UUID]]:
    rows = yield from all_rows(
        f"SELECT id FROM data WHERE dataset_id = {d.param} ORDER BY id", dataset_id
    )
    return [as_uuid(row[0]) for row in rows]


def get_state(d: SqlDialect, dataset_id: UUID, key: str) -> Unit[str | None]:
    row = yield from one(
        f"SELECT value FROM improve_state WHERE dataset_id = {d.param} AND key = {d.param}",
        dataset_id,
        key,
    )
    return None if row is None else str(row[0])


def set_state(d: SqlDialect, dataset_id: UUID, key: str, value: str) -> Unit[None]:
    """Store a value; nothing when the dataset was deleted meanwhile."""
    p = d.param
    yield from execute(
        "INSERT INTO improve_state (dataset_id, key, value, updated_at) "
        f"SELECT id, {p}, {p}, {p} FROM datasets WHERE id = {p} "
        "ON CONFLICT (dataset_id, key) DO UPDATE SET value = excluded.value, "
        "updated_at = excluded.updated_at",
        key,
        value,
        utcnow(),
        dataset_id,
    )


def get_states(d: SqlDialect, dataset_id: UUID, prefix: str) -> Unit[dict[str, str]]:
    """The dataset's improve-state values whose key starts with ``prefix``, by key. SQLite
    compares text bytewise, so the prefix is a range of its primary key; PostgreSQL's collation
    may not, so there the dataset's keys are filtered (its index entries: values stay unread)."""
    p = d.param
    params: list[object] = [dataset_id, prefix]
    where = f"substr(key, 1, {len(prefix)}) = {p}"
    if d.name == "sqlite":
        where += f" AND key >= {p} AND key < {p}"
        params += [prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)]
    rows = yield from all_rows(
        f"SELECT key, value FROM improve_state WHERE dataset_id = {p} AND {where}", *params
    )
    return {str(row[0]): str(row[1]) for row in rows}


def stage_inputs(d: SqlDialect, dataset_id: UUID, key: str, prefix: str) -> Unit[StageInputs]:
    value = yield from get_state(d, dataset_id, key)
    states = yield from get_states(d, dataset_id, prefix)
    members = sorted(
        (
            UUID(k.removeprefix(MEMBER_CHANGE_PREFIX))
            for k in states
            if k.startswith(MEMBER_CHANGE_PREFIX)
        ),
        key=str,
    )
    present: set[UUID] = set()
    if members:
        where, params = d.in_list("id", members)  # one bound parameter however many
        rows = yield from all_rows(
            f"SELECT id FROM data WHERE dataset_id = {d.param} AND {where}", dataset_id, *params
        )
        present = {as_uuid(row[0]) for row in rows}
    return StageInputs(value, states, present)


def note_members(d: SqlDialect, dataset_id: UUID, data_id: UUID) -> Unit[None]:
    """Note, in the writing transaction, that data item ``data_id`` came (a fresh stamp)."""
    yield from set_state(d, dataset_id, member_change_key(data_id), uuid.uuid4().hex)


def note_doomed_members(d: SqlDialect) -> Unit[None]:
    """Note, in the deleting transaction, that every data item listed in ``del_data`` goes
    (one fresh stamp for them all)."""
    p = d.param
    yield from execute(
        "INSERT INTO improve_state (dataset_id, key, value, updated_at) "
        f"SELECT dataset_id, CAST({p} AS TEXT) || CAST(id AS TEXT), {p}, {p} FROM data "
        "WHERE id IN (SELECT id FROM del_data) "
        "ON CONFLICT (dataset_id, key) DO UPDATE SET value = excluded.value, "
        "updated_at = excluded.updated_at",
        MEMBER_CHANGE_PREFIX,
        uuid.uuid4().hex,
        utcnow(),
    )


def chunk_counts(
    d: SqlDialect, dataset_id: UUID, data_ids: Sequence[UUID] | None
) -> Unit[dict[UUID, int]]:
    """How many chunks each document of the dataset has (a chunk's one provenance row is its
    document); only ``data_ids`` when given (index lookups per document)."""
    p = d.param
    only, params = "", list[object]()
    if data_ids is not None:
        if not data_ids:
            return {}
        where, params = d.in_list("s.data_id", sorted(set(data_ids), key=str))
        only = f" AND {where}"
    rows = yield from all_rows(
        "SELECT s.data_id, count(*) FROM node_sources s JOIN nodes n ON n.id = s.node_id "
        f"WHERE n.dataset_id = {p} AND n.type = 'Chunk'{only} GROUP BY s.data_id",
        dataset_id,
        *params,
    )
    return {as_uuid(row[0]): int(row[1]) for row in rows}


def drop_states(d: SqlDialect, dataset_id: UUID, drops: Mapping[str, str | None]) -> Unit[None]:
    """Delete these improve-state keys; one given a value only while it still holds it (a
    change noted again after it was read stays for the next reader)."""
    p = d.param
    for key, value in sorted(drops.items()):
        if value is None:
            yield from execute(
                f"DELETE FROM improve_state WHERE dataset_id = {p} AND key = {p}", dataset_id, key
            )
        else:
            yield from execute(
                f"DELETE FROM improve_state WHERE dataset_id = {p} AND key = {p} AND value = {p}",
                dataset_id,
                key,
                value,
            )


def note_changes(d: SqlDialect, dataset_id: UUID, kind: str, ids: Iterable[UUID]) -> Unit[None]:
    """Note, in the caller's transaction, that these documents (``kind`` ``"d"``) or entities
    (``"e"``) changed without a data item coming or going (see
    :data:`~engramdb.storage.types.GRAPH_CHANGE_PREFIX`). Each note gets a fresh stamp."""
    for node_id in sorted(set(ids), key=str):
        stamp = uuid.uuid4().hex
        for key in graph_change_keys(kind, node_id):
            yield from set_state(d, dataset_id, key, stamp)


def graph_fingerprint(d: SqlDialect, dataset_id: UUID) -> Unit[str]:
    """Counts and high-water marks of the dataset's ingested content (derived rows excluded):
    new content always brings new chunk rows (a higher ``seq``), deletions lower a count."""
    p = d.param
    row = yield from one(
        f"""SELECT (SELECT count(*) FROM data WHERE dataset_id = {p}),
                   (SELECT count(*) FROM nodes WHERE dataset_id = {p})
                     - (SELECT count(*) FROM derived_nodes WHERE dataset_id = {p}),
                   (SELECT count(*) FROM edges WHERE dataset_id = {p})
                     - (SELECT count(*) FROM derived_edges WHERE dataset_id = {p}),
                   (SELECT coalesce(max(seq), 0) FROM nodes
                    WHERE dataset_id = {p} AND type = 'Chunk')""",
        *([dataset_id] * 6),
    )
    if row is None:  # cannot happen: a SELECT without FROM returns one row
        return "d0.n0.e0.c0"
    return f"d{row[0]}.n{row[1]}.e{row[2]}.c{row[3]}"


def list_derived(
    d: SqlDialect, dataset_id: UUID, owner: str, node_type: str | None
) -> Unit[Subgraph]:
    p = d.param
    params: list[object] = [dataset_id, owner]
    only = ""
    if node_type is not None:
        only = f" AND n.type = {p}"
        params.append(node_type)
    rows = yield from all_rows(
        "SELECT n.id FROM derived_nodes d JOIN nodes n ON n.id = d.node_id "
        f"WHERE d.dataset_id = {p} AND d.owner = {p}{only} ORDER BY n.seq",
        *params,
    )
    nodes = yield from get_nodes(d, [as_uuid(row[0]) for row in rows])
    rows = yield from all_rows(
        f"SELECT {edge_columns(d)} FROM derived_edges d JOIN edges e ON e.id = d.edge_id "
        f"WHERE d.dataset_id = {p} AND d.owner = {p} ORDER BY e.seq",
        dataset_id,
        owner,
    )
    edges = [row_to_edge(row) for row in rows]
    if node_type is not None:
        wanted = {n.id for n in nodes}
        edges = [e for e in edges if e.source_id in wanted or e.target_id in wanted]
    return Subgraph(nodes=nodes, edges=edges)


def apply_feedback_weights(
    d: SqlDialect,
    dataset_id: UUID,
    consumer: str,
    updates: Sequence[FeedbackUpdate],
    alpha: float,
) -> Unit[FeedbackReport]:
    new = set((yield from mark_entries(d, consumer, [u.mark for u in updates])))
    ratings = nodes = edges = 0
    p = d.param
    for update in updates:
        if update.mark not in new:
            continue
        new.discard(update.mark)  # a mark listed twice is spent once
        ratings += 1
        target = min(1.0, max(0.0, float(update.target)))
        for table, ids in (("nodes", update.node_ids), ("edges", update.edge_ids)):
            if not ids:
                continue
            where, params = d.in_list("id", sorted(set(ids)))
            changed = yield from count(
                f"UPDATE {table} SET feedback_weight = feedback_weight + {p} * "
                f"({p} - feedback_weight) WHERE dataset_id = {p} AND {where}",
                alpha,
                target,
                dataset_id,
                *params,
            )
            if table == "nodes":
                nodes += max(changed, 0)
            else:
                edges += max(changed, 0)
    return FeedbackReport(ratings=ratings, nodes=nodes, edges=edges)


def fact_edges(
    d: SqlDialect,
    dataset_id: UUID,
    exclude_relations: Sequence[str],
    source_ids: Sequence[UUID] | None = None,
    data_ids: Sequence[UUID] | None = None,
) -> Unit[list[Edge]]:
    """Ingested edges of the dataset (derived ones left out) outside ``exclude_relations``;
    only those leaving ``source_ids`` / supported by ``data_ids`` when given."""
    if (source_ids is not None and not source_ids) or (data_ids is not None and not data_ids):
        return []
    excluded, params = d.in_list("e.relation", list(exclude_relations), "text")
    where = ""
    if source_ids is not None:
        sources, more = d.in_list("e.source_id", sorted(set(source_ids), key=str))
        where += f" AND {sources}"
        params += more
    if data_ids is not None:
        supported, more = d.in_list("s.data_id", sorted(set(data_ids), key=str))
        where += f" AND e.id IN (SELECT s.edge_id FROM edge_sources s WHERE {supported})"
        params += more
    rows = yield from all_rows(
        f"SELECT {edge_columns(d)} FROM edges e WHERE e.dataset_id = {d.param} "
        f"AND NOT ({excluded}){where} "
        "AND NOT EXISTS (SELECT 1 FROM derived_edges d WHERE d.edge_id = e.id) ORDER BY e.seq",
        dataset_id,
        *params,
    )
    return [row_to_edge(row) for row in rows]


class DerivedMethods(UnitPort):
    """The store's derived-data methods that are one unit each (and the mark port)."""

    async def _mark_entries(self, consumer: str, marks: list[EntryMark]) -> list[EntryMark]:
        return await self._write_unit(partial(mark_entries, self.dialect, consumer, marks))

    async def _apply_feedback_weights(
        self, dataset_id: UUID, consumer: str, updates: list[FeedbackUpdate], alpha: float
    ) -> FeedbackReport:
        return await self._write_unit(
            partial(apply_feedback_weights, self.dialect, dataset_id, consumer, updates, alpha)
        )

    async def list_derived(
        self, dataset_id: UUID, owner: str, *, node_type: str | None = None
    ) -> Subgraph:
        return await self._read_unit(
            partial(list_derived, self.dialect, dataset_id, owner, node_type), snapshot=True
        )

    async def get_improve_state(self, dataset_id: UUID, key: str) -> str | None:
        return await self._read_unit(partial(get_state, self.dialect, dataset_id, key))

    async def set_improve_state(self, dataset_id: UUID, key: str, value: str) -> None:
        await self._write_unit(partial(set_state, self.dialect, dataset_id, key, value))

    async def get_improve_states(self, dataset_id: UUID, prefix: str) -> dict[str, str]:
        return await self._read_unit(partial(get_states, self.dialect, dataset_id, prefix))

    async def drop_improve_states(self, dataset_id: UUID, keys: Sequence[str]) -> None:
        if keys:
            drops = dict.fromkeys(keys)
            await self._write_unit(partial(drop_states, self.dialect, dataset_id, drops))

    async def data_ids(self, dataset_id: UUID) -> list[UUID]:
        return await self._read_unit(partial(data_ids, self.dialect, dataset_id))

    async def stage_inputs(self, dataset_id: UUID, *, key: str, prefix: str) -> StageInputs:
        return await self._read_unit(
            partial(stage_inputs, self.dialect, dataset_id, key, prefix), snapshot=True
        )

    async def chunk_counts(self, dataset_id: UUID) -> dict[UUID, int]:
        return await self._read_unit(partial(chunk_counts, self.dialect, dataset_id, None))

    async def graph_fingerprint(self, dataset_id: UUID) -> str:
        return await self._read_unit(
            partial(graph_fingerprint, self.dialect, dataset_id), snapshot=True
        )

    async def fact_edges(
        self,
        dataset_id: UUID,
        *,
        exclude_relations: Sequence[str] = (),
        source_ids: Sequence[UUID] | None = None,
        data_ids: Sequence[UUID] | None = None,
    ) -> list[Edge]:
        return await self._read_unit(
            partial(
                fact_edges,
                self.dialect,
                dataset_id,
                list(exclude_relations),
                None if source_ids is None else list(source_ids),
                None if data_ids is None else list(data_ids),
            )
        )
