"""TEMPORAL: hybrid retrieval filtered and ordered by the absolute date a question names.

"What happened in 2019?", "before July 1969", "on 8 May 2023", "between 2020 and 2021": the
question's date becomes a window (:func:`engramdb.retrieval.dates.parse_time_constraint`), and
every candidate passage is dated from

* dates written in the passage itself ("In March 2019 we moved"), and
* its document's date, from ``external_metadata`` ("date", "effective_date", "timestamp", …;
  the LoCoMo bench stores the session date there, e.g. "1:56 pm on 8 May, 2023"), and
* when neither exists, dates written elsewhere in its chunk (a section header).

Each passage is judged by :func:`engramdb.retrieval.dates.judge`: *matched* passages (a date in
the window) are boosted (x1.5), *contradicted* ones (their own dates all outside the window, or
a document written before the window starts — text looks back, not ahead) are demoted (x0.5),
and the rest (undated, or written later and possibly looking back) keep their hybrid score.
Why soft factors rather than a hard filter: a document's date is when it was written, not when
its events happened, plans look ahead ("I'll be in Boston on July 12"), and questions misdate
things. On LoCoMo's 96 dated questions, dropping contradicted passages scored 0.781 / 0.812
(@250 / @750, strict items) — below plain hybrid's 0.771 / 0.865 at 750 — while demoting
them scored 0.823 / 0.896. ``contradict_factor=0`` restores the hard filter. Fact lines are
judged the same way (contradicted facts are left out: they are only a few lines at the end).

Candidates come from the hybrid lanes (:mod:`.hybrid`) with a deeper pool (the date lifts
passages from further down), and the importance weight enters exactly as in hybrid. A question
without a parsable absolute date is answered like HYBRID_COMPLETION (the router only sends
dated questions here, but a pinned ``query_type=TEMPORAL`` may carry any question). Passages
are labelled with their document's date in the rendered context, so the model can reason about
time. Evidence is as for hybrid: segment entries in the ``Evidence:`` block, no metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from uuid import UUID

from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.completion import complete
from engramdb.retrieval.dates import (
    DateInterval,
    TimeConstraint,
    find_dates,
    judge,
    parse_time_constraint,
)
from engramdb.retrieval.ranking import rank_by_score
from engramdb.retrieval.retrievers.chunks import node_set_filter
from engramdb.retrieval.retrievers.hybrid import (
    DEFAULT_HYBRID_CONFIG,
    CandidatePool,
    ContextItem,
    FactLine,
    HybridConfig,
    Passage,
    build_hybrid_context,
    date_label,
    document_dates,
    gather_candidates,
    hybrid_context_items,
    order_items,
    pool_passages,
)

__all__ = [
    "DEFAULT_TEMPORAL_CONFIG",
    "TemporalConfig",
    "TemporalRetriever",
    "temporal_context_items",
]


_TEMPORAL_HYBRID = replace(DEFAULT_HYBRID_CONFIG, date_labels=True)


@dataclass(frozen=True, slots=True)
class TemporalConfig:
    """Tuning of TEMPORAL on top of the hybrid configuration it draws candidates with."""

    #: Hybrid settings, used as they are for a question without a date.
    hybrid: HybridConfig = _TEMPORAL_HYBRID
    #: With a date window the pool is deeper, because the filter discards part of it.
    filtered_search_k: int = 60
    filtered_expand_chunks: int = 45
    #: Matched passages' scores are multiplied by this.
    match_boost: float = 1.5
    #: Contradicted passages' scores are multiplied by this (0 would drop them).
    contradict_factor: float = 0.5


DEFAULT_TEMPORAL_CONFIG = TemporalConfig()


def _written_dates(
    passage: Passage,
    doc_dates: dict[str, list[DateInterval]],
    chunk_dates: dict[UUID, list[DateInterval]],
) -> list[DateInterval]:
    """When the passage was written: its document's metadata date, else dates elsewhere in its
    chunk (a dated header)."""
    document = doc_dates.get(str(passage.chunk.properties.get("data_id")), [])
    return document or chunk_dates.get(passage.chunk.id, [])


async def _fact_dates(
    ctx: RetrievalContext, facts: Sequence[FactLine], doc_dates: dict[str, list[DateInterval]]
) -> list[list[DateInterval]]:
    """Each fact's written dates: its source chunk's document date (its stated dates are
    found in its text by the caller)."""
    sources: list[UUID] = []
    for fact in facts:
        try:
            sources.append(UUID(fact.chunk_id))
        except ValueError:
            continue
    chunks = {str(c.id): c for c in await ctx.store.get_nodes(sources)}
    missing = [c for c in chunks.values() if str(c.properties.get("data_id")) not in doc_dates]
    if missing:
        doc_dates = {**doc_dates, **await document_dates(ctx, missing)}
    out: list[list[DateInterval]] = []
    for fact in facts:
        chunk = chunks.get(fact.chunk_id)
        document = (
            doc_dates.get(str(chunk.properties.get("data_id")), []) if chunk is not None else []
        )
        out.append(document)
    return out


async def temporal_context_items(
    ctx: RetrievalContext,
    opts: RecallOptions,
    config: TemporalConfig = DEFAULT_TEMPORAL_CONFIG,
) -> list[ContextItem]:
    """The TEMPORAL context for ``opts.query`` as items in final order (passages that survive
    the date window, boosted when they match it, then surviving fact lines); hybrid's, with
    date labels, when the question names no date."""
    constraint = parse_time_constraint(opts.query)
    if constraint is None:
        return await hybrid_context_items(ctx, opts, config.hybrid)
    return await _filtered(ctx, opts, constraint, config)


async def _filtered(
    ctx: RetrievalContext,
    opts: RecallOptions,
    constraint: TimeConstraint,
    config: TemporalConfig,
) -> list[ContextItem]:
    hybrid = replace(
        config.hybrid,
        dense_k=max(config.hybrid.dense_k, config.filtered_search_k, opts.top_k),
        lexical_k=max(config.hybrid.lexical_k, config.filtered_search_k, opts.top_k),
        expand_chunks=max(config.filtered_expand_chunks, opts.top_k),
    )
    pool: CandidatePool = await gather_candidates(ctx, opts.query, hybrid, node_set_filter(opts))
    chunks = [chunk for chunk, _ in pool.chunks]
    doc_dates = await document_dates(ctx, chunks)
    chunk_dates = {chunk.id: find_dates(chunk.text) for chunk in chunks}
    passages = pool_passages(pool, opts.query, opts, hybrid)

    kept: list[Passage] = []
    for p in passages:
        written = _written_dates(p, doc_dates, chunk_dates)
        verdict = judge(constraint.window, find_dates(p.text), written)
        if verdict == "contradicts":
            if config.contradict_factor <= 0.0:
                continue
            p.score *= config.contradict_factor
        elif verdict == "match":
            p.score *= config.match_boost
        document = doc_dates.get(str(p.chunk.properties.get("data_id")), [])
        p.date = date_label(document[0]) if document else None
        kept.append(p)
    ordered = rank_by_score(kept, lambda p: p.score)
    # The tail follows the fused chunk order (measured better than best-passage order);
    # chunks with no surviving passage drop out of it.
    surviving = {p.chunk.id for p in ordered}
    chunk_order = [c for c in chunks if c.id in surviving]

    fact_dates = await _fact_dates(ctx, pool.facts, doc_dates)
    facts = [
        fact
        for fact, dates in zip(pool.facts, fact_dates, strict=True)
        if judge(constraint.window, find_dates(fact.text), dates) != "contradicts"
    ]
    return order_items(ordered, chunk_order, facts, hybrid)


class TemporalRetriever(Retriever):
    """TEMPORAL: hybrid candidates boosted or demoted by the question's date window, passages
    labelled with their document date; answered by
    :func:`~engramdb.retrieval.completion.complete`."""

    search_types = frozenset({SearchType.TEMPORAL})
    supports_node_name = True

    def __init__(self, config: TemporalConfig = DEFAULT_TEMPORAL_CONFIG) -> None:
        self.config = config

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        items = await temporal_context_items(ctx, opts, self.config)
        return list(await complete(ctx, opts, build_hybrid_context(items)))
