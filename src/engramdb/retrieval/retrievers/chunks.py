"""CHUNKS (vector), CHUNKS_LEXICAL (BM25) and SUMMARIES (vector) retrieval.

They rank by their own relevance alone (the reference: CHUNKS ranks by vector similarity, and
importance_weight has no effect here). CHUNKS and SUMMARIES report the raw cosine distance in
``score`` (lower is better); CHUNKS_LEXICAL orders by BM25 and leaves ``score`` None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from engramdb.artifacts.conflicts import label_chunk_results
from engramdb.engine import check_embedding
from engramdb.graph_schema import CHUNK_COLLECTION, SUMMARY_COLLECTION
from engramdb.models.records import Dataset, Node
from engramdb.models.results import RecallResponse, ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.providers.embedding.base import Embedder
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.ranking import similarity_only_score
from engramdb.storage.base import ScoredId, Store

__all__ = [
    "ChunksRetriever",
    "LexicalChunksRetriever",
    "NodeSetFilter",
    "SummariesRetriever",
    "node_set_filter",
    "search_chunks",
    "search_chunks_lexical",
    "search_summaries",
]


@dataclass(frozen=True, slots=True)
class NodeSetFilter:
    """``node_name`` of recall(): keep nodes tagged (``remember(node_set=...)``) with any
    (``OR``) or all (``AND``) of the names, or whose own name is one of them."""

    names: tuple[str, ...]
    operator: str = "OR"

    def matches(self, node: Node) -> bool:
        tags = set(node.properties.get("node_set") or [])
        hits = [n in tags or n == node.name for n in self.names]
        return all(hits) if self.operator == "AND" else any(hits)

    def widen(self, top_k: int) -> int:
        """Candidates to fetch so that filtering still leaves ``top_k`` in most cases."""
        return min(max(top_k * 10, 100), 2000)


async def search_chunks(
    store: Store,
    embedder: Embedder,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
    node_filter: NodeSetFilter | None = None,
) -> list[ResponseGraphEntry]:
    """Nearest chunks by cosine distance, closest first."""
    return await _vector(store, embedder, datasets, query, top_k, SearchType.CHUNKS, node_filter)


async def search_summaries(
    store: Store,
    embedder: Embedder,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
    node_filter: NodeSetFilter | None = None,
) -> list[ResponseGraphEntry]:
    """Nearest chunk summaries by cosine distance, closest first."""
    return await _vector(store, embedder, datasets, query, top_k, SearchType.SUMMARIES, node_filter)


async def _vector(
    store: Store,
    embedder: Embedder,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
    search_type: SearchType,
    node_filter: NodeSetFilter | None = None,
) -> list[ResponseGraphEntry]:
    searchable = [d for d in datasets if d.embedding_model is not None]
    if not searchable:
        return []
    for dataset in searchable:
        check_embedding(dataset, embedder)
    vector = (await embedder.embed([query]))[0]
    collection = CHUNK_COLLECTION if search_type is SearchType.CHUNKS else SUMMARY_COLLECTION
    fetch = top_k if node_filter is None else node_filter.widen(top_k)
    hits = await store.vector_search(collection, vector, [d.id for d in searchable], fetch)
    entries = await _entries(store, datasets, hits, search_type, True, node_filter)
    return entries[:top_k]


async def search_chunks_lexical(
    store: Store,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
    node_filter: NodeSetFilter | None = None,
) -> list[ResponseGraphEntry]:
    """Chunks ranked by BM25, best first."""
    if not datasets:
        return []
    fetch = top_k if node_filter is None else node_filter.widen(top_k)
    hits = await store.lexical_search(CHUNK_COLLECTION, query, [d.id for d in datasets], fetch)
    entries = await _entries(store, datasets, hits, SearchType.CHUNKS_LEXICAL, False, node_filter)
    return entries[:top_k]


async def _entries(
    store: Store,
    datasets: Sequence[Dataset],
    hits: list[ScoredId],
    search_type: SearchType,
    with_score: bool,
    node_filter: NodeSetFilter | None = None,
) -> list[ResponseGraphEntry]:
    by_id = {n.id: n for n in await store.get_nodes([h.node_id for h in hits])}
    if node_filter is not None:
        by_id = {k: n for k, n in by_id.items() if node_filter.matches(n)}
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
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        found = await search_chunks(
            ctx.store, ctx.embedder, ctx.datasets, opts.query, opts.top_k, node_set_filter(opts)
        )
        found = await label_chunk_results(ctx.store, ctx.dataset_ids, found)
        return list(_with_breakdown(found) if opts.verbose else found)


class LexicalChunksRetriever(Retriever):
    """CHUNKS_LEXICAL: BM25 over chunk texts."""

    search_types = frozenset({SearchType.CHUNKS_LEXICAL})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        return list(
            await search_chunks_lexical(
                ctx.store, ctx.datasets, opts.query, opts.top_k, node_set_filter(opts)
            )
        )


class SummariesRetriever(Retriever):
    """SUMMARIES: dense vector search over chunk summaries."""

    search_types = frozenset({SearchType.SUMMARIES})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        found = await search_summaries(
            ctx.store, ctx.embedder, ctx.datasets, opts.query, opts.top_k, node_set_filter(opts)
        )
        return list(_with_breakdown(found) if opts.verbose else found)


def _with_breakdown(entries: list[ResponseGraphEntry]) -> list[ResponseGraphEntry]:
    """verbose=True: each result's score breakdown (similarity alone: every factor 1.0)."""
    out = []
    for entry in entries:
        breakdown = similarity_only_score(
            entry.score or 0.0, importance_weight=entry.raw.get("importance_weight")
        )
        raw = {**entry.raw, "score_breakdown": breakdown.as_dict()}
        out.append(entry.model_copy(update={"raw": raw}))
    return out


def node_set_filter(opts: RecallOptions) -> NodeSetFilter | None:
    """The ``node_name`` filter of ``opts`` (None when it names no node set)."""
    if not opts.node_name:
        return None
    return NodeSetFilter(tuple(opts.node_name), opts.node_name_filter_operator)
