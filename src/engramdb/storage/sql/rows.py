"""Row converters both backends share (columns in the order of the ``*_COLUMNS`` lists)."""

from __future__ import annotations

from typing import cast

from engramdb.models.access import ApiKeyInfo, Grant, Permission
from engramdb.models.records import Dataset, User
from engramdb.storage.sql.unit import Row
from engramdb.storage.sql.values import as_time, as_uuid, maybe_time
from engramdb.storage.types import StoredApiKey

__all__ = [
    "DATASET_COLUMNS",
    "GRANT_COLUMNS",
    "KEY_COLUMNS",
    "USER_COLUMNS",
    "row_to_dataset",
    "row_to_grant",
    "row_to_key",
    "row_to_user",
]

USER_COLUMNS = "id, email, is_default, created_at, is_admin"
DATASET_COLUMNS = "id, owner_id, name, embedding_model, embedding_dim, created_at"
KEY_COLUMNS = "id, user_id, name, prefix, created_at, revoked_at, secret_hash"
GRANT_COLUMNS = "dataset_id, grantee_id, permission, granted_by, created_at"


def row_to_user(row: Row) -> User:
    return User(
        id=as_uuid(row[0]),
        email=row[1],
        is_default=bool(row[2]),
        created_at=as_time(row[3]),
        is_admin=bool(row[4]),
    )


def row_to_dataset(row: Row) -> Dataset:
    return Dataset(
        id=as_uuid(row[0]),
        owner_id=as_uuid(row[1]),
        name=row[2],
        embedding_model=row[3],
        embedding_dim=row[4],
        created_at=as_time(row[5]),
    )


def row_to_key(row: Row) -> StoredApiKey:
    info = ApiKeyInfo(
        id=as_uuid(row[0]),
        user_id=as_uuid(row[1]),
        name=row[2],
        prefix=row[3],
        created_at=as_time(row[4]),
        revoked_at=maybe_time(row[5]),
    )
    return StoredApiKey(info=info, secret_hash=row[6])


def row_to_grant(row: Row) -> Grant:
    return Grant(
        dataset_id=as_uuid(row[0]),
        grantee_id=as_uuid(row[1]),
        permission=cast(Permission, row[2]),
        granted_by=as_uuid(row[3]),
        created_at=as_time(row[4]),
    )
