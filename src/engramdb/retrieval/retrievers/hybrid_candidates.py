"""HYBRID_COMPLETION's candidates: the dense, BM25, entity (and summary) lanes fused by
weighted reciprocal rank, the graph lane's walk, and the fact lines of the hit entities (see
:mod:`engramdb.retrieval.retrievers.hybrid` for why this shape)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from uuid import UUID

from engramdb.engine import check_embedding
from engramdb.graph_schema import CHUNK_COLLECTION, ENTITY_COLLECTION, SUMMARY_COLLECTION
from engramdb.models.records import Dataset, Node, NodeType
from engramdb.retrieval.base import RetrievalContext
from engramdb.retrieval.graph_rank import walk_chunks
from engramdb.retrieval.hybrid_options import DEFAULT_HYBRID_CONFIG, HybridConfig
from engramdb.retrieval.passages import STOPWORDS, WORD, terms
from engramdb.retrieval.retrievers.chunks import NodeSetFilter
from engramdb.storage.base import FloatArray, ScoredId, Store

__all__ = ["CandidatePool", "FactLine", "gather_candidates", "lexical_query"]

#: Relations that shape the graph rather than state a fact; never rendered as fact lines.
_STRUCTURAL_RELATIONS = frozenset({"contains", "is_a", "is_part_of", "summarizes"})
#: Facts read per hit entity and direction for the fact lines.
_FACTS_PER_ENTITY = 12


@dataclass(frozen=True, slots=True)
class FactLine:
    """A relation among hit entities, rendered ``Subject —relation→ Object``."""

    text: str
    score: float
    #: The chunk the relation was extracted from ("" when unknown).
    chunk_id: str


@dataclass(slots=True)
class CandidatePool:
    """What the lanes found for one query: fused chunks (best first) and fact lines."""

    #: Chunk nodes in fused order with their fused score (higher is better).
    chunks: list[tuple[Node, float]] = field(default_factory=list)
    facts: list[FactLine] = field(default_factory=list)
    #: Chunks the graph walk ranked, best first (empty when the graph lane is off).
    walked: list[UUID] = field(default_factory=list)
    #: The query's embedding (None when no dataset searched holds vectors).
    query_vector: FloatArray | None = None


async def gather_candidates(
    ctx: RetrievalContext,
    query: str,
    config: HybridConfig = DEFAULT_HYBRID_CONFIG,
    node_filter: NodeSetFilter | None = None,
) -> CandidatePool:
    """Run the lanes for ``query`` within ``ctx.datasets`` and fuse them (weighted RRF) into
    at most ``config.expand_chunks`` ranked chunks plus fact lines.

    With ``node_filter`` (recall's ``node_name``) the chunk lanes fetch wider, and only chunks
    passing the filter, and facts extracted from such chunks, are kept."""
    datasets = list(ctx.datasets)
    if not datasets:
        return CandidatePool()
    if node_filter is not None:
        config = replace(
            config,
            dense_k=node_filter.widen(config.dense_k),
            lexical_k=node_filter.widen(config.lexical_k),
        )
    store = ctx.store
    # BM25 needs no embedding: start it first so it overlaps the query embedding.
    lexical_task = asyncio.ensure_future(
        store.lexical_search(
            CHUNK_COLLECTION, lexical_query(query), [d.id for d in datasets], config.lexical_k
        )
    )
    dense: list[ScoredId] = []
    summaries: list[ScoredId] = []
    entities: list[ScoredId] = []
    vector: FloatArray | None = None
    try:
        searchable = _searchable(datasets, ctx)
        if searchable:
            vector = (await ctx.embedder.embed([query]))[0]
            ids = [d.id for d in searchable]
            dense, summaries, entities = await asyncio.gather(
                store.vector_search(CHUNK_COLLECTION, vector, ids, config.dense_k),
                _maybe_search(store, SUMMARY_COLLECTION, vector, ids, config.summary_k),
                store.vector_search(ENTITY_COLLECTION, vector, ids, config.entity_k),
            )
    finally:
        lexical = await lexical_task

    fused: dict[UUID, float] = {}

    def add_lane(hits: Sequence[UUID], weight: float) -> None:
        for rank, node_id in enumerate(dict.fromkeys(hits)):
            fused[node_id] = fused.get(node_id, 0.0) + weight / (config.rrf_k + rank + 1)

    add_lane([h.node_id for h in dense], config.dense_weight)
    add_lane([h.node_id for h in lexical], config.lexical_weight)
    if summaries:
        summary_nodes = await store.get_nodes([h.node_id for h in summaries])
        add_lane(_summary_chunks(summary_nodes), config.summary_weight)
    entity_chunks, facts = await _entity_lane(ctx, entities, query, config)
    add_lane(entity_chunks, config.entity_weight)
    walked: list[tuple[UUID, float]] = []
    if config.graph_weight > 0 and fused:
        seeds = sorted(fused.items(), key=lambda kv: -kv[1])
        similarity = {h.node_id: 1.0 - h.score for h in entities}
        walked = await walk_chunks(store, query, seeds, similarity, config.walk)
        if walked:
            # The walk's mass, scaled so that its best chunk gains graph_weight times the
            # best fused score.
            gain = config.graph_weight * seeds[0][1] / walked[0][1]
            for chunk_id, mass in walked:
                fused[chunk_id] = fused.get(chunk_id, 0.0) + gain * mass

    ranked = sorted(fused.items(), key=lambda kv: -kv[1])
    read = config.expand_chunks if node_filter is None else node_filter.widen(config.expand_chunks)
    best = ranked[:read]
    nodes = {n.id: n for n in await store.get_nodes([node_id for node_id, _ in best])}
    chunks = [
        (nodes[node_id], score)
        for node_id, score in best
        if node_id in nodes
        and nodes[node_id].type == NodeType.CHUNK
        and (node_filter is None or node_filter.matches(nodes[node_id]))
    ][: config.expand_chunks]
    if node_filter is not None:
        facts = await _facts_from_matching_chunks(ctx, facts, node_filter)
    return CandidatePool(
        chunks=chunks, facts=facts, walked=[c for c, _ in walked], query_vector=vector
    )


async def _facts_from_matching_chunks(
    ctx: RetrievalContext, facts: Sequence[FactLine], node_filter: NodeSetFilter
) -> list[FactLine]:
    """The facts whose source chunk passes ``node_filter`` (a fact of unknown source does not)."""
    ids = list(dict.fromkeys(UUID(f.chunk_id) for f in facts if f.chunk_id))
    chunks = await ctx.store.get_nodes(ids, provenance=False) if ids else []
    kept = {str(c.id) for c in chunks if node_filter.matches(c)}
    return [f for f in facts if f.chunk_id in kept]


async def _maybe_search(
    store: Store, collection: str, vector: FloatArray, ids: list[UUID], k: int
) -> list[ScoredId]:
    """``store.vector_search``, skipped outright when no hit is wanted (``k`` <= 0)."""
    return await store.vector_search(collection, vector, ids, k) if k > 0 else []


def lexical_query(query: str) -> str:
    """The query without function words, for the full-text lane: they weigh ~0 in BM25 but
    their long posting lists dominate its cost on a large store. Unchanged when nothing
    else is left."""
    words = [w for w in WORD.findall(query) if w.lower() not in STOPWORDS]
    return " ".join(words) if words else query


def _searchable(datasets: Sequence[Dataset], ctx: RetrievalContext) -> list[Dataset]:
    """Datasets holding vectors, checked against the embedder (a mismatch raises)."""
    out = [d for d in datasets if d.embedding_model is not None]
    for dataset in out:
        check_embedding(dataset, ctx.embedder)
    return out


def _summary_chunks(summaries: Sequence[Node]) -> list[UUID]:
    """The chunk each summary hit summarises, in hit order."""
    out: list[UUID] = []
    for node in summaries:
        raw = node.properties.get("chunk_id")
        if isinstance(raw, str):
            try:
                out.append(UUID(raw))
            except ValueError:
                continue
    return out


async def _entity_lane(
    ctx: RetrievalContext, hits: Sequence[ScoredId], query: str, config: HybridConfig
) -> tuple[list[UUID], list[FactLine]]:
    """Chunks containing specific hit entities (in hit order) and the hit entities' facts."""
    if not hits:
        return [], []
    similarity = {h.node_id: 1.0 - h.score for h in hits}
    ids = list(dict.fromkeys(h.node_id for h in hits))
    structural = sorted(_STRUCTURAL_RELATIONS)
    read = functools.partial(ctx.store.incident_edges, ids, provenance=False)
    # Per entity: enough containing chunks to tell whether it is specific (one more than
    # entity_max_chunks), and a few facts each way; never a hub's whole fan-out.
    contained, outgoing, incoming = await asyncio.gather(
        read(direction="in", relations=["contains"], limit_per_node=config.entity_max_chunks + 1),
        read(direction="out", exclude_relations=structural, limit_per_node=_FACTS_PER_ENTITY),
        read(direction="in", exclude_relations=structural, limit_per_node=_FACTS_PER_ENTITY),
    )
    contained_by: dict[UUID, list[UUID]] = {}
    for edge in contained:
        contained_by.setdefault(edge.target_id, []).append(edge.source_id)
    chunks: list[UUID] = []
    for entity_id in ids:
        found_in = contained_by.get(entity_id, [])
        if 0 < len(found_in) <= config.entity_max_chunks:
            chunks.extend(found_in)
    facts = [*outgoing, *incoming]
    endpoints = list(dict.fromkeys(n for e in facts for n in (e.source_id, e.target_id)))
    nodes = await ctx.store.get_nodes(endpoints, provenance=False) if endpoints else []
    names = {n.id: n.name for n in nodes if n.type == NodeType.ENTITY}
    found: dict[tuple[UUID, str, UUID], tuple[float, str]] = {}
    for edge in facts:
        key = (edge.source_id, edge.relation, edge.target_id)
        score = similarity.get(edge.source_id, 0.0) + similarity.get(edge.target_id, 0.0)
        previous = found.get(key, (0.0, ""))[0]
        found[key] = (max(score, previous), str(edge.properties.get("chunk_id", "")))
    query_terms = set(terms(query))
    lines: list[FactLine] = []
    for (source, relation, target), (score, chunk_id) in found.items():
        if source not in names or target not in names:
            continue
        text = f"{names[source]} —{relation.replace('_', ' ')}→ {names[target]}"
        # Entity similarity ranks facts; words shared with the question break near-ties.
        overlap = len(query_terms & set(terms(text)))
        lines.append(FactLine(text, score + 0.5 * overlap, chunk_id))
    lines.sort(key=lambda f: -f.score)
    return chunks, lines[: config.max_fact_lines]
