"""The extraction queue: graph extraction shared across separate small remember() calls.

With an LLM, one remember() of a short text costs one extraction call of its own although a
call holds several chunks (:meth:`~engramdb.extract.llm.LLMExtractor.plan_batches`). With
``ENGRAMDB_EXTRACTION_BATCH_REMEMBERS`` above 1, a remember() whose new documents fit ONE call
by that packing rule stores the documents, chunks, chunk vectors and full-text rows at once
(CHUNKS, CHUNKS_LEXICAL and RAG_COMPLETION find them as soon as it returns) and queues their
extraction: summaries, entities and relations. The queue is extracted together, packed by the
same rule across documents, when:

* it holds ``ENGRAMDB_EXTRACTION_BATCH_REMEMBERS`` documents (in the remember() that fills it);
* its oldest document is ``ENGRAMDB_EXTRACTION_BATCH_SECONDS`` old (a timer of the engine, and
  checked by every remember(); ``0``: no age trigger);
* anything reads or changes the dataset's graph: recall of any search type but a pinned
  CHUNKS / CHUNKS_LEXICAL / RAG_COMPLETION, improve() (also the automatic one), visualize and
  export — so no one sees a graph that silently lacks a remembered document;
* the engine closes.

The automatic improve of a queued remember() runs after the extraction, once for the batch
(``RememberResult.improve == "queued"`` until then). The graph is the one the same documents
ingested in one batched remember() get: the same extractor, packing, weights and node sets.

Durability, with no transaction spanning the steps: the queue (the dataset's improve state
:data:`QUEUE_KEY`, one JSON list) gains a document BEFORE its chunks are written, and loses it
only AFTER its graph was written (writes of deterministic ids, so repeating one is harmless). A
crash between the steps leaves a queued id whose record does not exist (dropped when the queue
is extracted) or a queued document extracted twice, never a document whose extraction is lost.
Every queue change happens under the dataset's lock. forget() of a queued document removes it
from the queue; forget of the dataset removes the queue with the rest.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from engramdb.models.records import Dataset, User
from engramdb.models.search_type import SearchType
from engramdb.storage.lending import dataset_lock

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.ingest.pipeline import Deferral
    from engramdb.models.results import RememberResult
    from engramdb.storage.base import Store

__all__ = [
    "QUEUE_KEY",
    "QueueTimers",
    "Queued",
    "deferral_for",
    "dequeue",
    "extract_for_read",
    "extract_queue",
    "queued",
    "reads_graph",
    "remember_queued",
]

logger = logging.getLogger(__name__)

QUEUE_KEY = "ingest.extraction_queue"

#: Search types that read chunks only: a pinned one does not wait for the queue.
_CHUNK_ONLY = frozenset({SearchType.CHUNKS, SearchType.CHUNKS_LEXICAL, SearchType.RAG_COMPLETION})


@dataclass(frozen=True, slots=True)
class Queued:
    """One queued document: who remembered it, whether the automatic improve follows, when."""

    data_id: UUID
    user_id: UUID
    improve: bool
    at: float

    def as_json(self) -> dict[str, object]:
        return {
            "data_id": str(self.data_id),
            "user_id": str(self.user_id),
            "improve": self.improve,
            "at": self.at,
        }


async def queued(store: Store, dataset_id: UUID) -> list[Queued]:
    """The dataset's queue, oldest first."""
    raw = await store.get_improve_state(dataset_id, QUEUE_KEY)
    if not raw:
        return []
    return [
        Queued(UUID(e["data_id"]), UUID(e["user_id"]), bool(e["improve"]), float(e["at"]))
        for e in json.loads(raw)
    ]


async def _save(store: Store, dataset_id: UUID, entries: Sequence[Queued]) -> None:
    value = json.dumps([e.as_json() for e in entries]) if entries else ""
    await store.set_improve_state(dataset_id, QUEUE_KEY, value)


async def dequeue(store: Store, dataset_id: UUID, data_ids: Iterable[UUID]) -> None:
    """Remove ``data_ids`` from the queue (the caller holds the dataset's lock)."""
    gone = set(data_ids)
    entries = await queued(store, dataset_id)
    kept = [e for e in entries if e.data_id not in gone]
    if len(kept) != len(entries):
        await _save(store, dataset_id, kept)


def deferral_for(
    engine: Engine, owner: User, dataset: Dataset, *, improve: bool
) -> Deferral | None:
    """The pipeline's deferral for a remember() with the default extractor, or None when the
    queue is off (``ENGRAMDB_EXTRACTION_BATCH_REMEMBERS`` = 1) or no LLM extracts."""
    from engramdb.extract.llm import LLMExtractor
    from engramdb.ingest.pipeline import Deferral

    extractor = engine.extractor
    settings = engine.settings
    if settings.engramdb_extraction_batch_remembers <= 1 or settings.ontology_file_path:
        return None  # off, or every build is grounded in an ontology (built in the call)
    if not isinstance(extractor, LLMExtractor) or extractor.instructions is not None:
        return None

    async def enqueue(data_ids: list[UUID]) -> None:  # under the ingest's dataset lock
        entries = await queued(engine.store, dataset.id)
        known = {e.data_id for e in entries}
        now = time.time()
        entries += [Queued(i, owner.id, improve, now) for i in data_ids if i not in known]
        await _save(engine.store, dataset.id, entries)

    return Deferral(enqueue=enqueue, calls_for=lambda texts: len(extractor.plan_batches(texts)))


async def remember_queued(
    engine: Engine, dataset: Dataset, result: RememberResult
) -> RememberResult:
    """After a remember() that queued extraction: extract the queue when it is due (the
    result then reports the extraction), else arm the age timer and report it queued."""
    from engramdb.ingest.pipeline import QUEUED

    settings = engine.settings
    entries = await queued(engine.store, dataset.id)
    engine.queue_timers.touch(dataset)
    age = settings.engramdb_extraction_batch_seconds
    oldest = min((e.at for e in entries), default=time.time())
    due = len(entries) >= settings.engramdb_extraction_batch_remembers or (
        age > 0 and time.time() - oldest >= age
    )
    if not due:
        if age > 0:
            engine.queue_timers.arm(engine, dataset, max(0.0, oldest + age - time.time()))
        return result.model_copy(
            update={"improve": "queued"} if _wants_improve(entries, result) else {}
        )
    extracted = await extract_queue(engine, dataset)
    counts = dict(result.counts)
    counts[QUEUED] = 0
    update: dict[str, object] = {"counts": counts}
    if extracted is not None:
        for key, value in extracted.counts.items():
            if key.startswith("llm_") or key in ("entities", "summaries", "extraction_fallbacks"):
                counts[key] = counts.get(key, 0) + value
        counts["extracted_from_queue"] = extracted.counts.get("documents", 0)
        update["items"] = [
            i.model_copy(update={"reason": None}) if i.reason == QUEUED else i for i in result.items
        ]
        update["improve"] = extracted.improve
    return result.model_copy(update=update)


def _wants_improve(entries: Sequence[Queued], result: RememberResult) -> bool:
    mine = set(result.data_ids)
    return any(e.improve for e in entries if e.data_id in mine)


async def extract_queue(
    engine: Engine, dataset: Dataset, *, improve_after: bool = True
) -> RememberResult | None:
    """Extract the dataset's whole queue now (None when it is empty), then run the automatic
    improve the queued remembers asked for (unless ``improve_after`` is False: the caller is
    an improve). Failures propagate; the queue keeps what was not extracted."""
    from engramdb.improvement.auto import auto_improve_after_ingest
    from engramdb.ingest.chunkers import resolve_chunker
    from engramdb.ingest.pipeline import IngestOptions, extract_stored

    store, settings = engine.store, engine.settings
    if not await queued(store, dataset.id):  # cheap check before the lock
        return None
    async with store.lock(dataset_lock(dataset.id), timeout=settings.engramdb_lock_timeout):
        entries = await queued(store, dataset.id)
        if not entries:
            return None
        ids = [e.data_id for e in entries]
        options = IngestOptions(
            importance_weight=0.5,  # unused: each document keeps its stored weight
            chunker=resolve_chunker(
                None,
                max_tokens=settings.chunk_max_tokens,
                overlap_tokens=settings.chunk_overlap_tokens,
            ),  # unused: the documents are chunked already
            extractor=engine.extractor,
            take_lock=False,
        )
        result = await extract_stored(store, engine.embedder, dataset, ids, options)
        await dequeue(store, dataset.id, ids)
    engine.queue_timers.disarm(dataset.id)
    wanting = [e for e in entries if e.improve]
    if not improve_after or not wanting:
        return result
    owner = await store.get_user(wanting[-1].user_id)
    if owner is None:
        return result
    status = await auto_improve_after_ingest(engine, owner, dataset)
    return result.model_copy(update={"improve": status})


def reads_graph(search_type: SearchType, routed: bool) -> bool:
    """Whether a recall of ``search_type`` may read the graph (a routed type may be retried as
    HYBRID_COMPLETION, so only a pinned chunk-only type does not)."""
    return routed or search_type not in _CHUNK_ONLY


async def extract_for_read(engine: Engine, datasets: Iterable[Dataset]) -> None:
    """Extract the queues of ``datasets`` before their graph is read."""
    for dataset in datasets:
        await extract_queue(engine, dataset)


class QueueTimers:
    """An engine's age timers (one per dataset with a queue) and the datasets it queued into,
    extracted when it closes."""

    def __init__(self) -> None:
        self._timers: dict[UUID, asyncio.Task[None]] = {}
        self._datasets: dict[UUID, Dataset] = {}

    def touch(self, dataset: Dataset) -> None:
        self._datasets[dataset.id] = dataset

    def arm(self, engine: Engine, dataset: Dataset, delay: float) -> None:
        self._datasets[dataset.id] = dataset
        timer = self._timers.get(dataset.id)
        if timer is not None and not timer.done():
            return
        self._timers[dataset.id] = asyncio.get_running_loop().create_task(
            self._fire(engine, dataset, delay), name=f"engramdb-extraction-timer-{dataset.id}"
        )

    def disarm(self, dataset_id: UUID) -> None:
        timer = self._timers.pop(dataset_id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()

    async def _fire(self, engine: Engine, dataset: Dataset, delay: float) -> None:
        await asyncio.sleep(delay)
        self._timers.pop(dataset.id, None)
        try:
            await extract_queue(engine, dataset)
        except Exception as exc:  # the queue keeps the documents; the next trigger retries
            logger.warning("queued extraction of dataset %s failed: %s", dataset.id, exc)

    async def close(self, engine: Engine) -> None:
        """Cancel the timers and extract every queue this engine filled."""
        for timer in self._timers.values():
            timer.cancel()
        await asyncio.gather(*self._timers.values(), return_exceptions=True)
        self._timers.clear()
        datasets, self._datasets = self._datasets, {}
        for dataset_id, dataset in datasets.items():
            try:
                await extract_queue(engine, dataset)
            except Exception as exc:
                logger.warning(
                    "queued extraction of dataset %s failed on close; it stays queued: %s",
                    dataset_id,
                    exc,
                )
