"""HYBRID_COMPLETION's context: the ranked passages one by one, the rest of their chunks, the
fact lines, cut to a word budget, rendered with one evidence entry per chunk cited."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from engramdb.models.records import Node
from engramdb.retrieval.completion import BuiltContext, EvidenceItem
from engramdb.retrieval.hybrid_options import HybridConfig
from engramdb.retrieval.passages import Passage
from engramdb.retrieval.retrievers.hybrid_candidates import FactLine

__all__ = ["ContextItem", "build_hybrid_context", "order_items", "render_context"]


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One entry of a hybrid context, in final order: a passage of a chunk or a fact line.

    ``score`` is the ranking score, higher is better (importance weight included).
    """

    text: str
    chunk_id: str
    score: float
    kind: Literal["passage", "fact"] = "passage"
    data_id: str | None = None
    chunk_index: int | None = None
    document_name: str | None = None
    dataset_id: UUID | None = None
    #: Human-readable date of the passage's document, when it has one ("8 May 2023").
    date: str | None = None


def _item(text: str, chunk: Node, score: float, date: str | None) -> ContextItem:
    props = chunk.properties
    index = props.get("chunk_index")
    data_id = props.get("data_id")
    name = props.get("document_name")
    return ContextItem(
        text=text,
        chunk_id=str(chunk.id),
        score=score,
        data_id=str(data_id) if data_id is not None else None,
        chunk_index=index if isinstance(index, int) else None,
        document_name=str(name) if name is not None else None,
        dataset_id=chunk.dataset_id,
        date=date,
    )


def order_items(
    passages: Sequence[Passage],
    chunk_order: Sequence[Node],
    facts: Sequence[FactLine],
    config: HybridConfig,
) -> list[ContextItem]:
    """The context in final order: the best ``ranked_passages`` passages one by one, then the
    remaining passages chunk by chunk (in ``chunk_order``), then the fact lines; identical
    texts once only; cut before ``context_words`` words would be exceeded."""
    items: list[ContextItem] = []
    seen: set[str] = set()
    words = 0

    def push(item: ContextItem) -> bool:
        nonlocal words
        key = " ".join(item.text.split()).casefold()
        if key in seen:
            return True
        n = len(item.text.split())
        if words + n > config.context_words:
            return False
        seen.add(key)
        items.append(item)
        words += n
        return True

    ranked = passages[: config.ranked_passages]
    for p in ranked:
        if not push(_item(p.text, p.chunk, p.score, p.date)):
            return items
    used = {(p.chunk.id, p.position) for p in ranked}
    rest: dict[UUID, list[Passage]] = {}
    for p in passages:
        if (p.chunk.id, p.position) not in used:
            rest.setdefault(p.chunk.id, []).append(p)
    for chunk in chunk_order:
        group = sorted(rest.pop(chunk.id, []), key=lambda p: p.position)
        if group:
            text = "\n".join(p.text for p in group)
            if not push(_item(text, chunk, max(p.score for p in group), group[0].date)):
                return items
    for fact in facts:
        if not push(
            ContextItem(text=fact.text, chunk_id=fact.chunk_id, score=fact.score, kind="fact")
        ):
            break
    return items


def render_context(items: Sequence[ContextItem]) -> str:
    """Passages as paragraphs (``[date] `` first when labelled), then the fact lines under a
    ``Facts:`` heading."""
    passages = [f"[{i.date}] {i.text}" if i.date else i.text for i in items if i.kind == "passage"]
    facts = [i.text for i in items if i.kind == "fact"]
    parts = ["\n\n".join(passages)] if passages else []
    if facts:
        parts.append("Facts:\n" + "\n".join(facts))
    return "\n\n".join(parts)


def build_hybrid_context(items: Sequence[ContextItem]) -> BuiltContext:
    """The completion context: the rendered items, and one ``segment`` evidence entry per chunk
    cited (in order of first appearance) for the ``Evidence:`` block. HYBRID_COMPLETION and
    TEMPORAL keep ``metadata`` empty (recall.md's Evidence table), hence
    ``evidence_in_metadata=False``."""
    evidence: list[EvidenceItem] = []
    seen: set[str] = set()
    for item in items:
        if item.kind != "passage" or item.chunk_id in seen:
            continue
        seen.add(item.chunk_id)
        evidence.append(
            EvidenceItem(
                kind="segment",
                artifact_id=item.chunk_id,
                rank=len(evidence),
                score=item.score,
                data_id=item.data_id,
                chunk_id=item.chunk_id,
                chunk_index=item.chunk_index,
                document_name=item.document_name,
                snippet=item.text,
            )
        )
    return BuiltContext(
        text=render_context(items),
        evidence=evidence,
        evidence_in_metadata=False,
        raw={"chunk_ids": [e.artifact_id for e in evidence]},
    )
