"""update(): cognee's replacement of one data item's content, keeping its ``data_id``."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from engramdb.access.permissions import check
from engramdb.api.add import staged_item
from engramdb.api.cognify import cognify
from engramdb.api.unsupported import refuse_unsupported
from engramdb.engine import Engine
from engramdb.errors import DataNotFoundError, EngramError, EngramValidationError
from engramdb.ingest.loaders import load_inputs
from engramdb.ingest.pipeline import PINNED_DATA_ID, staged_data_id
from engramdb.models.datasets import UpdateFallback, UpdateResult
from engramdb.models.requests.classic import CognifyRequest
from engramdb.models.requests.datasets import UpdateRequest
from engramdb.storage.lending import dataset_lock
from engramdb.validation import validate_node_set

__all__ = ["update"]

_NO_DIFF = (
    "engramdb replaces the whole document: its chunks, vectors and the graph elements only it "
    "supported are deleted and the new content is built under the same data_id"
)


async def update(engine: Engine, request: UpdateRequest) -> dict[str, Any]:
    """Replace the content of data item ``data_id`` of dataset ``dataset_id`` with ``data``
    (a text, a file path, or a list holding exactly one), keeping its ``data_id``.

    Needs write and delete permission on the dataset (PermissionDeniedError otherwise, the same
    for an unknown dataset); an id the dataset does not hold is a DataNotFoundError (update
    never creates items: use ``add()``). The item's chunks, vectors and the graph elements no
    other item supports are deleted, the new content is added with the item's weight and node
    set (``node_set`` replaces it), and the dataset is cognified. Returns cognee's
    ``UpdateResult`` dict: ``status`` ``"full_rebuild"`` (engramdb has no chunk-level diff,
    ``fallback`` says so), ``"unchanged"`` when the content and node set are the stored ones,
    or ``"failed"`` when the build errored (``error`` names it; the new content stays added
    and the next ``cognify()`` builds it).
    """
    started = time.perf_counter()
    refuse_unsupported("update", request)
    data = request.data
    if isinstance(data, list | tuple):
        if len(data) != 1:
            raise EngramValidationError(
                f"update() replaces exactly one document; got a list of {len(data)} items."
            )
        data = data[0]
    tags = None if request.node_set is None else validate_node_set(request.node_set)
    docs = await asyncio.to_thread(load_inputs, data, max_file_bytes=engine.settings.max_file_bytes)
    if len(docs) != 1:
        raise EngramValidationError(
            f"update() replaces exactly one document; {data!r} holds {len(docs)}"
        )
    (doc,) = docs
    owner = await engine.resolve_user(request.user)
    store = engine.store
    dataset = await check(owner, request.dataset_id, "write", store=store)
    await check(owner, dataset.id, "delete", store=store)

    def result(status: Any, **more: Any) -> dict[str, Any]:
        return UpdateResult(
            status=status,
            data_id=request.data_id,
            dataset_id=dataset.id,
            duration_seconds=round(time.perf_counter() - started, 3),
            **more,
        ).model_dump()

    async with store.lock(dataset_lock(dataset.id), timeout=engine.settings.engramdb_lock_timeout):
        record = await store.get_data(request.data_id)
        staged = [
            i for i in await store.list_staged(dataset.id) if staged_data_id(i) == request.data_id
        ]
        if record is None or record.dataset_id != dataset.id:
            record = None
            if not staged:
                raise DataNotFoundError(
                    f"No document found to update: data_id '{request.data_id}' does not exist "
                    f"in dataset '{dataset.id}'. Use add() to create new documents."
                )
        old = record or staged[0]
        old_tags = (
            record.node_set if record is not None else list(staged[0].options.get("node_set") or [])  # type: ignore[call-overload]
        )
        if doc.content_hash == old.content_hash and (tags is None or tags == old_tags):
            return result("unchanged")
        other = await store.find_data_by_hash(dataset.id, doc.content_hash)
        if other is not None and other.id != request.data_id:
            raise EngramValidationError(
                f"dataset {dataset.name!r} already holds this content as data item {other.id}; "
                f"delete data item {request.data_id} instead of updating it"
            )
        weight = (
            record.importance_weight
            if record is not None
            else staged[0].options.get("importance_weight", 0.5)
        )
        if record is not None:
            await store.delete_data(record.id)
        await store.unstage(dataset.id, [i.content_hash for i in staged])
        pinned = {PINNED_DATA_ID: str(request.data_id)}
        node_set = old_tags if tags is None else tags
        await store.stage_data([staged_item(dataset.id, doc, weight, node_set, **pinned)])
    engine.warmup_cache.forget()
    fallback = UpdateFallback(
        reason="disabled" if not request.chunk_level_diff else "unsupported_backend",
        detail=_NO_DIFF,
    )
    try:
        built = await cognify(
            engine,
            CognifyRequest(
                datasets=[dataset.id],
                user=owner,
                chunker=request.chunker,
                graph_model=request.graph_model,
                custom_prompt=request.custom_prompt,
            ),
        )
    except EngramError as exc:
        return result(
            "failed",
            fallback=fallback,
            error={"error_class": type(exc).__name__, "message": str(exc)},
        )
    run = built.get(dataset.id)
    return result("full_rebuild", fallback=fallback, pipeline_run_id=run.run_id if run else None)
