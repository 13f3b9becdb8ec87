"""Recording a recall turn in its session, and the conversation history of a session.

A recall with a ``session_id`` whose graph lane ran and returned something is one Q&A entry:
the question, the context the answer was built from, the answer (empty for search types that
return context only, such as CHUNKS offline) and the graph node and edge ids it used. Recording
happens after the recall succeeded and is fail-open: a failure to write is logged and never fails
the recall (the user already has the answer; losing one turn of history is the lesser harm).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from engramdb.errors import EngramError
from engramdb.models.records import Dataset, User, utcnow
from engramdb.models.results import USED_CONTEXT_KEY, RecallResponse, ResponseGraphEntry
from engramdb.models.sessions import QARecord
from engramdb.sessions.guidance import render_guidance, select_guidance
from engramdb.sessions.sanitize import truncate
from engramdb.storage.base import Store

__all__ = [
    "HISTORY_TURNS",
    "MAX_STORED_CONTEXT",
    "load_guidance",
    "load_history",
    "record_recall_turn",
    "render_history",
    "served_guidance",
    "turn_from_results",
    "used_elements",
]

logger = logging.getLogger(__name__)

#: How many of the session's latest entries are prepended to a completion prompt.
HISTORY_TURNS = 5
#: Characters of one stored context / of one answer shown in the history.
MAX_STORED_CONTEXT = 20_000
_HISTORY_ANSWER_CHARS = 1_000


def _uuid(value: object) -> UUID | None:
    if isinstance(value, UUID):
        return value
    if isinstance(value, str):
        try:
            return UUID(value)
        except ValueError:
            return None
    return None


def used_elements(results: Sequence[RecallResponse]) -> tuple[list[UUID], list[UUID]]:
    """The node and edge ids the graph results were built from, first use first.

    Read from the normalized payloads retrievers put in ``raw`` (triplets with their endpoint
    and chunk ids, passages, chunk ids, a chunk or summary node's own id) and from
    ``metadata.evidence`` when references were asked for.
    """
    nodes: dict[UUID, None] = {}
    edges: dict[UUID, None] = {}

    def node(value: object) -> None:
        found = _uuid(value)
        if found is not None:
            nodes.setdefault(found)

    for result in results:
        if not isinstance(result, ResponseGraphEntry) or result.source != "graph":
            continue
        raw: dict[str, Any] = result.raw
        for triplet in raw.get("triplets") or []:
            if not isinstance(triplet, dict):
                continue
            for end in ("source", "target"):
                endpoint = triplet.get(end)
                if isinstance(endpoint, dict):
                    node(endpoint.get("id"))
            edge = _uuid(triplet.get("edge_id"))
            if edge is not None:
                edges.setdefault(edge)
            for chunk_id in triplet.get("chunk_ids") or []:
                node(chunk_id)
        for passage in raw.get("chunks") or []:
            if isinstance(passage, dict):
                node(passage.get("chunk_id"))
        for chunk_id in raw.get("chunk_ids") or []:
            node(chunk_id)
        if result.kind in ("chunk", "summary"):
            node(raw.get("id"))
        for item in result.metadata.get("evidence") or []:
            if not isinstance(item, dict):
                continue
            if item.get("kind") == "graph_edge":
                edge = _uuid(item.get("artifact_id"))
                if edge is not None:
                    edges.setdefault(edge)
            else:
                node(item.get("artifact_id"))
    return list(nodes), list(edges)


def turn_from_results(results: Sequence[RecallResponse]) -> tuple[str, str] | None:
    """``(context, answer)`` of a recall's graph results, or None when there were none.

    A completion answer gives its text and the context it was built from; context-only search
    types give the returned texts as context and an empty answer.
    """
    graph = [r for r in results if isinstance(r, ResponseGraphEntry) and r.source == "graph"]
    if not graph:
        return None
    answers = [r for r in graph if r.kind == "answer"]
    if answers:
        context = answers[0].raw.get("context")
        return truncate(context if isinstance(context, str) else "", MAX_STORED_CONTEXT), answers[
            0
        ].text
    return truncate("\n\n".join(r.text for r in graph), MAX_STORED_CONTEXT), ""


def served_guidance(results: Sequence[RecallResponse]) -> list[UUID]:
    """The session guidance entries the recall's answer prompt showed (see
    :data:`~engramdb.models.results.USED_CONTEXT_KEY`)."""
    for result in results:
        if isinstance(result, ResponseGraphEntry) and result.kind == "answer":
            ids = result.raw.get(USED_CONTEXT_KEY) or []
            return [UUID(str(i)) for i in ids]
    return []


async def record_recall_turn(
    store: Store,
    *,
    user: User,
    session_id: str,
    question: str,
    results: Sequence[RecallResponse],
    search_type: str,
    datasets: Sequence[Dataset],
) -> QARecord | None:
    """Store the turn; None when there was nothing to record or the write failed (logged)."""
    turn = turn_from_results(results)
    if turn is None:
        return None
    context, answer = turn
    node_ids, edge_ids = used_elements(results)
    entry = QARecord(
        used_context_ids=served_guidance(results),
        id=uuid.uuid4(),
        user_id=user.id,
        session_id=session_id,
        origin="recall",
        question=question,
        context=context,
        answer=answer,
        search_type=search_type,
        dataset_ids=[d.id for d in datasets],
        used_node_ids=node_ids,
        used_edge_ids=edge_ids,
        created_at=utcnow(),
    )
    try:
        return await store.add_qa_entry(entry)
    except EngramError as exc:  # fail-open by contract: the recall already succeeded
        logger.warning("could not record the recall turn in session %r: %s", session_id, exc)
        return None


async def load_guidance(store: Store, user: User, session_id: str) -> tuple[str, list[UUID]]:
    """The session's active "qa" guidance block for an answer prompt, with the ids of the
    entries it shows; ("", []) when there is none or it cannot be read (fail-open)."""
    try:
        entries = await store.list_context_entries(user.id, session_id, context_profile="qa")
    except EngramError as exc:
        logger.warning("could not read the guidance of session %r: %s", session_id, exc)
        return "", []
    return render_guidance(entries, "qa"), [e.id for e in select_guidance(entries, "qa")]


def render_history(entries: Sequence[QARecord]) -> str:
    """The entries as a compact conversation, oldest first ("" for none)."""
    blocks = []
    for entry in entries:
        stamp = entry.created_at.strftime("%Y-%m-%d %H:%M UTC")
        answer = truncate(entry.answer.strip(), _HISTORY_ANSWER_CHARS)
        if not entry.question.strip():
            if answer:
                blocks.append(f"[{stamp}] Note: {answer}")
            continue
        lines = [f"[{stamp}] Question: {entry.question.strip()}"]
        if answer:
            lines.append(f"Answer: {answer}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


async def load_history(
    store: Store, user: User, session_id: str, *, turns: int = HISTORY_TURNS
) -> str:
    """The session's latest ``turns`` entries rendered for a prompt; "" when the session is new
    or cannot be read (fail-open: history improves an answer, it never blocks one)."""
    try:
        entries = await store.list_qa_entries(user.id, session_ids=[session_id], last_n=turns)
    except EngramError as exc:
        logger.warning("could not read the history of session %r: %s", session_id, exc)
        return ""
    return render_history(entries)
