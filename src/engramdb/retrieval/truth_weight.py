"""HYBRID_COMPLETION's truth weight: rank toward what conversations established.

With ``retriever_specific_config={"use_truth_weight": True}`` (off by default, as in the
reference) every candidate chunk's score is multiplied by
:func:`~engramdb.retrieval.ranking.truth_factor` — beside the importance, feedback and personal
factors — computed from the centroid slots ``improve(session_ids=[...],
build_truth_subspace=True)`` built for its dataset (:mod:`engramdb.artifacts.truth_slots`):

* the query's coordinates are its cosines with each slot's centroid, the chunk's are its stored
  vector's cosines with them; the factor, in [0.75, 1.25], is higher the more the chunk lines
  up with the directions the query points at;
* a dataset without slots (never built, or its learnings forgotten), a chunk without a vector,
  or a query that points at no slot leave the factor at exactly 1.0: ranking is unchanged.

It costs, only when asked for, one improve-state read and one anchor-existence read per dataset
searched, and one read of the candidate chunks' vectors (at most ``expand_chunks`` of them).
A failed read logs a warning and ranks without the weight.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from uuid import UUID

from engramdb.artifacts.truth_slots import coords, live_slots
from engramdb.graph_schema import CHUNK_COLLECTION
from engramdb.models.records import Node
from engramdb.retrieval.base import RecallOptions, RetrievalContext
from engramdb.retrieval.passages import Passage
from engramdb.retrieval.ranking import rank_by_score, truth_factor
from engramdb.storage.base import FloatArray

__all__ = ["truth_factors", "weigh_by_truth"]

logger = logging.getLogger(__name__)


async def truth_factors(
    ctx: RetrievalContext,
    opts: RecallOptions,
    chunks: Sequence[Node],
    query_vector: FloatArray | None,
) -> dict[UUID, float]:
    """Each chunk's truth factor, by chunk id; {} when the weight is off or nothing shapes it
    (a chunk left out has factor 1.0)."""
    if not opts.use_truth_weight or query_vector is None or not chunks:
        return {}
    by_dataset: dict[UUID, list[Node]] = {}
    for chunk in chunks:
        by_dataset.setdefault(chunk.dataset_id, []).append(chunk)
    factors: dict[UUID, float] = {}
    try:
        for dataset_id, group in by_dataset.items():
            slots = await live_slots(ctx.store, dataset_id)
            if slots is None or slots.model != ctx.embedder.model_name:
                continue
            centroids = slots.matrix()
            query = coords(query_vector, centroids)
            vectors = await ctx.store.node_vectors(
                CHUNK_COLLECTION, [c.id for c in group], [dataset_id]
            )
            for chunk in group:
                vector = vectors.get(chunk.id)
                if vector is not None:
                    factors[chunk.id] = truth_factor(coords(vector, centroids), query)
    except Exception as exc:  # fail open: ranking without the weight is still a ranking
        logger.warning("truth weight not applied: %s", exc)
        return {}
    return factors


def weigh_by_truth(
    passages: Sequence[Passage],
    chunks: Sequence[tuple[Node, float]],
    factors: dict[UUID, float],
) -> tuple[list[Passage], list[Node]]:
    """The passages, each score multiplied by its chunk's factor, best first; and the chunks in
    the order of their fused score times their factor (the order the rest of the context
    follows). Unchanged (and in their order) without factors."""
    if not factors:
        return list(passages), [c for c, _ in chunks]
    for p in passages:
        p.score *= factors.get(p.chunk.id, 1.0)
    ranked = rank_by_score(passages, lambda p: p.score)
    order = rank_by_score(chunks, lambda cs: cs[1] * factors.get(cs[0].id, 1.0))
    return ranked, [c for c, _ in order]
