"""``cognee.memory``: the typed entries ``remember(entry, session_id=...)`` accepts.

``QAEntry``, ``TraceEntry`` and ``FeedbackEntry`` are engramdb's own
(:mod:`engramdb.sessions.entries`), with cognee's fields; cognee's session ``node_set`` pin
and ``TraceEntry.generate_feedback_with_llm`` are not among them (a program that passes them
gets a validation error naming the field). ``SkillRunEntry`` has cognee's shape so a program
can build one; ``remember()`` refuses it (skill-run scoring is not supported: rate the answer
with ``session.add_feedback`` instead).
"""

from __future__ import annotations

from typing import Any, Literal
from uuid import uuid4

from pydantic import BaseModel, Field

from engramdb.retrieval.scopes import KNOWN_SCOPES
from engramdb.sessions.entries import FeedbackEntry, MemoryEntry, QAEntry, TraceEntry

__all__ = ["FeedbackEntry", "MemoryEntry", "QAEntry", "RecallScope", "SkillRunEntry", "TraceEntry"]

#: The values recall(scope=...) takes (engramdb's list, declared once in retrieval.scopes).
RecallScope: Any = Literal.__getitem__(KNOWN_SCOPES)


class SkillRunEntry(BaseModel):
    """cognee's record of one skill execution (its fields; see the module docstring)."""

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
