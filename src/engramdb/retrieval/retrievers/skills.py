"""SKILLS: the skills whose "name: description" is nearest to the query, metadata only.

Each hit is a :class:`ResponseSkillEntry` -- ``text`` the "name: description" line, ``skill``
``{id, name, description, tags}``, ``score`` the raw cosine distance (lower is better, recall.md
"Relevance in score"). The procedure body is not in the graph at all (see
:mod:`engramdb.api.skills`), so it cannot leak from here; an agent loads it by id with
``load_skill``. Also used by the recall skill gate (top 3, single dataset).
"""

from __future__ import annotations

from collections.abc import Sequence

from engramdb.artifacts.skills import SKILL_COLLECTION, SKILL_NODE_TYPE
from engramdb.engine import check_embedding
from engramdb.models.records import Dataset
from engramdb.models.results import RecallResponse, ResponseSkillEntry
from engramdb.models.search_type import SearchType
from engramdb.providers.embedding.base import Embedder
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.retrievers.chunks import NodeSetFilter, node_set_filter
from engramdb.storage.base import Store

__all__ = ["SKILL_COLLECTION", "SKILL_NODE_TYPE", "SkillsRetriever", "search_skills"]


class SkillsRetriever(Retriever):
    """SearchType.SKILLS; ``only_context`` changes nothing (there is no prompt). ``node_name``
    keeps the skills tagged (``remember_skill(tags=...)``) with those names, or so named."""

    search_types = frozenset({SearchType.SKILLS})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        found = await search_skills(
            ctx.store, ctx.embedder, ctx.datasets, opts.query, opts.top_k, node_set_filter(opts)
        )
        return list(found)


async def search_skills(
    store: Store,
    embedder: Embedder,
    datasets: Sequence[Dataset],
    query: str,
    top_k: int,
    node_filter: NodeSetFilter | None = None,
) -> list[ResponseSkillEntry]:
    """The ``top_k`` nearest skills of ``datasets`` (only those ``node_filter`` keeps), closest
    first."""
    searchable = [d for d in datasets if d.embedding_model is not None]
    if not searchable or top_k <= 0:
        return []
    for dataset in searchable:
        check_embedding(dataset, embedder)
    vector = (await embedder.embed([query]))[0]
    fetch = top_k if node_filter is None else node_filter.widen(top_k)
    hits = await store.vector_search(SKILL_COLLECTION, vector, [d.id for d in searchable], fetch)
    nodes = {n.id: n for n in await store.get_nodes([h.node_id for h in hits])}
    entries = []
    for hit in hits:
        node = nodes.get(hit.node_id)
        if node is None or node.type != SKILL_NODE_TYPE:
            continue
        if node_filter is not None and not node_filter.matches(node):
            continue
        props = node.properties
        tags = props.get("tags")
        entries.append(
            ResponseSkillEntry(
                text=node.text,
                skill={
                    "id": str(node.id),
                    "name": node.name,
                    "description": str(props.get("description", "")),
                    "tags": [str(t) for t in tags] if isinstance(tags, list) else [],
                },
                score=float(hit.score),
            )
        )
    return entries[:top_k]
