"""``cognee.modules.users.tenants.methods`` over engramdb: ``create_tenant``,
``add_user_to_tenant``, ``select_tenant`` (the verbs of the same names). In-process only."""

from __future__ import annotations

from uuid import UUID

from engramdb.compat.cognee.modules.users._engine import ready_engine, user_by_id
from engramdb.models.access import Tenant
from engramdb.models.records import User

__all__ = ["add_user_to_tenant", "create_tenant", "select_tenant"]


async def create_tenant(
    tenant_name: str, user_id: UUID, set_as_active_tenant: bool | None = True
) -> UUID:
    """Create a tenant owned by ``user_id`` (its first member; also the tenant they work in
    unless ``set_as_active_tenant`` is false); its id."""
    engine = await ready_engine()
    tenant: Tenant = await engine.create_tenant(
        tenant_name,
        set_as_active_tenant=bool(set_as_active_tenant),
        user=await user_by_id(user_id),
    )
    return tenant.id


async def add_user_to_tenant(
    user_id: UUID, tenant_id: UUID, owner_id: UUID, set_as_active_tenant: bool | None = False
) -> None:
    """Make ``user_id`` a member of the tenant; ``owner_id`` must own it (PermissionDeniedError
    for another member, TenantNotFoundError for an unknown tenant or one they do not belong
    to). ConflictError when the user already is a member."""
    engine = await ready_engine()
    await engine.add_user_to_tenant(
        user_id,
        tenant_id,
        set_as_active_tenant=bool(set_as_active_tenant),
        user=await user_by_id(owner_id),
    )


async def select_tenant(user_id: UUID, tenant_id: UUID | None) -> User:
    """Make ``tenant_id`` (one the user belongs to; None: their personal space) the tenant the
    user works in; the user as stored. TenantNotFoundError otherwise."""
    engine = await ready_engine()
    selected: User = await engine.select_tenant(tenant_id, user=await user_by_id(user_id))
    return selected
