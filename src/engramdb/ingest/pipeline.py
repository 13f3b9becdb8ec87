"""The ingestion pipeline: chunk → embed (batched across documents) → one transaction per
document, under the dataset's cross-process lock, recorded as a pipeline run."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import numpy as np

from engramdb.errors import scrub_secrets
from engramdb.ingest.types import ChunkDraft, Chunker, LoadedDocument
from engramdb.models.records import (
    DataRecord,
    Dataset,
    Edge,
    Node,
    NodeType,
    RunStatus,
    stable_id,
    utcnow,
)
from engramdb.models.results import RememberItem, RememberResult
from engramdb.providers.embedding.base import Embedder
from engramdb.storage.base import DocumentWrite, Store, VectorRow

__all__ = [
    "CHUNK_COLLECTION",
    "IngestOptions",
    "ProgressCallback",
    "data_id_for",
    "ingest_documents",
]

logger = logging.getLogger(__name__)

#: Vector and full-text collection that holds chunk texts.
CHUNK_COLLECTION = "chunks"

#: ``progress(stage, done, total)``; stage is "chunks" (embedded) or "documents" (written).
ProgressCallback = Callable[[str, int, int], None]

#: How many chunks to gather (across documents) before one embedding pass.
_EMBED_WINDOW = 256


def data_id_for(dataset_id: UUID, content_hash: str) -> UUID:
    """Data ids are deterministic per (dataset, content), so a retried ingest reuses them."""
    return stable_id("data", dataset_id, content_hash)


@dataclass(frozen=True, slots=True)
class IngestOptions:
    importance_weight: float
    chunker: Chunker
    external_metadata: dict[str, Any] = field(default_factory=dict)
    node_set: list[str] = field(default_factory=list)
    lock_timeout: float = 600.0
    #: Chunker for CSV files when the caller did not choose one (rows stay whole, header kept).
    csv_chunker: Chunker | None = None

    def chunker_for(self, doc: LoadedDocument) -> Chunker:
        if self.csv_chunker is not None and doc.mime_type == "text/csv":
            return self.csv_chunker
        return self.chunker


@dataclass(slots=True)
class _Pending:
    doc: LoadedDocument
    data_id: UUID
    chunks: list[ChunkDraft]


@dataclass(slots=True)
class _Stats:
    documents: int = 0
    skipped: int = 0
    chunks: int = 0
    nodes: int = 0
    edges: int = 0
    vectors: int = 0
    timings: dict[str, float] = field(
        default_factory=lambda: {"chunk": 0.0, "embed": 0.0, "write": 0.0}
    )


async def ingest_documents(
    store: Store,
    embedder: Embedder,
    dataset: Dataset,
    docs: Sequence[LoadedDocument],
    options: IngestOptions,
    *,
    progress: ProgressCallback | None = None,
) -> RememberResult:
    """Ingest ``docs`` into ``dataset``. Raises what the pipeline raised, after recording the run
    as errored; documents written before the failure stay (each is atomic)."""
    started = time.perf_counter()
    items: dict[UUID, RememberItem] = {}
    stats = _Stats()
    async with store.lock(f"dataset:{dataset.id}", timeout=options.lock_timeout):
        await store.reap_dead_runs()
        run = await store.start_run(dataset.id, "remember")
        try:
            await _run(store, embedder, dataset, docs, options, items, stats, progress)
        except BaseException as exc:
            await store.finish_run(
                run.id,
                RunStatus.ERRORED,
                error_class=type(exc).__name__,
                error_message=scrub_secrets(str(exc)),
                counts=_counts(stats),
            )
            raise
        await store.finish_run(run.id, RunStatus.COMPLETED, counts=_counts(stats))
    timings = {k: round(v, 4) for k, v in stats.timings.items()}
    timings["total"] = round(time.perf_counter() - started, 4)
    return RememberResult(
        status="completed",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        run_id=run.id,
        data_ids=list(items),
        items=list(items.values()),
        counts=_counts(stats),
        timings=timings,
    )


def _counts(stats: _Stats) -> dict[str, int]:
    return {
        "documents": stats.documents,
        "skipped": stats.skipped,
        "chunks": stats.chunks,
        "nodes": stats.nodes,
        "edges": stats.edges,
        "vectors": stats.vectors,
    }


async def _run(
    store: Store,
    embedder: Embedder,
    dataset: Dataset,
    docs: Sequence[LoadedDocument],
    options: IngestOptions,
    items: dict[UUID, RememberItem],
    stats: _Stats,
    progress: ProgressCallback | None,
) -> None:
    window: list[_Pending] = []
    window_chunks = 0
    seen: set[str] = set()
    total_docs = len(docs)
    for doc in docs:
        data_id = data_id_for(dataset.id, doc.content_hash)
        if doc.content_hash in seen or await store.find_data_by_hash(dataset.id, doc.content_hash):
            seen.add(doc.content_hash)
            items[data_id] = RememberItem(
                data_id=data_id, name=doc.name, status="skipped", reason="already_present"
            )
            stats.skipped += 1
            _tick(progress, "documents", stats, total_docs)
            continue
        seen.add(doc.content_hash)
        t0 = time.perf_counter()
        chunks = options.chunker_for(doc).chunk(
            doc, importance_weight=options.importance_weight, count_tokens=embedder.count_tokens
        )
        stats.timings["chunk"] += time.perf_counter() - t0
        window.append(_Pending(doc, data_id, chunks))
        window_chunks += len(chunks)
        if window_chunks >= _EMBED_WINDOW:
            await _flush(store, embedder, dataset, window, options, items, stats, progress, docs)
            window, window_chunks = [], 0
    if window:
        await _flush(store, embedder, dataset, window, options, items, stats, progress, docs)


def _tick(progress: ProgressCallback | None, stage: str, stats: _Stats, total: int) -> None:
    if progress is not None:
        progress(stage, stats.documents + stats.skipped, total)


async def _flush(
    store: Store,
    embedder: Embedder,
    dataset: Dataset,
    window: list[_Pending],
    options: IngestOptions,
    items: dict[UUID, RememberItem],
    stats: _Stats,
    progress: ProgressCallback | None,
    docs: Sequence[LoadedDocument],
) -> None:
    texts = [c.text for p in window for c in p.chunks]
    t0 = time.perf_counter()
    vectors = await embedder.embed(texts) if texts else np.zeros((0, embedder.dimension))
    stats.timings["embed"] += time.perf_counter() - t0
    if progress is not None:
        progress("chunks", len(texts), len(texts))
    offset = 0
    for pending in window:
        n = len(pending.chunks)
        write = build_document_write(
            dataset, pending, options, vectors[offset : offset + n].astype(np.float32)
        )
        offset += n
        t1 = time.perf_counter()
        written = await store.write_document(write)
        stats.timings["write"] += time.perf_counter() - t1
        if written:
            stats.documents += 1
            stats.chunks += n
            stats.nodes += len(write.nodes)
            stats.edges += len(write.edges)
            stats.vectors += len(write.vectors)
            items[pending.data_id] = RememberItem(
                data_id=pending.data_id, name=pending.doc.name, status="ingested", chunks=n
            )
        else:  # another writer stored the same content between our check and our write
            stats.skipped += 1
            items[pending.data_id] = RememberItem(
                data_id=pending.data_id,
                name=pending.doc.name,
                status="skipped",
                reason="already_present",
            )
        _tick(progress, "documents", stats, len(docs))


def build_document_write(
    dataset: Dataset,
    pending: _Pending,
    options: IngestOptions,
    vectors: np.ndarray[Any, np.dtype[np.float32]],
) -> DocumentWrite:
    """The records, graph and vectors of one document (Document node, Chunk nodes, edges)."""
    doc, data_id, weight = pending.doc, pending.data_id, options.importance_weight
    now = utcnow()
    data = DataRecord(
        id=data_id,
        dataset_id=dataset.id,
        name=doc.name,
        content_hash=doc.content_hash,
        mime_type=doc.mime_type,
        importance_weight=weight,
        external_metadata=options.external_metadata,
        node_set=options.node_set,
        size_bytes=doc.size_bytes,
        chunk_count=len(pending.chunks),
        created_at=now,
    )
    document = Node(
        id=data_id,
        dataset_id=dataset.id,
        type=NodeType.DOCUMENT,
        name=doc.name,
        properties={
            "mime_type": doc.mime_type,
            "source_path": doc.source_path,
            "chunk_count": len(pending.chunks),
            "node_set": options.node_set,
            "external_metadata": options.external_metadata,
            **{f"loader_{k}": v for k, v in doc.metadata.items()},
        },
        importance_weight=weight,
    )
    nodes: list[Node] = [document]
    edges: list[Edge] = []
    rows: list[VectorRow] = []
    lexical: list[tuple[UUID, str]] = []
    for chunk, vector in zip(pending.chunks, vectors, strict=True):
        chunk_id = stable_id("chunk", data_id, chunk.index)
        nodes.append(
            Node(
                id=chunk_id,
                dataset_id=dataset.id,
                type=NodeType.CHUNK,
                name=f"{doc.name}#{chunk.index}",
                text=chunk.text,
                properties={
                    "chunk_index": chunk.index,
                    "data_id": str(data_id),
                    "document_name": doc.name,
                    "token_count": chunk.token_count,
                    "start": chunk.start,
                    "end": chunk.end,
                    "node_set": options.node_set,
                    **chunk.properties,
                },
                importance_weight=chunk.importance_weight,
            )
        )
        edges.append(
            Edge(
                id=stable_id("edge", chunk_id, "is_part_of", data_id),
                dataset_id=dataset.id,
                source_id=chunk_id,
                target_id=data_id,
                relation="is_part_of",
                importance_weight=chunk.importance_weight,
            )
        )
        rows.append(VectorRow(chunk_id, CHUNK_COLLECTION, vector))
        lexical.append((chunk_id, chunk.text))
    return DocumentWrite(
        data=data, nodes=nodes, edges=edges, vectors=rows, lexical={CHUNK_COLLECTION: lexical}
    )
