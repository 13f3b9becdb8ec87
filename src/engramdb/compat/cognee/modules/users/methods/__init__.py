"""``cognee.modules.users.methods`` over engramdb: ``get_default_user``."""

from __future__ import annotations

from engramdb.models.records import User

__all__ = ["get_default_user"]


async def get_default_user() -> User:
    """The default user of the default engine (created, with the database, on first use), as
    cognee's; pass it as ``user=`` to any verb. In-process only."""
    from engramdb.engine import get_engine

    return await get_engine().resolve_user(None)
