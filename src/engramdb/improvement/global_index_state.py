"""The global context index's state between builds, kept in the store, and the incremental build.

A build (:func:`.global_index.build_full`, :func:`build_incremental`) leaves an
:class:`IndexState`: per-document mention counts, document frequencies (``df``, summed over
documents), the inverse entity -> documents map, each document's ranking with the window of
``N`` in which it holds (:func:`.global_index.rank`), the entity and document nodes the texts
name, and the rendered nodes. What cannot be read back cheaply is persisted in the dataset's
improve state in the SAME transaction as the index nodes: one row per document
(:data:`DOC_PREFIX`: its name, chunk count and mention counts; ``N`` is their chunks' sum)
and a token (:data:`~.global_index.TOKEN_KEY`) that every build replaces. The process keeps its
last state in memory while the stored token is still its own; otherwise (a new process, or
another process built since) it loads the rows, ranks the documents and reads the stored index
nodes and the ranked entities' names: no mention-table scan, no relation probes, no writes.

An incremental build, for the automatic improve after remember(), reads only:

* the change notes: of data items that came or went (member notes, written by every document
  write and delete), and of writes that changed mentions or entities without a data item coming
  or going (a queued extraction's ``extends`` write, ``rewrite_nodes``, ``merge_entities``:
  :mod:`.changes`), with which of the noted data items the dataset holds;
* the mention and chunk counts of added documents, of noted documents and of the documents that
  mention a noted entity (:meth:`~engramdb.storage.base.Store.document_counts`), the names of
  entities whose label may have changed, and the relations of buckets it re-renders.

A document is re-ranked when it is new or re-read, shares an entity whose ``df`` changed, or when
``N`` left its ranking's window; a bucket is re-rendered when its ranking changed, when two of
its entities were mentioned by an added, removed or re-read document (a relation between them
may have come or gone), when one of its entities' label changed, or when one of them is a noted
entity (a merge re-points relations). The result equals a full build's
(tests/integration/test_incremental_improve.py compares them after every kind of write).
"""

from __future__ import annotations

import bisect
import heapq
import json
import math
import uuid
import weakref
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from uuid import UUID

from engramdb.artifacts.global_index import BUCKET_TYPE, OWNER, ROOT_TYPE, bucket_id
from engramdb.improvement.changes import Notes
from engramdb.improvement.context import ImproveContext, StageOutcome
from engramdb.improvement.global_index import (
    ROOT_DOCUMENTS,
    ROOT_ENTITIES,
    TOKEN_KEY,
    Scored,
    bucket,
    crossing,
    idf,
    label,
    level,
    narrow,
    rank,
    relations_of,
    root,
    root_line,
    with_slack,
)
from engramdb.models.records import Dataset, Node
from engramdb.storage.base import DerivedWrite, Store

__all__ = [
    "DOC_PREFIX",
    "IndexState",
    "build_incremental",
    "cached",
    "current",
    "load",
    "remember_state",
]

#: One improve-state row per document: its name, its chunks and its mention counts,
#: ``{"name": ..., "chunks": n, "mentions": {entity hex: chunks}}``.
DOC_PREFIX = "global_context_index.doc:"

#: store -> dataset id -> the state of the last build in this process (gone with the store).
_STATES: weakref.WeakKeyDictionary[Store, dict[UUID, IndexState]] = weakref.WeakKeyDictionary()


def cached(store: Store, dataset_id: UUID) -> IndexState | None:
    return _STATES.get(store, {}).get(dataset_id)


def remember_state(store: Store, dataset_id: UUID, state: IndexState) -> None:
    _STATES.setdefault(store, {})[dataset_id] = state


def _drop(store: Store, dataset_id: UUID) -> None:
    _STATES.get(store, {}).pop(dataset_id, None)


def doc_key(doc_id: UUID) -> str:
    return f"{DOC_PREFIX}{doc_id}"


@dataclass(slots=True)
class IndexState:
    token: str
    data_ids: set[UUID]
    #: N: the dataset's chunks, the sum of ``doc_chunks``
    chunks: int = 0
    doc_chunks: dict[UUID, int] = field(default_factory=dict)
    per_doc: dict[UUID, dict[UUID, int]] = field(default_factory=dict)
    df: dict[UUID, int] = field(default_factory=lambda: defaultdict(int))
    by_entity: dict[UUID, set[UUID]] = field(default_factory=lambda: defaultdict(set))
    top: dict[UUID, list[Scored]] = field(default_factory=dict)
    window: dict[UUID, tuple[float, float]] = field(default_factory=dict)
    #: entity -> the documents whose ranking names it, and its counts summed over them
    in_top: dict[UUID, set[UUID]] = field(default_factory=lambda: defaultdict(set))
    top_counts: dict[UUID, int] = field(default_factory=lambda: defaultdict(int))
    doc_names: dict[UUID, str] = field(default_factory=dict)
    names: dict[UUID, Node] = field(default_factory=dict)
    buckets: dict[UUID, Node] = field(default_factory=dict)
    #: the buckets' documents in the order the root lists them: (name, id text, id, bucket id
    #: text)
    order: list[tuple[str, str, UUID, str]] = field(default_factory=list)
    root: Node | None = None
    #: the root's entities (:func:`.global_index.rank` of ``top_counts``) and their window;
    #: ``root_dirty``: entities whose summed counts or ``df`` changed since they were ranked
    root_best: list[UUID] | None = None
    root_window: tuple[float, float] = (0.0, 0.0)
    root_dirty: set[UUID] = field(default_factory=set)
    #: the rankings' windows by upper and by (negated) lower bound, for :meth:`outside`; an
    #: entry whose window was replaced since is skipped (and dropped) when reached
    by_hi: list[tuple[float, UUID]] = field(default_factory=list)
    by_lo: list[tuple[float, UUID]] = field(default_factory=list)
    #: document -> (its bucket node, the root's line of it), see :meth:`_root_line`
    root_lines: dict[UUID, tuple[Node, str]] = field(default_factory=dict)

    @classmethod
    def empty(cls, token: str, data_ids: Iterable[UUID]) -> IndexState:
        return cls(token=token, data_ids=set(data_ids))

    def set_chunks(self, doc_id: UUID, chunks: int) -> None:
        self.chunks += chunks - self.doc_chunks.pop(doc_id, 0)
        if chunks:
            self.doc_chunks[doc_id] = chunks

    def set_mentions(self, doc_id: UUID, mentions: Mapping[UUID, int]) -> set[UUID]:
        """Replace the document's mention counts (its ranking goes: rerank it); returns the
        entities it mentioned before or mentions now."""
        self._untop(doc_id)
        old = self.per_doc.pop(doc_id, {})
        for entity_id, count in old.items():
            self.df[entity_id] -= count
            if self.df[entity_id] <= 0:
                del self.df[entity_id]
            self.by_entity[entity_id].discard(doc_id)
            if not self.by_entity[entity_id]:
                del self.by_entity[entity_id]
        if mentions:
            self.per_doc[doc_id] = dict(mentions)
            for entity_id, count in mentions.items():
                self.df[entity_id] += count
                self.by_entity[entity_id].add(doc_id)
        self.root_dirty.update(old, mentions)
        return set(old) | set(mentions)

    def add_document(self, doc_id: UUID, mentions: dict[UUID, int]) -> None:
        self.set_mentions(doc_id, mentions)

    def remove_document(self, doc_id: UUID) -> None:
        self.set_mentions(doc_id, {})
        self.set_chunks(doc_id, 0)
        self._set_bucket(doc_id, None)
        self.doc_names.pop(doc_id, None)

    def _untop(self, doc_id: UUID) -> None:
        mentions = self.per_doc.get(doc_id, {})
        for s in self.top.pop(doc_id, ()):
            self.top_counts[s.entity_id] -= mentions[s.entity_id]
            self.root_dirty.add(s.entity_id)
            self.in_top[s.entity_id].discard(doc_id)
            if not self.in_top[s.entity_id]:
                del self.in_top[s.entity_id]
                del self.top_counts[s.entity_id]
        self.window.pop(doc_id, None)

    def rerank(self, doc_id: UUID) -> None:
        self._untop(doc_id)
        mentions = self.per_doc[doc_id]
        self.top[doc_id], window = rank(mentions, self.chunks, self.df)
        self.window[doc_id] = window
        heapq.heappush(self.by_hi, (window[1], doc_id))
        heapq.heappush(self.by_lo, (-window[0], doc_id))
        if len(self.by_hi) > 2 * len(self.window) + 64:  # replaced entries: compact
            self.by_hi = [(hi, d) for d, (_, hi) in self.window.items()]
            self.by_lo = [(-lo, d) for d, (lo, _) in self.window.items()]
            heapq.heapify(self.by_hi)
            heapq.heapify(self.by_lo)
        for s in self.top[doc_id]:
            self.top_counts[s.entity_id] += mentions[s.entity_id]
            self.root_dirty.add(s.entity_id)
            self.in_top[s.entity_id].add(doc_id)

    def outside(self, now: float) -> set[UUID]:
        """The documents whose ranking's window does not hold ``now`` (``not lo < now < hi``),
        without looking at the others."""
        found: set[UUID] = set()
        for heap, sign in ((self.by_hi, 1.0), (self.by_lo, -1.0)):
            while heap and heap[0][0] <= sign * now:
                bound, doc_id = heapq.heappop(heap)
                window = self.window.get(doc_id)
                if window is not None and window[0 if sign < 0 else 1] == sign * bound:
                    found.add(doc_id)  # current: reranked (and pushed again) by the caller
        return found

    def entities_in_tops(self) -> set[UUID]:
        return set(self.in_top)

    def ranking_naming(self, entities: Iterable[UUID], at_least: int = 1) -> set[UUID]:
        """The documents whose ranking names at least ``at_least`` of these entities."""
        hits: dict[UUID, int] = defaultdict(int)
        for entity_id in set(entities):
            for doc_id in self.in_top.get(entity_id, ()):
                hits[doc_id] += 1
        return {d for d, n in hits.items() if n >= at_least}

    def row(self, doc_id: UUID) -> str:
        """The document's persisted row (:data:`DOC_PREFIX`)."""
        mentions = self.per_doc.get(doc_id, {})
        return json.dumps(
            {
                "name": self.doc_names.get(doc_id, "") if mentions else "",
                "chunks": self.doc_chunks.get(doc_id, 0),
                "mentions": {e.hex: mentions[e] for e in sorted(mentions, key=lambda e: e.int)},
            },
            separators=(",", ":"),
        )

    def rows(self, doc_ids: Iterable[UUID]) -> dict[str, str]:
        return {doc_key(d): self.row(d) for d in doc_ids}

    async def load_names(
        self, store: Store, doc_ids: Sequence[UUID], entity_ids: set[UUID]
    ) -> set[UUID]:
        """Fetch these entities' and documents' nodes; returns the entities whose label or
        name changed (or that appeared or vanished)."""
        changed: set[UUID] = set()
        wanted = sorted(entity_ids | set(doc_ids), key=str)  # one read for both
        found = {n.id: n for n in await store.get_nodes(wanted, provenance=False)}
        for entity_id in entity_ids:
            old, new = self.names.get(entity_id), found.get(entity_id)
            if (old is None) != (new is None) or (
                old is not None
                and new is not None
                and (old.name, label(old)) != (new.name, label(new))
            ):
                changed.add(entity_id)
            if new is None:
                self.names.pop(entity_id, None)
            else:
                self.names[entity_id] = new
        for doc_id in doc_ids:
            if (node := found.get(doc_id)) is not None:
                self.doc_names[doc_id] = node.name
        return changed

    def _set_bucket(self, doc_id: UUID, node: Node | None) -> None:
        if doc_id in self.buckets:
            del self.order[bisect.bisect_left(self.order, self._place(doc_id))]
            del self.buckets[doc_id]
            self.root_lines.pop(doc_id, None)
        if node is not None:
            self.buckets[doc_id] = node
            bisect.insort(self.order, self._place(doc_id))

    def _place(self, doc_id: UUID) -> tuple[str, str, UUID, str]:
        return self.doc_names[doc_id], str(doc_id), doc_id, str(self.buckets[doc_id].id)

    def render(
        self, dataset: Dataset, doc_id: UUID, by_pair: dict[tuple[UUID, UUID], list[str]]
    ) -> None:
        scored = self.top.get(doc_id)
        if not scored or doc_id not in self.doc_names:
            self._set_bucket(doc_id, None)
            return
        node = bucket(dataset, doc_id, self.doc_names[doc_id], scored, self.names, by_pair)
        self._set_bucket(doc_id, node)

    def keep_bucket(self, doc_id: UUID, node: Node) -> None:
        """A stored bucket, as a loaded state starts from."""
        if doc_id in self.doc_names:
            self._set_bucket(doc_id, node)

    def ordered_buckets(self) -> list[Node]:
        return [self.buckets[d] for _, _, d, _ in self.order]

    def render_root(self, dataset: Dataset) -> Node:
        first = [self._root_line(d) for _, _, d, _ in self.order[:ROOT_DOCUMENTS]]
        self.root = root(dataset, first, len(self.order), self.root_entities(), self.names)
        return self.root

    def _root_line(self, doc_id: UUID) -> str:
        """The root's line of a document, kept while its bucket node is the same object."""
        node = self.buckets[doc_id]
        kept = self.root_lines.get(doc_id)
        if kept is None or kept[0] is not node:
            kept = self.root_lines[doc_id] = (node, root_line(node))
        return kept[1]

    def root_entities(self) -> list[UUID]:
        """The root's ranking, re-ranked over every entity only when ``N`` left its window or
        a changed entity may enter or reorder it; a changed entity that stays behind only
        narrows the window (by its crossing with the last one ranked)."""
        now, best, dirty = level(self.chunks), self.root_best, self.root_dirty
        self.root_dirty = set()
        lo, hi = self.root_window
        if best is not None and lo < now < hi and not dirty & set(best):
            last = best[-1] if best else None
            window = (-math.inf, math.inf)
            for entity_id in dirty:
                if entity_id not in self.top_counts:
                    continue  # no longer a candidate: cannot enter
                if last is None or len(best) < ROOT_ENTITIES or self._ahead(entity_id, last):
                    best = None  # it enters: rank again
                    break
                window = narrow(window, crossing(self.top_counts, self.df, last, entity_id))
            if best is not None:
                slack = with_slack(window, self.chunks)
                self.root_window = (max(lo, slack[0]), min(hi, slack[1]))
                if self.root_window[0] < now < self.root_window[1]:
                    return best
        top, self.root_window = rank(self.top_counts, self.chunks, self.df, size=ROOT_ENTITIES)
        self.root_best = [s.entity_id for s in top]
        return self.root_best

    def _ahead(self, a: UUID, b: UUID) -> bool:
        """Whether ``a`` ranks ahead of ``b`` in the root for the current ``N``."""
        ga = self.top_counts[a] * idf(self.chunks, self.df[a])
        gb = self.top_counts[b] * idf(self.chunks, self.df[b])
        return (-ga, a.int) < (-gb, b.int)

    def anchors(self) -> dict[UUID, UUID]:
        return {node.id: doc_id for doc_id, node in self.buckets.items()}


async def load(store: Store, dataset: Dataset, token: str) -> IndexState:
    """The state the build of ``token`` persisted, as that build left it."""
    kept = IndexState.empty(token, ())
    parsed: dict[str, UUID] = {}
    for key, value in (await store.get_improve_states(dataset.id, DOC_PREFIX)).items():
        doc_id = UUID(key.removeprefix(DOC_PREFIX))
        row = json.loads(value)
        kept.data_ids.add(doc_id)
        mentions: dict[UUID, int] = {}
        for text, count in row["mentions"].items():
            entity_id = parsed.get(text)
            if entity_id is None:
                entity_id = parsed[text] = UUID(hex=text)
            mentions[entity_id] = int(count)
        kept.set_chunks(doc_id, int(row["chunks"]))
        if mentions:
            kept.set_mentions(doc_id, mentions)
            kept.doc_names[doc_id] = str(row["name"])
    for doc_id in kept.per_doc:
        kept.rerank(doc_id)
    for node in (await store.list_derived(dataset.id, OWNER)).nodes:
        if node.type == ROOT_TYPE:
            kept.root = node
        elif node.type == BUCKET_TYPE:
            kept.keep_bucket(UUID(str(node.properties["data_id"])), node)
    await kept.load_names(store, (), kept.entities_in_tops())
    return kept


async def current(store: Store, dataset: Dataset, token: str | None) -> IndexState | None:
    """The state of the dataset's last build, whose token (:data:`TOKEN_KEY`) the store holds:
    this process's, or loaded from the store (None when the index was never built)."""
    if not token:
        return None
    kept = cached(store, dataset.id)
    if kept is not None and kept.token == token:
        return kept
    kept = await load(store, dataset, token)
    remember_state(store, dataset.id, kept)
    return kept


async def build_incremental(
    ctx: ImproveContext, kept: IndexState, present: set[UUID], notes: Notes
) -> StageOutcome:
    """The build from ``kept``, given the change notes and, of the data items they note as
    come or gone, those the dataset holds (``present``; read at the stage's start)."""
    store, dataset = ctx.store, ctx.dataset
    added = sorted(present - kept.data_ids, key=lambda d: d.int)
    removed = (notes.members - present) & kept.data_ids
    if not added and not removed and not notes.stamps:
        return StageOutcome("already_completed", "no_writes_since_last_improve")
    _drop(store, dataset.id)  # mutated below: kept again only once the write went through

    # a member noted and still held may have been replaced (rebuilt): read again too
    noted = notes.documents | notes.members
    noted |= {d for e in notes.entities for d in kept.by_entity.get(e, ())}
    reread = sorted((noted & kept.data_ids) - removed, key=lambda d: d.int)
    read = [*added, *reread]
    new: dict[UUID, dict[UUID, int]] = defaultdict(dict)
    counts = await store.document_counts(dataset.id, read)
    for m in counts.mentions:
        new[m.data_id][m.entity_id] = m.chunks
    doc_chunks = counts.chunks
    touched: set[UUID] = set()
    gone = [bucket_id(dataset.id, d) for d in removed if d in kept.buckets]
    for doc_id in removed:
        touched |= kept.per_doc.get(doc_id, {}).keys()
        kept.remove_document(doc_id)
    for doc_id in read:
        touched |= kept.set_mentions(doc_id, new.get(doc_id, {}))
        kept.set_chunks(doc_id, doc_chunks.get(doc_id, 0))
    kept.data_ids -= removed  # in place: a copy would cost every id again
    kept.data_ids.update(added)
    now = level(kept.chunks)

    rerank = {d for d in read if d in kept.per_doc}
    rerank |= {d for e in touched for d in kept.by_entity.get(e, ())}
    rerank |= kept.outside(now)
    before = {d: [s.entity_id for s in kept.top.get(d, [])] for d in rerank}
    for doc_id in rerank:
        kept.rerank(doc_id)
    render = {d for d in rerank if [s.entity_id for s in kept.top[d]] != before[d]}
    render |= {d for d in reread if d not in kept.per_doc}  # lost every mention: no bucket
    render |= kept.ranking_naming(touched, at_least=2) | kept.ranking_naming(notes.entities)
    in_tops = kept.in_top
    # (not ``set - names.keys()``: that walks every name kept)
    wanted = {
        e for d in render for s in kept.top.get(d, []) if (e := s.entity_id) not in kept.names
    }
    unnamed = [d for d in read if d in kept.per_doc and d not in kept.doc_names]
    relabelled = await kept.load_names(
        store, unnamed, wanted | {e for e in touched | notes.entities if e in in_tops}
    )
    render |= kept.ranking_naming(relabelled)
    for name_id in [e for e in touched | notes.entities if e in kept.names and e not in in_tops]:
        del kept.names[name_id]  # keep the names of ranked entities only
    by_pair = await relations_of(
        store, [kept.top[d] for d in sorted(render, key=str) if d in kept.top]
    )
    previous = {d: kept.buckets.get(d) for d in render}
    for doc_id in render:
        kept.render(dataset, doc_id, by_pair)
    changed = [
        node
        for d in render
        if (node := kept.buckets.get(d)) is not None
        and (
            (old := previous[d]) is None
            or (old.text, old.properties) != (node.text, node.properties)
        )
    ]
    gone += [bucket_id(dataset.id, d) for d in render if d not in kept.buckets and previous[d]]
    old_root = kept.root
    new_root = kept.render_root(dataset)
    if old_root is None or (old_root.text, old_root.properties) != (
        new_root.text,
        new_root.properties,
    ):
        changed.append(new_root)
    kept.token = uuid.uuid4().hex
    anchors = {bucket_id(dataset.id, d): d for d in render if d in kept.buckets}
    drops: dict[str, str | None] = {doc_key(d): None for d in removed}
    report = await store.write_derived(
        DerivedWrite(
            dataset_id=dataset.id,
            owner=OWNER,
            nodes=changed,
            anchors={n.id: anchors[n.id] for n in changed if n.id in anchors},
            delete_node_ids=gone,
            state={TOKEN_KEY: kept.token, **kept.rows(read)},
            drop_state={**drops, **notes.stamps},
        )
    )
    remember_state(store, dataset.id, kept)
    return StageOutcome(
        counts={
            "buckets": len(kept.buckets),
            "written": report.nodes_written,
            "deleted": report.nodes_deleted,
            "reranked": len(rerank),
        }
    )
