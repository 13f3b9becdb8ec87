"""Typed session entries for ``remember(entry, session_id=...)`` (the reference's
``cognee.memory``): a Q&A turn, an agent trace step, or feedback on a stored Q&A entry.

Plain text given to ``remember(..., session_id=...)`` is stored as a session note instead (a Q&A
entry with an empty question and the text as its answer).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["MEMORY_ENTRY_TYPES", "FeedbackEntry", "MemoryEntry", "QAEntry", "TraceEntry"]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QAEntry(_Entry):
    """A question and its answer, stored as one Q&A entry of the session.

    ``used_graph_element_ids`` may carry ``{"node_ids": [...], "edge_ids": [...]}``: the graph
    elements the answer was built from (what feedback weights later move).
    """

    type: Literal["qa"] = "qa"
    question: str
    answer: str
    context: str = ""
    feedback_text: str | None = None
    feedback_score: int | None = None
    used_graph_element_ids: dict[str, list[str]] | None = None


class TraceEntry(_Entry):
    """One agent step: which function ran, with what, and how it ended."""

    type: Literal["trace"] = "trace"
    origin_function: str
    status: Literal["success", "error"] = "success"
    method_params: dict[str, Any] | None = None
    method_return_value: Any = None
    memory_query: str = ""
    memory_context: str = ""
    error_message: str = ""
    session_feedback: str = ""


class FeedbackEntry(_Entry):
    """Feedback on a Q&A entry already in the session (same rules as session.add_feedback)."""

    type: Literal["feedback"] = "feedback"
    qa_id: str
    feedback_text: str | None = None
    feedback_score: int | None = None


MemoryEntry = QAEntry | TraceEntry | FeedbackEntry
MEMORY_ENTRY_TYPES: tuple[type[BaseModel], ...] = (QAEntry, TraceEntry, FeedbackEntry)
