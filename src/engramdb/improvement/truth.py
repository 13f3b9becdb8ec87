"""The ``build_truth_subspace`` stage: anchor what a conversation established to the graph.

Opt-in (``improve(session_ids=..., build_truth_subspace=True)``), offline, best-effort. The
simplest useful version (see docs/improve.md):

* Its input is the guidance ``distill_sessions`` wrote into the dataset — this run or before —
  as ``session learnings`` documents: each distilled, accepted entry (confidence >= 0.5, the
  personal ``preferences`` section excepted) whose statement appears in one of its session's
  learnings documents. An entry distill has not processed yet waits for it; one that no
  learnings document holds (left uncurated by ``IMPROVE_DISTILL_MAX_BATCHES_PER_RUN``, or its
  document forgotten) is consumed without an anchor.
* Each statement becomes one ``TruthAnchor`` node (text = the statement; properties
  ``session_id``, ``section``, ``data_id`` of the learnings document, ``entry_id``), derived
  data of owner ``truth_subspace`` anchored to that document (forgetting the document or the
  dataset deletes it), with an ``anchors`` edge to every ``Entity`` of the dataset whose name
  the statement contains (case-insensitive, whole words).
* Entries are consumed once per dataset through consumer marks spent in the same transaction as
  the anchors, so a re-run changes nothing (``already_completed`` / ``no_new_entries``).
* Without ``session_ids`` (the reference's rule) the statements are the chunks of the dataset's
  documents in the ``session_learnings`` node set that the application wrote itself (distill's
  own learnings documents are anchored through their sessions): one anchor per chunk,
  anchored to its document; a re-run anchors only chunks not anchored yet.

Anchors are marked ``internal`` (never a search hit or a fact of a triplet); graph completion
shows them as an ``Established in conversation:`` block for the entities its facts name
(:func:`engramdb.artifacts.truth.anchor_block`). After the anchors, the stage rebuilds the
dataset's centroid slots from them when they changed (:func:`engramdb.artifacts.truth_slots.
refresh_slots`): HYBRID_COMPLETION's ``use_truth_weight`` ranks along those directions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from uuid import UUID

from engramdb.artifacts.truth import ANCHOR_TYPE, ANCHORS, OWNER, STATE_KEY
from engramdb.artifacts.truth_slots import refresh_slots
from engramdb.improvement.context import ImproveContext, StageOutcome, consumer_name
from engramdb.improvement.learning import (
    ACCEPTED_CONFIDENCE,
    LEARNINGS_NODE_SET,
    PERSONAL_SECTIONS,
    is_learnings_name,
    learnings_name,
)
from engramdb.models.records import DataRecord, Edge, Node, NodeType, chunk_id, stable_id
from engramdb.models.sessions import ContextRecord, EntryMark
from engramdb.storage.base import DerivedReport, DerivedWrite, Store

__all__ = ["build_truth_subspace", "names_in"]

#: Entities of the dataset a build matches statements against (bounded read).
MAX_ENTITIES = 20_000


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def names_in(statement: str, entities: Sequence[Node]) -> list[Node]:
    """The entities whose name the statement contains as whole words, ignoring case."""
    low = _norm(statement)
    found = []
    for entity in entities:
        name = _norm(entity.name)
        if not name or name not in low:
            continue
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", low):
            found.append(entity)
    return found


async def _learnings_texts(store: Store, docs: Sequence[DataRecord]) -> dict[UUID, str]:
    """Each learnings document's text, normalised, read back from its chunks (ids derive from
    the data id and chunk index, see ``graph_builder``)."""
    texts: dict[UUID, str] = {}
    for doc in docs:
        ids = [chunk_id(doc.id, i) for i in range(doc.chunk_count)]
        chunks = await store.get_nodes(ids, provenance=False) if ids else []
        # each chunk alone, and all of them together (a statement across a chunk boundary)
        parts = [c.text for c in chunks]
        texts[doc.id] = "\n".join([*(_norm(p) for p in parts), _norm(" ".join(parts))])
    return texts


def _distilled(
    entries: Sequence[ContextRecord], pending_for_distill: set[UUID]
) -> list[ContextRecord]:
    """Entries distill_sessions already processed (so they are in a learnings document or were
    left out of one for good)."""
    return [e for e in entries if e.id not in pending_for_distill]


async def build_truth_subspace(ctx: ImproveContext) -> StageOutcome:
    if not ctx.session_ids:
        return await _anchor_learnings_documents(ctx)
    store, dataset = ctx.store, ctx.dataset
    consumer = consumer_name("build_truth_subspace", dataset)
    distill_consumer = consumer_name("distill_sessions", dataset)
    work: list[tuple[str, list[ContextRecord]]] = []
    for sid in ctx.session_ids:
        fresh = await store.list_context_entries(ctx.user.id, sid, unmarked_by=consumer)
        if not fresh:
            continue
        pending = await store.list_context_entries(ctx.user.id, sid, unmarked_by=distill_consumer)
        done = _distilled(fresh, {e.id for e in pending})
        if done:
            work.append((sid, done))
    if not work:
        slots = await refresh_slots(store, ctx.engine.embedder, dataset)
        if slots is None:
            return StageOutcome("already_completed", "no_new_entries")
        return StageOutcome(counts={"entries": 0, "anchors": 0, "slots": slots})

    data = await store.list_data(dataset.id)
    entities: list[Node] | None = None
    nodes: list[Node] = []
    edges: list[Edge] = []
    anchors: dict[UUID, UUID] = {}
    marks: list[EntryMark] = []
    for sid, done in work:
        marks += [EntryMark("context", e.id) for e in done]
        accepted = [
            e
            for e in done
            if e.confidence >= ACCEPTED_CONFIDENCE and e.section not in PERSONAL_SECTIONS
        ]
        if not accepted:
            continue
        docs = sorted(
            (d for d in data if d.name == learnings_name(sid) and LEARNINGS_NODE_SET in d.node_set),
            key=lambda d: (d.created_at, str(d.id)),
        )
        texts = await _learnings_texts(store, docs) if docs else {}
        for entry in accepted:
            statement = " ".join(entry.content.split())
            source = next((d for d in docs if f"- {_norm(statement)}" in texts[d.id]), None)
            if source is None or not statement:
                continue  # never written into the dataset: nothing to anchor
            if entities is None:
                entities = await store.list_nodes(
                    [dataset.id], type=NodeType.ENTITY, limit=MAX_ENTITIES
                )
            anchor_id = stable_id(ANCHOR_TYPE, dataset.id, entry.id)
            nodes.append(
                _anchor_node(
                    dataset.id,
                    anchor_id,
                    statement,
                    session_id=sid,
                    section=entry.section,
                    context_profile=entry.context_profile,
                    data_id=str(source.id),
                    entry_id=str(entry.id),
                )
            )
            anchors[anchor_id] = source.id
            edges += _anchor_edges(dataset.id, anchor_id, names_in(statement, entities))
    report = await _write_anchors(store, dataset.id, nodes, edges, anchors, {consumer: marks})
    slots = await refresh_slots(store, ctx.engine.embedder, dataset)
    counts = {
        "entries": len(marks),
        "anchors": report.nodes_written,
        "entities_linked": report.edges_written,
    }
    return StageOutcome(counts=counts if slots is None else {**counts, "slots": slots})


async def _anchor_learnings_documents(ctx: ImproveContext) -> StageOutcome:
    """The stage without session_ids: the chunks of the application's own ``session_learnings``
    documents become anchors (see the module docstring)."""
    store, dataset = ctx.store, ctx.dataset
    docs = [
        d
        for d in await store.list_data(dataset.id)
        if LEARNINGS_NODE_SET in d.node_set and not is_learnings_name(d.name) and d.chunk_count
    ]
    known = {
        n.id for n in (await store.list_derived(dataset.id, OWNER, node_type=ANCHOR_TYPE)).nodes
    }
    entities: list[Node] | None = None
    nodes: list[Node] = []
    edges: list[Edge] = []
    anchors: dict[UUID, UUID] = {}
    for doc in docs:
        ids = [chunk_id(doc.id, i) for i in range(doc.chunk_count)]
        for chunk in await store.get_nodes(ids, provenance=False):
            statement = " ".join(chunk.text.split())
            anchor_id = stable_id(ANCHOR_TYPE, dataset.id, chunk.id)
            if not statement or anchor_id in known:
                continue
            if entities is None:
                entities = await store.list_nodes(
                    [dataset.id], type=NodeType.ENTITY, limit=MAX_ENTITIES
                )
            nodes.append(
                _anchor_node(
                    dataset.id, anchor_id, statement, data_id=str(doc.id), chunk_id=str(chunk.id)
                )
            )
            anchors[anchor_id] = doc.id
            edges += _anchor_edges(dataset.id, anchor_id, names_in(statement, entities))
    report = await _write_anchors(store, dataset.id, nodes, edges, anchors, {}) if nodes else None
    slots = await refresh_slots(store, ctx.engine.embedder, dataset)
    if report is None and slots is None:
        return StageOutcome("already_completed", "no_new_entries")
    counts = {
        "documents": len(docs),
        "anchors": report.nodes_written if report else 0,
        "entities_linked": report.edges_written if report else 0,
    }
    return StageOutcome(counts=counts if slots is None else {**counts, "slots": slots})


def _anchor_edges(dataset_id: UUID, anchor_id: UUID, entities: Sequence[Node]) -> list[Edge]:
    """The ``anchors`` edges from an anchor to the entities its statement names."""
    return [
        Edge(
            id=stable_id(ANCHORS, anchor_id, entity.id),
            dataset_id=dataset_id,
            source_id=anchor_id,
            target_id=entity.id,
            relation=ANCHORS,
        )
        for entity in entities
    ]


def _anchor_node(dataset_id: UUID, anchor_id: UUID, statement: str, **properties: str) -> Node:
    """The internal anchor node of one statement, with what it came from in ``properties``."""
    return Node(
        id=anchor_id,
        dataset_id=dataset_id,
        type=ANCHOR_TYPE,
        name=statement[:120],
        text=statement,
        properties={"internal": True, **properties},
    )


async def _write_anchors(
    store: Store,
    dataset_id: UUID,
    nodes: list[Node],
    edges: list[Edge],
    anchors: dict[UUID, UUID],
    marks: dict[str, list[EntryMark]],
) -> DerivedReport:
    """Write the anchors (each anchored to its document) and spend ``marks``, in one
    transaction; the dataset is flagged as anchored when there are any."""
    return await store.write_derived(
        DerivedWrite(
            dataset_id=dataset_id,
            owner=OWNER,
            nodes=nodes,
            edges=edges,
            anchors=anchors,
            state={STATE_KEY: "1"} if nodes else {},
            marks=marks,
        )
    )
