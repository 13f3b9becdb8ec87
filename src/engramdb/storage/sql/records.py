"""Users, datasets, data records, pipeline runs and the cache: one set of units for both
backends.

Uniqueness lives in the schema (one default user via a partial unique index, e-mails unique,
dataset names unique per owner), and creation is ``INSERT ... ON CONFLICT DO NOTHING`` followed
by a read in the same transaction: concurrent callers all get the one stored row (SQLite runs
one writer at a time; PostgreSQL makes the second inserter wait for the first to commit, then
its insert does nothing and its read finds the row the first one stored).

Runs record the pid and hostname of the process that started them, so a run left 'started' by
a crashed process can be recognised (same host, pid gone) and marked errored by
:func:`reap_dead_runs`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import partial
from uuid import UUID, uuid4

from engramdb.errors import ConflictError, DatasetNotFoundError, NotFoundError, StorageError
from engramdb.models.improve import StageResult
from engramdb.models.records import DataRecord, Dataset, PipelineRun, RunStatus, User, utcnow
from engramdb.storage import statements as stmt
from engramdb.storage.dialect import SqlDialect
from engramdb.storage.processes import pid_alive
from engramdb.storage.sql.access import user_by_id
from engramdb.storage.sql.port import UnitPort
from engramdb.storage.sql.rows import (
    DATA_COLUMNS,
    DATASET_COLUMNS,
    RUN_COLUMNS,
    USER_COLUMNS,
    row_to_data,
    row_to_dataset,
    row_to_run,
    row_to_user,
)
from engramdb.storage.sql.unit import Unit, all_rows, count, execute, one

__all__ = ["DEFAULT_USER_EMAIL", "PROCESS_DIED_MESSAGE", "RecordMethods"]

DEFAULT_USER_EMAIL = "default_user@example.com"
PROCESS_DIED_MESSAGE = "The process running this pipeline exited before the run finished."


# --- users ---------------------------------------------------------------------------------------


def default_user(d: SqlDialect) -> Unit[User | None]:
    row = yield from one(f"SELECT {USER_COLUMNS} FROM users WHERE is_default")
    return None if row is None else row_to_user(row)


def ensure_default_user(d: SqlDialect) -> Unit[User]:
    yield from execute(
        f"INSERT INTO users (id, email, is_default, created_at) VALUES ({d.params(4)}) "
        "ON CONFLICT DO NOTHING",
        uuid4(),
        DEFAULT_USER_EMAIL,
        True,
        utcnow(),
    )
    user = yield from default_user(d)
    if user is not None:
        return user
    # The e-mail was taken by an ordinary user: make that user the default one.
    yield from execute(
        f"UPDATE users SET is_default = {d.param} WHERE email = {d.param}", True, DEFAULT_USER_EMAIL
    )
    user = yield from default_user(d)
    if user is None:  # cannot happen: inserted or promoted just above, in this transaction
        raise StorageError("The default user could not be created.")
    return user


def create_user(d: SqlDialect, email: str) -> Unit[User]:
    user = User(id=uuid4(), email=email, is_default=False, created_at=utcnow())
    added = yield from count(
        f"INSERT INTO users (id, email, is_default, created_at) VALUES ({d.params(4)}) "
        "ON CONFLICT (email) DO NOTHING",
        user.id,
        email,
        False,
        user.created_at,
    )
    if added == 0:
        raise ConflictError("A user with that e-mail already exists; choose another address.")
    return user


# --- datasets ------------------------------------------------------------------------------------


def dataset_by_id(d: SqlDialect, dataset_id: UUID) -> Unit[Dataset | None]:
    row = yield from one(f"SELECT {DATASET_COLUMNS} FROM datasets WHERE id = {d.param}", dataset_id)
    return None if row is None else row_to_dataset(row)


def dataset_by_name(d: SqlDialect, owner_id: UUID, name: str) -> Unit[Dataset | None]:
    row = yield from one(
        f"SELECT {DATASET_COLUMNS} FROM datasets WHERE owner_id = {d.param} AND name = {d.param}",
        owner_id,
        name,
    )
    return None if row is None else row_to_dataset(row)


def ensure_dataset(d: SqlDialect, owner_id: UUID, name: str) -> Unit[Dataset]:
    if (yield from user_by_id(d, owner_id)) is None:
        raise NotFoundError(f"No user with id {owner_id}; create the user first.")
    # A new dataset belongs to the tenant its owner has selected now (read in this transaction).
    p = d.param
    yield from execute(
        f"INSERT INTO datasets (id, owner_id, name, created_at, tenant_id) "
        f"SELECT {p}, id, {p}, {p}, tenant_id FROM users WHERE id = {p} "
        "ON CONFLICT (owner_id, name) DO NOTHING",
        uuid4(),
        name,
        utcnow(),
        owner_id,
    )
    dataset = yield from dataset_by_name(d, owner_id, name)
    if dataset is None:  # cannot happen: inserted or present, in this transaction
        raise StorageError(f"Dataset {name!r} could not be created.")
    return dataset


def recreate_dataset(d: SqlDialect, old: Dataset) -> Unit[Dataset]:
    yield from execute(
        f"INSERT INTO datasets (id, owner_id, name, created_at, tenant_id) VALUES ({d.params(5)}) "
        "ON CONFLICT (owner_id, name) DO NOTHING",
        uuid4(),
        old.owner_id,
        old.name,
        utcnow(),
        old.tenant_id,
    )
    dataset = yield from dataset_by_name(d, old.owner_id, old.name)
    if dataset is None:  # cannot happen: inserted or present, in this transaction
        raise StorageError(f"Dataset {old.name!r} could not be created.")
    return dataset


def list_datasets(d: SqlDialect, owner_id: UUID | None) -> Unit[list[Dataset]]:
    """In creation order (ties by insertion)."""
    order = f"ORDER BY created_at, {d.row_order}"
    if owner_id is None:
        rows = yield from all_rows(f"SELECT {DATASET_COLUMNS} FROM datasets {order}")
    else:
        rows = yield from all_rows(
            f"SELECT {DATASET_COLUMNS} FROM datasets WHERE owner_id = {d.param} {order}", owner_id
        )
    return [row_to_dataset(row) for row in rows]


def set_dataset_embedding(d: SqlDialect, dataset_id: UUID, model: str, dim: int) -> Unit[Dataset]:
    yield from execute(
        f"UPDATE datasets SET embedding_model = {d.param}, embedding_dim = {d.param} "
        f"WHERE id = {d.param} AND embedding_model IS NULL",
        model,
        dim,
        dataset_id,
    )
    dataset = yield from dataset_by_id(d, dataset_id)
    if dataset is None:
        raise DatasetNotFoundError(f"No dataset with id {dataset_id}.")
    return dataset


# --- data ----------------------------------------------------------------------------------------


def data_by_id(d: SqlDialect, data_id: UUID) -> Unit[DataRecord | None]:
    row = yield from one(f"SELECT {DATA_COLUMNS} FROM data WHERE id = {d.param}", data_id)
    return None if row is None else row_to_data(row)


def data_by_hash(d: SqlDialect, dataset_id: UUID, content_hash: str) -> Unit[DataRecord | None]:
    row = yield from one(
        f"SELECT {DATA_COLUMNS} FROM data WHERE dataset_id = {d.param} "
        f"AND content_hash = {d.param}",
        dataset_id,
        content_hash,
    )
    return None if row is None else row_to_data(row)


def list_data(d: SqlDialect, dataset_id: UUID) -> Unit[list[DataRecord]]:
    rows = yield from all_rows(
        f"SELECT {DATA_COLUMNS} FROM data WHERE dataset_id = {d.param} "
        f"ORDER BY created_at, {d.row_order}",
        dataset_id,
    )
    return [row_to_data(row) for row in rows]


# --- pipeline runs -------------------------------------------------------------------------------


def record_run(d: SqlDialect, run: PipelineRun) -> Unit[None]:
    values = ", ".join(
        d.json_param() if c in ("counts", "stages") else d.param for c in RUN_COLUMNS.split(", ")
    )
    yield from execute(
        f"INSERT INTO pipeline_runs ({RUN_COLUMNS}) VALUES ({values})",
        run.id,
        run.dataset_id,
        run.pipeline,
        run.status.value,
        run.graph_writing,
        run.error_class,
        run.error_message,
        run.pid,
        run.hostname,
        json.dumps(dict(run.counts)),
        run.started_at,
        run.finished_at,
        _stages_json(run.stages),
    )


def _stages_json(stages: Sequence[StageResult]) -> str:
    return json.dumps([s.model_dump(mode="json") for s in stages])


def finish_run(
    d: SqlDialect,
    run_id: UUID,
    status: RunStatus,
    error_class: str | None,
    error_message: str | None,
    counts: dict[str, int],
    stages: Sequence[StageResult],
) -> Unit[None]:
    yield from execute(
        stmt.finish_run(d),
        status.value,
        error_class,
        error_message,
        json.dumps(counts),
        _stages_json(stages),
        utcnow(),
        run_id,
    )


def list_runs(d: SqlDialect, dataset_ids: Sequence[UUID]) -> Unit[list[PipelineRun]]:
    """Newest first (ties: the later inserted first)."""
    where, params = d.in_values("dataset_id", list(dataset_ids), "uuid")
    rows = yield from all_rows(
        f"SELECT {RUN_COLUMNS} FROM pipeline_runs WHERE {where} "
        f"ORDER BY started_at DESC, {d.row_order} DESC",
        *params,
    )
    return [row_to_run(row) for row in rows]


def reap_dead_runs(d: SqlDialect, hostname: str) -> Unit[int]:
    """Mark errored the 'started' runs of dead processes on this host; returns how many."""
    rows = yield from all_rows(
        f"SELECT id, pid FROM pipeline_runs WHERE status = {d.param} AND hostname = {d.param}",
        RunStatus.STARTED.value,
        hostname,
    )
    me = os.getpid()
    dead = [row[0] for row in rows if row[1] is not None and row[1] != me and not pid_alive(row[1])]
    if not dead:
        return 0
    where, params = d.in_values("id", dead, "uuid")
    p = d.param
    reaped = yield from count(
        f"UPDATE pipeline_runs SET status = {p}, error_class = 'ProcessDied', "
        f"error_message = {p}, finished_at = {p} WHERE {where} AND status = {p}",
        RunStatus.ERRORED.value,
        PROCESS_DIED_MESSAGE,
        utcnow(),
        *params,
        RunStatus.STARTED.value,
    )
    return max(reaped, 0)


# --- cache ---------------------------------------------------------------------------------------


def cache_get(d: SqlDialect, namespace: str, key: str) -> Unit[str | None]:
    row = yield from one(stmt.cache_get(d), namespace, key)
    return None if row is None else str(row[0])


def cache_put(
    d: SqlDialect, namespace: str, key: str, value: str, data_id: UUID | None
) -> Unit[None]:
    yield from execute(stmt.cache_put(d), namespace, key, value, data_id, utcnow())


class RecordMethods(UnitPort):
    """The store's users, datasets, data records, runs and cache methods, each one unit."""

    _hostname: str

    async def _create_default_user(self) -> User:
        return await self._write_unit(partial(ensure_default_user, self.dialect))

    async def _create_dataset(self, owner_id: UUID, name: str) -> Dataset:
        return await self._write_unit(partial(ensure_dataset, self.dialect, owner_id, name))

    async def recreate_dataset(self, dataset: Dataset) -> Dataset:
        return await self._write_unit(partial(recreate_dataset, self.dialect, dataset))

    async def get_default_user(self) -> User | None:
        return await self._read_unit(partial(default_user, self.dialect))

    async def create_user(self, email: str) -> User:
        return await self._write_unit(partial(create_user, self.dialect, email))

    async def get_dataset(self, dataset_id: UUID) -> Dataset | None:
        return await self._read_unit(partial(dataset_by_id, self.dialect, dataset_id))

    async def find_dataset(self, owner_id: UUID, name: str) -> Dataset | None:
        return await self._read_unit(partial(dataset_by_name, self.dialect, owner_id, name))

    async def list_datasets(self, owner_id: UUID | None = None) -> list[Dataset]:
        return await self._read_unit(partial(list_datasets, self.dialect, owner_id))

    async def set_dataset_embedding(self, dataset_id: UUID, model: str, dim: int) -> Dataset:
        return await self._write_unit(
            partial(set_dataset_embedding, self.dialect, dataset_id, model, dim)
        )

    async def get_data(self, data_id: UUID) -> DataRecord | None:
        return await self._read_unit(partial(data_by_id, self.dialect, data_id))

    async def find_data_by_hash(self, dataset_id: UUID, content_hash: str) -> DataRecord | None:
        return await self._read_unit(partial(data_by_hash, self.dialect, dataset_id, content_hash))

    async def list_data(self, dataset_id: UUID) -> list[DataRecord]:
        return await self._read_unit(partial(list_data, self.dialect, dataset_id))

    async def _record_run(self, run: PipelineRun) -> None:
        await self._write_unit(partial(record_run, self.dialect, run))

    async def _finish_run(
        self,
        run_id: UUID,
        status: RunStatus,
        error_class: str | None,
        error_message: str | None,
        counts: dict[str, int],
        stages: list[StageResult],
    ) -> None:
        await self._write_unit(
            partial(
                finish_run, self.dialect, run_id, status, error_class, error_message, counts, stages
            )
        )

    async def _list_runs(self, dataset_ids: list[UUID]) -> list[PipelineRun]:
        return await self._read_unit(partial(list_runs, self.dialect, dataset_ids))

    async def reap_dead_runs(self) -> int:
        return await self._write_unit(partial(reap_dead_runs, self.dialect, self._hostname))

    async def cache_get(self, namespace: str, key: str) -> str | None:
        return await self._read_unit(partial(cache_get, self.dialect, namespace, key))

    async def cache_put(
        self, namespace: str, key: str, value: str, *, data_id: UUID | None = None
    ) -> None:
        await self._write_unit(partial(cache_put, self.dialect, namespace, key, value, data_id))
