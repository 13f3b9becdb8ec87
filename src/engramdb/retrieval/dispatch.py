"""The graph lane of recall(): warm-up marker, the chosen retriever, the one retry as
HYBRID_COMPLETION, and the additive skill gate."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from engramdb.errors import FeatureNotAvailableError
from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext
from engramdb.retrieval.router import RouteDecision, should_retry_as_hybrid
from engramdb.retrieval.skill_gate import should_run_skill_gate, skill_gate_fires
from engramdb.retrieval.warmup import WarmupCache, check_warmup

__all__ = ["run_graph_lane"]

logger = logging.getLogger(__name__)

#: How many skills the gate appends at most.
_GATE_SKILLS = 3


async def run_graph_lane(
    ctx: RetrievalContext,
    opts: RecallOptions,
    decision: RouteDecision,
    *,
    lanes: list[str],
) -> list[RecallResponse]:
    """Results of the graph lane. A cold dataset set yields a marker when graph is the sole
    source (and ``[]`` when other lanes run too); only_context bypasses the marker."""
    settings = ctx.settings
    if settings.recall_warmup_shortcircuit and not opts.only_context:
        marker = await check_warmup(
            ctx.store,
            ctx.dataset_ids,
            threshold=settings.recall_warmup_threshold,
            cache=ctx.warmup if ctx.warmup is not None else WarmupCache(),
        )
        if marker is not None:
            return [marker] if lanes == ["graph"] else []

    gate: asyncio.Task[list[RecallResponse]] | None = None
    if should_run_skill_gate(
        enabled=settings.skill_gate_enabled,
        lanes=lanes,
        dataset_count=len(ctx.datasets),
        only_context=opts.only_context,
        query_type=opts.search_type,
    ) and skill_gate_fires(opts.query):
        gate = asyncio.create_task(_skills(ctx, opts))

    try:
        results = await _retrieve_with_retry(ctx, opts, decision)
    except BaseException:
        if gate is not None:
            gate.cancel()
        raise
    if gate is not None:
        results.extend(await gate)
    return results


async def _retrieve_with_retry(
    ctx: RetrievalContext, opts: RecallOptions, decision: RouteDecision
) -> list[RecallResponse]:
    try:
        results = await ctx.retriever(opts.search_type).retrieve(ctx, opts)
    except FeatureNotAvailableError:
        if not should_retry_as_hybrid(decision, rejected=True, result_count=0):
            raise
        return await _as_hybrid(ctx, opts)
    if should_retry_as_hybrid(decision, rejected=False, result_count=len(results)):
        return await _as_hybrid(ctx, opts)
    return results


async def _as_hybrid(ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
    hybrid = dataclasses.replace(opts, search_type=SearchType.HYBRID_COMPLETION)
    return await ctx.retriever(SearchType.HYBRID_COMPLETION).retrieve(ctx, hybrid)


async def _skills(ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
    """Matching skills for a procedural query; any failure contributes nothing (fail-safe)."""
    try:
        skill_opts = dataclasses.replace(opts, search_type=SearchType.SKILLS, top_k=_GATE_SKILLS)
        return await ctx.retriever(SearchType.SKILLS).retrieve(ctx, skill_opts)
    except Exception:  # additive and fail-safe by contract: never fails the recall
        logger.debug("skill gate lookup failed; contributing nothing", exc_info=True)
        return []
