"""``cognee.modules.users.roles.methods`` over engramdb: ``create_role``, ``add_user_to_role``
(the verbs ``engramdb.create_role`` / ``engramdb.add_user_to_role``). In-process only."""

from __future__ import annotations

from uuid import UUID

from engramdb.compat.cognee.modules.users._engine import ready_engine, user_by_id
from engramdb.models.access import Role

__all__ = ["add_user_to_role", "create_role"]


async def create_role(role_name: str, owner_id: UUID) -> UUID:
    """Create a role in the tenant ``owner_id`` works in (they must own it); its id.
    TenantNotFoundError when they work in their personal space, PermissionDeniedError when they
    do not own the tenant, ConflictError when the tenant has a role of that name."""
    engine = await ready_engine()
    role: Role = await engine.create_role(role_name, user=await user_by_id(owner_id))
    return role.id


async def add_user_to_role(user_id: UUID, role_id: UUID, owner_id: UUID) -> None:
    """Give ``user_id`` the role; ``owner_id`` must own the role's tenant, and the user be a
    member of it (TenantNotFoundError otherwise). RoleNotFoundError for an unknown role or one
    in a tenant ``owner_id`` does not belong to, ConflictError when the user holds it."""
    engine = await ready_engine()
    await engine.add_user_to_role(user_id, role_id, user=await user_by_id(owner_id))
