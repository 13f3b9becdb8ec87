"""Registered SQL connections and write proposals of recall's ``tools`` scope.

One concern of the :class:`~engramdb.storage.base.Store` contract. Everything is owned by one
user: every read and write names the owner, and another user's rows are never found.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from uuid import UUID

from engramdb.models.tools import ProposalStatus, ToolConnection, WriteProposal

__all__ = ["ToolStore"]


class ToolStore(ABC):
    @abstractmethod
    async def put_tool_connection(self, connection: ToolConnection) -> ToolConnection:
        """Store the connection, replacing the owner's connection of the same name (its id and
        created_at are kept then); returns it as stored."""

    @abstractmethod
    async def get_tool_connection(self, owner_id: UUID, name: str) -> ToolConnection | None:
        """The owner's connection of that name, or None."""

    @abstractmethod
    async def list_tool_connections(self, owner_id: UUID) -> list[ToolConnection]:
        """The owner's connections, by name."""

    @abstractmethod
    async def delete_tool_connection(self, owner_id: UUID, name: str) -> bool:
        """Delete the owner's connection; False when there was none."""

    @abstractmethod
    async def add_write_proposal(self, proposal: WriteProposal) -> WriteProposal:
        """Store a new proposal."""

    @abstractmethod
    async def get_write_proposal(self, owner_id: UUID, proposal_id: UUID) -> WriteProposal | None:
        """The owner's proposal, or None (also for another user's)."""

    @abstractmethod
    async def list_write_proposals(
        self, owner_id: UUID, status: ProposalStatus | None = None
    ) -> list[WriteProposal]:
        """The owner's proposals, newest first, optionally of one status."""

    @abstractmethod
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
        """Move the owner's ``proposed`` proposal to ``status``, in one conditional update: None
        (nothing written) when it is not the owner's or no longer ``proposed``."""
