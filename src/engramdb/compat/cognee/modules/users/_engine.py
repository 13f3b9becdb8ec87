"""What the ``cognee.modules.users`` adapters share: the default engine, set up; a user by id."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from engramdb.errors import UserNotFoundError
from engramdb.models.records import User

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = ["ready_engine", "user_by_id"]


async def ready_engine() -> Engine:
    """The default engine with its database set up (cognee's functions assume ``setup()``)."""
    from engramdb.engine import get_engine

    engine = get_engine()
    await engine.ensure_setup()
    return engine


async def user_by_id(user_id: UUID) -> User:
    """The stored user (fresh: its selected tenant as now), or UserNotFoundError."""
    engine = await ready_engine()
    found = await engine.store.get_user(user_id)
    if found is None:
        raise UserNotFoundError(f"Could not find user: {user_id}")
    return found
