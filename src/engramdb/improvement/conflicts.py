"""The ``review_conflicts`` stage: find facts that disagree, with the LLM, dated by documents.

What counts as a fact that *could* disagree: two or more relation edges from one entity with the
same relation name and different targets ("Alice lives_in Paris", "Alice lives_in Berlin");
the attribute is the relation. Each such group is sent to the LLM with, for every fact, the
documents it came from and their ``effective_date`` (the ``IMPROVE_EFFECTIVE_DATE_KEY`` entry of
the document's ``external_metadata``; never the time engramdb wrote the edge). Calls hold at
most 25 groups and about 8,000 input tokens; a group too big for one call is skipped and not
retried (``entities_skipped``); a group whose call failed is retried on the next run
(``entities_failed``). Later runs send only groups whose facts changed since they were reviewed,
and read only the facts of entities that gained one since the last run: those of documents the
stage has not seen yet (one improve-state row per seen document), of the change notes
(:mod:`.changes`: a merge's survivor, a queued extraction's document), of failed groups, and of
stored conflicts (a forgotten document may have taken one of their facts) — never all facts.

The model answers, per group, whether the facts conflict and which one is current. A conflict
is stored as a :class:`~engramdb.models.conflicts.FactConflict` (a derived, internal node of
owner ``review_conflicts``, read back by :mod:`engramdb.artifacts.conflicts`) whose facts are
labelled ``current`` / ``superseded`` (the model named a current fact) or
``conflicting`` (it could not). A user's choice (:func:`resolve`) wins over the model's and is
kept by later reviews while the chosen fact exists. Groups found consistent leave nothing
behind, and a stored conflict whose group no longer disagrees is deleted.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from uuid import UUID

from pydantic import BaseModel, Field

from engramdb.artifacts.conflicts import CONFLICT_TYPE, OWNER
from engramdb.errors import LLMPaymentRequiredError, LLMProviderError
from engramdb.improvement.changes import read_notes
from engramdb.improvement.context import ImproveContext, StageOutcome
from engramdb.models.records import DataRecord, Edge, Node, stable_id
from engramdb.storage.base import DerivedWrite

__all__ = ["review_conflicts"]

logger = logging.getLogger(__name__)

STATE_KEY = "review_conflicts.reviewed"
#: Entities whose groups' review call failed: reviewed again by the next run.
RETRY_KEY = "review_conflicts.retry"
#: One (empty) row per document whose facts a run has seen.
DOC_PREFIX = "review_conflicts.doc:"
#: The automatic improves whose review is queued: ``{"pending": n, "since": unix time}``.
QUEUE_KEY = "review_conflicts.queue"
STRUCTURAL = ("is_part_of", "summarizes", "contains", "is_a", "next", "mentions")
MAX_GROUPS_PER_CALL = 25
MAX_INPUT_TOKENS = 8000


class _Verdict(BaseModel):
    group: int
    conflicting: bool
    current_fact: int | None = None
    explanation: str = ""


class _Review(BaseModel):
    verdicts: list[_Verdict] = Field(default_factory=list)


_SYSTEM = (
    "You review facts extracted from documents. For each numbered group, decide whether its "
    "facts disagree (they cannot all be true at once) or are compatible (e.g. an entity may "
    "have several true values for the attribute). When they disagree, name the fact that is "
    "current, preferring the one from the most recent effective date; answer null when the "
    "dates do not decide it. Use only the facts and dates given."
)


def _dates(doc: DataRecord | None, key: str) -> str | None:
    if doc is None:
        return None
    value = doc.external_metadata.get(key)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return None if value in (None, "") else str(value)


def _signature(edges: Sequence[Edge]) -> str:
    return hashlib.sha256("|".join(sorted(str(e.id) for e in edges)).encode()).hexdigest()[:16]


async def review_conflicts(ctx: ImproveContext) -> StageOutcome:
    store, dataset, key = ctx.store, ctx.dataset, ctx.settings.improve_effective_date_key
    llm = ctx.engine.llm
    if llm is None:  # the gate said an LLM is configured; the factory may still decline
        return StageOutcome("already_completed", "no_llm_configured")
    queued = await _queue_review(ctx)
    if queued:
        return StageOutcome("already_completed", "debounced", counts={"queued_remembers": queued})
    scope = await _scope(ctx)
    facts = await store.fact_edges(
        dataset.id, exclude_relations=STRUCTURAL, source_ids=sorted(scope.entities, key=str)
    )
    groups: dict[tuple[UUID, str], list[Edge]] = defaultdict(list)
    for edge in facts:
        groups[edge.source_id, edge.relation].append(edge)
    candidates = {k: v for k, v in groups.items() if len({e.target_id for e in v}) >= 2}
    raw = await store.get_improve_state(dataset.id, STATE_KEY)
    reviewed: dict[str, str] = json.loads(raw) if raw else {}
    # the groups of the entities in scope as they are now: a vanished one needs no entry
    for group in [g for g in reviewed if UUID(g.split(":", 1)[0]) in scope.entities]:
        entity_id, relation = group.split(":", 1)
        if (UUID(entity_id), relation) not in candidates:
            del reviewed[group]
    todo = {k: v for k, v in candidates.items() if reviewed.get(f"{k[0]}:{k[1]}") != _signature(v)}
    stored = scope.stored
    gone = [i for i, n in stored.items() if _group_key(n) not in candidates]
    if not todo:
        await store.write_derived(
            DerivedWrite(
                dataset.id,
                OWNER,
                delete_node_ids=gone,
                state=scope.state(reviewed, retry=set()),
                drop_state=scope.drops,
            )
        )
        return StageOutcome("already_completed", "no_new_facts", counts={"deleted": len(gone)})

    node_ids = sorted(
        {e.source_id for v in todo.values() for e in v}
        | {e.target_id for v in todo.values() for e in v},
        key=str,
    )
    names = {n.id: n.name for n in await store.get_nodes(node_ids, provenance=False)}
    sources = sorted({d for v in todo.values() for e in v for d in e.data_ids}, key=str)
    docs = {d.id: d for d in [await store.get_data(i) for i in sources] if d is not None}

    batches: list[list[tuple[tuple[UUID, str], list[Edge]]]] = [[]]
    tokens = 0
    skipped = 0
    for group_key, edges in sorted(todo.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        cost = sum(len(_fact_line(e, names, docs, key)) for e in edges) // 4 + 20
        if cost > MAX_INPUT_TOKENS:
            skipped += 1
            reviewed[f"{group_key[0]}:{group_key[1]}"] = _signature(edges)  # never retried
            continue
        if len(batches[-1]) >= MAX_GROUPS_PER_CALL or tokens + cost > MAX_INPUT_TOKENS:
            batches.append([])
            tokens = 0
        batches[-1].append((group_key, edges))
        tokens += cost

    conflicts: list[Node] = []
    consistent: list[UUID] = []
    failed = reviewed_groups = 0
    retry: set[UUID] = set()
    last_error = ""
    for batch in [b for b in batches if b]:
        try:
            review, _ = await llm.structured(
                [
                    {"role": "system", "content": _SYSTEM},
                    {"role": "user", "content": _prompt(batch, names, docs, key)},
                ],
                _Review,
                cache=False,
            )
        except LLMPaymentRequiredError:
            raise  # ends the run: every later call would fail the same way
        except LLMProviderError as exc:
            failed += len(batch)
            retry |= {group_key[0] for group_key, _ in batch}
            last_error = f"{type(exc).__name__}: {exc}"
            logger.warning("conflict review call failed; retried next run: %s", exc)
            continue
        verdicts = {v.group: v for v in review.verdicts}
        for index, (group_key, edges) in enumerate(batch, start=1):
            verdict = verdicts.get(index)
            node_id = stable_id(OWNER, dataset.id, group_key[0], group_key[1])
            reviewed[f"{group_key[0]}:{group_key[1]}"] = _signature(edges)
            reviewed_groups += 1
            if verdict is None or not verdict.conflicting:
                consistent.append(node_id)
                continue
            previous = stored.get(node_id)
            conflicts.append(
                _conflict_node(
                    dataset.id, node_id, group_key, edges, verdict, previous, names, docs, key
                )
            )
    await store.write_derived(
        DerivedWrite(
            dataset_id=dataset.id,
            owner=OWNER,
            nodes=conflicts,
            delete_node_ids=[i for i in [*consistent, *gone] if i in stored],
            state=scope.state(reviewed, retry=retry),
            drop_state=scope.drops,
        )
    )
    counts = {
        "entities_reviewed": reviewed_groups,
        "conflicts": len(conflicts),
        "entities_failed": failed,
        "entities_skipped": skipped,
    }
    if failed:
        return StageOutcome("errored", last_error, counts)
    return StageOutcome(counts=counts)


@dataclass(frozen=True, slots=True)
class _Scope:
    """What a review run looks at: the entities that gained a fact since the last run (and
    those of stored conflicts, and of groups whose review call failed), the stored conflicts,
    and the bookkeeping that moves the last run's mark past what this one covers."""

    entities: set[UUID]
    stored: dict[UUID, Node]
    new_documents: list[UUID]
    drops: dict[str, str | None]

    def state(self, reviewed: dict[str, str], retry: set[UUID]) -> dict[str, str]:
        return {
            STATE_KEY: json.dumps(reviewed, sort_keys=True),
            RETRY_KEY: json.dumps(sorted(str(e) for e in retry)),
            **{f"{DOC_PREFIX}{d}": "" for d in self.new_documents},
        }


async def _scope(ctx: ImproveContext) -> _Scope:
    """Which entities gained a fact: sources of facts supported by documents this stage has not
    seen (each seen document keeps a :data:`DOC_PREFIX` row), entities of the change notes
    (a merge's survivor gains its absorbed entities' facts; a queued extraction's document
    gains its facts), entities whose review call failed, and the entities of stored conflicts
    (a forgotten document may have taken one of their facts)."""
    store, dataset = ctx.store, ctx.dataset
    notes = await read_notes(store, dataset.id, OWNER)
    seen = await store.get_improve_states(dataset.id, DOC_PREFIX)
    ids = await store.data_ids(dataset.id)
    present = set(ids)
    new = [d for d in ids if f"{DOC_PREFIX}{d}" not in seen]
    read = sorted(set(new) | (notes.documents & present), key=str)
    facts = await store.fact_edges(dataset.id, exclude_relations=STRUCTURAL, data_ids=read)
    entities = {e.source_id for e in facts} | notes.entities
    raw = await store.get_improve_state(dataset.id, RETRY_KEY)
    entities |= {UUID(e) for e in json.loads(raw)} if raw else set()
    stored = {n.id: n for n in (await store.list_derived(dataset.id, OWNER)).nodes}
    entities |= {k[0] for k in map(_group_key, stored.values()) if k is not None}
    drops: dict[str, str | None] = dict(notes.stamps)
    drops |= {k: None for k in seen if UUID(k.removeprefix(DOC_PREFIX)) not in present}
    return _Scope(entities, stored, new, drops)


async def _queue_review(ctx: ImproveContext) -> int:
    """Debounce the automatic improve's review (``IMPROVE_REVIEW_BATCH_REMEMBERS`` /
    ``IMPROVE_REVIEW_BATCH_SECONDS``): queue this one and return how many are queued, or
    return 0 when the review is due (the queue is emptied: this review covers it)."""
    store, dataset, settings = ctx.store, ctx.dataset, ctx.settings
    raw = await store.get_improve_state(dataset.id, QUEUE_KEY)
    queue = json.loads(raw) if raw else {"pending": 0, "since": 0.0}
    pending, since, now = int(queue["pending"]), float(queue["since"]), time.time()
    age = settings.improve_review_batch_seconds
    due = (
        not ctx.options.automatic
        or pending + 1 >= settings.improve_review_batch_remembers
        or (age > 0 and pending > 0 and now - since >= age)
    )
    if due:
        if pending:
            await store.set_improve_state(dataset.id, QUEUE_KEY, "")
        return 0
    queue = {"pending": pending + 1, "since": since if pending else now}
    await store.set_improve_state(dataset.id, QUEUE_KEY, json.dumps(queue))
    return pending + 1


def _group_key(node: Node) -> tuple[UUID, str] | None:
    try:
        return UUID(str(node.properties["entity_id"])), str(node.properties["attribute"])
    except (KeyError, ValueError):
        return None


def _fact_line(edge: Edge, names: dict[UUID, str], docs: dict[UUID, DataRecord], key: str) -> str:
    sources = [docs.get(d) for d in edge.data_ids]
    when = sorted({d for d in (_dates(s, key) for s in sources) if d})
    where = ", ".join(sorted({s.name for s in sources if s is not None})) or "unknown"
    return (
        f"{names.get(edge.source_id, '?')} {edge.relation.replace('_', ' ')} "
        f"{names.get(edge.target_id, '?')} (effective date: {', '.join(when) or 'unknown'}; "
        f"document: {where})"
    )


def _prompt(
    batch: list[tuple[tuple[UUID, str], list[Edge]]],
    names: dict[UUID, str],
    docs: dict[UUID, DataRecord],
    key: str,
) -> str:
    lines = ["Answer with one verdict per group; facts are numbered within their group."]
    for index, ((entity_id, relation), edges) in enumerate(batch, start=1):
        lines.append(f"\nGroup {index}: {names.get(entity_id, '?')} / {relation}")
        lines += [f"  {i}. {_fact_line(e, names, docs, key)}" for i, e in enumerate(edges, 1)]
    return "\n".join(lines)


def _conflict_node(
    dataset_id: UUID,
    node_id: UUID,
    group_key: tuple[UUID, str],
    edges: list[Edge],
    verdict: _Verdict,
    previous: Node | None,
    names: dict[UUID, str],
    docs: dict[UUID, DataRecord],
    key: str,
) -> Node:
    resolved = previous.properties.get("resolved_fact_id") if previous else None
    if resolved not in {str(e.id) for e in edges}:
        resolved = None  # the accepted fact is gone: the model's verdict applies again
    model_pick = (
        str(edges[verdict.current_fact - 1].id)
        if verdict.current_fact is not None and 1 <= verdict.current_fact <= len(edges)
        else None
    )
    current = resolved or model_pick
    facts = []
    for edge in edges:
        sources = [docs.get(d) for d in edge.data_ids]
        when = sorted({d for d in (_dates(s, key) for s in sources) if d})
        label = (
            "conflicting"
            if current is None
            else ("current" if str(edge.id) == current else "superseded")
        )
        facts.append(
            {
                "edge_id": str(edge.id),
                "text": f"{names.get(edge.source_id, '?')} {edge.relation.replace('_', ' ')} "
                f"{names.get(edge.target_id, '?')}",
                "value": names.get(edge.target_id, "?"),
                "value_id": str(edge.target_id),
                "label": label,
                "effective_date": when[-1] if when else None,
                "data_ids": [str(d) for d in edge.data_ids],
                "documents": sorted({s.name for s in sources if s is not None}),
            }
        )
    entity = names.get(group_key[0], "?")
    return Node(
        id=node_id,
        dataset_id=dataset_id,
        type=CONFLICT_TYPE,
        name=f"conflict: {entity} / {group_key[1]}",
        text=verdict.explanation,
        properties={
            "internal": True,
            "entity_id": str(group_key[0]),
            "entity_name": entity,
            "attribute": group_key[1],
            "facts": facts,
            "resolved_fact_id": resolved,
        },
    )
