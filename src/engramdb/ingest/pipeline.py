"""The ingestion pipeline.

chunk → extract graph + summaries (LLM or offline) → embed (batched across documents) → one
transaction per document, all under the dataset's cross-process lock and recorded as a pipeline
run. A failure records the run as errored (with a scrubbed message) and re-raises; documents
written before it stay whole, and the next remember skips them and completes the rest.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import numpy as np

from engramdb.extract.resolve import chat_speakers, resolve_document
from engramdb.extract.types import ChunkExtraction, Extractor, Usage
from engramdb.ingest.data_point_graph import data_point_node_ids
from engramdb.ingest.graph_builder import (
    DocumentPlan,
    PreparedDocument,
    entity_id,
    entity_type_id,
    plan_document,
    plan_extension,
)
from engramdb.ingest.loaders import LoadedInputs
from engramdb.ingest.tables import ROW_GRAPH
from engramdb.ingest.types import Chunker, LoadedDocument
from engramdb.models.records import DataRecord, Dataset, Node, NodeType, RunStatus, stable_id
from engramdb.models.results import RememberItem, RememberResult
from engramdb.observability.context import log_context
from engramdb.observability.metrics import count_ingest
from engramdb.observability.tracing import set_attributes, span
from engramdb.ontology.grounding import ground_given
from engramdb.providers.embedding.base import Embedder
from engramdb.storage.base import DocumentWrite, StagedItem, Store, VectorRow
from engramdb.storage.lending import dataset_lock

__all__ = [
    "INGEST_SPAN",
    "PINNED_DATA_ID",
    "QUEUED",
    "Deferral",
    "IngestOptions",
    "ProgressCallback",
    "data_id_for",
    "extract_stored",
    "ingest_documents",
    "staged_data_id",
]

logger = logging.getLogger(__name__)

#: The span of one ingestion run; its stages are ``engramdb.ingest.chunk`` / ``.extract`` /
#: ``.embed`` / ``.write`` (docs/observability.md).
INGEST_SPAN = "engramdb.ingest"

#: ``progress(stage, done, total)``, called from the start of the run and then often: stage
#: "documents" counts documents written or skipped, "chunks" the chunks embedded so far (it moves
#: within one large document too); ``total`` is known from the first call of each stage.
ProgressCallback = Callable[[str, int, int], None]

_COUNTS = ("documents", "skipped", "chunks", "summaries", "entities", "nodes", "edges", "vectors")

#: ``RememberItem.reason`` and the ``counts`` key of documents stored with their graph extraction
#: queued (:mod:`engramdb.ingest.queue`): chunks searchable, entities and summaries to come.
QUEUED = "extraction_queued"

#: How many chunks to gather (across documents) before one extraction + embedding pass.
_WINDOW_CHUNKS = 256

#: Texts per embedding call: the "chunks" progress moves after each (about every second on a
#: laptop CPU with the default model).
_EMBED_SLICE = 64


def data_id_for(dataset_id: UUID, content_hash: str) -> UUID:
    """Data ids are deterministic per (dataset, content), so a retried ingest reuses them."""
    return stable_id("data", dataset_id, content_hash)


#: The staged option that pins the data id of an added item (``update()`` keeps the id).
PINNED_DATA_ID = "data_id"


def staged_data_id(item: StagedItem) -> UUID:
    """The data id a staged item will have once built: its pinned id, or the derived one."""
    pinned = item.options.get(PINNED_DATA_ID)
    if isinstance(pinned, str):
        return UUID(pinned)
    return data_id_for(item.dataset_id, item.content_hash)


@dataclass(frozen=True, slots=True)
class Deferral:
    """Queue the graph extraction of the call's new documents when they fit one LLM call
    (:mod:`engramdb.ingest.queue`): ``enqueue(data_ids)`` records them durably before their
    chunks are written."""

    enqueue: Callable[[list[UUID]], Awaitable[None]]
    #: The extractor's packing rule: how many calls these chunk texts take.
    calls_for: Callable[[list[str]], int]


@dataclass(frozen=True, slots=True)
class IngestOptions:
    importance_weight: float
    chunker: Chunker
    external_metadata: dict[str, Any] = field(default_factory=dict)
    node_set: list[str] = field(default_factory=list)
    lock_timeout: float = 600.0
    #: Chunker for CSV files when the caller did not choose one (rows stay whole, header kept).
    csv_chunker: Chunker | None = None
    #: Graph extractor; None builds documents and chunks only (plus the graphs documents bring
    #: themselves, ``LoadedDocument.given_graph``).
    extractor: Extractor | None = None
    #: False when the caller already holds the dataset's lock (improve() bridging sessions).
    take_lock: bool = True
    #: Queue the extraction of small calls instead of running it (None: extract now).
    defer: Deferral | None = None
    #: ``incremental_loading=False``: content the dataset holds is built again, and each new
    #: document replaces the stored one in the transaction that writes it
    #: (``DocumentWrite.replaces``), instead of being skipped as already present.
    rebuild: bool = False

    def chunker_for(self, doc: LoadedDocument) -> Chunker:
        if self.csv_chunker is not None and doc.mime_type == "text/csv":
            return self.csv_chunker
        return self.chunker


@dataclass(slots=True)
class _Run:
    store: Store
    embedder: Embedder
    dataset: Dataset
    options: IngestOptions
    progress: ProgressCallback | None
    total_docs: int
    items: dict[UUID, RememberItem] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_COUNTS, 0))
    usage: Usage = field(default_factory=Usage)
    timings: dict[str, float] = field(
        default_factory=lambda: {"chunk": 0.0, "extract": 0.0, "embed": 0.0, "write": 0.0}
    )
    total_chunks: int = 0
    #: Chunks of the windows already embedded (the current window's part is added on top).
    chunks_before: int = 0
    #: Data ids of the current window whose extraction was queued.
    queued: set[UUID] = field(default_factory=set)
    #: The stored data item each rebuilt document replaces (IngestOptions.rebuild).
    replacing: dict[UUID, UUID] = field(default_factory=dict)

    def tick(self) -> None:
        if self.progress is not None:
            done = self.counts["documents"] + self.counts["skipped"]
            self.progress("documents", done, self.total_docs)

    def chunk_tick(self, in_window: int) -> None:
        if self.progress is not None:
            self.progress("chunks", self.chunks_before + in_window, self.total_chunks)

    def all_counts(self) -> dict[str, int]:
        return {**self.counts, **self.usage.as_dict()}


async def ingest_documents(
    store: Store,
    embedder: Embedder,
    dataset: Dataset,
    docs: Sequence[LoadedDocument],
    options: IngestOptions,
    *,
    progress: ProgressCallback | None = None,
    run_id: UUID | None = None,
) -> RememberResult:
    """Ingest ``docs`` into ``dataset`` and return what happened; the pipeline run recorded (and
    ``RememberResult.run_id``) has the id ``run_id`` when given."""
    run = _Run(store, embedder, dataset, options, progress, len(docs))
    skipped = list(docs.skipped) if isinstance(docs, LoadedInputs) else []
    return await _recorded(run, lambda: _ingest(run, docs), run_id=run_id, skipped=skipped)


async def extract_stored(
    store: Store,
    embedder: Embedder,
    dataset: Dataset,
    data_ids: Sequence[UUID],
    options: IngestOptions,
) -> RememberResult:
    """Run the queued graph extraction of the stored documents ``data_ids`` (their summaries,
    entities and relations, exactly as :func:`ingest_documents` would have built them) with
    ``options.extractor``, batching across them; a recorded pipeline run. A document forgotten
    meanwhile is skipped (``reason="forgotten"``). ``counts["documents"]`` counts the
    documents extended."""
    run = _Run(store, embedder, dataset, options, None, len(data_ids))
    return await _recorded(run, lambda: _extend(run, data_ids), run_id=None, skipped=[])


async def _recorded(
    run: _Run,
    work: Callable[[], Awaitable[None]],
    *,
    run_id: UUID | None,
    skipped: list[Any],
) -> RememberResult:
    """``work`` under the dataset's lock (unless the caller holds it), as a recorded run."""
    started = time.perf_counter()
    store, dataset, options = run.store, run.dataset, run.options
    lock = (
        store.lock(dataset_lock(dataset.id), timeout=options.lock_timeout)
        if options.take_lock
        else contextlib.nullcontext()
    )
    attrs: dict[str, str | int] = {
        "engramdb.dataset_id": str(dataset.id),
        "engramdb.documents": run.total_docs,
    }
    with log_context(dataset_id=dataset.id), span(INGEST_SPAN, attrs) as current:
        async with lock:
            await store.reap_dead_runs()
            record = await store.start_run(dataset.id, "remember", run_id=run_id)
            set_attributes(current, run_id=str(record.id))
            try:
                with log_context(run_id=record.id):
                    await work()
            except BaseException as exc:
                await store.fail_run(record.id, exc, counts=run.all_counts())
                raise
            await store.finish_run(record.id, RunStatus.COMPLETED, counts=run.all_counts())
        set_attributes(
            current, **{f"count.{k}": run.counts[k] for k in ("documents", "skipped", "chunks")}
        )
    count_ingest(run.counts["documents"], run.counts["chunks"])
    timings = {k: round(v, 4) for k, v in run.timings.items()}
    timings["total"] = round(time.perf_counter() - started, 4)
    return RememberResult(
        status="completed",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        run_id=record.id,
        data_ids=list(run.items),
        items=list(run.items.values()),
        counts=run.all_counts(),
        timings=timings,
        skipped=skipped,
    )


async def _ingest(run: _Run, docs: Sequence[LoadedDocument]) -> None:
    """Chunk every new document first (cheap, and it tells the progress its totals), then
    extract, embed and write them in windows of about ``_WINDOW_CHUNKS`` chunks."""
    run.tick()
    with _stage_span(run, "chunk"):
        prepared = await _prepare(run, docs)
    run.total_chunks = sum(len(p.chunks) for p in prepared)
    run.chunk_tick(0)
    window: list[PreparedDocument] = []
    window_chunks = 0
    for item in prepared:
        window.append(item)
        window_chunks += len(item.chunks)
        if window_chunks >= _WINDOW_CHUNKS:
            await _flush(run, window)
            window, window_chunks = [], 0
    if window:
        await _flush(run, window)


async def _prepare(run: _Run, docs: Sequence[LoadedDocument]) -> list[PreparedDocument]:
    """The documents to ingest, chunked; duplicates and already stored content are skipped."""
    prepared: list[PreparedDocument] = []
    seen: set[str] = set()
    for doc in docs:
        data_id = doc.data_id or data_id_for(run.dataset.id, doc.content_hash)
        duplicate = doc.content_hash in seen
        seen.add(doc.content_hash)
        present = (
            None
            if duplicate
            else await run.store.find_data_by_hash(run.dataset.id, doc.content_hash)
        )
        if duplicate or (present is not None and not run.options.rebuild):
            _skipped(run, data_id, doc.name)
            continue
        if present is not None:
            run.replacing[data_id] = present.id
        t0 = time.perf_counter()
        chunks = (
            []  # a document made of data points (add_data_points) has no text to chunk
            if doc.data_points
            else run.options.chunker_for(doc).chunk(
                doc,
                importance_weight=run.options.importance_weight,
                count_tokens=run.embedder.count_tokens,
            )
        )
        run.timings["chunk"] += time.perf_counter() - t0
        prepared.append(PreparedDocument(doc, data_id, chunks))
    return prepared


def _skipped(run: _Run, data_id: UUID, name: str) -> None:
    run.items[data_id] = RememberItem(
        data_id=data_id, name=name, status="skipped", reason="already_present"
    )
    run.counts["skipped"] += 1
    run.tick()


@contextlib.contextmanager
def _stage_span(run: _Run, stage: str) -> Iterator[Any]:
    """The span of one pipeline stage (``engramdb.ingest.<stage>``) of ``run``."""
    with span(f"{INGEST_SPAN}.{stage}", {"engramdb.dataset_id": str(run.dataset.id)}) as current:
        yield current


async def _flush(run: _Run, window: list[PreparedDocument]) -> None:
    with _stage_span(run, "extract"):
        await _extract(run, window)
    existing = await _existing_shared_nodes(
        run,
        [p.extractions for p in window],
        [m for p in window for m in p.doc.data_points],
        frozenset(r for p in window if (r := run.replacing.get(p.data_id)) is not None),
    )
    plans = [
        plan_document(
            run.dataset,
            prepared,
            importance_weight=run.options.importance_weight,
            external_metadata={**run.options.external_metadata, **prepared.doc.external_metadata},
            node_set=list(dict.fromkeys([*run.options.node_set, *prepared.doc.node_set])),
            existing=existing,
        )
        for prepared in window
    ]
    with _stage_span(run, "embed"):
        vectors = await _embed(run, plans, sum(len(p.chunks) for p in window))
    with _stage_span(run, "write"):
        for prepared, plan in zip(window, plans, strict=True):
            await _write(run, prepared.doc.name, len(prepared.chunks), plan, vectors)
    run.queued.clear()


async def _extend(run: _Run, data_ids: Sequence[UUID]) -> None:
    """Extract stored documents in windows of about ``_WINDOW_CHUNKS`` chunks."""
    window: list[tuple[DataRecord, list[Node]]] = []
    size = 0
    for data_id in data_ids:
        data = await run.store.get_data(data_id)
        if data is None:
            run.items[data_id] = RememberItem(
                data_id=data_id, name="", status="skipped", reason="forgotten"
            )
            continue
        ids = [stable_id("chunk", data_id, i) for i in range(data.chunk_count)]
        chunks = sorted(
            (n for n in await run.store.get_nodes(ids) if n.type == NodeType.CHUNK),
            key=lambda n: int(n.properties.get("chunk_index", 0)),
        )
        window.append((data, chunks))
        size += len(chunks)
        if size >= _WINDOW_CHUNKS:
            await _extend_window(run, window)
            window, size = [], 0
    if window:
        await _extend_window(run, window)


async def _extend_window(run: _Run, window: list[tuple[DataRecord, list[Node]]]) -> None:
    extractor = run.options.extractor
    if extractor is None:  # nothing to extract with: the documents stay chunks only
        return
    t0 = time.perf_counter()
    with _stage_span(run, "extract"):
        found, usage = await extractor.extract_documents(
            [(data.id, [c.text for c in chunks]) for data, chunks in window]
        )
    found = [
        resolve_document(extractions, speakers=chat_speakers(c.text for c in chunks))
        for (_, chunks), extractions in zip(window, found, strict=True)
    ]
    run.usage.add(usage)
    run.timings["extract"] += time.perf_counter() - t0
    existing = await _existing_shared_nodes(run, found, [])
    plans = [
        plan_extension(run.dataset, data, chunks, extractions, existing)
        for (data, chunks), extractions in zip(window, found, strict=True)
    ]
    with _stage_span(run, "embed"):
        vectors = await _embed(run, plans, 0)
    with _stage_span(run, "write"):
        for (data, chunks), plan in zip(window, plans, strict=True):
            await _write(run, data.name, len(chunks), plan, vectors, extends=True)


async def _extract(run: _Run, window: list[PreparedDocument]) -> None:
    """Extract the graph of the window's documents. A document with a ``given_graph`` gets it on
    its first chunk, one with ``derive_graph=False`` nothing: the extractor sees neither (a
    table row's graph is grounded in the call's ontology, though)."""
    wanted: list[PreparedDocument] = []
    for prepared in window:
        given = prepared.doc.given_graph
        if given is not None and given.source == ROW_GRAPH and prepared.chunks:
            given = ground_given(run.options.extractor, prepared.doc.text, given)
        if given is not None and prepared.chunks:
            rest = [ChunkExtraction(source=given.source) for _ in prepared.chunks[1:]]
            prepared.extractions = [given, *rest]
        elif prepared.doc.derive_graph and prepared.chunks:  # DataPoint documents have none
            wanted.append(prepared)
    extractor = run.options.extractor
    if extractor is None or not wanted:
        return
    defer = run.options.defer
    if defer is not None and defer.calls_for([c.text for p in wanted for c in p.chunks]) <= 1:
        await defer.enqueue([p.data_id for p in wanted])  # durable before any chunk is written
        run.queued.update(p.data_id for p in wanted)
        return
    t0 = time.perf_counter()
    found, usage = await extractor.extract_documents(
        [(p.data_id, [c.text for c in p.chunks]) for p in wanted]
    )
    for prepared, extractions in zip(wanted, found, strict=True):
        if len(extractions) != len(prepared.chunks):  # never misalign the graph
            raise RuntimeError(
                f"extractor {extractor.name!r} returned {len(extractions)} results for "
                f"{len(prepared.chunks)} chunks"
            )
        texts = [c.text for c in prepared.chunks]
        prepared.extractions = resolve_document(extractions, speakers=chat_speakers(texts))
    run.usage.add(usage)
    run.timings["extract"] += time.perf_counter() - t0


async def _existing_shared_nodes(
    run: _Run,
    extractions: Sequence[Sequence[ChunkExtraction]],
    data_points: Sequence[Any],
    replaced: frozenset[UUID] = frozenset(),
) -> dict[UUID, Node]:
    """Entity and entity-type nodes a window names (its documents' chunk ``extractions`` and
    ``data_points``) that the store already holds, except those that only the data items
    the window ``replaced`` support: they go with them in the write, so they are built anew."""
    ids: set[UUID] = set()
    models = list(data_points)
    for per_doc in extractions:
        for extraction in per_doc:
            for entity in extraction.entities:
                ids.add(entity_id(run.dataset.id, entity.name, entity.type))
                ids.add(entity_type_id(run.dataset.id, entity.type))
            models += extraction.data_points
    ids.update(data_point_node_ids(run.dataset.id, models))
    if not ids:
        return {}
    nodes = await run.store.get_nodes(sorted(ids, key=str))
    return {n.id: n for n in nodes if not replaced or not set(n.data_ids) <= replaced}


async def _embed(
    run: _Run, plans: list[DocumentPlan], window_chunks: int
) -> dict[tuple[str, str], np.ndarray[Any, Any]]:
    """Embed every distinct (collection, text) the window needs, ``_EMBED_SLICE`` texts per
    call; after each call the "chunks" progress moves by the window's share embedded so far."""
    keys = list(dict.fromkeys((coll, text) for plan in plans for _, coll, text in plan.to_embed))
    texts = list(dict.fromkeys(text for _, text in keys))  # one vector per text
    t0 = time.perf_counter()
    # Shortest first, as a local embedder batches them (least padding); the share embedded is
    # counted in characters, a fair proxy of the work.
    texts.sort(key=len)
    total_chars = sum(len(t) for t in texts) or 1
    parts: list[np.ndarray[Any, Any]] = []
    done_chars = 0
    for start in range(0, len(texts), _EMBED_SLICE):
        part = texts[start : start + _EMBED_SLICE]
        parts.append(await run.embedder.embed(part))
        done_chars += sum(len(t) for t in part)
        run.chunk_tick(window_chunks * done_chars // total_chars)
    run.timings["embed"] += time.perf_counter() - t0
    run.chunks_before += window_chunks
    if not parts:
        run.chunk_tick(0)
        return {}
    matrix = np.vstack(parts)
    row = {text: i for i, text in enumerate(texts)}
    return {key: matrix[row[key[1]]].astype(np.float32) for key in keys}


async def _write(
    run: _Run,
    name: str,
    chunk_count: int,
    plan: DocumentPlan,
    vectors: dict[tuple[str, str], np.ndarray[Any, Any]],
    *,
    extends: bool = False,
) -> None:
    rows = [
        VectorRow(node_id, coll, vectors[(coll, text)]) for node_id, coll, text in plan.to_embed
    ]
    write = DocumentWrite(
        data=plan.data,
        nodes=plan.nodes,
        edges=plan.edges,
        vectors=rows,
        lexical=plan.lexical,
        extends=extends,
        replaces=None if extends else run.replacing.get(plan.data.id),
    )
    t0 = time.perf_counter()
    written = await run.store.write_document(write)
    run.timings["write"] += time.perf_counter() - t0
    data_id = plan.data.id
    if not written and extends:  # forgotten between the queue's read and this write
        run.items[data_id] = RememberItem(
            data_id=data_id, name=name, status="skipped", reason="forgotten"
        )
        return
    if not written:  # another writer stored the same content between our check and our write
        _skipped(run, data_id, name)
        return
    by_type: dict[str, int] = {}
    for node in plan.nodes:
        by_type[node.type] = by_type.get(node.type, 0) + 1
    c = run.counts
    c["documents"] += 1
    c["chunks"] += by_type.get(NodeType.CHUNK, 0)
    c["summaries"] += by_type.get(NodeType.SUMMARY, 0)
    c["entities"] += by_type.get(NodeType.ENTITY, 0)
    c["nodes"] += len(plan.nodes)
    c["edges"] += len(plan.edges)
    c["vectors"] += len(rows)
    queued = data_id in run.queued
    if queued:
        c[QUEUED] = c.get(QUEUED, 0) + 1
    run.items[data_id] = RememberItem(
        data_id=data_id,
        name=name,
        status="ingested",
        chunks=chunk_count,
        reason=QUEUED if queued else None,
    )
    run.tick()
