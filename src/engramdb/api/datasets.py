"""Listing datasets."""

from __future__ import annotations

from engramdb.access.permissions import accessible_datasets
from engramdb.engine import Engine
from engramdb.models.records import Dataset
from engramdb.models.requests import ListDatasetsRequest

__all__ = ["list_datasets"]


async def list_datasets(engine: Engine, request: ListDatasetsRequest) -> list[Dataset]:
    """The datasets the user owns (oldest first), then those another user granted them any
    permission on; empty before anything was ingested. A granted dataset's ``owner_id`` differs
    from the user's id: address it by ``id`` (names only ever resolve to one's own datasets)."""
    if not await engine.database_exists():
        return []
    owner = await engine.resolve_user(request.user)
    return await accessible_datasets(engine.store, owner)
