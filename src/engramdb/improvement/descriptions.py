"""An entity's description rewritten from its neighbourhood (cognee's
``consolidate_entity_descriptions``): with an LLM, a short rewording of the entity's description
and of the facts around it; offline, the description followed by its relations.

Pure helpers (no store): :func:`neighbourhood_text` is the LLM's input, :func:`offline_description`
the answer without one. :func:`engramdb.api.consolidate.consolidate_entity_descriptions` runs them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from uuid import UUID

from pydantic import BaseModel

from engramdb.models.records import Edge, Node, NodeType

__all__ = [
    "SYSTEM_PROMPT",
    "ConsolidatedDescription",
    "neighbourhood_text",
    "offline_description",
]

#: Characters of one neighbouring chunk's text shown to the LLM.
_PASSAGE_CHARS = 400
#: Neighbours listed per entity at most.
MAX_NEIGHBOURS = 30

SYSTEM_PROMPT = (
    "You rewrite the description of one entity of a knowledge graph. You are given its name, "
    "its current description and how it is connected to its neighbours (other entities, its "
    "type, and passages that mention it). Write a brief, self-contained description that keeps "
    "the subject and the important facts, worded afresh rather than copied. Answer with the "
    "description only."
)


class ConsolidatedDescription(BaseModel):
    """The LLM's answer."""

    description: str


def _describe(node: Node) -> str:
    if node.type == NodeType.CHUNK.value:
        return node.text[:_PASSAGE_CHARS]
    description = str(node.properties.get("description") or "").strip()
    return f"{node.name} - {description}" if description else node.name


def _facts(entity: Node, edges: Sequence[Edge], nodes: Mapping[UUID, Node]) -> list[str]:
    """One line per neighbour: ``<relation>: <neighbour>`` (outgoing) or
    ``<neighbour> <relation> this`` (incoming), entities and types before passages."""
    lines: list[tuple[int, str]] = []
    for edge in edges:
        outgoing = edge.source_id == entity.id
        other = nodes.get(edge.target_id if outgoing else edge.source_id)
        if other is None or other.id == entity.id:
            continue
        rank = 1 if other.type == NodeType.CHUNK.value else 0
        if outgoing:
            lines.append((rank, f"{edge.relation}: {_describe(other)}"))
        else:
            lines.append((rank, f"{_describe(other)} ({edge.relation} this entity)"))
    ordered = [text for _, text in sorted(lines, key=lambda item: item[0])]
    return list(dict.fromkeys(ordered))[:MAX_NEIGHBOURS]


def neighbourhood_text(entity: Node, edges: Sequence[Edge], nodes: Mapping[UUID, Node]) -> str:
    """The entity, its description and its neighbours, as the LLM reads them."""
    description = str(entity.properties.get("description") or "").strip() or "(none)"
    lines = [f"Entity: {entity.name}", f"Current description: {description}", "Connections:"]
    lines += [f"- {fact}" for fact in _facts(entity, edges, nodes)] or ["- (none)"]
    return "\n".join(lines)


def offline_description(
    entity: Node, edges: Sequence[Edge], nodes: Mapping[UUID, Node]
) -> str | None:
    """Without an LLM: the entity's description followed by its relations to other entities
    ("Alice. lives_in: Paris; works_for: Acme."); None when there is nothing to add."""
    description = str(entity.properties.get("description") or "").strip()
    relations: list[str] = []
    for edge in edges:
        outgoing = edge.source_id == entity.id
        other = nodes.get(edge.target_id if outgoing else edge.source_id)
        if other is None or other.type != NodeType.ENTITY.value or other.id == entity.id:
            continue
        text = f"{edge.relation}: {other.name}" if outgoing else f"{other.name} {edge.relation}"
        if text not in relations:
            relations.append(text)
    suffix = f"{'; '.join(relations[:MAX_NEIGHBOURS])}."
    if not relations or description.endswith(suffix):  # nothing to add, or added already
        return None
    head = description.rstrip(".") if description else entity.name
    return f"{head}. {suffix}"
