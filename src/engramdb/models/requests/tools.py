"""Request models of the tool-connection and write-proposal verbs (``docs/tools.md``)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar
from uuid import UUID

from pydantic import Field

from engramdb.models.requests.common import MAX_ITEMS, Strict, UserOption, VerbRequest
from engramdb.models.tools import ProposalStatus, Provider

__all__ = [
    "ApplyWriteProposalRequest",
    "ListSqlConnectionsRequest",
    "ListWriteProposalsRequest",
    "ProposeSqlWriteRequest",
    "RegisterSqlConnectionRequest",
    "RejectWriteProposalRequest",
    "RemoveSqlConnectionRequest",
]

ConnectionName = Annotated[str, Field(strict=True, min_length=1, max_length=255)]


class RegisterSqlConnectionRequest(VerbRequest):
    """``register_sql_connection()``: register (or replace) a database recall's ``tools`` scope
    may query for you. The connection string is never returned or logged."""

    positional: ClassVar[tuple[str, ...]] = ("name", "connection_string")

    name: ConnectionName
    connection_string: Annotated[str, Field(strict=True, min_length=1, repr=False)]
    provider: Provider | None = None
    allowed_tables: Annotated[list[str] | None, Field(max_length=MAX_ITEMS)] = None
    max_rows: Annotated[int | None, Field(strict=True, ge=1, le=100_000)] = None
    description: Annotated[str | None, Field(max_length=2000)] = None
    allow_writes: Annotated[bool, Strict] = False
    user: UserOption = None


class ListSqlConnectionsRequest(VerbRequest):
    """``list_sql_connections()``: your registered connections, without secrets."""

    user: UserOption = None


class RemoveSqlConnectionRequest(VerbRequest):
    """``remove_sql_connection()``: remove one of your connections (False: none matched)."""

    positional: ClassVar[tuple[str, ...]] = ("name",)

    name: ConnectionName
    user: UserOption = None


class ProposeSqlWriteRequest(VerbRequest):
    """``propose_sql_write()``: draft a correction UPDATE as a reviewable proposal; nothing
    is written to the database."""

    positional: ClassVar[tuple[str, ...]] = ("connection", "instruction")

    connection: ConnectionName
    instruction: Annotated[str, Field(strict=True, min_length=1, max_length=20_000)]
    evidence: dict[str, Any] | None = None
    user: UserOption = None


class ListWriteProposalsRequest(VerbRequest):
    """``list_write_proposals()``: your write proposals, newest first."""

    positional: ClassVar[tuple[str, ...]] = ("status",)

    status: ProposalStatus | None = None
    user: UserOption = None


class ApplyWriteProposalRequest(VerbRequest):
    """``apply_write_proposal()``: run a reviewed proposal on its database (the only path
    that writes)."""

    positional: ClassVar[tuple[str, ...]] = ("proposal_id",)

    proposal_id: UUID
    user: UserOption = None


class RejectWriteProposalRequest(VerbRequest):
    """``reject_write_proposal()``: mark a proposal rejected; it can never be applied."""

    positional: ClassVar[tuple[str, ...]] = ("proposal_id",)

    proposal_id: UUID
    user: UserOption = None
