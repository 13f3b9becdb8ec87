"""Tenants and roles (cognee's organisations and their groups; ``docs/permissions.md``).

Who may do what:

* Anyone may create a tenant; they own it and are its first member.
* Only a tenant's owner adds users to it, creates roles in it (in the tenant they work in, as
  cognee) and gives its members roles.
* A user works in one tenant at a time -- one they belong to -- or in their personal space
  (``select_tenant(None)``). Datasets created meanwhile belong to that tenant; permissions are
  held only on datasets of the tenant the user works in (:mod:`engramdb.access.permissions`).
* Nothing is confirmed to outsiders: an unknown tenant and one you do not belong to get the
  same TenantNotFoundError; an unknown role and one in a tenant you do not belong to the same
  RoleNotFoundError. A member who is not the owner is refused with PermissionDeniedError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID, uuid4

from engramdb.errors import (
    ConflictError,
    EngramValidationError,
    NotFoundError,
    PermissionDeniedError,
    RoleNotFoundError,
    TenantNotFoundError,
    UserNotFoundError,
)
from engramdb.models.access import Role, Tenant
from engramdb.models.records import User, utcnow
from engramdb.models.requests.tenants import (
    AddUserToRoleRequest,
    AddUserToTenantRequest,
    CreateRoleRequest,
    CreateTenantRequest,
    ListTenantsRequest,
    SelectTenantRequest,
)

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = [
    "add_user_to_role",
    "add_user_to_tenant",
    "create_role",
    "create_tenant",
    "list_tenants",
    "select_tenant",
]


def _no_tenant(tenant_id: UUID | None) -> TenantNotFoundError:
    """The refusal for a tenant id: identical whether it is unknown or not yours."""
    return TenantNotFoundError(
        f"No tenant {tenant_id} that you belong to (or no such tenant exists); ask its owner "
        "to add you (add_user_to_tenant), or list yours with list_tenants()."
    )


def _no_role(role_id: UUID) -> RoleNotFoundError:
    return RoleNotFoundError(
        f"No role {role_id} in a tenant you belong to (or no such role exists)."
    )


def _name(raw: str, what: str) -> str:
    name = raw.strip()
    if not name:
        raise EngramValidationError(f"a {what} name must not be blank")
    return name


async def _owned_tenant(engine: Engine, actor: User, tenant_id: UUID | None) -> Tenant:
    """The tenant if ``actor`` owns it; TenantNotFoundError when it is unknown or the actor is
    not a member, PermissionDeniedError for a member who is not the owner."""
    store = engine.store
    tenant = None if tenant_id is None else await store.get_tenant(tenant_id)
    if tenant is None or tenant.id not in {t.id for t in await store.list_user_tenants(actor.id)}:
        raise _no_tenant(tenant_id)
    if tenant.owner_id != actor.id:
        raise PermissionDeniedError(
            f"only the owner of tenant {tenant.name!r} may manage its users and roles"
        )
    return tenant


async def _existing_user(engine: Engine, user_id: UUID) -> User:
    found = await engine.store.get_user(user_id)
    if found is None:
        raise UserNotFoundError(
            f"No user with id {user_id}; create one with 'engramdb users create <email>'."
        )
    return found


async def create_tenant(engine: Engine, request: CreateTenantRequest) -> Tenant:
    """Create a tenant owned by the acting user, who becomes its first member and (unless
    ``set_as_active_tenant=False``) works in it from now on."""
    actor = await engine.resolve_user(request.user)
    tenant = Tenant(
        id=uuid4(), name=_name(request.name, "tenant"), owner_id=actor.id, created_at=utcnow()
    )
    return await engine.store.create_tenant(tenant, select=request.set_as_active_tenant)


async def add_user_to_tenant(engine: Engine, request: AddUserToTenantRequest) -> None:
    """Make ``user_id`` a member of the tenant (its owner only). ``set_as_active_tenant`` also
    makes it the tenant they work in. ConflictError when they already are a member."""
    actor = await engine.resolve_user(request.user)
    tenant = await _owned_tenant(engine, actor, request.tenant_id)
    member = await _existing_user(engine, request.user_id)
    if not await engine.store.add_tenant_member(tenant.id, member.id):
        raise ConflictError(f"user {member.id} is already a member of tenant {tenant.name!r}")
    if request.set_as_active_tenant:
        await engine.store.select_tenant(member.id, tenant.id)


async def select_tenant(engine: Engine, request: SelectTenantRequest) -> User:
    """Work in ``tenant_id`` (one you belong to; None: your personal space) from now on and
    return yourself as stored. TenantNotFoundError otherwise (the same for an unknown id)."""
    actor = await engine.resolve_user(request.user)
    updated = await engine.store.select_tenant(actor.id, request.tenant_id)
    if updated is None:
        raise _no_tenant(request.tenant_id)
    return updated


async def list_tenants(engine: Engine, request: ListTenantsRequest) -> list[Tenant]:
    """The tenants you belong to, oldest first."""
    if not await engine.database_exists():
        return []
    actor = await engine.resolve_user(request.user)
    return await engine.store.list_user_tenants(actor.id)


async def create_role(engine: Engine, request: CreateRoleRequest) -> Role:
    """Create a role in the tenant you work in (you must own it). TenantNotFoundError when you
    work in your personal space; ConflictError when the tenant has a role of that name."""
    actor = await engine.resolve_user(request.user)
    scope = await engine.store.membership(actor.id)
    if scope.tenant_id is None:
        raise TenantNotFoundError(
            "a role belongs to the tenant you work in, and you work in your personal space: "
            "create_tenant() or select_tenant(<tenant id>) first"
        )
    tenant = await _owned_tenant(engine, actor, scope.tenant_id)
    role = Role(
        id=uuid4(), tenant_id=tenant.id, name=_name(request.name, "role"), created_at=utcnow()
    )
    return await engine.store.create_role(role)


async def add_user_to_role(engine: Engine, request: AddUserToRoleRequest) -> None:
    """Give ``user_id`` -- a member of the role's tenant -- the role (the tenant's owner only).
    ConflictError when they already hold it, TenantNotFoundError when they are not a member."""
    actor = await engine.resolve_user(request.user)
    store = engine.store
    role = await store.get_role(request.role_id)
    if role is None:
        raise _no_role(request.role_id)
    try:
        await _owned_tenant(engine, actor, role.tenant_id)
    except TenantNotFoundError:
        raise _no_role(request.role_id) from None
    member = await _existing_user(engine, request.user_id)
    refused = TenantNotFoundError(
        f"user {member.id} is not a member of the role's tenant; add them first "
        "(add_user_to_tenant)"
    )
    try:
        added = await store.add_role_member(role.id, member.id)
    except NotFoundError:
        raise refused from None
    if not added:
        raise ConflictError(f"user {member.id} already holds role {role.name!r}")
