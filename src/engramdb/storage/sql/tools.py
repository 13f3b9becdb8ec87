"""Registered SQL connections and write proposals: one set of units for both backends.

A connection is unique per (owner, name); registering a name again replaces it in one upsert.
A proposal leaves ``proposed`` by ONE conditional update (``WHERE status = 'proposed'``), so it
is applied or rejected once, whatever runs concurrently.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import partial
from uuid import UUID

from engramdb.models.tools import ProposalStatus, ToolConnection, WriteProposal
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.port import UnitPort
from engramdb.storage.sql.unit import Row, Unit, all_rows, count, execute, one
from engramdb.storage.sql.values import as_json, as_time, as_uuid, maybe_time

__all__ = ["ToolMethods"]

CONNECTION_COLUMNS = (
    "id, owner_id, name, provider, connection_string, options, created_at, updated_at"
)
PROPOSAL_COLUMNS = (
    "id, owner_id, connection_name, status, instruction, evidence, sql, target_table, "
    "estimated_rows, applied_rows, error, created_at, resolved_at"
)


def _connection(row: Row) -> ToolConnection:
    return ToolConnection(
        id=as_uuid(row[0]),
        owner_id=as_uuid(row[1]),
        name=row[2],
        provider=row[3],
        connection_string=row[4],
        options=as_json(row[5], {}),
        created_at=as_time(row[6]),
        updated_at=as_time(row[7]),
    )


def _proposal(row: Row) -> WriteProposal:
    return WriteProposal(
        id=as_uuid(row[0]),
        owner_id=as_uuid(row[1]),
        connection_name=row[2],
        status=row[3],
        instruction=row[4],
        evidence=as_json(row[5], None),
        sql=row[6],
        target_table=row[7],
        estimated_rows=row[8],
        applied_rows=row[9],
        error=row[10],
        created_at=as_time(row[11]),
        resolved_at=maybe_time(row[12]),
    )


def put_connection(d: SqlDialect, c: ToolConnection) -> Unit[ToolConnection]:
    p, j = d.param, d.json_param()
    yield from execute(
        f"INSERT INTO tool_connections ({CONNECTION_COLUMNS}) "
        f"VALUES ({p}, {p}, {p}, {p}, {p}, {j}, {p}, {p}) "
        "ON CONFLICT (owner_id, name) DO UPDATE SET provider = excluded.provider, "
        "connection_string = excluded.connection_string, options = excluded.options, "
        "updated_at = excluded.updated_at",
        c.id,
        c.owner_id,
        c.name,
        c.provider,
        c.connection_string,
        json.dumps(c.options),
        c.created_at,
        c.updated_at,
    )
    stored = yield from get_connection(d, c.owner_id, c.name)
    assert stored is not None  # written by this transaction
    return stored


def get_connection(d: SqlDialect, owner_id: UUID, name: str) -> Unit[ToolConnection | None]:
    row = yield from one(
        f"SELECT {CONNECTION_COLUMNS} FROM tool_connections "
        f"WHERE owner_id = {d.param} AND name = {d.param}",
        owner_id,
        name,
    )
    return None if row is None else _connection(row)


def list_connections(d: SqlDialect, owner_id: UUID) -> Unit[list[ToolConnection]]:
    rows = yield from all_rows(
        f"SELECT {CONNECTION_COLUMNS} FROM tool_connections WHERE owner_id = {d.param} "
        f"ORDER BY name{d.binary_collation}",
        owner_id,
    )
    return [_connection(row) for row in rows]


def delete_connection(d: SqlDialect, owner_id: UUID, name: str) -> Unit[bool]:
    removed = yield from count(
        f"DELETE FROM tool_connections WHERE owner_id = {d.param} AND name = {d.param}",
        owner_id,
        name,
    )
    return removed > 0


def add_proposal(d: SqlDialect, w: WriteProposal) -> Unit[WriteProposal]:
    p, j = d.param, d.json_param()
    yield from execute(
        f"INSERT INTO tool_write_proposals ({PROPOSAL_COLUMNS}) "
        f"VALUES ({p}, {p}, {p}, {p}, {p}, {j}, {p}, {p}, {p}, {p}, {p}, {p}, {p})",
        w.id,
        w.owner_id,
        w.connection_name,
        w.status,
        w.instruction,
        None if w.evidence is None else json.dumps(w.evidence),
        w.sql,
        w.target_table,
        w.estimated_rows,
        w.applied_rows,
        w.error,
        w.created_at,
        w.resolved_at,
    )
    return w


def get_proposal(d: SqlDialect, owner_id: UUID, proposal_id: UUID) -> Unit[WriteProposal | None]:
    row = yield from one(
        f"SELECT {PROPOSAL_COLUMNS} FROM tool_write_proposals "
        f"WHERE id = {d.param} AND owner_id = {d.param}",
        proposal_id,
        owner_id,
    )
    return None if row is None else _proposal(row)


def list_proposals(
    d: SqlDialect, owner_id: UUID, status: ProposalStatus | None
) -> Unit[list[WriteProposal]]:
    only, params = "", [owner_id]
    if status is not None:
        only = f" AND status = {d.param}"
        params.append(status)  # type: ignore[arg-type]
    rows = yield from all_rows(
        f"SELECT {PROPOSAL_COLUMNS} FROM tool_write_proposals WHERE owner_id = {d.param}{only} "
        "ORDER BY created_at DESC, id",
        *params,
    )
    return [_proposal(row) for row in rows]


def resolve_proposal(
    d: SqlDialect,
    owner_id: UUID,
    proposal_id: UUID,
    status: ProposalStatus,
    resolved_at: datetime,
    applied_rows: int | None,
    error: str | None,
) -> Unit[WriteProposal | None]:
    p = d.param
    changed = yield from count(
        f"UPDATE tool_write_proposals SET status = {p}, resolved_at = {p}, applied_rows = {p}, "
        f"error = {p} WHERE id = {p} AND owner_id = {p} AND status = 'proposed'",
        status,
        resolved_at,
        applied_rows,
        error,
        proposal_id,
        owner_id,
    )
    if changed == 0:
        return None
    return (yield from get_proposal(d, owner_id, proposal_id))


class ToolMethods(UnitPort):
    """The store's tool connections and write proposals, each one unit above."""

    async def put_tool_connection(self, connection: ToolConnection) -> ToolConnection:
        return await self._write_unit(partial(put_connection, self.dialect, connection))

    async def get_tool_connection(self, owner_id: UUID, name: str) -> ToolConnection | None:
        return await self._read_unit(partial(get_connection, self.dialect, owner_id, name))

    async def list_tool_connections(self, owner_id: UUID) -> list[ToolConnection]:
        return await self._read_unit(partial(list_connections, self.dialect, owner_id))

    async def delete_tool_connection(self, owner_id: UUID, name: str) -> bool:
        return await self._write_unit(partial(delete_connection, self.dialect, owner_id, name))

    async def add_write_proposal(self, proposal: WriteProposal) -> WriteProposal:
        return await self._write_unit(partial(add_proposal, self.dialect, proposal))

    async def get_write_proposal(self, owner_id: UUID, proposal_id: UUID) -> WriteProposal | None:
        return await self._read_unit(partial(get_proposal, self.dialect, owner_id, proposal_id))

    async def list_write_proposals(
        self, owner_id: UUID, status: ProposalStatus | None = None
    ) -> list[WriteProposal]:
        return await self._read_unit(partial(list_proposals, self.dialect, owner_id, status))

    async def resolve_write_proposal(
        self,
        owner_id: UUID,
        proposal_id: UUID,
        status: ProposalStatus,
        *,
        resolved_at: datetime,
        applied_rows: int | None = None,
        error: str | None = None,
    ) -> WriteProposal | None:
        return await self._write_unit(
            partial(
                resolve_proposal,
                self.dialect,
                owner_id,
                proposal_id,
                status,
                resolved_at,
                applied_rows,
                error,
            )
        )
