"""The global context index: one bucket per document plus one dataset root, without an LLM.

A document's bucket names its most distinctive entities — tf-idf over the dataset's chunks:
``tf`` is how many of the document's chunks mention the entity, ``idf`` is
``ln((1 + N) / (1 + df)) + 1`` with ``N`` the dataset's chunks and ``df`` the chunks mentioning
the entity anywhere — and the relations among them. The root lists the documents with their
top entities and the dataset's most distinctive entities overall.

Buckets and the root are derived nodes (owner ``global_context_index``), marked internal so no
retriever returns them as hits; graph completion and hybrid read them through
:func:`load_global_context`. A bucket is anchored to its document, so forgetting the document
deletes its bucket at once. Builds are incremental: only texts that changed are written, and
index nodes not computed this time (a deleted document's) are deleted. When the dataset's
content has not changed since the last build (its fingerprint, see
:meth:`~engramdb.storage.base.Store.graph_fingerprint`) the stage reports ``already_completed``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from uuid import UUID

from engramdb.improvement.context import ImproveContext, StageOutcome
from engramdb.models.records import Dataset, Node, NodeType, stable_id
from engramdb.storage.base import DerivedWrite, Store

__all__ = [
    "BUCKET_TYPE",
    "OWNER",
    "ROOT_TYPE",
    "GlobalContext",
    "build_global_context_index",
    "load_global_context",
    "load_overview",
]

OWNER = "global_context_index"
BUCKET_TYPE = "ContextBucket"
ROOT_TYPE = "ContextRoot"
FINGERPRINT_KEY = "global_context_index.fingerprint"
#: Entities named per document bucket, and relations listed per bucket.
TOP_ENTITIES = 10
TOP_RELATIONS = 10
#: Documents and entities the root lists.
ROOT_DOCUMENTS = 50
ROOT_ENTITIES = 15


@dataclass(frozen=True, slots=True)
class _Scored:
    entity_id: UUID
    score: float


def _top_entities(
    ctx_mentions: dict[UUID, dict[UUID, int]], chunks: int
) -> dict[UUID, list[_Scored]]:
    df: dict[UUID, int] = defaultdict(int)
    for per_doc in ctx_mentions.values():
        for entity_id, count in per_doc.items():
            df[entity_id] += count
    top: dict[UUID, list[_Scored]] = {}
    for doc_id, per_doc in ctx_mentions.items():
        scored = [
            _Scored(e, count * (math.log((1 + chunks) / (1 + df[e])) + 1.0))
            for e, count in per_doc.items()
        ]
        # ``.int`` orders exactly as the id's text does (fixed-width hex), without formatting it
        scored.sort(key=lambda s: (-s.score, s.entity_id.int))
        top[doc_id] = scored[:TOP_ENTITIES]
    return top


def _label(node: Node | None) -> str:
    if node is None:
        return "?"
    kind = str(node.properties.get("entity_type", "")).lower()
    return f"{node.name} ({kind})" if kind else node.name


async def build_global_context_index(ctx: ImproveContext) -> StageOutcome:
    store, dataset = ctx.store, ctx.dataset
    fingerprint = await store.graph_fingerprint(dataset.id)
    if await store.get_improve_state(dataset.id, FINGERPRINT_KEY) == fingerprint:
        return StageOutcome("already_completed", "no_writes_since_last_improve")

    mentions: dict[UUID, dict[UUID, int]] = defaultdict(dict)
    for m in await store.entity_mentions(dataset.id):
        mentions[m.data_id][m.entity_id] = m.chunks
    chunks = await store.count_nodes([dataset.id], type=NodeType.CHUNK.value)
    top = _top_entities(mentions, chunks)
    entity_ids = sorted({s.entity_id for scored in top.values() for s in scored}, key=str)
    # names only: a hub entity's provenance (one id per document naming it) is not needed
    names = {n.id: n for n in await store.get_nodes(entity_ids, provenance=False)}
    documents = {n.id: n for n in await store.get_nodes(sorted(top, key=str))}
    # only pairs within one bucket are ever shown: one index probe each, without provenance
    pairs = {(a.entity_id, b.entity_id) for scored in top.values() for a in scored for b in scored}
    relations = await store.edges_between(sorted(pairs, key=str), provenance=False)
    # relations by (source, target): a bucket looks up the pairs of its own members only, never
    # a hub entity's thousands of relations with entities of other documents
    by_pair: dict[tuple[UUID, UUID], list[str]] = defaultdict(list)
    for edge in relations:
        by_pair[edge.source_id, edge.target_id].append(edge.relation)

    computed: list[Node] = []
    anchors: dict[UUID, UUID] = {}
    for doc_id in sorted(top, key=lambda d: (documents[d].name if d in documents else "", str(d))):
        scored = top[doc_id]
        if not scored or doc_id not in documents:
            continue
        rels = [
            (a.entity_id, rel, b.entity_id)
            for a in scored
            for b in scored
            for rel in by_pair.get((a.entity_id, b.entity_id), ())
        ]
        lines = [
            f"Document: {documents[doc_id].name}",
            "Key entities: " + ", ".join(_label(names.get(s.entity_id)) for s in scored),
        ]
        if rels:
            shown = [
                f"{names[a].name} {rel.replace('_', ' ')} {names[b].name}"
                for a, rel, b in rels[:TOP_RELATIONS]
                if a in names and b in names
            ]
            lines.append("Relations: " + "; ".join(shown))
        bucket_id = stable_id(OWNER, dataset.id, "bucket", doc_id)
        computed.append(
            Node(
                id=bucket_id,
                dataset_id=dataset.id,
                type=BUCKET_TYPE,
                name=f"context of {documents[doc_id].name}",
                text="\n".join(lines),
                properties={
                    "internal": True,
                    "data_id": str(doc_id),
                    "entity_ids": [str(s.entity_id) for s in scored],
                },
            )
        )
        anchors[bucket_id] = doc_id
    computed.append(_root(dataset, computed, top, names))

    stored = {n.id: n for n in (await store.list_derived(dataset.id, OWNER)).nodes}
    changed = [
        n
        for n in computed
        if n.id not in stored
        or (stored[n.id].text, stored[n.id].properties) != (n.text, n.properties)
    ]
    stale = [i for i in stored if i not in {n.id for n in computed}]
    report = await store.write_derived(
        DerivedWrite(
            dataset_id=dataset.id,
            owner=OWNER,
            nodes=changed,
            anchors={k: v for k, v in anchors.items() if k in {n.id for n in changed}},
            delete_node_ids=stale,
            fingerprint_key=FINGERPRINT_KEY,
        )
    )
    return StageOutcome(
        counts={
            "buckets": len(computed) - 1,
            "written": report.nodes_written,
            "deleted": report.nodes_deleted,
        }
    )


def _root(
    dataset: Dataset, buckets: list[Node], top: dict[UUID, list[_Scored]], names: dict[UUID, Node]
) -> Node:
    overall: dict[UUID, float] = defaultdict(float)
    for scored in top.values():
        for s in scored:
            overall[s.entity_id] += s.score
    best = sorted(overall, key=lambda e: (-overall[e], str(e)))[:ROOT_ENTITIES]
    lines = [f"Dataset: {dataset.name} ({len(buckets)} documents indexed)"]
    if best:
        lines.append("Main entities: " + ", ".join(_label(names.get(e)) for e in best))
    for bucket in buckets[:ROOT_DOCUMENTS]:
        head = bucket.text.split("\n")
        entities = head[1].removeprefix("Key entities: ") if len(head) > 1 else ""
        first = ", ".join(entities.split(", ")[:3])
        lines.append(f"- {bucket.name.removeprefix('context of ')}: {first}")
    if len(buckets) > ROOT_DOCUMENTS:
        lines.append(f"- ... and {len(buckets) - ROOT_DOCUMENTS} more documents")
    return Node(
        id=stable_id(OWNER, dataset.id, "root"),
        dataset_id=dataset.id,
        type=ROOT_TYPE,
        name=f"context of dataset {dataset.name}",
        text="\n".join(lines),
        properties={"internal": True, "buckets": [str(b.id) for b in buckets]},
    )


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
    wanted = list(dict.fromkeys(data_ids))
    ids = [stable_id(OWNER, dataset_id, "root")]
    ids += [stable_id(OWNER, dataset_id, "bucket", d) for d in wanted]
    found = {
        n.id: n
        for n in await store.get_nodes(ids)
        if n.dataset_id == dataset_id and n.type in (ROOT_TYPE, BUCKET_TYPE)
    }
    root = [found[ids[0]].text] if ids[0] in found else []
    buckets = [found[i].text for i in ids[1:] if i in found][:max_buckets]
    return "\n\n".join([*root, *buckets])
