"""The global context index: one bucket per document plus one dataset root, without an LLM.

A document's bucket names its most distinctive entities — tf-idf over the dataset's chunks:
``tf`` is how many of the document's chunks mention the entity, ``idf`` is
``ln((1 + N) / (1 + df)) + 1`` with ``N`` the dataset's chunks and ``df`` the chunks mentioning
the entity anywhere — and the relations among them. The root lists the documents with their
top entities and the dataset's most distinctive entities overall.

Buckets and the root are derived nodes (owner ``global_context_index``), marked internal so no
retriever returns them as hits; graph completion and hybrid read them through
:mod:`engramdb.artifacts.global_index`. A bucket is anchored to its document, so forgetting the
document deletes its bucket at once. Builds are incremental: only texts that changed are
written, and index nodes not computed this time (a deleted document's) are deleted. When the
dataset's content has not changed since the last build (its fingerprint, see
:meth:`~engramdb.storage.base.Store.graph_fingerprint`) the stage reports ``already_completed``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from uuid import UUID

from engramdb.artifacts.global_index import BUCKET_TYPE, OWNER, ROOT_TYPE, bucket_id, root_id
from engramdb.improvement.context import ImproveContext, StageOutcome
from engramdb.models.records import Dataset, Node, NodeType
from engramdb.storage.base import DerivedWrite

__all__ = ["build_global_context_index"]

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
        node_id = bucket_id(dataset.id, doc_id)
        computed.append(
            Node(
                id=node_id,
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
        anchors[node_id] = doc_id
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
        id=root_id(dataset.id),
        dataset_id=dataset.id,
        type=ROOT_TYPE,
        name=f"context of dataset {dataset.name}",
        text="\n".join(lines),
        properties={"internal": True, "buckets": [str(b.id) for b in buckets]},
    )
