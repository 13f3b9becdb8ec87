"""CHUNKS (vector), CHUNKS_LEXICAL (BM25) and SUMMARIES (vector) retrieval.

They rank by their own relevance alone (the reference: CHUNKS ranks by vector similarity, and
importance_weight has no effect here). CHUNKS and SUMMARIES report the raw cosine distance in
``score`` (lower is better); CHUNKS_LEXICAL orders by BM25 and leaves ``score`` None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from engramdb.engine import check_embedding
from engramdb.ingest.graph_builder import CHUNK_COLLECTION, SUMMARY_COLLECTION
from engramdb.models.records import Dataset, Node
from engramdb.models.results import RecallResponse, ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.providers.embedding.base import Embedder
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.storage.base import ScoredId, Store

__all__ = [
    "ChunksRetriever",
    "LexicalChunksRetriever",
    "SummariesRetriever",
    "search_chunks",
    "search_chunks_lexical",
    "search_summaries",
]


async def search_chunks(
    store: Store,
    embedder: Embedder,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
) -> list[ResponseGraphEntry]:
    """Nearest chunks by cosine distance, closest first."""
    return await _vector(store, embedder, datasets, query, top_k, SearchType.CHUNKS)


async def search_summaries(
    store: Store,
    embedder: Embedder,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
) -> list[ResponseGraphEntry]:
    """Nearest chunk summaries by cosine distance, closest first."""
    return await _vector(store, embedder, datasets, query, top_k, SearchType.SUMMARIES)


async def _vector(
    store: Store,
    embedder: Embedder,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
    search_type: SearchType,
) -> list[ResponseGraphEntry]:
    searchable = [d for d in datasets if d.embedding_model is not None]
    if not searchable:
        return []
    for dataset in searchable:
        check_embedding(dataset, embedder)
    vector = (await embedder.embed([query]))[0]
    collection = CHUNK_COLLECTION if search_type is SearchType.CHUNKS else SUMMARY_COLLECTION
    hits = await store.vector_search(collection, vector, [d.id for d in searchable], top_k)
    return await _entries(store, datasets, hits, search_type, with_score=True)


async def search_chunks_lexical(
    store: Store,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
) -> list[ResponseGraphEntry]:
    """Chunks ranked by BM25, best first."""
    if not datasets:
        return []
    hits = await store.lexical_search(CHUNK_COLLECTION, query, [d.id for d in datasets], top_k)
    return await _entries(store, datasets, hits, SearchType.CHUNKS_LEXICAL, with_score=False)


async def _entries(
    store: Store,
    datasets: Sequence[Dataset],
    hits: list[ScoredId],
    search_type: SearchType,
    *,
    with_score: bool,
) -> list[ResponseGraphEntry]:
    by_id = {n.id: n for n in await store.get_nodes([h.node_id for h in hits])}
    names: dict[UUID, str] = {d.id: d.name for d in datasets}
    entries = []
    for rank, hit in enumerate(hits):
        node = by_id.get(hit.node_id)
        if node is None:  # deleted between search and read
            continue
        entries.append(_entry(node, hit, rank, names, search_type, with_score))
    return entries


def _entry(
    node: Node,
    hit: ScoredId,
    rank: int,
    names: dict[UUID, str],
    search_type: SearchType,
    with_score: bool,
) -> ResponseGraphEntry:
    props = node.properties
    metadata: dict[str, Any] = {"chunk_id": str(props.get("chunk_id", node.id))}
    for key in ("data_id", "chunk_index", "document_name"):
        if key in props:
            metadata[key] = props[key]
    score = float(hit.score) if with_score else None
    raw: dict[str, Any] = {
        "id": str(node.id),
        "type": node.type,
        "text": node.text,
        "importance_weight": node.importance_weight,
        "rank": rank,
        **metadata,
    }
    if with_score:
        raw["score"] = score
    else:
        raw["bm25"] = float(hit.score)
    return ResponseGraphEntry(
        text=node.text,
        kind="summary" if search_type is SearchType.SUMMARIES else "chunk",
        search_type=search_type.value,
        score=score,
        dataset_id=node.dataset_id,
        dataset_name=names.get(node.dataset_id),
        metadata=metadata,
        raw=raw,
    )


class ChunksRetriever(Retriever):
    """CHUNKS: dense vector search over chunk texts."""

    search_types = frozenset({SearchType.CHUNKS})

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        return list(
            await search_chunks(ctx.store, ctx.embedder, ctx.datasets, opts.query, opts.top_k)
        )


class LexicalChunksRetriever(Retriever):
    """CHUNKS_LEXICAL: BM25 over chunk texts."""

    search_types = frozenset({SearchType.CHUNKS_LEXICAL})

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        return list(await search_chunks_lexical(ctx.store, ctx.datasets, opts.query, opts.top_k))


class SummariesRetriever(Retriever):
    """SUMMARIES: dense vector search over chunk summaries."""

    search_types = frozenset({SearchType.SUMMARIES})

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        return list(
            await search_summaries(ctx.store, ctx.embedder, ctx.datasets, opts.query, opts.top_k)
        )
