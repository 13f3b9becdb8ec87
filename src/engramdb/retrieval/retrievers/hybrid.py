"""HYBRID_COMPLETION: dense + BM25 chunk search fused with an entity/fact lane, at passage grain.

Why this shape (measured on LoCoMo, see ``bench/locomo_hybrid.py``):

* **Two chunk lanes, fused by rank.** Dense search finds paraphrases, BM25 finds rare exact
  terms (names, numbers, product codes) that a small embedding model blurs. Their scores live
  on different scales (cosine distance vs. unbounded BM25), so they are fused with weighted
  reciprocal-rank fusion, which needs no calibration and degrades gracefully when one lane
  returns nothing.
* **An entity/fact lane.** Vector hits on entity names and chunk summaries are projected onto
  the chunks that contain / are summarised by them and join the fusion as a third lane; the
  relations among the hit entities become ``Subject —relation→ Object`` fact lines. Entities
  mentioned by many chunks (a conversation's speakers) say nothing about *which* chunk is
  relevant, so only specific entities are projected.
* **Passages, not chunks.** A 256-token chunk holds several paragraphs (in a chat transcript,
  several turns), and usually only one answers the question. The best chunks are split into
  paragraphs (long paragraphs into sentence groups) and each passage is scored against the
  query: lexically (BM25 with the candidate pool's statistics), plus the fused score of its
  chunk, plus a share of its neighbours' match (an answer often follows the turn that asked).
  The context lists the best passages first, then the rest of the best chunks, so the first
  words an LLM (or a word budget) reads are the most relevant ones.
* **Importance weight.** The final score, higher is better, is multiplied by
  :func:`engramdb.retrieval.ranking.hybrid_importance_factor` of the chunk's stored weight
  (through :func:`~engramdb.retrieval.ranking.hybrid_score`, which also folds in feedback
  weights when ``feedback_influence`` > 0), unless ``retriever_specific_config`` sets
  ``use_importance_weight`` to False.

Per-query work is bounded whatever the store size: four searches with fixed ``top_k``, one
node read for at most ``expand_chunks`` chunks, and one bounded neighbourhood read per entity
hit; passage scoring touches only the paragraphs of those chunks.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal
from uuid import UUID

from engramdb.engine import check_embedding
from engramdb.ingest.chunkers import sentence_spans
from engramdb.ingest.graph_builder import CHUNK_COLLECTION, ENTITY_COLLECTION, SUMMARY_COLLECTION
from engramdb.models.records import Dataset, Node, NodeType
from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.completion import BuiltContext, EvidenceItem, complete
from engramdb.retrieval.ranking import hybrid_score, rank_by_score
from engramdb.storage.base import FloatArray, ScoredId

__all__ = [
    "DEFAULT_HYBRID_CONFIG",
    "CandidatePool",
    "ContextItem",
    "HybridConfig",
    "HybridRetriever",
    "build_hybrid_context",
    "gather_candidates",
    "hybrid_context_items",
    "render_context",
    "split_passages",
]

#: Relations that shape the graph rather than state a fact; never rendered as fact lines.
_STRUCTURAL_RELATIONS = frozenset({"contains", "is_a", "is_part_of", "summarizes"})

_WORD = re.compile(r"[^\W_]+")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
#: Function words: they match almost every passage, so they carry no evidence of relevance.
_STOPWORDS = frozenset(
    """
    a an the and or but if then else of to in on at by for with from as into onto about over
    under after before up down out off again further once than so too very just also only own
    same such both each few more most other some any all no nor not
    is are was were be been being am do does did doing have has had having
    can could will would shall should may might must
    i me my mine myself we us our ours you your yours he him his she her hers it its they them
    their theirs this that these those there here what which who whom whose when where why how
    s t d m ll re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn haven hasn
    """.split()
)


_VOWEL = re.compile(r"[aeiouy]")


def stem(word: str) -> str:
    """A light English suffix stripper, so "researching", "researched" and "research" meet.

    Deliberately conservative (plural and -ing/-ed/-ly endings only, stems of at least three
    letters with a vowel): a wrong merge costs precision at the top of the context, which is
    worth more than the odd missed inflection.
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("ly", ""),
                         ("es", ""), ("s", "")):
        if not word.endswith(suffix) or word.endswith(("ss", "us", "is")) and suffix == "s":
            continue
        base = word[: -len(suffix)] + repl
        if len(base) < 3 or not _VOWEL.search(base):
            continue
        if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
            base = word[:-1]  # "notes" -> "note", "boxes" -> "box"
        if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
            base = base[:-1]  # "running" -> "run", but "falling" -> "fall"
        return _drop_e(base)
    return _drop_e(word)


def _drop_e(word: str) -> str:
    """"hike", "hiked" and "hiking" all end up as "hik"."""
    return word[:-1] if len(word) > 3 and word.endswith("e") and not word.endswith("ee") else word


def _terms(text: str) -> list[str]:
    """Stemmed lower-cased word tokens without function words, in order (with repeats)."""
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


@dataclass(frozen=True, slots=True)
class HybridConfig:
    """Tuning of the hybrid retriever; the defaults are the measured best on LoCoMo dev."""

    #: Chunks asked of the dense and the BM25 lane.
    dense_k: int = 40
    lexical_k: int = 40
    #: Entity and summary vector hits asked of the entity lane.
    entity_k: int = 12
    summary_k: int = 12
    #: Reciprocal-rank-fusion constant: lower trusts the top ranks of each lane more.
    rrf_k: float = 10.0
    dense_weight: float = 1.0
    lexical_weight: float = 1.0
    summary_weight: float = 0.5
    entity_weight: float = 0.5
    #: An entity contained in more chunks than this is too generic to point at any of them.
    entity_max_chunks: int = 6
    #: How many of the best fused chunks are split into passages and scored.
    expand_chunks: int = 16
    #: Passage score = lexical * passage_lexical + chunk prior * chunk_prior
    #: + best neighbour's lexical * neighbour (all three on a 0..1 scale).
    passage_lexical: float = 1.0
    chunk_prior: float = 0.6
    neighbour: float = 0.3
    #: Passages of this many of the best chunks are embedded and scored densely too.
    dense_passage_chunks: int = 0
    passage_dense: float = 1.0
    #: Passages longer than this (words) are split into groups of sentences.
    max_passage_words: int = 80
    #: After this many passages ranked one by one, the rest of the chunks follow whole.
    ranked_passages: int = 20
    #: Fact lines appended after the passages.
    max_fact_lines: int = 5
    #: Upper bound of the rendered context, in whitespace-separated words.
    context_words: int = 2000
    #: BM25 parameters of passage scoring.
    bm25_k1: float = 1.2
    bm25_b: float = 0.75


DEFAULT_HYBRID_CONFIG = HybridConfig()


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One entry of a hybrid context, in final order: a passage of a chunk or a fact line."""

    text: str
    chunk_id: str
    score: float
    kind: Literal["passage", "fact"] = "passage"
    data_id: str | None = None
    chunk_index: int | None = None
    document_name: str | None = None
    dataset_id: UUID | None = None


@dataclass(slots=True)
class CandidatePool:
    """What the lanes found for one query: fused chunks (best first) and fact lines."""

    #: Chunk nodes in fused order with their fused score (higher is better).
    chunks: list[tuple[Node, float]] = field(default_factory=list)
    #: Rendered fact lines with their score and the chunk each came from.
    facts: list[tuple[str, float, str]] = field(default_factory=list)
    #: The query's embedding (None when no dataset holds vectors).
    query_vector: FloatArray | None = None


# --- candidates -------------------------------------------------------------------------------


async def gather_candidates(
    ctx: RetrievalContext,
    query: str,
    config: HybridConfig = DEFAULT_HYBRID_CONFIG,
    *,
    lexical_query: str | None = None,
) -> CandidatePool:
    """Run the lanes for ``query`` and fuse them into ranked chunks plus fact lines.

    ``lexical_query`` replaces the text given to BM25 (TEMPORAL passes the question with its
    date phrase intact while the dense lanes see the same text; callers may differ).
    """
    datasets = list(ctx.datasets)
    if not datasets:
        return CandidatePool()
    dataset_ids = [d.id for d in datasets]
    store = ctx.store
    # BM25 needs no embedding: start it first so it overlaps the query embedding.
    lexical_task = asyncio.ensure_future(
        store.lexical_search(
            CHUNK_COLLECTION, lexical_query or query, dataset_ids, config.lexical_k
        )
    )
    dense: list[ScoredId] = []
    summaries: list[ScoredId] = []
    entities: list[ScoredId] = []
    searchable = _searchable(datasets, ctx)
    vector: FloatArray | None = None
    try:
        if searchable:
            vector = (await ctx.embedder.embed([query]))[0]
            ids = [d.id for d in searchable]
            dense, summaries, entities = await asyncio.gather(
                store.vector_search(CHUNK_COLLECTION, vector, ids, config.dense_k),
                store.vector_search(SUMMARY_COLLECTION, vector, ids, config.summary_k),
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

    summary_nodes = await store.get_nodes([h.node_id for h in summaries])
    add_lane(_summary_chunks(summary_nodes), config.summary_weight)

    entity_chunks, facts = await _entity_lane(ctx, entities, query, config)
    add_lane(entity_chunks, config.entity_weight)

    best = sorted(fused.items(), key=lambda kv: -kv[1])[: config.expand_chunks]
    nodes = {n.id: n for n in await store.get_nodes([node_id for node_id, _ in best])}
    chunks = [
        (nodes[node_id], score)
        for node_id, score in best
        if node_id in nodes and nodes[node_id].type == NodeType.CHUNK
    ]
    return CandidatePool(chunks=chunks, facts=facts, query_vector=vector)


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
) -> tuple[list[UUID], list[tuple[str, float, str]]]:
    """Chunks that contain specific hit entities (in hit order) and the hit entities' facts."""
    if not hits:
        return [], []
    similarity = {h.node_id: 1.0 - h.score for h in hits}
    # One bounded walk per entity: its chunks (cut off past entity_max_chunks) and relations.
    walks = [
        await ctx.store.neighbourhood([h.node_id], depth=1, limit=config.entity_max_chunks + 24)
        for h in hits
    ]
    chunks: list[UUID] = []
    names: dict[UUID, str] = {}
    facts: dict[tuple[UUID, str, UUID], tuple[float, str]] = {}
    query_terms = set(_terms(query))
    for hit, walk in zip(hits, walks, strict=True):
        for node in walk.nodes:
            if node.type == NodeType.ENTITY:
                names[node.id] = node.name
        contained_by = [
            e.source_id
            for e in walk.edges
            if e.relation == "contains" and e.target_id == hit.node_id
        ]
        if 0 < len(contained_by) <= config.entity_max_chunks:
            chunks.extend(contained_by)
        for edge in walk.edges:
            if edge.relation in _STRUCTURAL_RELATIONS:
                continue
            if hit.node_id not in (edge.source_id, edge.target_id):
                continue
            key = (edge.source_id, edge.relation, edge.target_id)
            score = similarity.get(edge.source_id, 0.0) + similarity.get(edge.target_id, 0.0)
            source_chunk = str(edge.properties.get("chunk_id", ""))
            facts[key] = (max(score, facts.get(key, (0.0, ""))[0]), source_chunk)
    lines: list[tuple[str, float, str]] = []
    for (source, relation, target), (score, chunk_id) in facts.items():
        if source not in names or target not in names:
            continue
        line = f"{names[source]} —{relation.replace('_', ' ')}→ {names[target]}"
        overlap = len(query_terms & set(_terms(line)))
        lines.append((line, score + 0.5 * overlap, chunk_id))
    lines.sort(key=lambda item: -item[1])
    return chunks, lines[: config.max_fact_lines]


# --- passages ---------------------------------------------------------------------------------


def split_passages(text: str, max_words: int = 80) -> list[str]:
    """A chunk's text as passages: its paragraphs, and long paragraphs as groups of sentences
    of at most ``max_words`` words (a sentence longer than that stays whole)."""
    out: list[str] = []
    for raw in _PARAGRAPH_BREAK.split(text):
        paragraph = raw.strip()
        if not paragraph:
            continue
        if len(paragraph.split()) <= max_words:
            out.append(paragraph)
            continue
        group: list[str] = []
        words = 0
        for start, end in sentence_spans(paragraph):
            sentence = paragraph[start:end]
            n = len(sentence.split())
            if group and words + n > max_words:
                out.append(" ".join(group))
                group, words = [], 0
            group.append(sentence)
            words += n
        if group:
            out.append(" ".join(group))
    return out


@dataclass(slots=True)
class _Passage:
    text: str
    chunk: Node
    chunk_rank: int
    position: int
    terms: Counter[str]
    lexical: float = 0.0
    dense: float = 0.0
    score: float = 0.0


def _bm25(passages: Sequence[_Passage], query_terms: Sequence[str], k1: float, b: float) -> None:
    """BM25 of every passage against the query, with the pool's own statistics."""
    n = len(passages)
    if not n:
        return
    avg = sum(sum(p.terms.values()) for p in passages) / n or 1.0
    unique = list(dict.fromkeys(query_terms))
    df = {t: sum(1 for p in passages if t in p.terms) for t in unique}
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in unique}
    for p in passages:
        length = sum(p.terms.values())
        score = 0.0
        for term in unique:
            tf = p.terms.get(term, 0)
            if tf:
                score += idf[term] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))
        p.lexical = score


def _make_passages(pool: CandidatePool, config: HybridConfig) -> list[_Passage]:
    passages: list[_Passage] = []
    for rank, (chunk, _) in enumerate(pool.chunks):
        for position, text in enumerate(split_passages(chunk.text, config.max_passage_words)):
            passages.append(_Passage(text, chunk, rank, position, Counter(_terms(text))))
    return passages


async def _dense_passages(
    ctx: RetrievalContext,
    pool: CandidatePool,
    passages: Sequence[_Passage],
    config: HybridConfig,
    cache: dict[str, FloatArray] | None,
) -> None:
    if pool.query_vector is None or config.dense_passage_chunks <= 0:
        return
    chosen = [p for p in passages if p.chunk_rank < config.dense_passage_chunks]
    cache = {} if cache is None else cache
    missing = list(dict.fromkeys(p.text for p in chosen if p.text not in cache))
    if missing:
        vectors = await ctx.embedder.embed(missing)
        for text, vec in zip(missing, vectors, strict=True):
            cache[text] = vec
    for p in chosen:
        p.dense = max(0.0, float(cache[p.text] @ pool.query_vector))


def _score_passages(
    passages: list[_Passage], pool: CandidatePool, query: str, opts: RecallOptions,
    config: HybridConfig
) -> list[_Passage]:
    """Every passage of the pool's chunks, scored (higher is better), best first."""
    if not passages:
        return []
    _bm25(passages, _terms(query), config.bm25_k1, config.bm25_b)
    top_lexical = max(p.lexical for p in passages) or 1.0
    top_fused = max(score for _, score in pool.chunks) or 1.0
    prior = {chunk.id: score / top_fused for chunk, score in pool.chunks}
    by_chunk: dict[UUID, list[_Passage]] = {}
    for p in passages:
        by_chunk.setdefault(p.chunk.id, []).append(p)
    for group in by_chunk.values():
        for i, p in enumerate(group):
            neighbours = [group[j].lexical for j in (i - 1, i + 1) if 0 <= j < len(group)]
            relevance = (
                config.passage_lexical * p.lexical / top_lexical
                + config.chunk_prior * prior[p.chunk.id]
                + config.neighbour * (max(neighbours, default=0.0) / top_lexical)
                + config.passage_dense * p.dense
            )
            p.score = _weighted(relevance, p.chunk, opts)
    return rank_by_score(passages, lambda p: p.score)


def _weighted(relevance: float, node: Node, opts: RecallOptions) -> float:
    """``relevance`` times the importance (and, when asked, feedback) factor of ``node``."""
    return hybrid_score(
        relevance,
        importance_weight=node.importance_weight,
        use_importance_weight=opts.use_importance_weight,
        feedback_weight=node.feedback_weight,
        feedback_influence=opts.feedback_influence,
    ).final


def _item(text: str, chunk: Node, score: float) -> ContextItem:
    props = chunk.properties
    index = props.get("chunk_index")
    data_id = props.get("data_id")
    name = props.get("document_name")
    return ContextItem(
        text=text,
        chunk_id=str(chunk.id),
        score=score,
        data_id=str(data_id) if data_id is not None else None,
        chunk_index=int(index) if isinstance(index, int) else None,
        document_name=str(name) if name is not None else None,
        dataset_id=chunk.dataset_id,
    )


def order_items(
    passages: Sequence[_Passage], pool: CandidatePool, config: HybridConfig
) -> list[ContextItem]:
    """The context in final order: the best ``ranked_passages`` passages one by one, then the
    remaining passages chunk by chunk (fused order), deduplicated, then the fact lines; cut at
    ``context_words`` words."""
    items: list[ContextItem] = []
    seen_text: set[str] = set()
    used: set[tuple[UUID, int]] = set()
    words = 0

    def push(text: str, chunk: Node, score: float) -> bool:
        nonlocal words
        key = " ".join(text.split()).casefold()
        if key in seen_text:
            return True
        n = len(text.split())
        if words + n > config.context_words:
            return False
        seen_text.add(key)
        items.append(_item(text, chunk, score))
        words += n
        return True

    for p in passages[: config.ranked_passages]:
        used.add((p.chunk.id, p.position))
        if not push(p.text, p.chunk, p.score):
            break
    rest: dict[UUID, list[_Passage]] = {}
    for p in passages:
        if (p.chunk.id, p.position) not in used:
            rest.setdefault(p.chunk.id, []).append(p)
    for chunk, _ in pool.chunks:
        group = sorted(rest.get(chunk.id, []), key=lambda p: p.position)
        if group:
            text = "\n".join(p.text for p in group)
            if not push(text, chunk, max(p.score for p in group)):
                break
    for line, score, chunk_id in pool.facts:
        n = len(line.split())
        if words + n > config.context_words:
            break
        items.append(ContextItem(text=line, chunk_id=chunk_id, score=score, kind="fact"))
        words += n
    return items


async def hybrid_context_items(
    ctx: RetrievalContext,
    opts: RecallOptions,
    config: HybridConfig = DEFAULT_HYBRID_CONFIG,
    cache: dict[str, FloatArray] | None = None,
) -> list[ContextItem]:
    """The hybrid context for ``opts.query`` as items (text, chunk id, score) in final order,
    without rendering or completion; the benchmark reads these."""
    pool = await gather_candidates(ctx, opts.query, config)
    passages = _make_passages(pool, config)
    await _dense_passages(ctx, pool, passages, config, cache)
    passages = _score_passages(passages, pool, opts.query, opts, config)
    return order_items(passages, pool, config)


def render_context(items: Sequence[ContextItem]) -> str:
    """Passages as paragraphs, then the fact lines under a ``Facts:`` heading."""
    passages = [i.text for i in items if i.kind == "passage"]
    facts = [i.text for i in items if i.kind == "fact"]
    parts = ["\n\n".join(passages)] if passages else []
    if facts:
        parts.append("Facts:\n" + "\n".join(facts))
    return "\n\n".join(parts)


def build_hybrid_context(items: Sequence[ContextItem]) -> BuiltContext:
    """The completion context: rendered items and one segment evidence entry per chunk cited
    (first appearance order), with no metadata evidence (the seed's Evidence table)."""
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
        raw={"chunk_ids": [e.chunk_id for e in evidence]},
    )


class HybridRetriever(Retriever):
    """HYBRID_COMPLETION: passages from fused dense + BM25 + entity lanes, then ``complete``."""

    search_types = frozenset({SearchType.HYBRID_COMPLETION})

    def __init__(self, config: HybridConfig = DEFAULT_HYBRID_CONFIG) -> None:
        self.config = config

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        config = replace(self.config, ranked_passages=max(self.config.ranked_passages, 1))
        items = await hybrid_context_items(ctx, opts, config)
        return list(await complete(ctx, opts, build_hybrid_context(items)))
