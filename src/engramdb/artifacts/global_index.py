"""The global context index as stored: read back by graph completion and hybrid.

improve()'s ``build_global_context_index`` stage (:mod:`engramdb.improvement.global_index`)
writes one bucket node per document and one root node per dataset, derived data of owner
:data:`OWNER`, with the ids :func:`bucket_id` and :func:`root_id` give; this module is the one
reader of that layout. Every node is marked internal, so no retriever returns it as a hit.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from engramdb.models.records import stable_id
from engramdb.storage.base import Store

__all__ = [
    "BUCKET_TYPE",
    "OWNER",
    "ROOT_TYPE",
    "GlobalContext",
    "bucket_id",
    "load_global_context",
    "load_overview",
    "load_overview_parts",
    "root_id",
]

#: Derived-data owner of every index node (the stage's name).
OWNER = "global_context_index"
BUCKET_TYPE = "ContextBucket"
ROOT_TYPE = "ContextRoot"


def bucket_id(dataset_id: UUID, data_id: UUID) -> UUID:
    """The id of the bucket of document ``data_id``."""
    return stable_id(OWNER, dataset_id, "bucket", data_id)


def root_id(dataset_id: UUID) -> UUID:
    """The id of the dataset's root node."""
    return stable_id(OWNER, dataset_id, "root")


@dataclass(frozen=True, slots=True)
class GlobalContext:
    """The index as retrieval reads it: the root text and each document's bucket text."""

    root: str
    buckets: dict[UUID, str]

    def render(self, data_ids: list[UUID], *, max_buckets: int = 5) -> str:
        """The root plus the buckets of the given documents (in that order), as one block."""
        parts = [self.root] if self.root else []
        seen: set[UUID] = set()
        for data_id in data_ids:
            if data_id in self.buckets and data_id not in seen and len(seen) < max_buckets:
                seen.add(data_id)
                parts.append(self.buckets[data_id])
        return "\n\n".join(parts)


async def load_global_context(store: Store, dataset_id: UUID) -> GlobalContext | None:
    """The dataset's index, or None when none was built. Callers treat a failure as "no index"
    (fail-open): the index only adds context."""
    graph = await store.list_derived(dataset_id, OWNER)
    if not graph.nodes:
        return None
    root = next((n.text for n in graph.nodes if n.type == ROOT_TYPE), "")
    buckets = {
        UUID(str(n.properties["data_id"])): n.text
        for n in graph.nodes
        if n.type == BUCKET_TYPE and n.properties.get("data_id")
    }
    return GlobalContext(root=root, buckets=buckets)


async def load_overview(
    store: Store, dataset_id: UUID, data_ids: list[UUID], *, max_buckets: int = 3
) -> str:
    """The root text plus the buckets of the first ``max_buckets`` of ``data_ids`` (documents
    without a bucket are passed over): what a prompt shows. Reads only those few nodes by id, so
    its cost does not grow with the dataset; "" when no index was built."""
    root, buckets = await load_overview_parts(store, dataset_id, data_ids, max_buckets=max_buckets)
    return "\n\n".join([root, *buckets] if root else buckets)


async def load_overview_parts(
    store: Store, dataset_id: UUID, data_ids: list[UUID], *, max_buckets: int = 3
) -> tuple[str, list[str]]:
    """:func:`load_overview`'s root text ("" when none) and bucket texts, apart."""
    wanted = list(dict.fromkeys(data_ids))
    ids = [root_id(dataset_id), *(bucket_id(dataset_id, d) for d in wanted)]
    found = {
        n.id: n
        for n in await store.get_nodes(ids)
        if n.dataset_id == dataset_id and n.type in (ROOT_TYPE, BUCKET_TYPE)
    }
    root = found[ids[0]].text if ids[0] in found else ""
    buckets = [found[i].text for i in ids[1:] if i in found][:max_buckets]
    return root, buckets
