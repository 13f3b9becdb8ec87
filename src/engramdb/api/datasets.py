"""Listing datasets."""

from __future__ import annotations

from engramdb.engine import get_engine
from engramdb.models.records import Dataset, User

__all__ = ["list_datasets"]


async def list_datasets(*, user: User | None = None) -> list[Dataset]:
    """The datasets the user owns, oldest first (empty before anything was ingested)."""
    engine = get_engine()
    if not await engine.database_exists():
        return []
    owner = await engine.resolve_user(user)
    return await engine.store.list_datasets(owner.id)
