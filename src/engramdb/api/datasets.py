"""Datasets and their data items: ``list_datasets`` and cognee's ``datasets`` namespace
(``list_data``, ``has_data``, ``get_status``, ``get_progress``, ``empty_dataset``,
``delete_data``, ``delete_all``) with cognee's deprecated ``delete``."""

from __future__ import annotations

import os
import warnings
from pathlib import PurePath
from typing import Any
from uuid import UUID

from engramdb.access.permissions import accessible_datasets, check, readable_datasets
from engramdb.engine import Engine
from engramdb.errors import PermissionDeniedError
from engramdb.improvement.runner import IMPROVE_PIPELINE
from engramdb.ingest.pipeline import staged_data_id
from engramdb.models.datasets import Data, PipelineRunStatus
from engramdb.models.records import DataRecord, Dataset, RunStatus, User, chunk_id
from engramdb.models.requests import ListDatasetsRequest
from engramdb.models.requests.datasets import (
    DeleteAllRequest,
    DeleteDataRequest,
    DeleteRequest,
    EmptyDatasetRequest,
    GetStatusRequest,
    HasDataRequest,
    ListDataRequest,
)
from engramdb.storage.base import StagedItem, Store
from engramdb.storage.lending import dataset_lock
from engramdb.viz.select import human_labels

__all__ = [
    "PIPELINES",
    "delete",
    "delete_all",
    "delete_data",
    "empty_dataset",
    "get_progress",
    "get_status",
    "has_data",
    "list_data",
    "list_datasets",
]

#: cognee's pipeline names -> the names of engramdb's runs that stand for them.
PIPELINES: dict[str, tuple[str, ...]] = {
    "cognify_pipeline": ("remember",),
    "memify_pipeline": (IMPROVE_PIPELINE,),
}

_STATUS = {
    RunStatus.STARTED: PipelineRunStatus.DATASET_PROCESSING_STARTED,
    RunStatus.COMPLETED: PipelineRunStatus.DATASET_PROCESSING_COMPLETED,
    RunStatus.ERRORED: PipelineRunStatus.DATASET_PROCESSING_ERRORED,
}


async def list_datasets(engine: Engine, request: ListDatasetsRequest) -> list[Dataset]:
    """The datasets the user owns (oldest first), then those another user granted them any
    permission on; empty before anything was ingested. A granted dataset's ``owner_id`` differs
    from the user's id: address it by ``id`` (names only ever resolve to one's own datasets)."""
    if not await engine.database_exists():
        return []
    owner = await engine.resolve_user(request.user)
    return await accessible_datasets(engine.store, owner)


async def list_data(engine: Engine, request: ListDataRequest) -> list[Data]:
    """The data items of a dataset you may read, oldest first: the built ones
    (``status="completed"``), then those added and not built yet (``status="pending"``).
    PermissionDeniedError for a dataset you may not read (the same for an unknown id)."""
    owner = await engine.resolve_user(request.user)
    dataset = await check(owner, request.dataset_id, "read", store=engine.store)
    records = await engine.store.list_data(dataset.id)
    titles = await _titles(engine.store, records)
    built = [_built(r, titles.get(r.id, r.name)) for r in records]
    return built + [_pending(i) for i in await engine.store.list_staged(dataset.id)]


async def _titles(store: Store, records: list[DataRecord]) -> dict[UUID, str]:
    """Each built item's title: the graph view's label of its document node, read from the
    document and its first chunk (the nodes :func:`human_labels` names it from)."""
    ids = [r.id for r in records] + [chunk_id(r.id, 0) for r in records]
    return human_labels(await store.get_nodes(ids))


async def has_data(engine: Engine, request: HasDataRequest) -> bool:
    """True when a dataset you may read holds a data item, built or only added."""
    owner = await engine.resolve_user(request.user)
    dataset = await check(owner, request.dataset_id, "read", store=engine.store)
    store = engine.store
    return bool(await store.list_data(dataset.id) or await store.count_staged([dataset.id]))


async def get_status(engine: Engine, request: GetStatusRequest) -> dict[str, Any]:
    """The status of the latest run of each dataset, by dataset id (cognee's shape):
    ``{"<dataset id>": PipelineRunStatus.DATASET_PROCESSING_COMPLETED, ...}`` for the cognify
    pipeline (``remember``/``cognify`` runs), or for the one pipeline named; with several
    ``pipeline_names``, ``{"<dataset id>": {"<pipeline>": status, ...}}``. A dataset with no
    such run, and one the caller may not read, is left out."""
    return await _fan_out(engine, request, lambda run: _STATUS[run.status])


async def get_progress(engine: Engine, request: GetStatusRequest) -> dict[str, Any]:
    """As :func:`get_status`, each value ``{"status": ..., "progress": None}`` (engramdb
    reports no in-flight progress of a run)."""
    return await _fan_out(
        engine, request, lambda run: {"status": _STATUS[run.status], "progress": None}
    )


async def empty_dataset(engine: Engine, request: EmptyDatasetRequest) -> None:
    """Delete a dataset you may delete, with every data item, chunk, node, edge, vector and run
    of it (as cognee, the dataset itself goes too)."""
    owner = await engine.resolve_user(request.user)
    dataset = await check(owner, request.dataset_id, "delete", store=engine.store)
    async with engine.store.lock(
        dataset_lock(dataset.id), timeout=engine.settings.engramdb_lock_timeout
    ):
        await engine.store.delete_dataset(dataset.id)
    engine.warmup_cache.forget()


async def delete_data(engine: Engine, request: DeleteDataRequest) -> dict[str, str]:
    """Delete one data item of a dataset: its record, chunks and vectors, and every graph node
    and edge no other item supports (``mode`` "soft" and "hard" delete the same). An item that
    was only added is removed from the dataset's added inputs. Returns ``{"status":
    "success"}``, also when the dataset holds no such item (cognee's answer).
    ``delete_dataset_if_empty=True`` deletes the dataset too when nothing is left in it.
    PermissionDeniedError when you may not delete from the dataset (the same for an unknown
    one)."""
    owner = await engine.resolve_user(request.user)
    store = engine.store
    dataset = await _deletable(engine, owner, request.dataset_id)
    async with store.lock(dataset_lock(dataset.id), timeout=engine.settings.engramdb_lock_timeout):
        record = await store.get_data(request.data_id)
        if record is not None and record.dataset_id == dataset.id:
            await store.delete_data(record.id)
        else:
            staged = [
                i.content_hash
                for i in await store.list_staged(dataset.id)
                if staged_data_id(i) == request.data_id
            ]
            await store.unstage(dataset.id, staged)
        empty = not await store.list_data(dataset.id) and not await store.count_staged([dataset.id])
        if empty and request.delete_dataset_if_empty:
            await store.delete_dataset(dataset.id)
    engine.warmup_cache.forget()
    return {"status": "success"}


async def delete(engine: Engine, request: DeleteRequest) -> dict[str, str]:
    """Delete one data item of a dataset (deprecated as in cognee 0.3.9: use
    ``datasets.delete_data``); exactly :func:`delete_data`."""
    warnings.warn(
        "cognee.delete is deprecated. Use `datasets.delete_data` instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return await delete_data(
        engine,
        DeleteDataRequest(
            dataset_id=request.dataset_id,
            data_id=request.data_id,
            mode=request.mode,
            user=request.user,
        ),
    )


async def delete_all(engine: Engine, request: DeleteAllRequest) -> None:
    """Delete every dataset you may delete (your own, and those granted you ``delete``)."""
    if not await engine.database_exists():
        return
    owner = await engine.resolve_user(request.user)
    store = engine.store
    mine = await store.list_datasets(owner.id)
    granted = await store.list_granted_datasets(owner.id, "delete")
    for dataset in {d.id: d for d in [*mine, *granted]}.values():
        await empty_dataset(engine, EmptyDatasetRequest(dataset_id=dataset.id, user=owner))


async def _deletable(engine: Engine, owner: User, dataset_id: UUID) -> Dataset:
    try:
        return await check(owner, dataset_id, "delete", store=engine.store)
    except PermissionDeniedError:
        raise PermissionDeniedError(f"Dataset {dataset_id} not accessible.") from None


async def _fan_out(engine: Engine, request: GetStatusRequest, value: Any) -> dict[str, Any]:
    names = list(dict.fromkeys(request.pipeline_names or ["cognify_pipeline"]))
    if not await engine.database_exists():
        return {}
    owner = await engine.resolve_user(request.user)
    readable = {d.id for d in await readable_datasets(engine.store, owner)}
    asked = [i for i in dict.fromkeys(request.dataset_ids) if i in readable]
    runs = await engine.store.list_runs(asked) if asked else []
    per_pipeline: dict[str, dict[str, Any]] = {}
    for name in names:
        ours = PIPELINES.get(name, ())
        latest: dict[str, Any] = {}
        for run in runs:  # newest first
            if run.pipeline in ours and str(run.dataset_id) not in latest:
                latest[str(run.dataset_id)] = value(run)
        per_pipeline[name] = latest
    if len(names) == 1:
        return per_pipeline[names[0]]
    nested: dict[str, Any] = {str(i): {} for i in asked}
    for name, statuses in per_pipeline.items():
        for dataset_id, status in statuses.items():
            nested[dataset_id][name] = status
    return nested


def _extension(name: str, mime_type: str) -> str:
    suffix = PurePath(name).suffix.lstrip(".")
    return suffix or ("txt" if mime_type.startswith("text/") else "")


def _built(record: DataRecord, title: str) -> Data:
    return Data(
        id=record.id,
        name=record.name,
        extension=_extension(record.name, record.mime_type),
        mime_type=record.mime_type,
        dataset_id=record.dataset_id,
        created_at=record.created_at,
        updated_at=record.created_at,
        external_metadata=record.external_metadata or None,
        data_size=record.size_bytes,
        content_hash=record.content_hash,
        node_set=record.node_set,
        importance_weight=record.importance_weight,
        chunk_count=record.chunk_count,
        status="completed",
        title=title,
    )


def _pending(item: StagedItem) -> Data:
    weight = item.options.get("importance_weight")
    tags = item.options.get("node_set")
    return Data(
        id=staged_data_id(item),
        name=item.name,
        extension=_extension(item.name, item.mime_type),
        mime_type=item.mime_type,
        # a file that is gone (an upload the server read and removed) is not shown
        raw_data_location=(
            item.source_path if item.source_path and os.path.exists(item.source_path) else None
        ),
        dataset_id=item.dataset_id,
        data_size=item.size_bytes,
        content_hash=item.content_hash,
        node_set=[str(t) for t in tags] if isinstance(tags, list) else [],
        importance_weight=float(weight) if isinstance(weight, int | float) else 0.5,
        status="pending",
        title=item.name,  # not built: no chunk to take its first words from yet
    )
