"""cognify(): build the graph of what add() stored and nothing has built yet."""

from __future__ import annotations

from uuid import UUID

from engramdb.access.permissions import check, own_dataset, owned_datasets
from engramdb.api.unsupported import refuse_unsupported
from engramdb.engine import Engine
from engramdb.errors import DatasetNotFoundError
from engramdb.extract.types import Extractor
from engramdb.improvement.auto import auto_improve_after_ingest, wants_auto_improve
from engramdb.ingest.chunkers import CsvChunker, resolve_chunker
from engramdb.ingest.pipeline import IngestOptions, ingest_documents, staged_data_id
from engramdb.ingest.types import Chunker, LoadedDocument, with_extras
from engramdb.models.records import Dataset, User
from engramdb.models.requests.classic import CognifyRequest
from engramdb.models.results import RememberResult
from engramdb.ontology import grounded_extractor, resolve_ontology
from engramdb.storage.base import StagedItem

__all__ = ["cognify"]


async def cognify(engine: Engine, request: CognifyRequest) -> dict[UUID, RememberResult]:
    """Build the graph (chunks, entities, relations, summaries, embeddings) of every input that
    ``add()`` stored in the datasets and nothing has built yet, with the same pipeline as
    ``remember()``; returns one result per dataset, by dataset id (cognee's shape).

    ``datasets`` is a dataset name, a UUID, or a list of them (names are the caller's own,
    an unknown name is a DatasetNotFoundError; a UUID needs write permission); None builds
    every dataset of the caller that has added inputs. Each built item leaves the staging area
    (a retry after a crash skips what was already built). ``chunker`` (an engramdb chunker)
    and ``chunk_size`` (its token budget) choose the chunking. With ``run_in_background=True``
    each result comes back at once with ``status="running"``; ``await result.wait()`` gives
    the finished one. Options engramdb does not honour raise FeatureNotAvailableError.

    ``graph_model`` (a DataPoint subclass, or any pydantic model) asks the LLM to extract each
    chunk into that schema (``custom_prompt`` is then the extraction prompt); the instances are
    stored as nodes and edges of their own types, hanging off their chunks. Without an LLM it
    raises LLMNotConfiguredError before anything is built.
    """
    refuse_unsupported("cognify", request)
    extractor = grounded_extractor(
        engine.extractor_for(request.custom_prompt, request.graph_model),
        *resolve_ontology(request.config, request.ontology_file_path, engine.settings),
    )
    owner = await engine.resolve_user(request.user)
    targets = await _datasets(engine, owner, request.datasets)
    settings = engine.settings
    chunker = resolve_chunker(
        request.chunker,
        max_tokens=request.chunk_size or settings.chunk_max_tokens,
        overlap_tokens=settings.chunk_overlap_tokens,
    )
    results: dict[UUID, RememberResult] = {}
    for dataset in targets:
        bound = await engine.bind_embedding(dataset)
        if not request.run_in_background:
            results[dataset.id] = await _build(engine, owner, bound, chunker, extractor, request)
            continue
        task = engine.spawn(
            _build(engine, owner, bound, chunker, extractor, request),
            name=f"engramdb-cognify-{dataset.id}",
        )
        pending = RememberResult(status="running", dataset_id=dataset.id, dataset_name=dataset.name)
        pending._task = task
        results[dataset.id] = pending
    return results


async def _datasets(
    engine: Engine, owner: User, ref: str | UUID | list[str | UUID] | None
) -> list[Dataset]:
    store = engine.store
    if ref is None:
        return [d for d in await owned_datasets(store, owner) if await store.count_staged([d.id])]
    refs: list[str | UUID] = [ref] if isinstance(ref, str | UUID) else [*ref]
    found: list[Dataset] = []
    missing: list[str] = []
    for item in refs:
        if isinstance(item, UUID):
            found.append(await check(owner, item, "write", store=store))
            continue
        dataset = await own_dataset(store, owner, item)
        if dataset is None:
            missing.append(item)
        else:
            found.append(dataset)
    if missing:
        raise DatasetNotFoundError(
            f"no dataset named {', '.join(map(repr, missing))}: add() data to it first",
            missing=missing,
        )
    return found


async def _build(
    engine: Engine,
    owner: User,
    dataset: Dataset,
    chunker: Chunker,
    extractor: Extractor | None,
    request: CognifyRequest,
) -> RememberResult:
    """Ingest the dataset's staged items, one ingestion per set of add() options."""
    store = engine.store
    staged = await store.list_staged(dataset.id)
    groups: dict[tuple[float, tuple[str, ...]], list[StagedItem]] = {}
    for item in staged:
        groups.setdefault(_add_options(item), []).append(item)
    total = RememberResult(status="completed", dataset_id=dataset.id, dataset_name=dataset.name)
    for (weight, tags), items in groups.items():
        options = IngestOptions(
            importance_weight=weight,
            chunker=chunker,
            node_set=list(tags),
            lock_timeout=engine.settings.engramdb_lock_timeout,
            csv_chunker=(
                CsvChunker(max_tokens=engine.settings.chunk_max_tokens)
                if request.chunker is None
                else None
            ),
            extractor=extractor,
        )
        docs = [_document(item) for item in items]
        result = await ingest_documents(store, engine.embedder, dataset, docs, options)
        await store.unstage(dataset.id, [item.content_hash for item in items])
        total = _merge(total, result)
    if staged and wants_auto_improve(engine, True):
        status = await auto_improve_after_ingest(engine, owner, dataset)
        total = total.model_copy(update={"improve": status})
    return total


def _add_options(item: StagedItem) -> tuple[float, tuple[str, ...]]:
    """The importance weight and node set add() stored with the item."""
    weight = item.options.get("importance_weight")
    tags = item.options.get("node_set")
    return (
        float(weight) if isinstance(weight, int | float) else 0.5,
        tuple(str(t) for t in tags) if isinstance(tags, list) else (),
    )


def _document(item: StagedItem) -> LoadedDocument:
    metadata = item.options.get("metadata")
    doc = LoadedDocument(
        name=item.name,
        text=item.text,
        mime_type=item.mime_type,
        content_hash=item.content_hash,
        size_bytes=item.size_bytes,
        source_path=item.source_path,
        metadata=dict(metadata) if isinstance(metadata, dict) else {},
        data_id=staged_data_id(item),
    )
    return with_extras(doc, item.options.get("document"))


def _merge(total: RememberResult, part: RememberResult) -> RememberResult:
    counts = dict(total.counts)
    for key, value in part.counts.items():
        counts[key] = counts.get(key, 0) + value
    return total.model_copy(
        update={
            "run_id": part.run_id,
            "data_ids": [*total.data_ids, *part.data_ids],
            "items": [*total.items, *part.items],
            "counts": counts,
        }
    )
