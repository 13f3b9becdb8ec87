"""Tenants, roles and their members: one set of units for both backends.

Uniqueness lives in the schema (one membership row per (tenant, user) and (role, user); one
role name per tenant). Adding a member is ``INSERT ... ON CONFLICT DO NOTHING``; a role member
is inserted by ``INSERT ... SELECT`` joined to the tenant's members, so a user who is not a
member of the role's tenant can never hold the role, whatever ran in between.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from uuid import UUID

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.access import Role, Tenant
from engramdb.models.records import Dataset, User, utcnow
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.port import UnitPort
from engramdb.storage.sql.rows import DATASET_COLUMNS, USER_COLUMNS, row_to_dataset, row_to_user
from engramdb.storage.sql.unit import Row, Unit, all_rows, count, execute, one
from engramdb.storage.sql.values import as_time, as_uuid
from engramdb.storage.types import Membership

__all__ = [
    "TenantMethods",
    "add_role_member",
    "add_tenant_member",
    "create_role",
    "create_tenant",
    "datasets_granted_to",
    "membership",
    "permissions_of",
    "select_tenant",
]

TENANT_COLUMNS = "id, name, owner_id, created_at"
ROLE_COLUMNS = "id, tenant_id, name, created_at"


def _tenant(row: Row) -> Tenant:
    return Tenant(
        id=as_uuid(row[0]), name=row[1], owner_id=as_uuid(row[2]), created_at=as_time(row[3])
    )


def _role(row: Row) -> Role:
    return Role(
        id=as_uuid(row[0]), tenant_id=as_uuid(row[1]), name=row[2], created_at=as_time(row[3])
    )


def _user_exists(d: SqlDialect, user_id: UUID) -> Unit[bool]:
    return (yield from one(f"SELECT 1 FROM users WHERE id = {d.param}", user_id)) is not None


# --- grants to several principals at once ------------------------------------------------------


def permissions_of(
    d: SqlDialect, dataset_id: UUID, principal_ids: Sequence[UUID]
) -> Unit[frozenset[str]]:
    if not principal_ids:
        return frozenset()
    among, params = d.in_values("grantee_id", list(principal_ids), "uuid")
    rows = yield from all_rows(
        f"SELECT DISTINCT permission FROM grants WHERE dataset_id = {d.param} AND {among}",
        dataset_id,
        *params,
    )
    return frozenset(str(row[0]) for row in rows)


def datasets_granted_to(
    d: SqlDialect, principal_ids: Sequence[UUID], permission: str | None
) -> Unit[list[Dataset]]:
    if not principal_ids:
        return []
    columns = ", ".join(f"d.{c.strip()}" for c in DATASET_COLUMNS.split(","))
    among, params = d.in_values("g.grantee_id", list(principal_ids), "uuid")
    only = ""
    if permission is not None:
        only = f" AND g.permission = {d.param}"
        params.append(permission)
    rows = yield from all_rows(
        f"SELECT {columns} FROM datasets d WHERE d.id IN "
        f"(SELECT g.dataset_id FROM grants g WHERE {among}{only}) "
        f"ORDER BY d.created_at, d.{d.row_order}",
        *params,
    )
    return [row_to_dataset(row) for row in rows]


# --- tenants -----------------------------------------------------------------------------------


def tenant_by_id(d: SqlDialect, tenant_id: UUID) -> Unit[Tenant | None]:
    row = yield from one(f"SELECT {TENANT_COLUMNS} FROM tenants WHERE id = {d.param}", tenant_id)
    return None if row is None else _tenant(row)


def create_tenant(d: SqlDialect, tenant: Tenant, select: bool) -> Unit[Tenant]:
    if not (yield from _user_exists(d, tenant.owner_id)):
        raise NotFoundError(f"No user with id {tenant.owner_id}; create the user first.")
    yield from execute(
        f"INSERT INTO tenants ({TENANT_COLUMNS}) VALUES ({d.params(4)})",
        tenant.id,
        tenant.name,
        tenant.owner_id,
        tenant.created_at,
    )
    yield from execute(
        f"INSERT INTO tenant_members (tenant_id, user_id, created_at) VALUES ({d.params(3)})",
        tenant.id,
        tenant.owner_id,
        tenant.created_at,
    )
    if select:
        yield from execute(
            f"UPDATE users SET tenant_id = {d.param} WHERE id = {d.param}",
            tenant.id,
            tenant.owner_id,
        )
    return tenant


def add_tenant_member(d: SqlDialect, tenant_id: UUID, user_id: UUID) -> Unit[bool]:
    if (yield from tenant_by_id(d, tenant_id)) is None:
        raise NotFoundError(f"No tenant with id {tenant_id}.")
    if not (yield from _user_exists(d, user_id)):
        raise NotFoundError(f"No user with id {user_id}; create the user first.")
    added = yield from count(
        f"INSERT INTO tenant_members (tenant_id, user_id, created_at) VALUES ({d.params(3)}) "
        "ON CONFLICT (tenant_id, user_id) DO NOTHING",
        tenant_id,
        user_id,
        utcnow(),
    )
    return added > 0


def list_user_tenants(d: SqlDialect, user_id: UUID) -> Unit[list[Tenant]]:
    columns = ", ".join(f"t.{c.strip()}" for c in TENANT_COLUMNS.split(","))
    rows = yield from all_rows(
        f"SELECT {columns} FROM tenants t JOIN tenant_members m ON m.tenant_id = t.id "
        f"WHERE m.user_id = {d.param} ORDER BY t.created_at, t.id",
        user_id,
    )
    return [_tenant(row) for row in rows]


def select_tenant(d: SqlDialect, user_id: UUID, tenant_id: UUID | None) -> Unit[User | None]:
    if tenant_id is None:
        changed = yield from count(
            f"UPDATE users SET tenant_id = NULL WHERE id = {d.param}", user_id
        )
    else:
        changed = yield from count(
            f"UPDATE users SET tenant_id = {d.param} WHERE id = {d.param} AND EXISTS "
            f"(SELECT 1 FROM tenant_members WHERE tenant_id = {d.param} AND user_id = {d.param})",
            tenant_id,
            user_id,
            tenant_id,
            user_id,
        )
    if changed == 0:
        return None
    row = yield from one(f"SELECT {USER_COLUMNS} FROM users WHERE id = {d.param}", user_id)
    return None if row is None else row_to_user(row)


# --- roles -------------------------------------------------------------------------------------


def role_by_id(d: SqlDialect, role_id: UUID) -> Unit[Role | None]:
    row = yield from one(f"SELECT {ROLE_COLUMNS} FROM roles WHERE id = {d.param}", role_id)
    return None if row is None else _role(row)


def create_role(d: SqlDialect, role: Role) -> Unit[Role]:
    if (yield from tenant_by_id(d, role.tenant_id)) is None:
        raise NotFoundError(f"No tenant with id {role.tenant_id}.")
    added = yield from count(
        f"INSERT INTO roles ({ROLE_COLUMNS}) VALUES ({d.params(4)}) "
        "ON CONFLICT (tenant_id, name) DO NOTHING",
        role.id,
        role.tenant_id,
        role.name,
        role.created_at,
    )
    if added == 0:
        raise ConflictError(
            f"The tenant already has a role named {role.name!r}; choose another name."
        )
    return role


def add_role_member(d: SqlDialect, role_id: UUID, user_id: UUID) -> Unit[bool]:
    p = d.param
    added = yield from count(
        f"INSERT INTO role_members (role_id, user_id, created_at) "
        f"SELECT r.id, m.user_id, {p} FROM roles r "
        f"JOIN tenant_members m ON m.tenant_id = r.tenant_id "
        f"WHERE r.id = {p} AND m.user_id = {p} "
        "ON CONFLICT (role_id, user_id) DO NOTHING",
        utcnow(),
        role_id,
        user_id,
    )
    if added > 0:
        return True
    held = yield from one(
        f"SELECT 1 FROM role_members WHERE role_id = {p} AND user_id = {p}", role_id, user_id
    )
    if held is None:
        raise NotFoundError(
            f"Role {role_id} does not exist or user {user_id} is not a member of its tenant."
        )
    return False


def list_user_roles(d: SqlDialect, user_id: UUID, tenant_id: UUID) -> Unit[list[Role]]:
    columns = ", ".join(f"r.{c.strip()}" for c in ROLE_COLUMNS.split(","))
    rows = yield from all_rows(
        f"SELECT {columns} FROM roles r JOIN role_members m ON m.role_id = r.id "
        f"WHERE m.user_id = {d.param} AND r.tenant_id = {d.param} ORDER BY r.created_at, r.id",
        user_id,
        tenant_id,
    )
    return [_role(row) for row in rows]


def membership(d: SqlDialect, user_id: UUID) -> Unit[Membership]:
    row = yield from one(f"SELECT tenant_id FROM users WHERE id = {d.param}", user_id)
    if row is None or row[0] is None:
        return Membership(tenant_id=None, member=False, role_ids=())
    tenant_id = as_uuid(row[0])
    member = yield from one(
        f"SELECT 1 FROM tenant_members WHERE tenant_id = {d.param} AND user_id = {d.param}",
        tenant_id,
        user_id,
    )
    if member is None:
        return Membership(tenant_id=tenant_id, member=False, role_ids=())
    roles = yield from list_user_roles(d, user_id, tenant_id)
    return Membership(tenant_id=tenant_id, member=True, role_ids=tuple(r.id for r in roles))


class TenantMethods(UnitPort):
    """The store's tenants, roles and multi-principal grant reads, each one unit above."""

    async def permissions_of(
        self, dataset_id: UUID, principal_ids: Sequence[UUID]
    ) -> frozenset[str]:
        return await self._read_unit(
            partial(permissions_of, self.dialect, dataset_id, tuple(principal_ids))
        )

    async def datasets_granted_to(
        self, principal_ids: Sequence[UUID], permission: str | None = None
    ) -> list[Dataset]:
        return await self._read_unit(
            partial(datasets_granted_to, self.dialect, tuple(principal_ids), permission)
        )

    async def create_tenant(self, tenant: Tenant, *, select: bool) -> Tenant:
        return await self._write_unit(partial(create_tenant, self.dialect, tenant, select))

    async def get_tenant(self, tenant_id: UUID) -> Tenant | None:
        return await self._read_unit(partial(tenant_by_id, self.dialect, tenant_id))

    async def add_tenant_member(self, tenant_id: UUID, user_id: UUID) -> bool:
        return await self._write_unit(partial(add_tenant_member, self.dialect, tenant_id, user_id))

    async def list_user_tenants(self, user_id: UUID) -> list[Tenant]:
        return await self._read_unit(partial(list_user_tenants, self.dialect, user_id))

    async def select_tenant(self, user_id: UUID, tenant_id: UUID | None) -> User | None:
        return await self._write_unit(partial(select_tenant, self.dialect, user_id, tenant_id))

    async def create_role(self, role: Role) -> Role:
        return await self._write_unit(partial(create_role, self.dialect, role))

    async def get_role(self, role_id: UUID) -> Role | None:
        return await self._read_unit(partial(role_by_id, self.dialect, role_id))

    async def add_role_member(self, role_id: UUID, user_id: UUID) -> bool:
        return await self._write_unit(partial(add_role_member, self.dialect, role_id, user_id))

    async def list_user_roles(self, user_id: UUID, tenant_id: UUID) -> list[Role]:
        return await self._read_unit(partial(list_user_roles, self.dialect, user_id, tenant_id))

    async def membership(self, user_id: UUID) -> Membership:
        return await self._read_unit(partial(membership, self.dialect, user_id), snapshot=True)
