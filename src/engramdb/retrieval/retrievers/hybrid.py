"""HYBRID_COMPLETION: dense + BM25 chunk search fused with an entity/fact lane, at passage grain.

Why this shape (measured on LoCoMo dev with ``bench/locomo_hybrid.py``):

* **Two chunk lanes, fused by rank.** Dense search finds paraphrases, BM25 finds rare exact
  terms (names, numbers, product codes) that a small embedding model blurs. Their scores live
  on different scales (cosine distance vs. unbounded BM25), so they are fused with weighted
  reciprocal-rank fusion (RRF), which needs no calibration and degrades gracefully when one
  lane returns nothing (a dataset without vectors, a query without indexable words).
* **An entity/fact lane.** Vector hits on entity names are projected onto the chunks that
  contain them and join the fusion as one more lane; the relations of the hit entities become
  ``Subject —relation→ Object`` fact lines. An entity mentioned by many chunks (a
  conversation's speakers) says nothing about *which* chunk is relevant, so only specific
  entities are projected. A summary lane (hits on chunk summaries, projected onto the chunks
  they summarise) exists but is off by default (``summary_k=0``, see :class:`HybridConfig`).
* **A graph lane** (issue 18, multi-hop). From the question's entities and the best fused
  chunks, personalized PageRank over the entity–chunk graph
  (:mod:`engramdb.retrieval.graph_rank`) finds the chunks linked to them through a specific
  entity; their walked mass joins the fused score (``graph_weight``) and the best of them that
  is not the first passage's chunk is placed second (``bridge_slot``): a bridge question's
  second-hop paragraph lands right after the paragraph naming its entity. HotpotQA-50 context
  only @100 / @300 (bench/hotpotqa.py): 0.612 / 0.857 before, 0.653 / 0.878 with the lane and
  prose split; LoCoMo dev moved by one question per budget (0.858 / 0.940 -> 0.857 / 0.939).
* **Passages, not chunks.** A 256-token chunk holds several paragraphs (in a chat transcript,
  several turns) and usually only one of them answers the question. The best fused chunks are
  split into paragraphs (long paragraphs into sentence groups) and every passage is scored
  against the query: BM25 with light stemming and the candidate pool's statistics, plus the
  fused score of its chunk (which carries the dense and entity evidence), plus a share of its
  best neighbour's match (an answer often follows the turn that asked). The context lists the
  best passages one by one, then the rest of the best chunks, so the first words an LLM (or a
  word budget) reads are the most relevant ones, and nothing is repeated.
* **Importance weight.** The passage score (higher is better) is multiplied by
  :func:`engramdb.retrieval.ranking.hybrid_importance_factor` of its chunk's stored weight,
  through :func:`~engramdb.retrieval.ranking.hybrid_score` (which also folds in feedback weights
  when ``feedback_influence`` > 0), unless ``retriever_specific_config`` sets
  ``use_importance_weight`` to False. At the default weight 0.5 the factor is exactly 1.0.

Measured on LoCoMo dev (782 questions, ONNX MiniLM, strict per-passage reading @250/@750
content words): whole fused chunks in fused order 0.73 / 0.88; passages of the
best 16 chunks 0.81 / 0.90; 30 chunks 0.81 / 0.91; light stemming 0.83 / 0.92; function words
kept out of the BM25 query 0.83 / 0.93. RRF k=60 instead of 10 cost 4 / 3 points; the entity
lane adds 0.6 / 0.4; dense scoring of each passage would add 2 / 1 more but needs the passages
embedded, which at query time costs far more than the latency budget (see the bench notes).

Per-query work is bounded whatever the store size: one query embedding, three searches with a
fixed ``top_k``, three ``incident_edges`` reads for all entity hits together (capped per
entity, so a hub named in every chunk costs what a rare name does) and one node read for their
facts' endpoints, one node read for at most ``expand_chunks`` chunks; passage scoring touches
only the paragraphs of those chunks.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal
from uuid import UUID

from engramdb.engine import check_embedding
from engramdb.graph_schema import CHUNK_COLLECTION, ENTITY_COLLECTION, SUMMARY_COLLECTION
from engramdb.models.records import Dataset, Node, NodeType
from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.completion import BuiltContext, EvidenceItem, complete
from engramdb.retrieval.document_dates import date_label, document_dates, label_dates
from engramdb.retrieval.graph_rank import DEFAULT_WALK, GraphWalk, bridge_second, walk_chunks
from engramdb.retrieval.hybrid_options import sized_config
from engramdb.retrieval.passages import (
    STOPWORDS,
    WORD,
    Passage,
    PassageScoring,
    make_passages,
    score_passages,
    split_passages,
    stem,
    terms,
)
from engramdb.retrieval.retrievers.chunks import NodeSetFilter, node_set_filter
from engramdb.retrieval.truth_weight import truth_factors, weigh_by_truth
from engramdb.storage.base import FloatArray, ScoredId, Store

__all__ = [
    "DEFAULT_HYBRID_CONFIG",
    "CandidatePool",
    "ContextItem",
    "FactLine",
    "HybridConfig",
    "HybridRetriever",
    "Passage",
    "build_hybrid_context",
    "date_label",
    "document_dates",
    "gather_candidates",
    "hybrid_context_items",
    "make_passages",
    "order_items",
    "pool_passages",
    "render_context",
    "score_passages",
    "split_passages",
    "stem",
]

#: Relations that shape the graph rather than state a fact; never rendered as fact lines.
_STRUCTURAL_RELATIONS = frozenset({"contains", "is_a", "is_part_of", "summarizes"})
#: Facts read per hit entity and direction for the fact lines.
_FACTS_PER_ENTITY = 12


@dataclass(frozen=True, slots=True)
class HybridConfig:
    """Tuning of the hybrid retriever. The defaults are the best measured on LoCoMo dev; the
    scores they reach were flat (±0.5 points) around them for every knob tried (see
    bench/locomo_hybrid.py)."""

    #: Chunks asked of the dense and of the BM25 lane.
    dense_k: int = 40
    lexical_k: int = 40
    #: Entity and summary vector hits asked of the entity lane. The summary lane is off by
    #: default: on LoCoMo dev it moved recall by noise only (12 hits: 0.855 / 0.945 @250 / @750,
    #: none: 0.858 / 0.940) while its search is a third of the query's vector work, the
    #: difference between 54 and ~45 ms p50 at 100k chunks.
    entity_k: int = 12
    summary_k: int = 0
    #: Reciprocal-rank-fusion constant: lower trusts the top ranks of each lane more.
    rrf_k: float = 10.0
    dense_weight: float = 1.0
    lexical_weight: float = 1.0
    summary_weight: float = 0.5
    entity_weight: float = 0.5
    #: An entity contained in more chunks than this is too generic to point at any of them.
    entity_max_chunks: int = 6
    #: Weight of the graph lane: chunks ranked by personalized PageRank from the question's
    #: entities and the best fused chunks over the entity–chunk graph (0 turns it off; see
    #: :mod:`engramdb.retrieval.graph_rank`). It brings a multi-hop question's second-hop
    #: paragraph, which shares few words with the question, into the pool.
    #: Off by default until it is measured not to cost LoCoMo dev or HYBRID latency (the one
    #: run so far: HotpotQA-50 up, LoCoMo dev one question down per budget); the lane's figures
    #: come from ``MULTI_HOP`` below.
    graph_weight: float = 0.0
    walk: GraphWalk = DEFAULT_WALK
    #: Move the walk's best chunk (other than the first passage's) to second place.
    bridge_slot: bool = False
    #: How many of the best fused chunks are split into passages (at least ``top_k``).
    expand_chunks: int = 30
    #: Passage relevance = lexical * passage_lexical + chunk prior * chunk_prior
    #: + best neighbour's lexical * neighbour, each on a 0..1 scale.
    passage_lexical: float = 1.0
    chunk_prior: float = 0.6
    neighbour: float = 0.3
    #: Paragraphs longer than this (words) are split into groups of sentences.
    max_passage_words: int = 150
    #: A chunk that is a single paragraph (prose) is split into sentence groups of at most
    #: this many words, so that the sentence naming a bridge entity or holding the answer is
    #: ranked on its own (HotpotQA-50 @300: 0.857 -> 0.878); transcripts keep their turns.
    prose_passage_words: int | None = None
    #: This many passages are ranked one by one; the rest of their chunks follow whole.
    ranked_passages: int = 40
    #: Fact lines appended after the passages.
    max_fact_lines: int = 5
    #: Upper bound of the rendered context, in whitespace-separated words.
    context_words: int = 2000
    #: Prefix each passage with its document's date ("[8 May 2023] ..."). TEMPORAL turns it on.
    date_labels: bool = False
    #: BM25 parameters of passage scoring.
    bm25_k1: float = 1.2
    bm25_b: float = 0.75

    @property
    def scoring(self) -> PassageScoring:
        """The passage-scoring part of this configuration."""
        return PassageScoring(
            self.passage_lexical, self.chunk_prior, self.neighbour, self.bm25_k1, self.bm25_b
        )


#: The multi-hop configuration measured on HotpotQA-50 (bench/hotpotqa.py): the graph lane,
#: the bridge slot and the prose split on.
MULTI_HOP = HybridConfig(graph_weight=0.1, bridge_slot=True, prose_passage_words=50)


DEFAULT_HYBRID_CONFIG = HybridConfig()


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One entry of a hybrid context, in final order: a passage of a chunk or a fact line.

    ``score`` is the ranking score, higher is better (importance weight included).
    """

    text: str
    chunk_id: str
    score: float
    kind: Literal["passage", "fact"] = "passage"
    data_id: str | None = None
    chunk_index: int | None = None
    document_name: str | None = None
    dataset_id: UUID | None = None
    #: Human-readable date of the passage's document, when it has one ("8 May 2023").
    date: str | None = None


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


# --- candidates -------------------------------------------------------------------------------


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


# --- passages ---------------------------------------------------------------------------------


def pool_passages(
    pool: CandidatePool, query: str, opts: RecallOptions, config: HybridConfig
) -> list[Passage]:
    """The passages of the pool's chunks, scored against ``query``, best first."""
    passages = make_passages(pool.chunks, config.max_passage_words, config.prose_passage_words)
    return score_passages(passages, pool.chunks, query, opts, config.scoring)


def _item(text: str, chunk: Node, score: float, date: str | None) -> ContextItem:
    props = chunk.properties
    index = props.get("chunk_index")
    data_id = props.get("data_id")
    name = props.get("document_name")
    return ContextItem(
        text=text,
        chunk_id=str(chunk.id),
        score=score,
        data_id=str(data_id) if data_id is not None else None,
        chunk_index=index if isinstance(index, int) else None,
        document_name=str(name) if name is not None else None,
        dataset_id=chunk.dataset_id,
        date=date,
    )


def order_items(
    passages: Sequence[Passage],
    chunk_order: Sequence[Node],
    facts: Sequence[FactLine],
    config: HybridConfig,
) -> list[ContextItem]:
    """The context in final order: the best ``ranked_passages`` passages one by one, then the
    remaining passages chunk by chunk (in ``chunk_order``), then the fact lines; identical
    texts once only; cut before ``context_words`` words would be exceeded."""
    items: list[ContextItem] = []
    seen: set[str] = set()
    words = 0

    def push(item: ContextItem) -> bool:
        nonlocal words
        key = " ".join(item.text.split()).casefold()
        if key in seen:
            return True
        n = len(item.text.split())
        if words + n > config.context_words:
            return False
        seen.add(key)
        items.append(item)
        words += n
        return True

    ranked = passages[: config.ranked_passages]
    for p in ranked:
        if not push(_item(p.text, p.chunk, p.score, p.date)):
            return items
    used = {(p.chunk.id, p.position) for p in ranked}
    rest: dict[UUID, list[Passage]] = {}
    for p in passages:
        if (p.chunk.id, p.position) not in used:
            rest.setdefault(p.chunk.id, []).append(p)
    for chunk in chunk_order:
        group = sorted(rest.pop(chunk.id, []), key=lambda p: p.position)
        if group:
            text = "\n".join(p.text for p in group)
            if not push(_item(text, chunk, max(p.score for p in group), group[0].date)):
                return items
    for fact in facts:
        if not push(
            ContextItem(text=fact.text, chunk_id=fact.chunk_id, score=fact.score, kind="fact")
        ):
            break
    return items


async def hybrid_context_items(
    ctx: RetrievalContext,
    opts: RecallOptions,
    config: HybridConfig = DEFAULT_HYBRID_CONFIG,
) -> list[ContextItem]:
    """The hybrid context for ``opts.query`` as items (text, chunk id, score, …) in final
    order, without rendering or completion. The benchmark reads these."""
    config = sized_config(config, opts)
    pool = await gather_candidates(ctx, opts.query, config, node_set_filter(opts))
    passages = pool_passages(pool, opts.query, opts, config)
    factors = await truth_factors(ctx, opts, [c for c, _ in pool.chunks], pool.query_vector)
    passages, chunk_order = weigh_by_truth(passages, pool.chunks, factors)
    if config.bridge_slot:
        passages = bridge_second(passages, pool.walked)
    if config.date_labels:
        await label_dates(ctx, passages)
    return order_items(passages, chunk_order, pool.facts, config)


def render_context(items: Sequence[ContextItem]) -> str:
    """Passages as paragraphs (``[date] `` first when labelled), then the fact lines under a
    ``Facts:`` heading."""
    passages = [f"[{i.date}] {i.text}" if i.date else i.text for i in items if i.kind == "passage"]
    facts = [i.text for i in items if i.kind == "fact"]
    parts = ["\n\n".join(passages)] if passages else []
    if facts:
        parts.append("Facts:\n" + "\n".join(facts))
    return "\n\n".join(parts)


def build_hybrid_context(items: Sequence[ContextItem]) -> BuiltContext:
    """The completion context: the rendered items, and one ``segment`` evidence entry per chunk
    cited (in order of first appearance) for the ``Evidence:`` block. HYBRID_COMPLETION and
    TEMPORAL keep ``metadata`` empty (recall.md's Evidence table), hence
    ``evidence_in_metadata=False``."""
    evidence: list[EvidenceItem] = []
    seen: set[str] = set()
    for item in items:
        if item.kind != "passage" or item.chunk_id in seen:
            continue
        seen.add(item.chunk_id)
        evidence.append(
            EvidenceItem(
                kind="segment",
                artifact_id=item.chunk_id,
                rank=len(evidence),
                score=item.score,
                data_id=item.data_id,
                chunk_id=item.chunk_id,
                chunk_index=item.chunk_index,
                document_name=item.document_name,
                snippet=item.text,
            )
        )
    return BuiltContext(
        text=render_context(items),
        evidence=evidence,
        evidence_in_metadata=False,
        raw={"chunk_ids": [e.artifact_id for e in evidence]},
    )


class HybridRetriever(Retriever):
    """HYBRID_COMPLETION: passages from fused dense + BM25 + entity lanes, answered by
    :func:`~engramdb.retrieval.completion.complete` (only_context, references, structured
    output and the no-LLM error are handled there)."""

    search_types = frozenset({SearchType.HYBRID_COMPLETION})
    supports_node_name = True

    def __init__(self, config: HybridConfig = DEFAULT_HYBRID_CONFIG) -> None:
        self.config = config

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        items = await hybrid_context_items(ctx, opts, self.config)
        return list(await complete(ctx, opts, build_hybrid_context(items)))
