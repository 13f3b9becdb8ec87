"""Users' administrator flags, API keys and dataset grants of the PostgreSQL store.

Each function runs inside a transaction the caller opened (:meth:`.database.Database.write` or
``read``); the SQL mirrors :mod:`engramdb.storage.sqlite.access`. Creating a grant is
``INSERT ... ON CONFLICT DO NOTHING`` followed by a read, so concurrent granters all get the
one stored row. The methods of :class:`AccessMethods` are mixed into
:class:`~engramdb.storage.postgres.store.PostgresStore`.
"""

from __future__ import annotations

from functools import partial
from typing import Any, cast
from uuid import UUID

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.access import ApiKeyInfo, Grant, Permission
from engramdb.models.records import Dataset, User, utcnow
from engramdb.storage.base import StoredApiKey
from engramdb.storage.postgres.database import Conn, Database
from engramdb.storage.postgres.records import user_by_id
from engramdb.storage.postgres.rows import (
    DATASET_COLUMNS,
    USER_COLUMNS,
    row_to_dataset,
    row_to_user,
    utc,
)

__all__ = ["AccessMethods"]

_KEY_COLUMNS = "id, user_id, name, prefix, created_at, revoked_at, secret_hash"
_GRANT_COLUMNS = "dataset_id, grantee_id, permission, granted_by, created_at"


def _row_to_key(row: Any) -> StoredApiKey:
    info = ApiKeyInfo(
        id=row[0],
        user_id=row[1],
        name=row[2],
        prefix=row[3],
        created_at=utc(row[4]),
        revoked_at=None if row[5] is None else utc(row[5]),
    )
    return StoredApiKey(info=info, secret_hash=row[6])


def _row_to_grant(row: Any) -> Grant:
    return Grant(
        dataset_id=row[0],
        grantee_id=row[1],
        permission=cast(Permission, row[2]),
        granted_by=row[3],
        created_at=utc(row[4]),
    )


async def user_by_email(conn: Conn, email: str) -> User | None:
    cur = await conn.execute(f"SELECT {USER_COLUMNS} FROM users WHERE email = %s", (email,))
    row = await cur.fetchone()
    return None if row is None else row_to_user(row)


async def list_users(conn: Conn) -> list[User]:
    cur = await conn.execute(f"SELECT {USER_COLUMNS} FROM users ORDER BY created_at, id")
    return [row_to_user(row) for row in await cur.fetchall()]


async def set_user_admin(conn: Conn, user_id: UUID, is_admin: bool) -> User:
    await conn.execute("UPDATE users SET is_admin = %s WHERE id = %s", (is_admin, user_id))
    user = await user_by_id(conn, user_id)
    if user is None:
        raise NotFoundError(f"No user with id {user_id}; create the user first.")
    return user


async def add_api_key(conn: Conn, key: ApiKeyInfo, secret_hash: str) -> ApiKeyInfo:
    if await user_by_id(conn, key.user_id) is None:
        raise NotFoundError(f"No user with id {key.user_id}; create the user first.")
    cur = await conn.execute(
        f"INSERT INTO api_keys ({_KEY_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s) "
        "ON CONFLICT (id) DO NOTHING",
        (
            key.id,
            key.user_id,
            key.name,
            key.prefix,
            key.created_at,
            key.revoked_at,
            secret_hash,
        ),
    )
    if cur.rowcount == 0:
        raise ConflictError(f"An API key with id {key.id} already exists.")
    return key


async def get_api_key(conn: Conn, key_id: UUID) -> StoredApiKey | None:
    cur = await conn.execute(f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE id = %s", (key_id,))
    row = await cur.fetchone()
    return None if row is None else _row_to_key(row)


async def list_api_keys(conn: Conn, user_id: UUID) -> list[ApiKeyInfo]:
    cur = await conn.execute(
        f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE user_id = %s ORDER BY created_at, id",
        (user_id,),
    )
    return [_row_to_key(row).info for row in await cur.fetchall()]


async def revoke_api_key(conn: Conn, key_id: UUID) -> ApiKeyInfo | None:
    await conn.execute(
        "UPDATE api_keys SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL",
        (utcnow(), key_id),
    )
    stored = await get_api_key(conn, key_id)
    return None if stored is None else stored.info


async def add_grant(conn: Conn, grant: Grant) -> Grant:
    cur = await conn.execute("SELECT 1 FROM datasets WHERE id = %s", (grant.dataset_id,))
    if await cur.fetchone() is None:
        raise NotFoundError(f"No dataset with id {grant.dataset_id}.")
    if await user_by_id(conn, grant.grantee_id) is None:
        raise NotFoundError(f"No user with id {grant.grantee_id}; create the user first.")
    await conn.execute(
        f"INSERT INTO grants ({_GRANT_COLUMNS}) VALUES (%s, %s, %s, %s, %s) "
        "ON CONFLICT (dataset_id, grantee_id, permission) DO NOTHING",
        (grant.dataset_id, grant.grantee_id, grant.permission, grant.granted_by, grant.created_at),
    )
    cur = await conn.execute(
        f"SELECT {_GRANT_COLUMNS} FROM grants "
        "WHERE dataset_id = %s AND grantee_id = %s AND permission = %s",
        (grant.dataset_id, grant.grantee_id, grant.permission),
    )
    return _row_to_grant(await cur.fetchone())


async def remove_grant(conn: Conn, dataset_id: UUID, grantee_id: UUID, permission: str) -> bool:
    cur = await conn.execute(
        "DELETE FROM grants WHERE dataset_id = %s AND grantee_id = %s AND permission = %s",
        (dataset_id, grantee_id, permission),
    )
    return cur.rowcount > 0


async def list_grants(conn: Conn, dataset_id: UUID) -> list[Grant]:
    cur = await conn.execute(
        f"SELECT {_GRANT_COLUMNS} FROM grants WHERE dataset_id = %s "
        "ORDER BY created_at, grantee_id, permission",
        (dataset_id,),
    )
    return [_row_to_grant(row) for row in await cur.fetchall()]


async def granted_permissions(conn: Conn, dataset_id: UUID, grantee_id: UUID) -> frozenset[str]:
    cur = await conn.execute(
        "SELECT permission FROM grants WHERE dataset_id = %s AND grantee_id = %s",
        (dataset_id, grantee_id),
    )
    return frozenset(str(row[0]) for row in await cur.fetchall())


async def list_granted_datasets(
    conn: Conn, grantee_id: UUID, permission: str | None
) -> list[Dataset]:
    columns = ", ".join(f"d.{c.strip()}" for c in DATASET_COLUMNS.split(","))
    if permission is None:
        cur = await conn.execute(
            f"SELECT {columns} FROM datasets d WHERE d.id IN "
            "(SELECT g.dataset_id FROM grants g WHERE g.grantee_id = %s) "
            "ORDER BY d.created_at, d.seq",
            (grantee_id,),
        )
    else:
        cur = await conn.execute(
            f"SELECT {columns} FROM datasets d WHERE d.id IN "
            "(SELECT g.dataset_id FROM grants g WHERE g.grantee_id = %s AND g.permission = %s) "
            "ORDER BY d.created_at, d.seq",
            (grantee_id, permission),
        )
    return [row_to_dataset(row) for row in await cur.fetchall()]


class AccessMethods:
    """The Store's "users, api keys, grants" section on PostgreSQL, as a mixin (the store
    provides ``_db``)."""

    _db: Database

    async def find_user_by_email(self, email: str) -> User | None:
        return await self._db.read(partial(user_by_email, email=email))

    async def list_users(self) -> list[User]:
        return await self._db.read(list_users)

    async def set_user_admin(self, user_id: UUID, is_admin: bool) -> User:
        return await self._db.write(partial(set_user_admin, user_id=user_id, is_admin=is_admin))

    async def add_api_key(self, key: ApiKeyInfo, secret_hash: str) -> ApiKeyInfo:
        return await self._db.write(partial(add_api_key, key=key, secret_hash=secret_hash))

    async def get_api_key(self, key_id: UUID) -> StoredApiKey | None:
        return await self._db.read(partial(get_api_key, key_id=key_id))

    async def list_api_keys(self, user_id: UUID) -> list[ApiKeyInfo]:
        return await self._db.read(partial(list_api_keys, user_id=user_id))

    async def revoke_api_key(self, key_id: UUID) -> ApiKeyInfo | None:
        return await self._db.write(partial(revoke_api_key, key_id=key_id))

    async def add_grant(self, grant: Grant) -> Grant:
        return await self._db.write(partial(add_grant, grant=grant))

    async def remove_grant(self, dataset_id: UUID, grantee_id: UUID, permission: str) -> bool:
        return await self._db.write(
            partial(
                remove_grant, dataset_id=dataset_id, grantee_id=grantee_id, permission=permission
            )
        )

    async def list_grants(self, dataset_id: UUID) -> list[Grant]:
        return await self._db.read(partial(list_grants, dataset_id=dataset_id))

    async def granted_permissions(self, dataset_id: UUID, grantee_id: UUID) -> frozenset[str]:
        return await self._db.read(
            partial(granted_permissions, dataset_id=dataset_id, grantee_id=grantee_id)
        )

    async def list_granted_datasets(
        self, grantee_id: UUID, permission: str | None = None
    ) -> list[Dataset]:
        return await self._db.read(
            partial(list_granted_datasets, grantee_id=grantee_id, permission=permission)
        )
