"""Users' administrator flags, API keys and dataset grants of the SQLite store.

Each function runs inside a transaction of :class:`.database.Database`. Uniqueness lives in the
schema (key ids; one grant row per (dataset, grantee, permission)), and creating a grant is
``INSERT ... ON CONFLICT DO NOTHING`` followed by a read in the same ``BEGIN IMMEDIATE``
transaction, so concurrent granters all get the one stored row.
"""

from __future__ import annotations

import sqlite3
from typing import Any, cast
from uuid import UUID

from engramdb.errors import ConflictError, NotFoundError
from engramdb.models.access import ApiKeyInfo, Grant, Permission
from engramdb.models.records import Dataset, User, utcnow
from engramdb.storage.base import StoredApiKey
from engramdb.storage.sqlite.records import user_by_id
from engramdb.storage.sqlite.rows import (
    DATASET_COLUMNS,
    USER_COLUMNS,
    parse_time,
    row_to_dataset,
    row_to_user,
    to_time,
)

__all__ = [
    "add_api_key",
    "add_grant",
    "get_api_key",
    "granted_permissions",
    "list_api_keys",
    "list_granted_datasets",
    "list_grants",
    "list_users",
    "remove_grant",
    "revoke_api_key",
    "set_user_admin",
    "user_by_email",
]

_KEY_COLUMNS = "id, user_id, name, prefix, created_at, revoked_at, secret_hash"
_GRANT_COLUMNS = "dataset_id, grantee_id, permission, granted_by, created_at"


def _row_to_key(row: sqlite3.Row | tuple[Any, ...]) -> StoredApiKey:
    info = ApiKeyInfo(
        id=UUID(row[0]),
        user_id=UUID(row[1]),
        name=row[2],
        prefix=row[3],
        created_at=parse_time(row[4]),
        revoked_at=None if row[5] is None else parse_time(row[5]),
    )
    return StoredApiKey(info=info, secret_hash=row[6])


def _row_to_grant(row: sqlite3.Row | tuple[Any, ...]) -> Grant:
    return Grant(
        dataset_id=UUID(row[0]),
        grantee_id=UUID(row[1]),
        permission=cast(Permission, row[2]),
        granted_by=UUID(row[3]),
        created_at=parse_time(row[4]),
    )


# --- users -----------------------------------------------------------------------------------


def user_by_email(conn: sqlite3.Connection, email: str) -> User | None:
    row = conn.execute(f"SELECT {USER_COLUMNS} FROM users WHERE email = ?", (email,)).fetchone()
    return None if row is None else row_to_user(row)


def list_users(conn: sqlite3.Connection) -> list[User]:
    rows = conn.execute(f"SELECT {USER_COLUMNS} FROM users ORDER BY created_at, rowid")
    return [row_to_user(row) for row in rows]


def set_user_admin(conn: sqlite3.Connection, user_id: UUID, is_admin: bool) -> User:
    conn.execute("UPDATE users SET is_admin = ? WHERE id = ?", (int(is_admin), str(user_id)))
    user = user_by_id(conn, user_id)
    if user is None:
        raise NotFoundError(f"No user with id {user_id}; create the user first.")
    return user


# --- api keys --------------------------------------------------------------------------------


def add_api_key(conn: sqlite3.Connection, key: ApiKeyInfo, secret_hash: str) -> ApiKeyInfo:
    if user_by_id(conn, key.user_id) is None:
        raise NotFoundError(f"No user with id {key.user_id}; create the user first.")
    if conn.execute("SELECT 1 FROM api_keys WHERE id = ?", (str(key.id),)).fetchone():
        raise ConflictError(f"An API key with id {key.id} already exists.")
    conn.execute(
        f"INSERT INTO api_keys ({_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            str(key.id),
            str(key.user_id),
            key.name,
            key.prefix,
            to_time(key.created_at),
            None if key.revoked_at is None else to_time(key.revoked_at),
            secret_hash,
        ),
    )
    return key


def get_api_key(conn: sqlite3.Connection, key_id: UUID) -> StoredApiKey | None:
    row = conn.execute(
        f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE id = ?", (str(key_id),)
    ).fetchone()
    return None if row is None else _row_to_key(row)


def list_api_keys(conn: sqlite3.Connection, user_id: UUID) -> list[ApiKeyInfo]:
    rows = conn.execute(
        f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE user_id = ? ORDER BY created_at, id",
        (str(user_id),),
    )
    return [_row_to_key(row).info for row in rows]


def revoke_api_key(conn: sqlite3.Connection, key_id: UUID) -> ApiKeyInfo | None:
    conn.execute(
        "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
        (to_time(utcnow()), str(key_id)),
    )
    stored = get_api_key(conn, key_id)
    return None if stored is None else stored.info


# --- grants ----------------------------------------------------------------------------------


def add_grant(conn: sqlite3.Connection, grant: Grant) -> Grant:
    if conn.execute("SELECT 1 FROM datasets WHERE id = ?", (str(grant.dataset_id),)).fetchone():
        if user_by_id(conn, grant.grantee_id) is None:
            raise NotFoundError(f"No user with id {grant.grantee_id}; create the user first.")
    else:
        raise NotFoundError(f"No dataset with id {grant.dataset_id}.")
    conn.execute(
        f"INSERT INTO grants ({_GRANT_COLUMNS}) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (dataset_id, grantee_id, permission) DO NOTHING",
        (
            str(grant.dataset_id),
            str(grant.grantee_id),
            grant.permission,
            str(grant.granted_by),
            to_time(grant.created_at),
        ),
    )
    row = conn.execute(
        f"SELECT {_GRANT_COLUMNS} FROM grants "
        "WHERE dataset_id = ? AND grantee_id = ? AND permission = ?",
        (str(grant.dataset_id), str(grant.grantee_id), grant.permission),
    ).fetchone()
    return _row_to_grant(row)


def remove_grant(
    conn: sqlite3.Connection, dataset_id: UUID, grantee_id: UUID, permission: str
) -> bool:
    cur = conn.execute(
        "DELETE FROM grants WHERE dataset_id = ? AND grantee_id = ? AND permission = ?",
        (str(dataset_id), str(grantee_id), permission),
    )
    return cur.rowcount > 0


def list_grants(conn: sqlite3.Connection, dataset_id: UUID) -> list[Grant]:
    rows = conn.execute(
        f"SELECT {_GRANT_COLUMNS} FROM grants WHERE dataset_id = ? "
        "ORDER BY created_at, grantee_id, permission",
        (str(dataset_id),),
    )
    return [_row_to_grant(row) for row in rows]


def granted_permissions(
    conn: sqlite3.Connection, dataset_id: UUID, grantee_id: UUID
) -> frozenset[str]:
    rows = conn.execute(
        "SELECT permission FROM grants WHERE dataset_id = ? AND grantee_id = ?",
        (str(dataset_id), str(grantee_id)),
    )
    return frozenset(str(row[0]) for row in rows)


def list_granted_datasets(
    conn: sqlite3.Connection, grantee_id: UUID, permission: str | None
) -> list[Dataset]:
    columns = ", ".join(f"d.{c.strip()}" for c in DATASET_COLUMNS.split(","))
    query = (
        f"SELECT {columns} FROM datasets d WHERE d.id IN "
        "(SELECT g.dataset_id FROM grants g WHERE g.grantee_id = ?"
        + ("" if permission is None else " AND g.permission = ?")
        + ") ORDER BY d.created_at, d.rowid"
    )
    params: tuple[str, ...] = (str(grantee_id),)
    if permission is not None:
        params += (permission,)
    return [row_to_dataset(row) for row in conn.execute(query, params)]
