"""Fact conflicts as stored: read back for list_conflicts and for retrieval's labels.

improve()'s ``review_conflicts`` stage (:mod:`engramdb.improvement.conflicts`) writes each
conflict as a derived, internal node of owner :data:`OWNER` and type :data:`CONFLICT_TYPE`,
its facts in ``properties["facts"]``; this module is the one reader of that layout. Retrieval
uses it to add a ``## Fact conflicts`` block to completion contexts (:func:`render_conflicts`)
and ``metadata["fact_conflicts"]`` labels to CHUNKS results (:func:`label_chunk_results`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from engramdb.models.conflicts import ConflictFact, FactConflict
from engramdb.models.records import Node
from engramdb.storage.base import Store

__all__ = [
    "CONFLICT_TYPE",
    "OWNER",
    "conflict_from_node",
    "fact_labels",
    "label_chunk_results",
    "load_conflicts",
    "relevant_conflicts",
    "render_conflicts",
]

logger = logging.getLogger(__name__)

#: Derived-data owner of every conflict node (the stage's name).
OWNER = "review_conflicts"
CONFLICT_TYPE = "FactConflict"


def conflict_from_node(node: Node) -> FactConflict:
    props: dict[str, Any] = node.properties
    resolved = props.get("resolved_fact_id")
    return FactConflict(
        id=node.id,
        dataset_id=node.dataset_id,
        entity_id=UUID(str(props["entity_id"])),
        entity_name=str(props.get("entity_name", "")),
        attribute=str(props["attribute"]),
        facts=[ConflictFact.model_validate(f) for f in props.get("facts", [])],
        explanation=node.text,
        resolved_fact_id=UUID(str(resolved)) if resolved else None,
    )


async def load_conflicts(store: Store, dataset_ids: Sequence[UUID]) -> list[FactConflict]:
    """The stored conflicts of these datasets, facts whose edges were deleted left out (and a
    conflict with fewer than two facts left, dropped)."""
    out: list[FactConflict] = []
    for dataset_id in dataset_ids:
        nodes = (await store.list_derived(dataset_id, OWNER, node_type=CONFLICT_TYPE)).nodes
        conflicts = [conflict_from_node(n) for n in nodes]
        pairs = sorted({(c.entity_id, f.value_id) for c in conflicts for f in c.facts}, key=str)
        if not pairs:
            continue
        alive = {e.id for e in await store.edges_between(pairs, provenance=False)}
        for conflict in conflicts:
            kept = [f for f in conflict.facts if f.edge_id in alive]
            if len(kept) >= 2:
                out.append(conflict.model_copy(update={"facts": kept}))
    return out


def render_conflicts(conflicts: Sequence[FactConflict]) -> str:
    """The ``## Fact conflicts`` block (empty string when there are none)."""
    if not conflicts:
        return ""
    lines = ["## Fact conflicts"]
    for conflict in conflicts:
        parts = []
        for fact in conflict.facts:
            when = f", effective {fact.effective_date}" if fact.effective_date else ""
            parts.append(f"{fact.text} [{fact.label}{when}]")
        note = " (resolved by the user)" if conflict.status == "resolved" else ""
        lines.append(f"- {conflict.entity_name} / {conflict.attribute}{note}: " + "; ".join(parts))
    return "\n".join(lines)


def relevant_conflicts(conflicts: Sequence[FactConflict], text: str) -> list[FactConflict]:
    """The conflicts a context mentions: its entity and at least one of its values appear."""
    low = text.casefold()
    return [
        c
        for c in conflicts
        if c.entity_name.casefold() in low and any(f.value.casefold() in low for f in c.facts)
    ]


def fact_labels(conflicts: Sequence[FactConflict], data_id: str, text: str) -> list[str]:
    """Labels of the conflicting facts a chunk (of data item ``data_id``) asserts."""
    low = text.casefold()
    out = []
    for conflict in conflicts:
        for fact in conflict.facts:
            if data_id in {str(d) for d in fact.data_ids} and fact.value.casefold() in low:
                when = f", effective {fact.effective_date}" if fact.effective_date else ""
                out.append(f"{fact.text} [{fact.label}{when}]")
    return out


async def label_chunk_results(
    store: Store, dataset_ids: Sequence[UUID], entries: list[Any]
) -> list[Any]:
    """CHUNKS results with ``metadata["fact_conflicts"]`` on chunks asserting a reviewed
    conflicting fact. Fail-open: the labels only add information."""
    if not entries:
        return entries
    try:
        conflicts = await load_conflicts(store, dataset_ids)
    except Exception as exc:  # fail-open by contract (logged): labels never cost the search
        logger.warning("could not read fact conflicts: %s", exc)
        return entries
    if not conflicts:
        return entries
    out = []
    for entry in entries:
        labels = fact_labels(conflicts, str(entry.metadata.get("data_id", "")), entry.text)
        if labels:
            entry = entry.model_copy(
                update={"metadata": {**entry.metadata, "fact_conflicts": labels}}
            )
        out.append(entry)
    return out
