"""``cognee.modules.data.methods`` over engramdb: the dataset lookups cognee programs use
(``get_datasets``, ``get_authorized_existing_datasets``, ``load_or_create_datasets``). They
return engramdb :class:`~engramdb.models.records.Dataset` records (``id``, ``name``,
``owner_id``, ``tenant_id``, ``created_at``). In-process only."""

from __future__ import annotations

from uuid import UUID

from engramdb.access.permissions import dataset_for_write, own_dataset
from engramdb.compat.cognee.modules.users._engine import ready_engine
from engramdb.compat.cognee.modules.users.permissions.methods import (
    get_all_user_permission_datasets,
    get_specific_user_permission_datasets,
)
from engramdb.errors import DatasetNotFoundError, EngramValidationError
from engramdb.models.records import Dataset, User

__all__ = ["get_authorized_existing_datasets", "get_datasets", "load_or_create_datasets"]


async def get_datasets(user_id: UUID) -> list[Dataset]:
    """The datasets the user owns (in every tenant), oldest first."""
    engine = await ready_engine()
    return await engine.store.list_datasets(user_id)


async def get_authorized_existing_datasets(
    datasets: list[str] | list[UUID] | None,
    permission_type: str,
    user: User,
    strict: bool = False,
) -> list[Dataset]:
    """The existing datasets the user holds ``permission_type`` on: those named (names: the
    user's own in the tenant they work in; a name that matches none is dropped, or -- with
    ``strict`` -- DatasetNotFoundError), those given by id (PermissionDeniedError when one is
    not permitted, the same for an unknown id), or -- with no ``datasets`` -- all of them."""
    if not datasets:
        return await get_all_user_permission_datasets(user, permission_type)
    engine = await ready_engine()
    if all(isinstance(d, UUID) for d in datasets):
        ids = [d for d in datasets if isinstance(d, UUID)]
    elif all(isinstance(d, str) for d in datasets):
        found = {
            name: await own_dataset(engine.store, user, name)
            for name in datasets
            if isinstance(name, str)
        }
        missing = [name for name, ds in found.items() if ds is None]
        if strict and missing:
            raise DatasetNotFoundError(
                f"Dataset(s) not found: {', '.join(repr(m) for m in missing)}. Dataset names "
                "resolve only among the datasets you own in the current tenant; pass dataset "
                "ids for datasets shared with you.",
                missing=[str(m) for m in missing],
            )
        ids = [ds.id for ds in found.values() if ds is not None]
    else:
        raise EngramValidationError("datasets must be all names or all dataset UUIDs")
    if not ids:
        return []
    return await get_specific_user_permission_datasets(user.id, permission_type, ids)


async def load_or_create_datasets(
    dataset_names: list[str | UUID], existing_datasets: list[Dataset], user: User
) -> list[Dataset]:
    """For each name or id: the matching dataset of ``existing_datasets``, else (a name) the
    user's own dataset of that name, created if missing; an id that matches nothing is a
    DatasetNotFoundError."""
    engine = await ready_engine()
    result: list[Dataset] = []
    for ident in dataset_names:
        match = next((d for d in existing_datasets if ident in (d.name, d.id)), None)
        if match is not None:
            result.append(match)
        elif isinstance(ident, str):
            result.append(await dataset_for_write(engine.store, user, ident))
        else:
            raise DatasetNotFoundError(
                f"Dataset with given UUID does not exist: {ident}", missing=[str(ident)]
            )
    return result
