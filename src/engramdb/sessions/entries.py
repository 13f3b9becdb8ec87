"""Typed session entries for ``remember(entry, session_id=...)`` (the reference's
``cognee.memory``): a Q&A turn, an agent trace step, or feedback on a stored Q&A entry.

Plain text given to ``remember(..., session_id=...)`` is stored as a session note instead (a Q&A
entry with an empty question and the text as its answer).
"""

from __future__ import annotations

from typing import Any, Literal
from uuid import uuid4

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "MEMORY_ENTRY_TYPES",
    "FeedbackEntry",
    "MemoryEntry",
    "QAEntry",
    "SkillRunEntry",
    "TraceEntry",
]


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


class SkillRunEntry(_Entry):
    """The reference's record of one skill execution, with its fields. ``remember()`` refuses
    it (FeatureNotAvailableError): engramdb does not score skill runs; rate the answer with
    ``session.add_feedback`` and store the skill with ``remember_skill``."""

    type: Literal["skill_run"] = "skill_run"
    run_id: str = Field(default_factory=lambda: str(uuid4()))
    selected_skill_id: str
    task_text: str = ""
    result_summary: str = ""
    success_score: float | None = Field(default=None, ge=0.0, le=1.0)
    feedback: float = Field(default=0.0, ge=-1.0, le=1.0)
    error_type: str = ""
    error_message: str = ""
    started_at_ms: int = Field(default=0, ge=0)
    latency_ms: int = Field(default=0, ge=0)
    candidate_skill_ids: list[str] = Field(default_factory=list)
    task_pattern_id: str = ""
    router_version: str = ""
    tool_trace: list[dict[str, Any]] = Field(default_factory=list)
    node_set: str = "skills"


MemoryEntry = QAEntry | TraceEntry | FeedbackEntry | SkillRunEntry
MEMORY_ENTRY_TYPES: tuple[type[BaseModel], ...] = (
    QAEntry,
    TraceEntry,
    FeedbackEntry,
    SkillRunEntry,
)
