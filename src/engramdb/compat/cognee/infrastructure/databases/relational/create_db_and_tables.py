"""``cognee.infrastructure.databases.relational.create_db_and_tables``."""

from __future__ import annotations

__all__ = ["create_db_and_tables"]


async def create_db_and_tables() -> None:
    """Create the default engine's database and tables and apply its migrations (idempotent,
    as ``setup()``): engramdb keeps relational data, graph, vectors and sessions in one store,
    so there is one set of tables to create. In-process only."""
    from engramdb.compat.cognee.modules.engine.operations.setup import setup

    await setup()
