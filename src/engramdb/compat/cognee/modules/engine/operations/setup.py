"""``cognee.modules.engine.operations.setup``: create the databases before first use."""

from __future__ import annotations

__all__ = ["setup"]


async def setup() -> None:
    """Create the default engine's database and apply its migrations (idempotent), as cognee's
    ``setup()`` creates its databases and tables; the default user is created on first use.
    Optional on engramdb: every verb sets the database up itself. In-process only."""
    from engramdb.engine import get_engine

    await get_engine().ensure_setup()
