"""Records of recall's ``tools`` scope: registered SQL connections and write proposals
(``docs/tools.md``).

:class:`ToolConnection` is what the store keeps, connection string included; the public
listing of a connection (:func:`public_connection`) never carries the connection string.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, get_args
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "PROPOSAL_STATUSES",
    "PROVIDERS",
    "ProposalStatus",
    "Provider",
    "ToolConnection",
    "WriteProposal",
    "public_connection",
    "public_proposal",
]

#: The databases the tools lane can query (inferred from the connection string's scheme).
Provider = Literal["sqlite", "postgres"]
PROVIDERS: tuple[Provider, ...] = get_args(Provider)

#: A proposal's life: ``proposed`` until someone applies it (``applied``, or ``failed`` when the
#: apply rolled back) or rejects it (``rejected``).
ProposalStatus = Literal["proposed", "applied", "rejected", "failed"]
PROPOSAL_STATUSES: tuple[ProposalStatus, ...] = get_args(ProposalStatus)


class ToolConnection(BaseModel):
    """One registered database of one user. ``options``: allowed_tables, max_rows,
    description, allow_writes. As stored, ``connection_string`` is sealed
    (:mod:`engramdb.tools.secrets`); it is unsealed only to run a query."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    owner_id: UUID
    name: str
    provider: Provider
    connection_string: str = Field(repr=False)
    options: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    updated_at: datetime

    @property
    def allowed_tables(self) -> list[str] | None:
        tables = self.options.get("allowed_tables")
        return list(tables) if tables else None

    @property
    def max_rows(self) -> int | None:
        value = self.options.get("max_rows")
        return int(value) if value is not None else None

    @property
    def allow_writes(self) -> bool:
        return bool(self.options.get("allow_writes"))


class WriteProposal(BaseModel):
    """A drafted UPDATE waiting for review; nothing ran on the database but a rolled-back dry
    run (``estimated_rows``)."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    owner_id: UUID
    connection_name: str
    status: ProposalStatus
    instruction: str
    evidence: dict[str, Any] | None = None
    sql: str
    target_table: str | None = None
    estimated_rows: int | None = None
    applied_rows: int | None = None
    error: str | None = None
    created_at: datetime
    resolved_at: datetime | None = None


def public_connection(connection: ToolConnection) -> dict[str, Any]:
    """What list and register calls return: everything but the connection string."""
    return {
        "name": connection.name,
        "provider": connection.provider,
        "allowed_tables": connection.options.get("allowed_tables"),
        "max_rows": connection.options.get("max_rows"),
        "description": connection.options.get("description"),
        "allow_writes": connection.allow_writes,
        "origin": "user",
    }


def public_proposal(proposal: WriteProposal) -> dict[str, Any]:
    """A proposal as the proposal calls return it (cognee's keys)."""
    return {
        "proposal_id": str(proposal.id),
        "connection": proposal.connection_name,
        "status": proposal.status,
        "instruction": proposal.instruction,
        "evidence": proposal.evidence,
        "sql": proposal.sql,
        "target_table": proposal.target_table,
        "estimated_rows": proposal.estimated_rows,
        "applied_rows": proposal.applied_rows,
        "error": proposal.error,
        "created_at": proposal.created_at.isoformat(),
    }
