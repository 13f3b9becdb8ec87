"""Registered SQL connections: ``register_sql_connection``, ``list_sql_connections``,
``remove_sql_connection`` (cognee's ``cognee.tools``).

A connection belongs to the user who registered it: only they list it, query it and remove
it. An unknown name and another user's name are refused identically
(ToolConnectionNotFoundError), so nothing is confirmed to others. The connection string is
kept in engramdb's store and read only when a query runs; no listing, result or log carries it.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from engramdb.errors import ConfigurationError, EngramValidationError, ToolConnectionNotFoundError
from engramdb.models.records import utcnow
from engramdb.models.requests.tools import (
    ListSqlConnectionsRequest,
    RegisterSqlConnectionRequest,
    RemoveSqlConnectionRequest,
)
from engramdb.models.tools import ToolConnection, public_connection
from engramdb.tools.databases import infer_provider
from engramdb.tools.secrets import open_secret, seal_secret

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.settings import Settings

__all__ = [
    "connection_for",
    "deployment_connections",
    "list_sql_connections",
    "register_sql_connection",
    "remove_sql_connection",
    "visible_connections",
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
    sealed = seal_secret(
        engine.settings, request.connection_string, bound_to=_bound(owner.id, name)
    )
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
            connection_string=sealed,
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
    """The acting user's connections, by name, then the deployment's (TOOL_SQL_CONNECTIONS,
    ``origin="env"``) that no connection of the user shadows; without secrets."""
    if not await engine.database_exists():
        return [_public_env(c) for c in deployment_connections(engine.settings, None)]
    await engine.ensure_setup()
    owner = await engine.resolve_user(request.user)
    return [
        public_connection(c) if c.owner_id == owner.id else _public_env(c)
        for c in await visible_connections(engine, owner.id, unseal=False)
    ]


def _public_env(connection: ToolConnection) -> dict[str, Any]:
    shown = public_connection(connection)
    del shown["allow_writes"]
    return {**shown, "origin": "env"}


def deployment_connections(settings: Settings, owner_id: UUID | None) -> list[ToolConnection]:
    """The connections of TOOL_SQL_CONNECTIONS, by name (ConfigurationError when malformed, so
    a misconfigured deployment fails loudly instead of exposing none or the wrong ones)."""
    try:
        parsed = json.loads(settings.tool_sql_connections or "{}")
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"TOOL_SQL_CONNECTIONS is not valid JSON: {exc}") from exc
    if not isinstance(parsed, dict):
        raise ConfigurationError("TOOL_SQL_CONNECTIONS must be a JSON object of name -> DSN")
    found: list[ToolConnection] = []
    now = utcnow()
    for name, value in sorted(parsed.items()):
        options = {"connection_string": value} if isinstance(value, str) else value
        if not isinstance(options, dict) or not isinstance(options.get("connection_string"), str):
            raise ConfigurationError(
                f"TOOL_SQL_CONNECTIONS entry {name!r} must be a connection string or an object "
                "with a 'connection_string' key"
            )
        dsn = options["connection_string"]
        found.append(
            ToolConnection(
                id=uuid5(NAMESPACE_URL, f"engramdb-tool-connection:{name}"),
                owner_id=uuid5(NAMESPACE_URL, "engramdb-deployment"),
                name=name,
                provider=options.get("provider") or infer_provider(dsn),
                connection_string=dsn,
                options={k: v for k, v in options.items() if k != "connection_string"},
                created_at=now,
                updated_at=now,
            )
        )
    return found


def _bound(owner_id: UUID, name: str) -> str:
    """What a sealed connection string is bound to: its owner and its name."""
    return f"tool-connection:{owner_id}:{name}"


def _opened(engine: Engine, connection: ToolConnection) -> ToolConnection:
    """The stored connection with its connection string unsealed (for running a query)."""
    plain = open_secret(
        engine.settings,
        connection.connection_string,
        bound_to=_bound(connection.owner_id, connection.name),
    )
    return connection.model_copy(update={"connection_string": plain})


async def visible_connections(
    engine: Engine, owner_id: UUID, *, unseal: bool = True
) -> list[ToolConnection]:
    """The owner's connections (unsealed unless ``unseal=False``), then the deployment's ones
    they do not shadow."""
    own = await engine.store.list_tool_connections(owner_id)
    if unseal:
        own = [_opened(engine, c) for c in own]
    taken = {c.name for c in own}
    shared = deployment_connections(engine.settings, owner_id)
    return own + [c for c in shared if c.name not in taken]


async def remove_sql_connection(engine: Engine, request: RemoveSqlConnectionRequest) -> bool:
    """Remove one of the acting user's connections. Returns False when nothing matched."""
    if not await engine.database_exists():
        return False
    await engine.ensure_setup()
    owner = await engine.resolve_user(request.user)
    return await engine.store.delete_tool_connection(owner.id, request.name)


async def connection_for(engine: Engine, owner_id: UUID, name: str) -> ToolConnection:
    """The owner's connection (with its connection string, for running a query); fails closed
    with ToolConnectionNotFoundError for unknown and non-owned names alike (a deployment
    connection of TOOL_SQL_CONNECTIONS resolves for everyone)."""
    found = await engine.store.get_tool_connection(owner_id, name)
    if found is not None:
        return _opened(engine, found)
    found = next(
        (c for c in deployment_connections(engine.settings, owner_id) if c.name == name), None
    )
    if found is None:
        raise ToolConnectionNotFoundError(
            f"No authorized tool connection named {name!r} for this user; register it with "
            "register_sql_connection(...) or list yours with list_sql_connections()."
        )
    return found
