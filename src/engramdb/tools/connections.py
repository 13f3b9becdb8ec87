"""Registered SQL connections: ``register_sql_connection``, ``list_sql_connections``,
``remove_sql_connection`` (cognee's ``cognee.tools``).

A connection belongs to the user who registered it: only they list it, query it and remove
it. An unknown name and another user's name are refused identically
(ToolConnectionNotFoundError), so nothing is confirmed to others. The connection string is
kept in engramdb's store and read only when a query runs; no listing, result or log carries it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from engramdb.errors import EngramValidationError, ToolConnectionNotFoundError
from engramdb.models.records import utcnow
from engramdb.models.requests.tools import (
    ListSqlConnectionsRequest,
    RegisterSqlConnectionRequest,
    RemoveSqlConnectionRequest,
)
from engramdb.models.tools import ToolConnection, public_connection
from engramdb.tools.databases import infer_provider

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = [
    "connection_for",
    "list_sql_connections",
    "register_sql_connection",
    "remove_sql_connection",
]

logger = logging.getLogger(__name__)


async def register_sql_connection(
    engine: Engine, request: RegisterSqlConnectionRequest
) -> dict[str, Any]:
    """Register (or replace) an authorized SQL database for the acting user and return it
    without its connection string.

    Use a database role that only has SELECT grants: engramdb also enforces read-only
    execution, but the role is the final safety layer. ``allow_writes=True`` (with a role that
    may UPDATE) opts the connection into approval-gated write proposals
    (:func:`propose_sql_write`, applied only by :func:`apply_write_proposal`)."""
    name = request.name.strip()
    if not name:
        raise EngramValidationError("Tool connection name must be a non-empty string")
    provider = request.provider or infer_provider(request.connection_string)
    if infer_provider(request.connection_string) != provider:
        raise EngramValidationError(
            f"provider {provider!r} does not match the connection string's scheme"
        )
    await engine.ensure_setup()
    owner = await engine.resolve_user(request.user)
    now = utcnow()
    options = {
        "allowed_tables": request.allowed_tables,
        "max_rows": request.max_rows,
        "description": request.description,
        "allow_writes": request.allow_writes,
    }
    stored = await engine.store.put_tool_connection(
        ToolConnection(
            id=uuid4(),
            owner_id=owner.id,
            name=name,
            provider=provider,
            connection_string=request.connection_string,
            options=options,
            created_at=now,
            updated_at=now,
        )
    )
    logger.info("tool connection %r (%s) registered for user %s", name, provider, owner.id)
    return public_connection(stored)


async def list_sql_connections(
    engine: Engine, request: ListSqlConnectionsRequest
) -> list[dict[str, Any]]:
    """The acting user's connections, by name, without secrets."""
    if not await engine.database_exists():
        return []
    await engine.ensure_setup()
    owner = await engine.resolve_user(request.user)
    return [public_connection(c) for c in await engine.store.list_tool_connections(owner.id)]


async def remove_sql_connection(engine: Engine, request: RemoveSqlConnectionRequest) -> bool:
    """Remove one of the acting user's connections. Returns False when nothing matched."""
    if not await engine.database_exists():
        return False
    await engine.ensure_setup()
    owner = await engine.resolve_user(request.user)
    return await engine.store.delete_tool_connection(owner.id, request.name)


async def connection_for(engine: Engine, owner_id: UUID, name: str) -> ToolConnection:
    """The owner's connection (with its connection string, for running a query); fails closed
    with ToolConnectionNotFoundError for unknown and non-owned names alike."""
    found = await engine.store.get_tool_connection(owner_id, name)
    if found is None:
        raise ToolConnectionNotFoundError(
            f"No authorized tool connection named {name!r} for this user; register it with "
            "register_sql_connection(...) or list yours with list_sql_connections()."
        )
    return found
