"""Approval-gated write-back: ``propose_sql_write``, ``list_write_proposals``,
``apply_write_proposal``, ``reject_write_proposal``.

A proposal is drafted by the model (one UPDATE with a WHERE clause on one of the connection's
tables), checked by the guard, dry-run in a rolled-back transaction for its affected-row
estimate, and stored. Nothing reaches the database until its owner applies it; applying
re-checks every gate and runs the UPDATE in one transaction, rolled back (the proposal marked
``failed``) when the rows it touches exceed ``TEXT_TO_SQL_MAX_AFFECTED_ROWS`` or differ from the
estimate. A proposal is applied or rejected once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from engramdb.errors import (
    ConflictError,
    EngramValidationError,
    PermissionDeniedError,
    SqlGuardError,
    ToolCallsDisabledError,
    ToolConnectionNotFoundError,
)
from engramdb.models.records import User, utcnow
from engramdb.models.requests.tools import (
    ApplyWriteProposalRequest,
    ListWriteProposalsRequest,
    ProposeSqlWriteRequest,
    RejectWriteProposalRequest,
)
from engramdb.models.tools import ToolConnection, WriteProposal, public_proposal
from engramdb.providers.llm.base import ChatMessage
from engramdb.tools.connections import connection_for
from engramdb.tools.databases import apply_update, dry_run_update, read_schema
from engramdb.tools.guard import validate_update
from engramdb.tools.text_to_sql import no_llm_message, visible

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.settings import Settings

__all__ = [
    "NOT_APPLICABLE",
    "apply_write_proposal",
    "list_write_proposals",
    "propose_sql_write",
    "reject_write_proposal",
]

logger = logging.getLogger(__name__)

#: What the model answers when the correction is not one UPDATE on this schema.
NOT_APPLICABLE = "NOT_APPLICABLE"

_SYSTEM = """You draft ONE SQL UPDATE for a {dialect} database that carries out a correction.
Answer with the SQL only. It must be `UPDATE <table> SET ... WHERE ...` on one of these tables:
{schema}
It may touch at most {max_rows} rows. If the correction cannot be one such UPDATE, answer
{not_applicable}.
Evidence: {evidence}
Previous attempts:
{previous}"""


def _check_gates(settings: Settings, connection: ToolConnection) -> None:
    if not (settings.tool_calls_enabled and settings.tool_write_calls_enabled):
        raise ToolCallsDisabledError(
            "Write-back is disabled. Set TOOL_CALLS_ENABLED=true and "
            "TOOL_WRITE_CALLS_ENABLED=true to allow correction proposals."
        )
    if not connection.allow_writes:
        raise PermissionDeniedError(
            f"Connection {connection.name!r} was not registered with allow_writes=True."
        )


def _no_proposal(proposal_id: UUID) -> ToolConnectionNotFoundError:
    return ToolConnectionNotFoundError(f"No write proposal {proposal_id} for this user.")


async def _owner(engine: Engine, user: Any) -> User:
    await engine.ensure_setup()
    return await engine.resolve_user(user)


async def propose_sql_write(engine: Engine, request: ProposeSqlWriteRequest) -> dict[str, Any]:
    """Draft a correction UPDATE as a reviewable proposal: nothing is written to the database.

    Needs TOOL_CALLS_ENABLED and TOOL_WRITE_CALLS_ENABLED, a connection registered with
    ``allow_writes=True`` and an LLM. The proposal carries the drafted SQL and a dry-run
    affected-row estimate; apply it after review with :func:`apply_write_proposal`."""
    settings = engine.settings
    owner = await _owner(engine, request.user)
    connection = await connection_for(engine, owner.id, request.connection)
    _check_gates(settings, connection)
    llm = engine.llm
    if llm is None:
        raise EngramValidationError(no_llm_message())
    timeout = settings.text_to_sql_statement_timeout_ms
    schema = visible(
        await read_schema(connection.provider, connection.connection_string, timeout),
        connection,
        settings.text_to_sql_max_schema_tables,
    )
    if not schema.tables:
        raise EngramValidationError("The database exposes no readable tables to correct.")
    dialect = "postgresql" if connection.provider == "postgres" else "sqlite"
    previous: list[str] = []
    last: Exception | None = None
    for _attempt in range(settings.text_to_sql_max_attempts):
        system = _SYSTEM.format(
            dialect=dialect,
            schema=schema.render(),
            max_rows=settings.text_to_sql_max_affected_rows,
            not_applicable=NOT_APPLICABLE,
            evidence=request.evidence or {},
            previous="\n".join(previous) or "No attempts yet",
        )
        messages: list[ChatMessage] = [
            {"role": "system", "content": system},
            {"role": "user", "content": request.instruction},
        ]
        generated = (await llm.complete(messages)).text
        if generated.strip().upper() == NOT_APPLICABLE:
            raise EngramValidationError(
                "The model concluded this correction cannot be expressed as a single "
                "UPDATE on this database's schema."
            )
        try:
            guarded = validate_update(
                generated, provider=connection.provider, tables=schema.tables, schema=schema.name
            )
            estimated = await dry_run_update(
                connection.provider, connection.connection_string, guarded.sql, timeout_ms=timeout
            )
        except SqlGuardError as exc:
            last = exc
            previous.append(f"Query: {generated!r} -> Rejected: {exc}")
            continue
        except Exception as exc:  # the database's refusal: fed back
            last = exc
            previous.append(f"Query: {generated!r} -> Executed with error: {exc}")
            continue
        proposal = await engine.store.add_write_proposal(
            WriteProposal(
                id=uuid4(),
                owner_id=owner.id,
                connection_name=connection.name,
                status="proposed",
                instruction=request.instruction,
                evidence=request.evidence,
                sql=guarded.sql,
                target_table=guarded.target_table,
                estimated_rows=estimated,
                created_at=utcnow(),
            )
        )
        logger.info("write proposal %s drafted for %r", proposal.id, connection.name)
        return public_proposal(proposal)
    raise SqlGuardError(
        f"Could not draft a valid correction after {settings.text_to_sql_max_attempts} "
        f"attempts: {last}"
    )


async def list_write_proposals(
    engine: Engine, request: ListWriteProposalsRequest
) -> list[dict[str, Any]]:
    """The acting user's write proposals, newest first, optionally of one status."""
    if not await engine.database_exists():
        return []
    owner = await _owner(engine, request.user)
    found = await engine.store.list_write_proposals(owner.id, request.status)
    return [public_proposal(p) for p in found]


async def apply_write_proposal(
    engine: Engine, request: ApplyWriteProposalRequest
) -> dict[str, Any]:
    """Run a reviewed proposal on its database: the ONLY path that commits a write.

    Rolls back (and marks the proposal ``failed``) when the rows it touches exceed
    TEXT_TO_SQL_MAX_AFFECTED_ROWS or no longer match the dry-run estimate."""
    settings = engine.settings
    owner = await _owner(engine, request.user)
    proposal = await engine.store.get_write_proposal(owner.id, request.proposal_id)
    if proposal is None:
        raise _no_proposal(request.proposal_id)
    if proposal.status != "proposed":
        raise ConflictError(
            f"Proposal is {proposal.status!r}, only 'proposed' ones can be applied."
        )
    connection = await connection_for(engine, owner.id, proposal.connection_name)
    _check_gates(settings, connection)
    cap = settings.text_to_sql_max_affected_rows
    error: str | None = None
    claimed: WriteProposal | None = None

    async def decide(affected: int) -> bool:
        """Commit only a rowcount within the cap and equal to the estimate, and only once the
        proposal is recorded as applied (by this call: a concurrent apply loses here)."""
        nonlocal error, claimed
        if affected > cap:
            error = f"Rolled back: {affected} row(s) affected, cap is {cap}."
        elif proposal.estimated_rows is not None and affected != proposal.estimated_rows:
            error = (
                f"Rolled back: {affected} row(s) affected but {proposal.estimated_rows} were "
                "estimated at proposal time — the data changed since review. Re-propose to get "
                "a fresh estimate."
            )
        if error is not None:
            return False
        claimed = await engine.store.resolve_write_proposal(
            owner.id, proposal.id, "applied", resolved_at=utcnow(), applied_rows=affected
        )
        return claimed is not None

    try:
        await apply_update(
            connection.provider,
            connection.connection_string,
            proposal.sql,
            timeout_ms=settings.text_to_sql_statement_timeout_ms,
            decide=decide,
        )
    except Exception as exc:  # the database's error: recorded on the proposal
        if claimed is not None:  # recorded as applied, then the commit itself failed
            logger.error(
                "write proposal %s: the commit failed after approval: %s", proposal.id, exc
            )
            raise
        error = f"Rolled back: execution failed: {exc}"
    if claimed is not None:
        logger.info("write proposal %s applied on %r", proposal.id, connection.name)
        return public_proposal(claimed)
    if error is None:
        raise ConflictError(f"Proposal {proposal.id} was resolved meanwhile.")
    failed = await engine.store.resolve_write_proposal(
        owner.id, proposal.id, "failed", resolved_at=utcnow(), error=error
    )
    if failed is None:
        raise ConflictError(f"Proposal {proposal.id} was resolved meanwhile.")
    logger.warning("write proposal %s failed: %s", proposal.id, error)
    return public_proposal(failed)


async def reject_write_proposal(
    engine: Engine, request: RejectWriteProposalRequest
) -> dict[str, Any]:
    """Mark a proposal rejected so it can never be applied."""
    owner = await _owner(engine, request.user)
    proposal = await engine.store.get_write_proposal(owner.id, request.proposal_id)
    if proposal is None:
        raise _no_proposal(request.proposal_id)
    resolved = await engine.store.resolve_write_proposal(
        owner.id, proposal.id, "rejected", resolved_at=utcnow()
    )
    if resolved is None:
        raise ConflictError(
            f"Proposal is {proposal.status!r}, only 'proposed' ones can be rejected."
        )
    return public_proposal(resolved)
