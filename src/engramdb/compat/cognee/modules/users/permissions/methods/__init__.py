"""``cognee.modules.users.permissions.methods`` over engramdb: giving and revoking dataset
permissions to a user, role or tenant, and the permission reads. In-process only.

Every decision is engramdb's one permission check (:func:`engramdb.access.check`): permissions
held on a dataset are the user's own, their roles' and their selected tenant's, on datasets of
the tenant they work in.
"""

from __future__ import annotations

from uuid import UUID

from engramdb.access.permissions import accessible_datasets, check, permissions_on
from engramdb.compat.cognee.modules.users._engine import ready_engine, user_by_id
from engramdb.errors import (
    FeatureNotAvailableError,
    NotFoundError,
    PermissionDeniedError,
    TenantNotFoundError,
)
from engramdb.models.access import Role, Tenant, validate_permission
from engramdb.models.records import Dataset, User

__all__ = [
    "authorized_give_permission_on_datasets",
    "authorized_revoke_permission_on_datasets",
    "check_permission_on_dataset",
    "get_all_user_permission_datasets",
    "get_principal",
    "get_specific_user_permission_datasets",
    "get_tenant",
    "give_permission_on_dataset",
]


def _as_list(dataset_ids: list[UUID] | UUID) -> list[UUID]:
    return list(dataset_ids) if isinstance(dataset_ids, list) else [dataset_ids]


async def _shareable(owner: User, dataset_ids: list[UUID]) -> list[Dataset]:
    """Every dataset, if ``owner`` may share each (PermissionDeniedError -- before anything is
    changed -- when one is not, the same for an unknown id)."""
    engine = await ready_engine()
    return [await check(owner, ds, "share", store=engine.store) for ds in dataset_ids]


async def authorized_give_permission_on_datasets(
    principal_id: UUID, dataset_ids: list[UUID] | UUID, permission_name: str, owner_id: UUID
) -> None:
    """Give the principal (a user, a role or a tenant) ``permission_name`` on the datasets;
    ``owner_id`` must hold ``share`` on every one (engramdb.grant). A role or a tenant can be
    given permissions only on datasets of its own tenant."""
    engine = await ready_engine()
    owner = await user_by_id(owner_id)
    permission = validate_permission(permission_name)
    for dataset in await _shareable(owner, _as_list(dataset_ids)):
        if principal_id == dataset.owner_id:
            continue  # the owner holds every permission already (cognee stores it; we need not)
        await engine.grant(dataset.id, principal_id, permission, user=owner)


async def authorized_revoke_permission_on_datasets(
    principal_id: UUID, dataset_ids: list[UUID] | UUID, permission_name: str, owner_id: UUID
) -> None:
    """Take ``permission_name`` on the datasets back from the principal, effective at once;
    ``owner_id`` must hold ``share`` on every one (engramdb.revoke)."""
    engine = await ready_engine()
    owner = await user_by_id(owner_id)
    permission = validate_permission(permission_name)
    for dataset in await _shareable(owner, _as_list(dataset_ids)):
        await engine.revoke(dataset.id, principal_id, permission, user=owner)


async def give_permission_on_dataset(
    principal: object, dataset_id: UUID, permission_name: str
) -> None:
    """Refused: cognee's unchecked write of a permission would bypass engramdb's permission
    check. Use :func:`authorized_give_permission_on_datasets` (or ``engramdb.grant``)."""
    raise FeatureNotAvailableError(
        "give_permission_on_dataset() writes a permission without checking who gives it; "
        "engramdb does not offer that. Use authorized_give_permission_on_datasets(principal_id, "
        "[dataset_id], permission, owner_id) or engramdb.grant(dataset_id, principal_id, "
        "permission, user=owner)."
    )


async def get_principal(principal_id: UUID) -> User | Role | Tenant:
    """The user, role or tenant with that id; NotFoundError when there is none."""
    engine = await ready_engine()
    store = engine.store
    found: User | Role | Tenant | None = await store.get_user(principal_id)
    if found is None:
        found = await store.get_role(principal_id)
    if found is None:
        found = await store.get_tenant(principal_id)
    if found is None:
        raise NotFoundError(f"No user, role or tenant with id {principal_id}.")
    return found


async def get_tenant(tenant_id: UUID) -> Tenant:
    """The tenant; TenantNotFoundError when there is none."""
    engine = await ready_engine()
    tenant = await engine.store.get_tenant(tenant_id)
    if tenant is None:
        raise TenantNotFoundError(f"Could not find tenant: {tenant_id}")
    return tenant


async def get_all_user_permission_datasets(user: User, permission_type: str) -> list[Dataset]:
    """Every dataset the user holds ``permission_type`` on (owned or granted to them, their
    roles or their tenant), in the tenant they work in."""
    engine = await ready_engine()
    wanted = validate_permission(permission_type)
    store = engine.store
    return [
        d
        for d in await accessible_datasets(store, user)
        if wanted in await permissions_on(store, user, d)
    ]


async def get_specific_user_permission_datasets(
    user_id: UUID, permission_type: str, dataset_ids: list[UUID] | None = None
) -> list[Dataset]:
    """The datasets among ``dataset_ids`` (all, when None) the user holds ``permission_type``
    on. PermissionDeniedError when one of the given ids is not permitted, or none is."""
    user = await user_by_id(user_id)
    permitted = await get_all_user_permission_datasets(user, permission_type)
    if dataset_ids:
        chosen = [d for d in permitted if d.id in dataset_ids]
        if len(chosen) != len(set(dataset_ids)):
            raise PermissionDeniedError(
                f"Request owner does not have necessary permission: [{permission_type}] for all "
                "datasets requested."
            )
        permitted = chosen
    if not permitted:
        raise PermissionDeniedError(
            f"Request owner does not have permission: [{permission_type}] for any dataset."
        )
    return permitted


async def check_permission_on_dataset(user: User, permission_type: str, dataset_id: UUID) -> None:
    """Nothing when the user holds ``permission_type`` on the dataset; PermissionDeniedError
    otherwise (the same for an unknown dataset)."""
    engine = await ready_engine()
    await check(user, dataset_id, permission_type, store=engine.store)
