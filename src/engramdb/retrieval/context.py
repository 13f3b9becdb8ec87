"""Rendering retrieved triplets and passages into prompt context, with the evidence placed there.

The text is what the LLM reads; the :class:`~engramdb.retrieval.completion.EvidenceItem` list
is what ``include_references`` reports, numbered the way the seed says: for graph completion the
nodes first in order of appearance, then the edges, then the source chunks, all on one numbering,
with ``score`` None; for RAG_COMPLETION each chunk's position in the retrieval results with its
raw distance, duplicates dropped without renumbering.

A graph context reads::

    Passages:
    Andreas was born in Venice, but later settled in Lisbon.

    Alice moved to Paris in 2010, while Bob has always lived in New York.

    Facts:
    Andreas —born_in→ Venice
    Andreas —settle_in→ Lisbon

    Entities:
    - Andreas (person): ...   (only when no shown passage already quotes the description)

Passages are paragraphs of the chunks asserting the facts and of the best chunk hits, ranked
by the retriever (best first), capped by a character budget (whole passages; the first one is
always included, truncated if it alone exceeds the budget) so a few long chunks cannot crowd the
facts out of a model's context window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from engramdb.models.records import Node, NodeType
from engramdb.retrieval.completion import BuiltContext, EvidenceItem
from engramdb.retrieval.retrievers.graph import Triplet

__all__ = [
    "DEFAULT_PASSAGE_CHAR_BUDGET",
    "Passage",
    "graph_context",
    "node_label",
    "passage_context",
    "supporting_chunk_ids",
    "triplet_line",
]

#: Characters of passage text a graph context may hold (roughly 2k tokens).
DEFAULT_PASSAGE_CHAR_BUDGET = 8000
_MAX_DESCRIPTION_CHARS = 200


@dataclass(frozen=True, slots=True)
class Passage:
    """Text placed in the context on behalf of ``chunk`` (its own text, or its summary's)."""

    chunk: Node
    text: str
    #: Raw vector distance, when the passage came straight from a vector search (RAG).
    score: float | None = None
    rank: int = 0


def node_label(node: Node) -> str:
    """How a node is named in a fact line: its name, or a chunk's locator."""
    if node.type == NodeType.CHUNK:
        return f"[{_chunk_locator(node)}]"
    return node.name or _clip(node.text, 60) or str(node.id)


def triplet_line(triplet: Triplet) -> str:
    """``Subject —relation→ Object``."""
    return f"{node_label(triplet.source)} —{triplet.edge.relation}→ {node_label(triplet.target)}"


def supporting_chunk_ids(triplets: Sequence[Triplet]) -> list[UUID]:
    """Chunks asserting the triplets, deduplicated, in the order of the best triplet citing each."""
    return list(dict.fromkeys(c for t in triplets for c in t.chunk_ids))


def graph_context(
    triplets: Sequence[Triplet],
    passages: Sequence[Passage],
    *,
    sources: Sequence[Node],
    descriptions: bool = True,
    passage_heading: str = "Passages",
    passage_budget: int = DEFAULT_PASSAGE_CHAR_BUDGET,
    passage_locators: bool = False,
    evidence_in_metadata: bool = True,
    verbose: bool = False,
    preamble: str = "",
) -> BuiltContext:
    """The context of a graph-family answer.

    ``sources`` are the chunks asserting the triplets, best first: they become the
    ``supports_assertion`` segments of the evidence whether or not their text fits the passage
    budget, because they back facts that are in the context. ``passages`` are what is shown,
    best first (empty for TRIPLET_COMPLETION, summaries for GRAPH_SUMMARY_COMPLETION); shown
    passages asserting no fact are cited as ``used_as_context`` segments. Passages are
    paragraphs, so they carry no ``[chunk N of NAME]`` header unless ``passage_locators``: the
    evidence names their chunks, and on LoCoMo the headers cost 2 points at 750 words.
    """
    if not triplets:
        return BuiltContext(text="", evidence_in_metadata=evidence_in_metadata)
    sections = [preamble] if preamble else []
    nodes = _nodes_in_order(triplets)
    fitting = _within_budget(passages, passage_budget, locators=passage_locators)
    shown = [block for _, block in fitting]
    # The passages the facts come from lead: they carry the wording a question is answered from
    # (on LoCoMo, facts first left the evidence outside a 250-word budget 86% of the time).
    if shown:
        sections.append(f"{passage_heading}:\n" + "\n\n".join(shown))
    sections.append("Facts:\n" + "\n".join(triplet_line(t) for t in triplets))
    if descriptions:
        in_passages = _normalise("\n".join(shown))
        described = [line for line in (_description(n, in_passages) for n in nodes) if line]
        if described:
            sections.append("Entities:\n" + "\n".join(described))
    return BuiltContext(
        text="\n\n".join(sections),
        evidence=_graph_evidence(triplets, nodes, sources, [p.chunk for p, _ in fitting]),
        evidence_in_metadata=evidence_in_metadata,
        raw={"triplets": [_triplet_payload(t, i, verbose) for i, t in enumerate(triplets)]},
    )


def passage_context(passages: Sequence[Passage]) -> BuiltContext:
    """RAG_COMPLETION's context: the passages in retrieval order, each cited with its score."""
    evidence = [
        EvidenceItem(
            kind="segment",
            artifact_id=str(p.chunk.id),
            rank=p.rank,
            score=p.score,
            snippet=p.text,
            **_locators(p.chunk),
        )
        for p in passages
    ]
    raw_chunks = [
        {"chunk_id": str(p.chunk.id), "rank": p.rank, "score": p.score, **_locator_dict(p.chunk)}
        for p in passages
    ]
    return BuiltContext(
        text="\n\n".join(_passage_block(p.chunk, p.text) for p in passages),
        evidence=evidence,
        evidence_in_metadata=True,
        raw={"chunks": raw_chunks},
    )


# --- helpers ------------------------------------------------------------------------------------


def _nodes_in_order(triplets: Sequence[Triplet]) -> list[Node]:
    seen: dict[UUID, Node] = {}
    for t in triplets:
        seen.setdefault(t.source.id, t.source)
        seen.setdefault(t.target.id, t.target)
    return list(seen.values())


def _description(node: Node, in_passages: str) -> str:
    """``- Name (type): description`` once per entity; chunks are described by their passage.

    A description the passages already quote (the offline extractor describes an entity by the
    sentence naming it) is left out: repeating it would only spend the context budget.
    """
    if node.type == NodeType.CHUNK:
        return ""
    kind = str(node.properties.get("entity_type") or node.type).lower()
    description = node.properties.get("description")
    if not isinstance(description, str) or not description.strip():
        prefix = f"{node.name}:"
        description = node.text.removeprefix(prefix).strip() if node.text != node.name else ""
    line = f"- {node_label(node)} ({kind})"
    if not description or _normalise(description) in in_passages:
        return line
    return f"{line}: {_clip(description, _MAX_DESCRIPTION_CHARS)}"


def _normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


def _within_budget(
    passages: Sequence[Passage], budget: int, locators: bool = True
) -> list[tuple[Passage, str]]:
    """The passages that fit ``budget`` characters, best first, each with its rendered block."""
    blocks: list[tuple[Passage, str]] = []
    used = 0
    if budget <= 0:
        return blocks
    for passage in passages:
        text = passage.text.strip()
        if not text:
            continue
        if used + len(text) > budget:
            if blocks:
                break
            text = _clip(text, budget)
        blocks.append((passage, _passage_block(passage.chunk, text) if locators else text.strip()))
        used += len(text)
    return blocks


def _passage_block(chunk: Node, text: str) -> str:
    return f"[{_chunk_locator(chunk)}]\n{text.strip()}"


def _graph_evidence(
    triplets: Sequence[Triplet],
    nodes: Sequence[Node],
    sources: Sequence[Node],
    shown: Sequence[Node] = (),
) -> list[EvidenceItem]:
    """Nodes, then edges, then the chunks asserting the facts (``supports_assertion``), then
    the passages shown that assert none of them (``used_as_context``), on one numbering."""
    items: list[EvidenceItem] = [
        EvidenceItem(kind="graph_node", artifact_id=str(n.id), rank=i) for i, n in enumerate(nodes)
    ]
    edges = list(dict.fromkeys(str(t.edge.id) for t in triplets))
    items += [
        EvidenceItem(kind="graph_edge", artifact_id=e, rank=len(items) + i)
        for i, e in enumerate(edges)
    ]
    start = len(items)
    items += [
        EvidenceItem(
            kind="segment",
            artifact_id=str(chunk.id),
            rank=start + i,
            role="supports_assertion",
            **_locators(chunk),
        )
        for i, chunk in enumerate(sources)
    ]
    asserting = {chunk.id for chunk in sources}
    start = len(items)
    context_only = list({c.id: c for c in shown if c.id not in asserting}.values())
    items += [
        EvidenceItem(
            kind="segment",
            artifact_id=str(chunk.id),
            rank=start + i,
            role="used_as_context",
            **_locators(chunk),
        )
        for i, chunk in enumerate(context_only)
    ]
    return items


def _triplet_payload(triplet: Triplet, rank: int, verbose: bool) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "rank": rank,
        "source": _node_payload(triplet.source),
        "relation": triplet.edge.relation,
        "edge_id": str(triplet.edge.id),
        "target": _node_payload(triplet.target),
        "distance": triplet.distance,
        "score": triplet.score,
        "chunk_ids": [str(c) for c in triplet.chunk_ids],
    }
    if verbose:
        payload["element_distances"] = list(triplet.element_distances)
        payload["score_breakdown"] = triplet.breakdown.as_dict()
    return payload


def _node_payload(node: Node) -> dict[str, Any]:
    return {"id": str(node.id), "name": node.name, "type": node.type}


def _locators(chunk: Node) -> dict[str, Any]:
    """The EvidenceItem locator fields of a chunk node."""
    index = chunk.properties.get("chunk_index")
    data_id = chunk.properties.get("data_id")
    name = chunk.properties.get("document_name")
    return {
        "chunk_id": str(chunk.id),
        "chunk_index": index if isinstance(index, int) else None,
        "data_id": str(data_id) if data_id is not None else None,
        "document_name": str(name) if name is not None else None,
    }


def _locator_dict(chunk: Node) -> dict[str, Any]:
    return {k: v for k, v in _locators(chunk).items() if v is not None and k != "chunk_id"}


def _chunk_locator(chunk: Node) -> str:
    index = chunk.properties.get("chunk_index")
    name = chunk.properties.get("document_name")
    if index is None or name is None:
        return chunk.name or str(chunk.id)
    return f"chunk {index} of {name}"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"
