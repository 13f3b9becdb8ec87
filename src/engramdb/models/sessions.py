"""Records of the session store: sessions, Q&A entries, agent trace steps, guidance entries.

A session belongs to ONE user: ``(user_id, session_id)`` is its key, so two users may use the
same ``session_id`` and never see each other's entries. A session may span datasets; a Q&A entry
lists the datasets its answer was retrieved from.

Later stages (improve) consume entries exactly once per *consumer* (a stable name such as
``"feedback_weights"``) through :class:`EntryMark`: a mark records that the consumer processed an
entry, and for Q&A ratings at which ``rating_rev``. See :meth:`engramdb.storage.base.Store.
mark_session_entries`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AGENT_SECTIONS",
    "CONTEXT_PROFILES",
    "QA_SECTIONS",
    "ContextProfile",
    "ContextRecord",
    "DistillationResult",
    "EntryKind",
    "EntryMark",
    "FeedbackSource",
    "QARecord",
    "SessionRecord",
    "TraceRecord",
    "normalize_content",
    "sections_for",
]

ContextProfile = Literal["qa", "agent"]
FeedbackSource = Literal["explicit", "auto"]
EntryKind = Literal["qa", "trace", "context"]

#: Sections of the ``qa`` guidance profile, in the order they are rendered.
QA_SECTIONS: tuple[str, ...] = ("goals", "rules", "preferences", "lessons_learned")
#: Sections of the ``agent`` guidance profile, in the order they are rendered.
AGENT_SECTIONS: tuple[str, ...] = (
    "failure_lessons",
    "tool_rules",
    "environment_facts",
    "workflow_state",
    "success_patterns",
)
CONTEXT_PROFILES: dict[str, tuple[str, ...]] = {"qa": QA_SECTIONS, "agent": AGENT_SECTIONS}


def sections_for(profile: str) -> tuple[str, ...]:
    """The sections of a guidance profile (empty for an unknown profile)."""
    return CONTEXT_PROFILES.get(profile, ())


def normalize_content(text: str) -> str:
    """The duplicate key of a guidance entry: lower-cased, whitespace collapsed."""
    return " ".join(text.lower().split())


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class SessionRecord(_Record):
    """One user's session. ``updated_at`` moves whenever an entry is added to it."""

    user_id: UUID
    session_id: str
    created_at: datetime
    updated_at: datetime


class QARecord(_Record):
    """One question and answer of a session. ``origin`` says who wrote it: "recall" (a recall
    turn) or "remember" (a note or Q&A stored by remember / session.add_qa); a note has an empty
    question and its text as the answer.

    ``seq`` is assigned by the store on insert and increases with insertion order; pass 0.
    ``used_node_ids`` / ``used_edge_ids`` are the graph elements the answer was built from;
    ``used_context_ids`` the session guidance entries its prompt showed.
    ``rating_rev`` counts the changes of ``feedback_score`` (0: never rated); consumers spend a
    rating at a revision, so a changed rating is pending again.
    """

    id: UUID
    user_id: UUID
    session_id: str
    seq: int = 0
    origin: Literal["recall", "remember"] = "recall"
    question: str = ""
    context: str = ""
    answer: str = ""
    search_type: str | None = None
    dataset_ids: list[UUID] = Field(default_factory=list)
    used_node_ids: list[UUID] = Field(default_factory=list)
    used_edge_ids: list[UUID] = Field(default_factory=list)
    #: The session-context (guidance) entries the answer's prompt showed.
    used_context_ids: list[UUID] = Field(default_factory=list)
    feedback_score: int | None = None
    feedback_text: str | None = None
    feedback_source: FeedbackSource | None = None
    feedback_at: datetime | None = None
    rating_rev: int = 0
    created_at: datetime


class TraceRecord(_Record):
    """One step of an agent trace: a tool or function call and how it ended.

    ``method_params`` and ``method_return_value`` hold JSON values (callers sanitise them).
    """

    id: UUID
    user_id: UUID
    session_id: str
    seq: int = 0
    origin_function: str
    status: Literal["success", "error"] = "success"
    memory_query: str = ""
    memory_context: str = ""
    method_params: dict[str, Any] = Field(default_factory=dict)
    method_return_value: Any = None
    error_message: str = ""
    session_feedback: str = ""
    created_at: datetime


class ContextRecord(_Record):
    """One active guidance entry of a session, under a profile and one of its sections.

    Within one (user, session, profile, section) the store keeps one entry per
    :func:`normalize_content` of ``content``; ``source_ids`` are the ids of the evidence (Q&A,
    feedback or trace ids) that produced it.
    """

    id: UUID
    user_id: UUID
    session_id: str
    seq: int = 0
    context_profile: ContextProfile = "qa"
    section: str
    content: str
    confidence: float = 1.0
    source_ids: list[str] = Field(default_factory=list)
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class EntryMark:
    """A consumer processed one session entry; for a Q&A rating, at ``rating_rev``."""

    kind: EntryKind
    entry_id: UUID
    rating_rev: int = 0


class DistillationResult(BaseModel):
    """What ``session.distill_session()`` did (the reference's fields).

    ``status``: ``completed`` (``documents`` holds the learnings text written into the
    dataset), ``no_gated_entries`` (no guidance entry of the session passes the gate:
    confidence >= 0.5, not a personal preference) or ``no_new_entries`` (all were distilled into
    this dataset before; nothing was written). ``uncurated_entries``: gated entries consumed
    without curation because ``max_batches`` capped the run."""

    session_id: str
    dataset_id: str | None = None
    status: Literal["completed", "no_gated_entries", "no_new_entries"]
    documents: list[str] = Field(default_factory=list)
    uncurated_entries: int = 0
