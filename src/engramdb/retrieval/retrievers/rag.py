"""RAG_COMPLETION: the nearest chunks as passages, answered by the LLM.

Ranked by vector similarity alone (R-RANK-3: importance_weight has no effect here). With
``include_references=True`` every passage is a ``segment`` evidence entry carrying its raw cosine
distance in ``score`` and a snippet for the Evidence block; ``rank`` is its position in the
search results, and a duplicate (the same chunk, or the same text stored twice, e.g. one file
ingested into two datasets) is dropped without renumbering, so ranks can skip as the seed says.
"""

from __future__ import annotations

from engramdb.engine import check_embedding
from engramdb.ingest.graph_builder import CHUNK_COLLECTION
from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.completion import BuiltContext, complete
from engramdb.retrieval.context import Passage, passage_context

__all__ = ["RagCompletionRetriever"]


class RagCompletionRetriever(Retriever):
    """RAG_COMPLETION: ``top_k`` chunks by cosine distance → :func:`complete`."""

    search_types = frozenset({SearchType.RAG_COMPLETION})

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        return list(await complete(ctx, opts, await self.context(ctx, opts)))

    async def context(self, ctx: RetrievalContext, opts: RecallOptions) -> BuiltContext:
        """The passages and their evidence (empty when no dataset holds vectors yet)."""
        searchable = [d for d in ctx.datasets if d.embedding_model is not None]
        if not searchable:
            return BuiltContext(text="", evidence_in_metadata=True)
        for dataset in searchable:
            check_embedding(dataset, ctx.embedder)
        vector = (await ctx.embedder.embed([opts.query]))[0]
        hits = await ctx.store.vector_search(
            CHUNK_COLLECTION, vector, [d.id for d in searchable], opts.top_k
        )
        nodes = {n.id: n for n in await ctx.store.get_nodes([h.node_id for h in hits])}
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
