"""add(): cognee's first step: store inputs in a dataset, build nothing yet."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

from engramdb.access.permissions import check, dataset_for_write
from engramdb.api.unsupported import refuse_unsupported
from engramdb.engine import Engine
from engramdb.ingest.loaders import load_inputs
from engramdb.ingest.pipeline import data_id_for
from engramdb.ingest.tables import TableOptions, settle_tables
from engramdb.ingest.types import LoadedDocument, document_extras
from engramdb.models.records import Dataset, User
from engramdb.models.requests.classic import AddRequest
from engramdb.models.results import RememberItem, RememberResult
from engramdb.storage.base import StagedItem
from engramdb.storage.lending import dataset_lock
from engramdb.validation import validate_dataset_name, validate_node_set

__all__ = ["add"]


async def add(engine: Engine, request: AddRequest) -> RememberResult:
    """Store ``data`` (a text, a file path, a directory, a dlt resource or source, or a list of
    them) in a dataset without building its graph: ``cognify()`` builds what was added.
    ``remember()`` is both. ``primary_key``, ``write_disposition`` and ``max_rows_per_table``
    load tables as :mod:`engramdb.ingest.tables` says; the rows a load replaces are forgotten
    when it is added.

    The dataset is ``dataset_name`` of the caller (created if missing), or the one
    ``dataset_id`` names (it must exist and be writable by the caller). Every input is loaded and
    checked before anything is stored. Content already built into the dataset, or already
    added, is skipped (``status="skipped"``, ``reason="already_present"``); each added item is
    ``"pending"`` until ``cognify()`` builds it, under the data id it will have then. A dataset
    that was only added to reads as warm: recall searches it normally (and finds nothing yet).

    ``run_in_background=True`` is accepted and the call completes before returning (staging
    is quick); the options engramdb does not honour raise FeatureNotAvailableError.
    """
    refuse_unsupported("add", request)
    weight = 0.5 if request.importance_weight is None else request.importance_weight
    tags = validate_node_set(request.node_set)
    name = validate_dataset_name(request.dataset_name)
    tables = TableOptions(
        request.primary_key, request.write_disposition, request.max_rows_per_table
    )
    docs = await asyncio.to_thread(
        load_inputs, request.data, max_file_bytes=engine.settings.max_file_bytes, tables=tables
    )
    owner = await engine.resolve_user(request.user)
    dataset = await _target(engine, owner, name, request)
    items: list[RememberItem] = []
    staged: list[StagedItem] = []
    for doc in docs:
        data_id = data_id_for(dataset.id, doc.content_hash)
        built = await engine.store.find_data_by_hash(dataset.id, doc.content_hash)
        if built is not None:
            items.append(
                RememberItem(
                    data_id=data_id, name=doc.name, status="skipped", reason="already_present"
                )
            )
            continue
        staged.append(staged_item(dataset.id, doc, weight, tags))
        items.append(RememberItem(data_id=data_id, name=doc.name, status="pending"))
    await engine.store.stage_data(staged)
    if docs.tables:  # the rows these loads replace go now; cognify() builds the new ones
        timeout = engine.settings.engramdb_lock_timeout
        async with engine.store.lock(dataset_lock(dataset.id), timeout=timeout):
            await settle_tables(engine.store, dataset.id, docs.tables)
    return RememberResult(
        status="completed",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        data_ids=[i.data_id for i in items],
        items=items,
        skipped=docs.skipped,
        counts={
            "staged": sum(i.status == "pending" for i in items),
            "skipped": sum(i.status == "skipped" for i in items),
        },
    )


async def _target(engine: Engine, owner: User, name: str, request: AddRequest) -> Dataset:
    if request.dataset_id is not None:
        return await check(owner, request.dataset_id, "write", store=engine.store)
    return await dataset_for_write(engine.store, owner, name)


def staged_item(
    dataset_id: UUID,
    doc: LoadedDocument,
    weight: object,
    tags: list[str] | None,
    **options: Any,
) -> StagedItem:
    """``doc`` as an added-but-not-built input with the add options cognify() builds it with
    (weight, node set, the document's own metadata and extras, plus ``options``)."""
    return StagedItem(
        dataset_id=dataset_id,
        content_hash=doc.content_hash,
        name=doc.name,
        text=doc.text,
        mime_type=doc.mime_type,
        size_bytes=doc.size_bytes,
        source_path=doc.source_path,
        options={
            "importance_weight": weight,
            "node_set": tags,
            "metadata": doc.metadata,
            "document": document_extras(doc),
            **options,
        },
    )
