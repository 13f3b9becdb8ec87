"""Users, datasets and data records of the SQLite store (run inside a transaction).

Uniqueness rules live in the schema (one default user via a partial unique index, e-mails unique,
dataset names unique per owner, content hashes unique per dataset), and creation uses
``INSERT ... ON CONFLICT DO NOTHING`` followed by a read inside the same ``BEGIN IMMEDIATE``
transaction, so concurrent callers (threads or processes) all get the one stored row.
"""

from __future__ import annotations

import sqlite3
from uuid import UUID, uuid4

from engramdb.errors import ConflictError, DatasetNotFoundError, NotFoundError, StorageError
from engramdb.models.records import DataRecord, Dataset, User, utcnow
from engramdb.storage.sqlite.rows import (
    DATA_COLUMNS,
    DATASET_COLUMNS,
    USER_COLUMNS,
    row_to_data,
    row_to_dataset,
    row_to_user,
    to_time,
)

__all__ = [
    "DEFAULT_USER_EMAIL",
    "create_user",
    "data_by_hash",
    "data_by_id",
    "dataset_by_id",
    "dataset_by_name",
    "default_user",
    "ensure_dataset",
    "ensure_default_user",
    "list_data",
    "list_datasets",
    "set_dataset_embedding",
    "user_by_id",
]

DEFAULT_USER_EMAIL = "default_user@example.com"


def default_user(conn: sqlite3.Connection) -> User | None:
    row = conn.execute(f"SELECT {USER_COLUMNS} FROM users WHERE is_default = 1").fetchone()
    return None if row is None else row_to_user(row)


def ensure_default_user(conn: sqlite3.Connection) -> User:
    user = default_user(conn)
    if user is not None:
        return user
    conn.execute(
        "INSERT INTO users (id, email, is_default, created_at) VALUES (?, ?, 1, ?) "
        "ON CONFLICT (email) DO UPDATE SET is_default = 1",
        (str(uuid4()), DEFAULT_USER_EMAIL, to_time(utcnow())),
    )
    created = default_user(conn)
    if created is None:  # cannot happen: inserted just above, in this transaction
        raise StorageError("The default user could not be created.")
    return created


def create_user(conn: sqlite3.Connection, email: str) -> User:
    if conn.execute("SELECT 1 FROM users WHERE email = ?", (email,)).fetchone():
        raise ConflictError("A user with that e-mail already exists; choose another address.")
    user = User(id=uuid4(), email=email, is_default=False, created_at=utcnow())
    conn.execute(
        "INSERT INTO users (id, email, is_default, created_at) VALUES (?, ?, 0, ?)",
        (str(user.id), email, to_time(user.created_at)),
    )
    return user


def user_by_id(conn: sqlite3.Connection, user_id: UUID) -> User | None:
    row = conn.execute(f"SELECT {USER_COLUMNS} FROM users WHERE id = ?", (str(user_id),)).fetchone()
    return None if row is None else row_to_user(row)


def dataset_by_id(conn: sqlite3.Connection, dataset_id: UUID) -> Dataset | None:
    row = conn.execute(
        f"SELECT {DATASET_COLUMNS} FROM datasets WHERE id = ?", (str(dataset_id),)
    ).fetchone()
    return None if row is None else row_to_dataset(row)


def dataset_by_name(conn: sqlite3.Connection, owner_id: UUID, name: str) -> Dataset | None:
    row = conn.execute(
        f"SELECT {DATASET_COLUMNS} FROM datasets WHERE owner_id = ? AND name = ?",
        (str(owner_id), name),
    ).fetchone()
    return None if row is None else row_to_dataset(row)


def ensure_dataset(conn: sqlite3.Connection, owner_id: UUID, name: str) -> Dataset:
    if user_by_id(conn, owner_id) is None:
        raise NotFoundError(f"No user with id {owner_id}; create the user first.")
    conn.execute(
        "INSERT INTO datasets (id, owner_id, name, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (owner_id, name) DO NOTHING",
        (str(uuid4()), str(owner_id), name, to_time(utcnow())),
    )
    dataset = dataset_by_name(conn, owner_id, name)
    if dataset is None:  # cannot happen: inserted or present, in this transaction
        raise StorageError(f"Dataset {name!r} could not be created.")
    return dataset


def list_datasets(conn: sqlite3.Connection, owner_id: UUID | None) -> list[Dataset]:
    if owner_id is None:
        rows = conn.execute(f"SELECT {DATASET_COLUMNS} FROM datasets ORDER BY created_at, rowid")
    else:
        rows = conn.execute(
            f"SELECT {DATASET_COLUMNS} FROM datasets WHERE owner_id = ? ORDER BY created_at, rowid",
            (str(owner_id),),
        )
    return [row_to_dataset(row) for row in rows]


def set_dataset_embedding(
    conn: sqlite3.Connection, dataset_id: UUID, model: str, dim: int
) -> Dataset:
    conn.execute(
        "UPDATE datasets SET embedding_model = ?, embedding_dim = ? "
        "WHERE id = ? AND embedding_model IS NULL",
        (model, dim, str(dataset_id)),
    )
    dataset = dataset_by_id(conn, dataset_id)
    if dataset is None:
        raise DatasetNotFoundError(f"No dataset with id {dataset_id}.")
    return dataset


def data_by_id(conn: sqlite3.Connection, data_id: UUID) -> DataRecord | None:
    row = conn.execute(f"SELECT {DATA_COLUMNS} FROM data WHERE id = ?", (str(data_id),)).fetchone()
    return None if row is None else row_to_data(row)


def data_by_hash(
    conn: sqlite3.Connection, dataset_id: UUID, content_hash: str
) -> DataRecord | None:
    row = conn.execute(
        f"SELECT {DATA_COLUMNS} FROM data WHERE dataset_id = ? AND content_hash = ?",
        (str(dataset_id), content_hash),
    ).fetchone()
    return None if row is None else row_to_data(row)


def list_data(conn: sqlite3.Connection, dataset_id: UUID) -> list[DataRecord]:
    rows = conn.execute(
        f"SELECT {DATA_COLUMNS} FROM data WHERE dataset_id = ? ORDER BY created_at, rowid",
        (str(dataset_id),),
    )
    return [row_to_data(row) for row in rows]
