"""Writing Q&A entries and trace steps the application supplies (session.add_qa / add_trace,
remember(QAEntry / TraceEntry, session_id=...)): validation, sanitising, the record."""

from __future__ import annotations

import uuid
from typing import Any

from engramdb.errors import EngramValidationError, scrub_secrets
from engramdb.models.records import User, utcnow
from engramdb.models.sessions import QARecord, TraceRecord
from engramdb.sessions.sanitize import MAX_TEXT, sanitize_value, truncate
from engramdb.sessions.validation import (
    validate_entry_id,
    validate_feedback_score,
    validate_feedback_text,
)
from engramdb.storage.base import Store

__all__ = [
    "check_feedback",
    "fallback_feedback",
    "write_feedback",
    "write_note",
    "write_qa",
    "write_trace",
]


async def write_qa(
    store: Store,
    owner: User,
    session_id: str,
    question: str,
    answer: str,
    *,
    context: str = "",
    feedback_score: int | None = None,
    feedback_text: str | None = None,
    used_graph_element_ids: dict[str, list[str]] | None = None,
    dataset_ids: list[uuid.UUID] | None = None,
) -> QARecord:
    """Store a Q&A entry written by the application (origin "remember"); a given score or text
    is explicit feedback."""
    for name, value in (("question", question), ("answer", answer), ("context", context)):
        if not isinstance(value, str):
            raise EngramValidationError(f"{name} must be a string, got {type(value).__name__}")
    score = validate_feedback_score(feedback_score)
    text = validate_feedback_text(feedback_text)
    node_ids, edge_ids = _element_ids(used_graph_element_ids)
    rated = score is not None or text is not None
    now = utcnow()
    return await store.add_qa_entry(
        QARecord(
            id=uuid.uuid4(),
            user_id=owner.id,
            session_id=session_id,
            origin="remember",
            question=question,
            context=context,
            answer=answer,
            dataset_ids=list(dataset_ids or []),
            used_node_ids=node_ids,
            used_edge_ids=edge_ids,
            feedback_score=score,
            feedback_text=text,
            feedback_source="explicit" if rated else None,
            feedback_at=now if rated else None,
            rating_rev=1 if score is not None else 0,
            created_at=now,
        )
    )


async def write_note(
    store: Store, owner: User, session_id: str, text: str, dataset_id: uuid.UUID
) -> QARecord:
    """A session note: a Q&A entry with an empty question and ``text`` as its answer."""
    return await write_qa(store, owner, session_id, "", text, dataset_ids=[dataset_id])


def _element_ids(value: object) -> tuple[list[uuid.UUID], list[uuid.UUID]]:
    if value is None:
        return [], []
    if not isinstance(value, dict) or set(value) - {"node_ids", "edge_ids"}:
        raise EngramValidationError(
            "used_graph_element_ids must be a dict with only 'node_ids' and 'edge_ids' lists"
        )
    out: list[list[uuid.UUID]] = []
    for key in ("node_ids", "edge_ids"):
        items = value.get(key) or []
        if not isinstance(items, list):
            raise EngramValidationError(f"used_graph_element_ids[{key!r}] must be a list of ids")
        out.append([validate_entry_id(i, f"used_graph_element_ids[{key!r}] item") for i in items])
    return out[0], out[1]


async def write_trace(
    store: Store,
    owner: User,
    session_id: str,
    origin_function: str,
    *,
    status: str = "success",
    method_params: dict[str, Any] | None = None,
    method_return_value: Any = None,
    error_message: str = "",
    memory_query: str = "",
    memory_context: str = "",
    session_feedback: str = "",
) -> TraceRecord:
    """Validate, sanitise and store one agent step."""
    if not isinstance(origin_function, str) or not origin_function.strip():
        raise EngramValidationError(
            "origin_function must name the function that ran, e.g. 'search'"
        )
    if status not in ("success", "error"):
        raise EngramValidationError(f"status must be 'success' or 'error', got {status!r}")
    if method_params is not None and not isinstance(method_params, dict):
        raise EngramValidationError("method_params must be a dict of parameter names to values")
    texts = {
        "error_message": error_message,
        "memory_query": memory_query,
        "memory_context": memory_context,
        "session_feedback": session_feedback,
    }
    for name, value in texts.items():
        if not isinstance(value, str):
            raise EngramValidationError(f"{name} must be a string, got {type(value).__name__}")
    params = sanitize_value(method_params or {})
    origin = truncate(origin_function.strip(), 500)
    error = scrub_secrets(error_message, limit=MAX_TEXT)
    return await store.add_trace_entry(
        TraceRecord(
            id=uuid.uuid4(),
            user_id=owner.id,
            session_id=session_id,
            origin_function=origin,
            status="error" if status == "error" else "success",
            memory_query=truncate(memory_query),
            memory_context=truncate(memory_context),
            method_params=params if isinstance(params, dict) else {},
            method_return_value=sanitize_value(method_return_value),
            error_message=error,
            session_feedback=truncate(session_feedback) or fallback_feedback(origin, status, error),
            created_at=utcnow(),
        )
    )


def fallback_feedback(origin: str, status: str, error: str) -> str:
    """A one-line summary of a step (no LLM): what ran and whether it worked."""
    if status == "error":
        return (
            f"{origin} failed. Reason: {error.strip()}." if error.strip() else f"{origin} failed."
        )
    return f"{origin} succeeded."


def check_feedback(
    qa_id: object, feedback_score: object, feedback_text: object
) -> tuple[uuid.UUID, int | None, str | None]:
    """Validated ``(qa_id, score, text)`` of explicit feedback; a score or a text is needed."""
    entry_id = validate_entry_id(qa_id)
    score = validate_feedback_score(feedback_score)
    text = validate_feedback_text(feedback_text)
    if score is None and text is None:
        raise EngramValidationError(
            "feedback needs feedback_score (an integer from 1 to 5) and/or feedback_text"
        )
    return entry_id, score, text


async def write_feedback(
    store: Store,
    owner: User,
    session_id: str,
    qa_id: object,
    feedback_score: object,
    feedback_text: object,
) -> QARecord:
    """Explicit feedback on a Q&A entry of the owner's session (NotFoundError when absent)."""
    entry_id, score, text = check_feedback(qa_id, feedback_score, feedback_text)
    return await store.set_qa_feedback(
        owner.id, session_id, entry_id, score=score, text=text, source="explicit"
    )
