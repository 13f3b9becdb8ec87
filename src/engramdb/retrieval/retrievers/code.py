"""SearchType.CODE: one deterministic code-graph operation (no LLM, no vectors).

``retriever_specific_config`` is the operation and its arguments (``search(code_query=...)``
merges ``code_query`` into it); see :mod:`engramdb.code.lane` for the result shape. Unlike the
recall "code" lane, a seed that no searched dataset resolves raises CodeSeedNotFoundError (the
reference's single-dataset behaviour), so a pinned search says why it found nothing.
"""

from __future__ import annotations

from engramdb.code.lane import code_entries, run_code
from engramdb.models.results import RecallResponse
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever

__all__ = ["CodeRetriever"]


class CodeRetriever(Retriever):
    """SearchType.CODE: one ``kind="code"`` entry per dataset with a code graph."""

    search_types = frozenset({SearchType.CODE})
    node_name_refusal = (
        "a code query selects its own symbols (code_query's name, or the query text for explore), "
        "so there is nothing for a node set to narrow; pass datasets= to choose which code "
        "graphs to read, and recall without node_name"
    )

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        config = dict(opts.retriever_specific_config)
        config.pop("use_importance_weight", None)
        run = await run_code(ctx.store, ctx.datasets, opts.query, config)
        if not run.results and run.misses:
            raise run.misses[0]
        return list(code_entries(run, lane=False))
