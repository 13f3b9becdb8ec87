"""RAG_COMPLETION: the nearest chunks as passages, answered by the LLM.

Ranked by vector similarity alone (R-RANK-3: importance_weight has no effect here). With
``include_references=True`` every passage is a ``segment`` evidence entry carrying its raw cosine
distance in ``score`` and a snippet for the Evidence block; ``rank`` is its position in the
search results, and a duplicate (the same chunk, or the same text stored twice, e.g. one file
ingested into two datasets) is dropped without renumbering, so ranks can skip as the seed says.
``node_name`` keeps only chunks tagged with the node sets (candidates widened first, as CHUNKS
does).

Personalization (user-preferences.md): when the user's preference weights name chunks of the
searched dataset, the fetch widens to ``wide_search_top_k`` (default 100), the hits are re-sorted
by personalized distance (``distance * personal_factor``) and trimmed back to ``top_k``, so a
preference can change which chunks make the cut. Weights that match no chunk leave the fetch at
``top_k``, identical to an un-personalized run.
"""

from __future__ import annotations

from uuid import UUID

from engramdb.engine import check_embedding
from engramdb.graph_schema import CHUNK_COLLECTION
from engramdb.models.records import NodeType
from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.completion import BuiltContext, complete
from engramdb.retrieval.context import Passage, passage_context
from engramdb.retrieval.ranking import personal_factor
from engramdb.retrieval.retrievers.chunks import NodeSetFilter

__all__ = ["RagCompletionRetriever"]


class RagCompletionRetriever(Retriever):
    """RAG_COMPLETION: ``top_k`` chunks by cosine distance → :func:`complete`."""

    search_types = frozenset({SearchType.RAG_COMPLETION})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        return list(await complete(ctx, opts, await self.context(ctx, opts)))

    async def context(self, ctx: RetrievalContext, opts: RecallOptions) -> BuiltContext:
        """The passages and their evidence (empty when no dataset holds vectors yet)."""
        searchable = [d for d in ctx.datasets if d.embedding_model is not None]
        if not searchable:
            return BuiltContext(text="", evidence_in_metadata=True)
        for dataset in searchable:
            check_embedding(dataset, ctx.embedder)
        node_filter = (
            NodeSetFilter(tuple(opts.node_name), opts.node_name_filter_operator)
            if opts.node_name
            else None
        )
        k = opts.top_k if node_filter is None else node_filter.widen(opts.top_k)
        weights = await _chunk_weights(ctx, opts, {d.id for d in searchable})
        if weights:
            k = max(k, opts.wide_search_top_k or DEFAULT_WIDE_SEARCH_TOP_K)
        vector = (await ctx.embedder.embed([opts.query]))[0]
        hits = await ctx.store.vector_search(
            CHUNK_COLLECTION, vector, [d.id for d in searchable], k
        )
        if weights and opts.preferences is not None:
            influence = opts.preferences.influence
            hits = sorted(
                hits,
                key=lambda h: h.score * personal_factor(weights.get(h.node_id), influence),
            )
            if node_filter is None:
                hits = hits[: opts.top_k]
        nodes = {n.id: n for n in await ctx.store.get_nodes([h.node_id for h in hits])}
        if node_filter is not None:  # node_name: rank among the tagged chunks only
            hits = [h for h in hits if h.node_id in nodes and node_filter.matches(nodes[h.node_id])]
            hits = hits[: opts.top_k]
        allowed = {d.id for d in searchable}
        passages: list[Passage] = []
        seen_text: set[str] = set()
        for rank, hit in enumerate(hits):
            chunk = nodes.get(hit.node_id)
            if chunk is None or chunk.dataset_id not in allowed:
                continue  # deleted between search and read
            text_key = " ".join(chunk.text.split()).casefold()
            if text_key in seen_text:
                continue
            seen_text.add(text_key)
            passages.append(Passage(chunk=chunk, text=chunk.text, score=hit.score, rank=rank))
        return passage_context(passages)


#: The candidate fetch of a personalized RAG_COMPLETION (the retriever's ``wide_search_top_k``).
DEFAULT_WIDE_SEARCH_TOP_K = 100


async def _chunk_weights(
    ctx: RetrievalContext, opts: RecallOptions, datasets: set[UUID]
) -> dict[UUID, float]:
    """The user's preference weights that name chunks of the searched datasets ({} when
    personalization does not apply or nothing matches)."""
    prefs = opts.preferences
    if prefs is None or not prefs.weights or prefs.influence == 0.0:
        return {}
    nodes = await ctx.store.get_nodes(list(prefs.weights))
    return {
        n.id: prefs.weights[n.id]
        for n in nodes
        if n.type == NodeType.CHUNK and n.dataset_id in datasets
    }
