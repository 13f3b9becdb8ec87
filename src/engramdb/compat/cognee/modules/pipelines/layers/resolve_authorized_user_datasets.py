"""``cognee.modules.pipelines.layers.resolve_authorized_user_datasets``: the user and the
datasets a write goes to."""

from __future__ import annotations

from uuid import UUID

from engramdb.compat.cognee.modules.data.methods import (
    get_authorized_existing_datasets,
    load_or_create_datasets,
)
from engramdb.compat.cognee.modules.users._engine import ready_engine
from engramdb.errors import DatasetNotFoundError
from engramdb.models.records import Dataset, User

__all__ = ["resolve_authorized_user_datasets"]


async def resolve_authorized_user_datasets(
    datasets: str | UUID | list[str] | list[UUID] | None, user: User | None = None
) -> tuple[User, list[Dataset]]:
    """``(user, datasets)``: ``user`` (default: the default user) and, for each name or id, the
    dataset it names that the user may write -- a name that matches none of the user's datasets
    is created, an id must name a dataset the user holds write permission on
    (PermissionDeniedError; DatasetNotFoundError for one that matches nothing). With no
    ``datasets``: every dataset the user may write (DatasetNotFoundError when there is none)."""
    engine = await ready_engine()
    owner = user if user is not None else await engine.resolve_user(None)
    wanted: list[str | UUID] = (
        [datasets] if isinstance(datasets, str | UUID) else list(datasets or [])
    )
    existing = await get_authorized_existing_datasets(wanted, "write", owner)  # type: ignore[arg-type]
    found = await load_or_create_datasets(wanted, existing, owner) if wanted else existing
    if not found:
        raise DatasetNotFoundError("There are no datasets to work with.", missing=[])
    return owner, found
