"""HYBRID_COMPLETION: dense + BM25 chunk search fused with an entity/fact lane, at passage grain.

The tuning is :class:`~engramdb.retrieval.hybrid_options.HybridConfig`, the lanes and their
fusion live in :mod:`.hybrid_candidates`, the context's order and rendering in
:mod:`.hybrid_context`; this module passes one to the other and names them all.

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

from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.completion import complete
from engramdb.retrieval.document_dates import date_label, document_dates, label_dates
from engramdb.retrieval.graph_rank import bridge_second
from engramdb.retrieval.hybrid_options import (
    DEFAULT_HYBRID_CONFIG,
    MULTI_HOP,
    HybridConfig,
    sized_config,
)
from engramdb.retrieval.passages import Passage, make_passages, score_passages, split_passages, stem
from engramdb.retrieval.retrievers.chunks import node_set_filter
from engramdb.retrieval.retrievers.hybrid_candidates import (
    CandidatePool,
    FactLine,
    gather_candidates,
    lexical_query,
)
from engramdb.retrieval.retrievers.hybrid_context import (
    ContextItem,
    build_hybrid_context,
    order_items,
    render_context,
)
from engramdb.retrieval.truth_weight import truth_factors, weigh_by_truth

__all__ = [
    "DEFAULT_HYBRID_CONFIG",
    "MULTI_HOP",
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
    "lexical_query",
    "make_passages",
    "order_items",
    "pool_passages",
    "render_context",
    "score_passages",
    "split_passages",
    "stem",
]


def pool_passages(
    pool: CandidatePool, query: str, opts: RecallOptions, config: HybridConfig
) -> list[Passage]:
    """The passages of the pool's chunks, scored against ``query``, best first."""
    passages = make_passages(pool.chunks, config.max_passage_words, config.prose_passage_words)
    return score_passages(passages, pool.chunks, query, opts, config.scoring)


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
