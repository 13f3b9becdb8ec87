"""Users' administrator flags, API keys and dataset grants: one set of units for both backends.

Uniqueness lives in the schema (key ids; one grant row per (dataset, grantee, permission)).
Creating a key or a grant is ``INSERT ... ON CONFLICT DO NOTHING``: a key whose id exists is a
conflict (row count 0); a grant is read back after the insert in the same transaction, so
concurrent granters all get the one stored row.
"""

from __future__ import annotations

from functools import partial
from uuid import UUID

from engramdb.errors import ConflictError, NotFoundError, StorageError
from engramdb.models.access import ApiKeyInfo, Grant
from engramdb.models.records import Dataset, User, utcnow
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.rows import (
    GRANT_COLUMNS,
    KEY_COLUMNS,
    USER_COLUMNS,
    row_to_grant,
    row_to_key,
    row_to_user,
)
from engramdb.storage.sql.tenants import TenantMethods
from engramdb.storage.sql.unit import Unit, all_rows, count, execute, one
from engramdb.storage.types import StoredApiKey

__all__ = [
    "AccessMethods",
    "add_api_key",
    "add_grant",
    "get_api_key",
    "list_api_keys",
    "list_grants",
    "list_users",
    "remove_grant",
    "revoke_api_key",
    "set_user_admin",
    "user_by_email",
    "user_by_id",
]


# --- users -------------------------------------------------------------------------------------


def user_by_id(d: SqlDialect, user_id: UUID) -> Unit[User | None]:
    row = yield from one(f"SELECT {USER_COLUMNS} FROM users WHERE id = {d.param}", user_id)
    return None if row is None else row_to_user(row)


def user_by_email(d: SqlDialect, email: str) -> Unit[User | None]:
    row = yield from one(f"SELECT {USER_COLUMNS} FROM users WHERE email = {d.param}", email)
    return None if row is None else row_to_user(row)


def list_users(d: SqlDialect) -> Unit[list[User]]:
    """In creation order (ties: SQLite by insertion, PostgreSQL by id)."""
    tie = "rowid" if d.name == "sqlite" else "id"
    rows = yield from all_rows(f"SELECT {USER_COLUMNS} FROM users ORDER BY created_at, {tie}")
    return [row_to_user(row) for row in rows]


def set_user_admin(d: SqlDialect, user_id: UUID, is_admin: bool) -> Unit[User]:
    yield from execute(
        f"UPDATE users SET is_admin = {d.param} WHERE id = {d.param}", is_admin, user_id
    )
    user = yield from user_by_id(d, user_id)
    if user is None:
        raise NotFoundError(f"No user with id {user_id}; create the user first.")
    return user


# --- api keys ----------------------------------------------------------------------------------


def add_api_key(d: SqlDialect, key: ApiKeyInfo, secret_hash: str) -> Unit[ApiKeyInfo]:
    if (yield from user_by_id(d, key.user_id)) is None:
        raise NotFoundError(f"No user with id {key.user_id}; create the user first.")
    added = yield from count(
        f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES ({d.params(7)}) ON CONFLICT (id) DO NOTHING",
        key.id,
        key.user_id,
        key.name,
        key.prefix,
        key.created_at,
        key.revoked_at,
        secret_hash,
    )
    if added == 0:
        raise ConflictError(f"An API key with id {key.id} already exists.")
    return key


def get_api_key(d: SqlDialect, key_id: UUID) -> Unit[StoredApiKey | None]:
    row = yield from one(f"SELECT {KEY_COLUMNS} FROM api_keys WHERE id = {d.param}", key_id)
    return None if row is None else row_to_key(row)


def list_api_keys(d: SqlDialect, user_id: UUID) -> Unit[list[ApiKeyInfo]]:
    rows = yield from all_rows(
        f"SELECT {KEY_COLUMNS} FROM api_keys WHERE user_id = {d.param} ORDER BY created_at, id",
        user_id,
    )
    return [row_to_key(row).info for row in rows]


def revoke_api_key(d: SqlDialect, key_id: UUID) -> Unit[ApiKeyInfo | None]:
    yield from execute(
        f"UPDATE api_keys SET revoked_at = {d.param} WHERE id = {d.param} AND revoked_at IS NULL",
        utcnow(),
        key_id,
    )
    stored = yield from get_api_key(d, key_id)
    return None if stored is None else stored.info


# --- grants ------------------------------------------------------------------------------------


#: Where each kind of grantee lives.
_PRINCIPAL_TABLES = {"user": "users", "role": "roles", "tenant": "tenants"}


def _grant_key(d: SqlDialect) -> str:
    return f"dataset_id = {d.param} AND grantee_id = {d.param} AND permission = {d.param}"


def add_grant(d: SqlDialect, grant: Grant) -> Unit[Grant]:
    if (yield from one(f"SELECT 1 FROM datasets WHERE id = {d.param}", grant.dataset_id)) is None:
        raise NotFoundError(f"No dataset with id {grant.dataset_id}.")
    table = _PRINCIPAL_TABLES[grant.grantee_kind]
    if (yield from one(f"SELECT 1 FROM {table} WHERE id = {d.param}", grant.grantee_id)) is None:
        raise NotFoundError(f"No {grant.grantee_kind} with id {grant.grantee_id}.")
    yield from execute(
        f"INSERT INTO grants ({GRANT_COLUMNS}) VALUES ({d.params(6)}) "
        "ON CONFLICT (dataset_id, grantee_id, permission) DO NOTHING",
        grant.dataset_id,
        grant.grantee_id,
        grant.permission,
        grant.granted_by,
        grant.created_at,
        grant.grantee_kind,
    )
    row = yield from one(
        f"SELECT {GRANT_COLUMNS} FROM grants WHERE {_grant_key(d)}",
        grant.dataset_id,
        grant.grantee_id,
        grant.permission,
    )
    if row is None:  # cannot happen: inserted or present, in this transaction
        raise StorageError(f"The grant on dataset {grant.dataset_id} could not be stored.")
    return row_to_grant(row)


def remove_grant(d: SqlDialect, dataset_id: UUID, grantee_id: UUID, permission: str) -> Unit[bool]:
    removed = yield from count(
        f"DELETE FROM grants WHERE {_grant_key(d)}", dataset_id, grantee_id, permission
    )
    return removed > 0


def list_grants(d: SqlDialect, dataset_id: UUID) -> Unit[list[Grant]]:
    rows = yield from all_rows(
        f"SELECT {GRANT_COLUMNS} FROM grants WHERE dataset_id = {d.param} "
        "ORDER BY created_at, grantee_id, permission",
        dataset_id,
    )
    return [row_to_grant(row) for row in rows]


class AccessMethods(TenantMethods):
    """The store's users, API keys and grants methods, each one unit above."""

    async def get_user(self, user_id: UUID) -> User | None:
        return await self._read_unit(partial(user_by_id, self.dialect, user_id))

    async def find_user_by_email(self, email: str) -> User | None:
        return await self._read_unit(partial(user_by_email, self.dialect, email))

    async def list_users(self) -> list[User]:
        return await self._read_unit(partial(list_users, self.dialect))

    async def set_user_admin(self, user_id: UUID, is_admin: bool) -> User:
        return await self._write_unit(partial(set_user_admin, self.dialect, user_id, is_admin))

    async def add_api_key(self, key: ApiKeyInfo, secret_hash: str) -> ApiKeyInfo:
        return await self._write_unit(partial(add_api_key, self.dialect, key, secret_hash))

    async def get_api_key(self, key_id: UUID) -> StoredApiKey | None:
        return await self._read_unit(partial(get_api_key, self.dialect, key_id))

    async def list_api_keys(self, user_id: UUID) -> list[ApiKeyInfo]:
        return await self._read_unit(partial(list_api_keys, self.dialect, user_id))

    async def revoke_api_key(self, key_id: UUID) -> ApiKeyInfo | None:
        return await self._write_unit(partial(revoke_api_key, self.dialect, key_id))

    async def add_grant(self, grant: Grant) -> Grant:
        return await self._write_unit(partial(add_grant, self.dialect, grant))

    async def remove_grant(self, dataset_id: UUID, grantee_id: UUID, permission: str) -> bool:
        return await self._write_unit(
            partial(remove_grant, self.dialect, dataset_id, grantee_id, permission)
        )

    async def list_grants(self, dataset_id: UUID) -> list[Grant]:
        return await self._read_unit(partial(list_grants, self.dialect, dataset_id))

    # One grantee: the multi-principal reads of .tenants with one id.

    async def granted_permissions(self, dataset_id: UUID, grantee_id: UUID) -> frozenset[str]:
        return await self.permissions_of(dataset_id, [grantee_id])

    async def list_granted_datasets(
        self, grantee_id: UUID, permission: str | None = None
    ) -> list[Dataset]:
        return await self.datasets_granted_to([grantee_id], permission)
