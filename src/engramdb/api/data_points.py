"""add_data_points(): custom graph models (DataPoints) as nodes and edges of a dataset."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel

from engramdb.access.permissions import dataset_for_write
from engramdb.engine import Engine
from engramdb.errors import EngramValidationError
from engramdb.ingest.chunkers import resolve_chunker
from engramdb.ingest.data_point_graph import model_fingerprint
from engramdb.ingest.pipeline import IngestOptions, ingest_documents
from engramdb.ingest.types import LoadedDocument
from engramdb.models.requests.data_points import AddDataPointsRequest
from engramdb.models.results import RememberResult

__all__ = ["DATA_POINTS_MIME_TYPE", "add_data_points"]

#: The mime type of the data item one add_data_points() call stores.
DATA_POINTS_MIME_TYPE = "application/vnd.engramdb.data-points+json"


async def add_data_points(engine: Engine, request: AddDataPointsRequest) -> RememberResult:
    """Write ``data_points`` into the dataset as ONE data item (its record, graph and vectors in
    one transaction): each instance, and every instance reachable from its fields, is a node of
    type ``<ClassName>``, and fields holding instances are edges (see
    :mod:`engramdb.ingest.data_point_graph`). Index fields are embedded and full-text indexed,
    so every search type finds them; ``forget()`` of the item or the dataset removes them.

    The same data points added again (same ids, fields and edges) are skipped; changed ones
    are stored as a new item whose nodes update the stored ones (same ids)."""
    points = _checked(request.data_points)
    owner = await engine.resolve_user(request.user)
    dataset = await dataset_for_write(engine.store, owner, request.dataset_name)
    if not points:
        return RememberResult(status="completed", dataset_id=dataset.id, dataset_name=dataset.name)
    dataset = await engine.bind_embedding(dataset)
    fingerprint = model_fingerprint(points)
    raw = fingerprint.encode()
    kinds = ", ".join(dict.fromkeys(type(p).__name__ for p in points))
    doc = LoadedDocument(
        name=f"data points ({kinds})",
        text="",
        mime_type=DATA_POINTS_MIME_TYPE,
        content_hash=hashlib.sha256(raw).hexdigest(),
        size_bytes=len(raw),
        data_points=tuple(points),
    )
    settings = engine.settings
    options = IngestOptions(
        importance_weight=0.5,
        chunker=resolve_chunker(None, max_tokens=settings.chunk_max_tokens, overlap_tokens=0),
        lock_timeout=settings.engramdb_lock_timeout,
    )
    return await ingest_documents(engine.store, engine.embedder, dataset, [doc], options)


def _checked(value: object) -> list[BaseModel]:
    items = [value] if isinstance(value, BaseModel) else value
    if not isinstance(items, list | tuple):
        raise EngramValidationError(
            f"data_points must be a list of DataPoint instances, got {type(value).__name__}"
        )
    bad = [type(i).__name__ for i in items if not isinstance(i, BaseModel)]
    if bad:
        raise EngramValidationError(
            f"data_points: each item must be a DataPoint (or pydantic model), got {bad[0]}"
        )
    return list(items)
