"""Request models of the tenant and role verbs (``docs/permissions.md``, "Tenants and roles")."""

from __future__ import annotations

from typing import Annotated, ClassVar
from uuid import UUID

from pydantic import Field

from engramdb.models.requests.common import Strict, UserOption, VerbRequest

__all__ = [
    "MAX_GROUP_NAME",
    "AddUserToRoleRequest",
    "AddUserToTenantRequest",
    "CreateRoleRequest",
    "CreateTenantRequest",
    "ListTenantsRequest",
    "SelectTenantRequest",
]

#: Longest tenant or role name accepted.
MAX_GROUP_NAME = 255
GroupName = Annotated[str, Field(strict=True, min_length=1, max_length=MAX_GROUP_NAME)]


class CreateTenantRequest(VerbRequest):
    """``create_tenant()``: a new tenant you own (and, by default, work in from now on)."""

    positional: ClassVar[tuple[str, ...]] = ("name",)

    name: GroupName
    set_as_active_tenant: Annotated[bool, Strict] = True
    user: UserOption = None


class AddUserToTenantRequest(VerbRequest):
    """``add_user_to_tenant()``: make a user a member of a tenant you own."""

    positional: ClassVar[tuple[str, ...]] = ("user_id", "tenant_id")

    user_id: UUID
    tenant_id: UUID
    set_as_active_tenant: Annotated[bool, Strict] = False
    user: UserOption = None


class SelectTenantRequest(VerbRequest):
    """``select_tenant()``: work in a tenant you belong to (None: your personal space)."""

    positional: ClassVar[tuple[str, ...]] = ("tenant_id",)

    tenant_id: UUID | None = None
    user: UserOption = None


class ListTenantsRequest(VerbRequest):
    """``list_tenants()``: the tenants you belong to."""

    user: UserOption = None


class CreateRoleRequest(VerbRequest):
    """``create_role()``: a new role in the tenant you work in (its owner only)."""

    positional: ClassVar[tuple[str, ...]] = ("name",)

    name: GroupName
    user: UserOption = None


class AddUserToRoleRequest(VerbRequest):
    """``add_user_to_role()``: give a member of the role's tenant the role (tenant owner only)."""

    positional: ClassVar[tuple[str, ...]] = ("user_id", "role_id")

    user_id: UUID
    role_id: UUID
    user: UserOption = None
