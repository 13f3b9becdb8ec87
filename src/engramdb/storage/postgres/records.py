"""Users, datasets, data records, runs and the cache of the PostgreSQL store.

Each function runs inside a transaction the caller opened (:meth:`.database.Database.write` or
``read``). Uniqueness lives in the schema (one default user via a partial unique index, e-mails
unique, dataset names unique per owner), and creation is ``INSERT ... ON CONFLICT DO NOTHING``
followed by a read: under concurrency PostgreSQL makes the second inserter wait for the first
to commit, then its insert does nothing and its read finds the row the first one stored.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from uuid import UUID, uuid4

from engramdb.errors import ConflictError, DatasetNotFoundError, NotFoundError, StorageError
from engramdb.models.records import DataRecord, Dataset, PipelineRun, RunStatus, User, utcnow
from engramdb.storage import statements as stmt
from engramdb.storage.dialect import POSTGRES
from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.rows import (
    DATA_COLUMNS,
    DATASET_COLUMNS,
    RUN_COLUMNS,
    USER_COLUMNS,
    row_to_data,
    row_to_dataset,
    row_to_run,
    row_to_user,
    to_json,
)
from engramdb.storage.sqlite.locks import pid_alive

__all__ = [
    "DEFAULT_USER_EMAIL",
    "PROCESS_DIED_MESSAGE",
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
    "list_runs",
    "reap_dead_runs",
    "record_run",
    "set_dataset_embedding",
    "user_by_id",
]

DEFAULT_USER_EMAIL = "default_user@example.com"
PROCESS_DIED_MESSAGE = "The process running this pipeline exited before the run finished."


# --- users -----------------------------------------------------------------------------------


async def default_user(conn: Conn) -> User | None:
    cur = await conn.execute(f"SELECT {USER_COLUMNS} FROM users WHERE is_default")
    row = await cur.fetchone()
    return None if row is None else row_to_user(row)


async def ensure_default_user(conn: Conn) -> User:
    await conn.execute(
        "INSERT INTO users (id, email, is_default, created_at) VALUES (%s, %s, true, %s) "
        "ON CONFLICT DO NOTHING",
        (uuid4(), DEFAULT_USER_EMAIL, utcnow()),
    )
    user = await default_user(conn)
    if user is not None:
        return user
    # The e-mail was taken by an ordinary user: make that user the default one.
    await conn.execute("UPDATE users SET is_default = true WHERE email = %s", (DEFAULT_USER_EMAIL,))
    user = await default_user(conn)
    if user is None:  # cannot happen: inserted or promoted just above, in this transaction
        raise StorageError("The default user could not be created.")
    return user


async def create_user(conn: Conn, email: str) -> User:
    user = User(id=uuid4(), email=email, is_default=False, created_at=utcnow())
    cur = await conn.execute(
        "INSERT INTO users (id, email, is_default, created_at) VALUES (%s, %s, false, %s) "
        "ON CONFLICT (email) DO NOTHING",
        (user.id, email, user.created_at),
    )
    if cur.rowcount == 0:
        raise ConflictError("A user with that e-mail already exists; choose another address.")
    return user


async def user_by_id(conn: Conn, user_id: UUID) -> User | None:
    cur = await conn.execute(f"SELECT {USER_COLUMNS} FROM users WHERE id = %s", (user_id,))
    row = await cur.fetchone()
    return None if row is None else row_to_user(row)


# --- datasets --------------------------------------------------------------------------------


async def dataset_by_id(conn: Conn, dataset_id: UUID) -> Dataset | None:
    cur = await conn.execute(f"SELECT {DATASET_COLUMNS} FROM datasets WHERE id = %s", (dataset_id,))
    row = await cur.fetchone()
    return None if row is None else row_to_dataset(row)


async def dataset_by_name(conn: Conn, owner_id: UUID, name: str) -> Dataset | None:
    cur = await conn.execute(
        f"SELECT {DATASET_COLUMNS} FROM datasets WHERE owner_id = %s AND name = %s",
        (owner_id, name),
    )
    row = await cur.fetchone()
    return None if row is None else row_to_dataset(row)


async def ensure_dataset(conn: Conn, owner_id: UUID, name: str) -> Dataset:
    if await user_by_id(conn, owner_id) is None:
        raise NotFoundError(f"No user with id {owner_id}; create the user first.")
    await conn.execute(
        "INSERT INTO datasets (id, owner_id, name, created_at) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (owner_id, name) DO NOTHING",
        (uuid4(), owner_id, name, utcnow()),
    )
    dataset = await dataset_by_name(conn, owner_id, name)
    if dataset is None:  # cannot happen: inserted or present, in this transaction
        raise StorageError(f"Dataset {name!r} could not be created.")
    return dataset


async def list_datasets(conn: Conn, owner_id: UUID | None) -> list[Dataset]:
    if owner_id is None:
        cur = await conn.execute(f"SELECT {DATASET_COLUMNS} FROM datasets ORDER BY created_at, seq")
    else:
        cur = await conn.execute(
            f"SELECT {DATASET_COLUMNS} FROM datasets WHERE owner_id = %s ORDER BY created_at, seq",
            (owner_id,),
        )
    return [row_to_dataset(row) for row in await cur.fetchall()]


async def set_dataset_embedding(conn: Conn, dataset_id: UUID, model: str, dim: int) -> Dataset:
    await conn.execute(
        "UPDATE datasets SET embedding_model = %s, embedding_dim = %s "
        "WHERE id = %s AND embedding_model IS NULL",
        (model, dim, dataset_id),
    )
    dataset = await dataset_by_id(conn, dataset_id)
    if dataset is None:
        raise DatasetNotFoundError(f"No dataset with id {dataset_id}.")
    return dataset


# --- data ------------------------------------------------------------------------------------


async def data_by_id(conn: Conn, data_id: UUID) -> DataRecord | None:
    cur = await conn.execute(f"SELECT {DATA_COLUMNS} FROM data WHERE id = %s", (data_id,))
    row = await cur.fetchone()
    return None if row is None else row_to_data(row)


async def data_by_hash(conn: Conn, dataset_id: UUID, content_hash: str) -> DataRecord | None:
    cur = await conn.execute(
        f"SELECT {DATA_COLUMNS} FROM data WHERE dataset_id = %s AND content_hash = %s",
        (dataset_id, content_hash),
    )
    row = await cur.fetchone()
    return None if row is None else row_to_data(row)


async def list_data(conn: Conn, dataset_id: UUID) -> list[DataRecord]:
    cur = await conn.execute(
        f"SELECT {DATA_COLUMNS} FROM data WHERE dataset_id = %s ORDER BY created_at, seq",
        (dataset_id,),
    )
    return [row_to_data(row) for row in await cur.fetchall()]


# --- pipeline runs ---------------------------------------------------------------------------


async def record_run(conn: Conn, run: PipelineRun) -> None:
    await conn.execute(
        f"INSERT INTO pipeline_runs ({RUN_COLUMNS}) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s)",
        (
            run.id,
            run.dataset_id,
            run.pipeline,
            run.status.value,
            run.graph_writing,
            run.error_class,
            run.error_message,
            run.pid,
            run.hostname,
            to_json(run.counts),
            run.started_at,
            run.finished_at,
        ),
    )


async def finish_run(
    conn: Conn,
    run_id: UUID,
    status: RunStatus,
    error_class: str | None,
    error_message: str | None,
    counts: str,
) -> None:
    await conn.execute(
        stmt.finish_run(POSTGRES),
        (status.value, error_class, error_message, counts, utcnow(), run_id),
    )


async def list_runs(conn: Conn, dataset_ids: Sequence[UUID]) -> list[PipelineRun]:
    if not dataset_ids:
        return []
    cur = await conn.execute(
        f"SELECT {RUN_COLUMNS} FROM pipeline_runs WHERE dataset_id = ANY(%s::uuid[]) "
        "ORDER BY started_at DESC, seq DESC",
        (list(dataset_ids),),
    )
    return [row_to_run(row) for row in await cur.fetchall()]


async def reap_dead_runs(conn: Conn, hostname: str) -> int:
    """Mark errored the 'started' runs of dead processes on this host; returns how many."""
    cur = await conn.execute(
        "SELECT id, pid FROM pipeline_runs WHERE status = 'started' AND hostname = %s",
        (hostname,),
    )
    me = os.getpid()
    dead = [
        row[0]
        for row in await cur.fetchall()
        if row[1] is not None and row[1] != me and not pid_alive(row[1])
    ]
    if not dead:
        return 0
    cur = await conn.execute(
        "UPDATE pipeline_runs SET status = %s, error_class = 'ProcessDied', "
        "error_message = %s, finished_at = %s WHERE id = ANY(%s::uuid[]) AND status = 'started'",
        (RunStatus.ERRORED.value, PROCESS_DIED_MESSAGE, utcnow(), dead),
    )
    return max(cur.rowcount, 0)


# --- cache -----------------------------------------------------------------------------------


async def cache_get(conn: Conn, namespace: str, key: str) -> str | None:
    cur = await conn.execute(stmt.cache_get(POSTGRES), (namespace, key))
    row = await cur.fetchone()
    return None if row is None else str(row[0])


async def cache_put(conn: Conn, namespace: str, key: str, value: str, data_id: UUID | None) -> None:
    await conn.execute(stmt.cache_put(POSTGRES), (namespace, key, value, data_id, utcnow()))
