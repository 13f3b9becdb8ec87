"""The global context index: one bucket per document plus one dataset root, without an LLM.

A document's bucket names its most distinctive entities — tf-idf over the dataset's chunks:
``tf`` is how many of the document's chunks mention the entity, ``idf`` is
``ln((1 + N) / (1 + df)) + 1`` with ``N`` the dataset's chunks and ``df`` the chunks mentioning
the entity anywhere — and the relations among them. The root lists the documents with their
top entities and the dataset's most distinctive entities overall.

Buckets and the root are derived nodes (owner ``global_context_index``), marked internal so no
retriever returns them as hits; graph completion and hybrid read them through
:mod:`engramdb.artifacts.global_index`. A bucket is anchored to its document, so forgetting the
document deletes its bucket at once. Only texts that changed are written, and index nodes not
computed this time (a deleted document's) are deleted.

Builds are incremental (:mod:`.global_index_state`): every build persists, in the transaction
that writes the index nodes, each document's name, chunk count and mention counts, tagged with
a token. The next build — the automatic improve after remember() or an explicit improve() —
works from that state (kept in memory while the token is the process's own, loaded from the
store otherwise): it reads only the mentions of documents added or changed since (the store's
change notes, :mod:`.changes`), re-ranks only the documents whose ranking can have changed, and
re-renders only the buckets whose entities, labels or relations can have changed — the same
nodes a full build computes. With no document added or removed and no change note, the stage
reports ``already_completed`` / ``no_writes_since_last_improve``. A dataset without a persisted
state (never indexed) gets a full build (:func:`build_full`).
"""

from __future__ import annotations

import itertools
import math
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from engramdb.artifacts.global_index import BUCKET_TYPE, OWNER, ROOT_TYPE, bucket_id, root_id
from engramdb.improvement.changes import notes_of
from engramdb.improvement.context import ImproveContext, StageOutcome
from engramdb.models.records import Dataset, Node
from engramdb.storage.base import DerivedWrite, Store
from engramdb.storage.types import graph_change_prefix

if TYPE_CHECKING:
    from engramdb.improvement.changes import Notes

__all__ = ["build_global_context_index"]

#: The token of the last build, persisted with its state (see :mod:`.global_index_state`).
#: Version 2: every data item that came or went since is noted (``Notes.members``); a state
#: of an earlier version's token is not read (its writes noted no members): rebuilt in full.
TOKEN_KEY = "global_context_index.token.2"
#: Tokens of earlier versions, dropped by the full build.
OLD_TOKEN_KEYS = ("global_context_index.token",)
#: Entities named per document bucket, and relations listed per bucket.
TOP_ENTITIES = 10
TOP_RELATIONS = 10
#: Documents and entities the root lists.
ROOT_DOCUMENTS = 50
ROOT_ENTITIES = 15


@dataclass(frozen=True, slots=True)
class Scored:
    entity_id: UUID
    score: float


def idf(chunks: int, df: int) -> float:
    return math.log((1 + chunks) / (1 + df)) + 1.0


def level(chunks: int) -> float:
    """``L`` of ``idf = L - ln(1 + df)``: the part of every score that only ``N`` moves."""
    return math.log(1 + chunks) + 1.0


#: A ranking holds while ``level`` stays this far (relatively) inside its window, so float
#: rounding can never flip an order the window says is safe.
_MARGIN = 1e-9


def rank(
    per_doc: Mapping[UUID, int], chunks: int, df: Mapping[UUID, int], size: int = TOP_ENTITIES
) -> tuple[list[Scored], tuple[float, float]]:
    """The ``size`` best entities of these counts (a document's ranking, or the root's over
    the rankings' summed counts), and the window of ``level`` in which that list (and its
    order) stays the same for these counts and document frequencies."""
    scored = [Scored(e, count * idf(chunks, df[e])) for e, count in per_doc.items()]
    # ``.int`` orders exactly as the id's text does (fixed-width hex), without formatting it
    scored.sort(key=lambda s: (-s.score, s.entity_id.int))
    top = scored[:size]
    lo, hi = -math.inf, math.inf
    pairs = list(itertools.pairwise(top))
    if len(scored) > size:
        pairs += [(top[-1], s) for s in scored[size:]]
    for a, b in pairs:
        lo, hi = narrow((lo, hi), crossing(per_doc, df, a.entity_id, b.entity_id))
    return top, with_slack((lo, hi), chunks)


def crossing(
    counts: Mapping[UUID, int], df: Mapping[UUID, int], a: UUID, b: UUID
) -> tuple[float, bool] | None:
    """The ``level`` at which the order of ``a`` ahead of ``b`` flips, and whether ``a`` stays
    ahead above it (True) or below it (False); None when their order does not depend on N
    (equal counts: ``idf = level - ln(1 + df)``, so only ``df`` decides)."""
    ca, cb = counts[a], counts[b]
    if ca == cb:
        return None
    ga, gb = math.log(1 + df[a]), math.log(1 + df[b])
    return (ca * ga - cb * gb) / (ca - cb), ca > cb


def narrow(window: tuple[float, float], cross: tuple[float, bool] | None) -> tuple[float, float]:
    """``window`` cut to the side of ``cross`` (:func:`crossing`) on which an order holds."""
    if cross is None:
        return window
    at, above = cross
    return (max(window[0], at), window[1]) if above else (window[0], min(window[1], at))


def with_slack(window: tuple[float, float], chunks: int) -> tuple[float, float]:
    slack = _MARGIN * max(1.0, abs(level(chunks)))
    return window[0] + slack, window[1] - slack


def label(node: Node | None) -> str:
    if node is None:
        return "?"
    kind = str(node.properties.get("entity_type", "")).lower()
    return f"{node.name} ({kind})" if kind else node.name


async def relations_of(
    store: Store, tops: Sequence[list[Scored]]
) -> dict[tuple[UUID, UUID], list[str]]:
    """Relations by (source, target) among the members of each bucket: one index probe per
    pair, never a hub entity's thousands of relations with entities of other documents."""
    pairs = {(a.entity_id, b.entity_id) for scored in tops for a in scored for b in scored}
    by_pair: dict[tuple[UUID, UUID], list[str]] = defaultdict(list)
    for edge in await store.edges_between(sorted(pairs, key=str), provenance=False):
        by_pair[edge.source_id, edge.target_id].append(edge.relation)
    return by_pair


def bucket(
    dataset: Dataset,
    doc_id: UUID,
    doc_name: str,
    scored: list[Scored],
    names: Mapping[UUID, Node],
    by_pair: Mapping[tuple[UUID, UUID], list[str]],
) -> Node:
    rels = [
        (a.entity_id, rel, b.entity_id)
        for a in scored
        for b in scored
        for rel in by_pair.get((a.entity_id, b.entity_id), ())
    ]
    lines = [
        f"Document: {doc_name}",
        "Key entities: " + ", ".join(label(names.get(s.entity_id)) for s in scored),
    ]
    if rels:
        shown = [
            f"{names[a].name} {rel.replace('_', ' ')} {names[b].name}"
            for a, rel, b in rels[:TOP_RELATIONS]
            if a in names and b in names
        ]
        lines.append("Relations: " + "; ".join(shown))
    return Node(
        id=bucket_id(dataset.id, doc_id),
        dataset_id=dataset.id,
        type=BUCKET_TYPE,
        name=f"context of {doc_name}",
        text="\n".join(lines),
        properties={
            "internal": True,
            "data_id": str(doc_id),
            "entity_ids": [str(s.entity_id) for s in scored],
        },
    )


def root(
    dataset: Dataset,
    first: Sequence[str],
    documents: int,
    best: Sequence[UUID],
    names: Mapping[UUID, Node],
) -> Node:
    """The dataset root: the lines (:func:`root_line`) of the ``first`` buckets in the root's
    order (at most :data:`ROOT_DOCUMENTS`) of the ``documents`` indexed, and the ``best``
    entities (at most :data:`ROOT_ENTITIES`): the best ``idf`` for the current ``N`` times the
    entity's counts summed over the documents whose ranking names it (:func:`rank` of those
    counts)."""
    lines = [f"Dataset: {dataset.name} ({documents} documents indexed)"]
    if best:
        lines.append("Main entities: " + ", ".join(label(names.get(e)) for e in best))
    lines += first
    if documents > len(first):
        lines.append(f"- ... and {documents - len(first)} more documents")
    return Node(
        id=root_id(dataset.id),
        dataset_id=dataset.id,
        type=ROOT_TYPE,
        name=f"context of dataset {dataset.name}",
        text="\n".join(lines),
        properties={"internal": True, "documents": documents},
    )


def root_line(bucket_node: Node) -> str:
    """The root's line of one document: its bucket's name and its first three entities."""
    head = bucket_node.text.split("\n", 2)
    entities = head[1].removeprefix("Key entities: ") if len(head) > 1 else ""
    top = ", ".join(entities.split(", ", 3)[:3])
    return f"- {bucket_node.name.removeprefix('context of ')}: {top}"


def changed_nodes(computed: Sequence[Node], stored: Mapping[UUID, Node]) -> list[Node]:
    return [
        n
        for n in computed
        if n.id not in stored
        or (stored[n.id].text, stored[n.id].properties) != (n.text, n.properties)
    ]


async def build_global_context_index(ctx: ImproveContext) -> StageOutcome:
    from engramdb.improvement import global_index_state as state

    store, dataset = ctx.store, ctx.dataset
    # the token, the change notes and the data ids in one read (the automatic improve's cost)
    inputs = await store.stage_inputs(dataset.id, key=TOKEN_KEY, prefix=graph_change_prefix(OWNER))
    notes = notes_of(inputs.states, OWNER)
    kept = await state.current(store, dataset, inputs.value)
    if kept is not None:
        return await state.build_incremental(ctx, kept, inputs.present, notes)
    return await build_full(ctx, notes)


async def build_full(ctx: ImproveContext, notes: Notes) -> StageOutcome:
    """Every document's bucket and the root from the whole dataset's mention table; the
    change notes read before (``notes``) are covered by it."""
    from engramdb.improvement import global_index_state as state

    store, dataset = ctx.store, ctx.dataset
    rows = await store.get_improve_states(dataset.id, state.DOC_PREFIX)
    data_ids = await store.data_ids(dataset.id)
    mentions: dict[UUID, dict[UUID, int]] = defaultdict(dict)
    for m in await store.entity_mentions(dataset.id):
        mentions[m.data_id][m.entity_id] = m.chunks
    kept = state.IndexState.empty(uuid.uuid4().hex, data_ids)
    for doc_id, chunks in (await store.chunk_counts(dataset.id)).items():
        kept.set_chunks(doc_id, chunks)
    for doc_id in sorted(mentions, key=lambda d: d.int):
        kept.add_document(doc_id, mentions[doc_id])
    for doc_id in kept.per_doc:
        kept.rerank(doc_id)
    await kept.load_names(store, list(kept.per_doc), set(kept.entities_in_tops()))
    by_pair = await relations_of(store, list(kept.top.values()))
    for doc_id in kept.per_doc:
        kept.render(dataset, doc_id, by_pair)
    computed = [*kept.ordered_buckets(), kept.render_root(dataset)]
    stored = {n.id: n for n in (await store.list_derived(dataset.id, OWNER)).nodes}
    changed = changed_nodes(computed, stored)
    anchors = kept.anchors()
    ids = {n.id for n in computed}
    fresh = kept.rows(data_ids)
    report = await store.write_derived(
        DerivedWrite(
            dataset_id=dataset.id,
            owner=OWNER,
            nodes=changed,
            anchors={k: v for k, v in anchors.items() if k in {n.id for n in changed}},
            delete_node_ids=[i for i in stored if i not in ids],
            state={
                TOKEN_KEY: kept.token,
                **{k: v for k, v in fresh.items() if rows.get(k) != v},
            },
            drop_state={
                **{k: None for k in rows if k not in fresh},
                **dict.fromkeys(OLD_TOKEN_KEYS),
                **notes.stamps,
            },
        )
    )
    state.remember_state(store, dataset.id, kept)
    return StageOutcome(
        counts={
            "buckets": len(computed) - 1,
            "written": report.nodes_written,
            "deleted": report.nodes_deleted,
        }
    )
