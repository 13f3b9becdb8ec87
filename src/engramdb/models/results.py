"""Results of the public verbs: RememberResult, ForgetResult and the RecallResponse union."""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr

__all__ = [
    "USED_CONTEXT_KEY",
    "ForgetResult",
    "RecallResponse",
    "RememberItem",
    "RememberResult",
    "ResponseAgentTraceEntry",
    "ResponseCodeEntry",
    "ResponseGraphEntry",
    "ResponseMarkerEntry",
    "ResponseQAEntry",
    "ResponseSessionContextEntry",
    "ResponseSkillEntry",
    "ResponseToolEntry",
    "SkippedFile",
]


class RememberItem(BaseModel):
    """What happened to one input item. Fields also read by key (``item["kind"]``,
    ``item.get("proposal_id")``), as the reference's items are dicts."""

    data_id: UUID
    name: str
    #: "proposed" / "applied": a skill improvement proposal's state.
    status: Literal["ingested", "skipped", "pending", "errored", "proposed", "applied"]
    chunks: int = 0
    #: Why an item was skipped ("already_present": same content already in the dataset).
    reason: str | None = None
    #: What the item is: a document ("data"), a skill, a skill run, or a skill improvement
    #: proposal (``remember(SkillRunEntry(...), skill_improvement=...)``).
    kind: Literal["data", "skill", "skill_run", "skill_improvement_proposal"] = "data"
    #: The skill run's id (kind "skill_run") / the proposal's id (kind
    #: "skill_improvement_proposal").
    run_id: str | None = None
    proposal_id: str | None = None

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key``, or ``default`` when the item has no such field."""
        return getattr(self, key) if key in type(self).model_fields else default


class SkippedFile(BaseModel):
    """A file of an ingested folder that was not ingested, and why."""

    #: The file's path as found under the folder the caller gave.
    path: str
    #: Why it was left out, e.g. "unsupported file type '.docx' (supported: .txt, ...)".
    reason: str


class DatasetUUID(UUID):
    """A dataset id that is a UUID and also reads as cognee's (a string there): cognee programs
    write ``UUID(result.dataset_id)``, which takes only a string, and this passes it."""

    __slots__ = ()

    def replace(self, old: str, new: str, count: int = -1) -> str:
        """``str.replace`` on the id's text (what ``UUID(...)`` calls on its argument)."""
        return str(self).replace(old, new, count)


def _dataset_uuid(value: UUID) -> UUID:
    return value if isinstance(value, DatasetUUID) else DatasetUUID(int=value.int)


class RememberResult(BaseModel):
    """The outcome of ``remember()``.

    With ``run_in_background=True`` the result comes back at once with ``status="running"``;
    ``await result.wait()`` (or ``await result``) returns the finished result.
    """

    #: "session_stored": ``remember(..., session_id=...)`` wrote session entries, not the graph.
    status: Literal["completed", "running", "errored", "session_stored"]
    dataset_id: Annotated[UUID, AfterValidator(_dataset_uuid)]
    dataset_name: str
    run_id: UUID | None = None
    data_ids: list[UUID] = Field(default_factory=list)
    items: list[RememberItem] = Field(default_factory=list)
    #: Files of the given folders that were left out (unsupported type, ...), with the reason.
    skipped: list[SkippedFile] = Field(default_factory=list)
    #: documents, skipped, chunks, nodes, edges, vectors written; ``extraction_queued``: the
    #: documents whose graph extraction waits in the extraction queue (docs/ingestion-queue.md),
    #: ``extracted_from_queue``: the queued documents this call extracted.
    counts: dict[str, int] = Field(default_factory=dict)
    #: Seconds spent per stage (load, chunk, embed, write) and in total.
    timings: dict[str, float] = Field(default_factory=dict)
    #: What the automatic improve after remember did: its status, "debounced" (held back),
    #: "declined" (the admission check declined it), "queued" (it runs after the queued
    #: extraction of this call's documents) or None (none was asked for).
    improve: str | None = None
    error_class: str | None = None
    error_message: str | None = None
    #: Session writes: the session, and for one typed entry its kind ("qa", "trace",
    #: "feedback") and id (the qa_id / trace_id; the rated qa_id for feedback).
    session_id: str | None = None
    entry_type: str | None = None
    entry_id: str | None = None
    entry_ids: list[str] = Field(default_factory=list)

    _task: asyncio.Task[RememberResult] | None = PrivateAttr(default=None)

    async def wait(self) -> RememberResult:
        """The finished result (itself, when the run was not in the background)."""
        if self._task is None:
            return self
        return await self._task

    def __await__(self) -> Generator[Any, None, RememberResult]:
        return self.wait().__await__()

    @property
    def items_processed(self) -> int:
        """How many inputs this call handled (cognee's ``RememberResult.items_processed``): its
        items, skipped ones included, or the session entries it stored."""
        return len(self.items) or len(self.entry_ids)


class ForgetResult(BaseModel):
    datasets: int = 0
    data_records: int = 0
    nodes: int = 0
    edges: int = 0
    vectors: int = 0
    #: Sessions deleted (``forget(everything=True)`` deletes the caller's sessions too).
    sessions: int = 0


class _Entry(BaseModel):
    """Recall entries are read by attribute (``result.text``); there is no ``.get``."""

    model_config = ConfigDict(extra="forbid")


#: The key of an answer's ``raw`` naming the session guidance entries its prompt showed.
USED_CONTEXT_KEY = "used_session_context_ids"


class ResponseGraphEntry(_Entry):
    source: Literal["graph"] = "graph"
    text: str
    kind: str
    search_type: str
    score: float | None = None
    dataset_id: UUID | None = None
    dataset_name: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    raw: dict[str, Any] = Field(default_factory=dict)
    structured: dict[str, Any] | None = None
    system_prompt: str | None = None


class ResponseCodeEntry(ResponseGraphEntry):
    source: Literal["code"] = "code"  # type: ignore[assignment]


class ResponseQAEntry(_Entry):
    source: Literal["session"] = "session"
    time: str
    qa_id: str
    question: str
    context: str = ""
    answer: str = ""
    feedback_text: str | None = None
    feedback_score: int | None = None
    #: The session-context entries (ids) whose guidance the answer's prompt showed; None when
    #: it showed none (the reference's meaning).
    used_session_context_ids: list[str] | None = None


class ResponseAgentTraceEntry(_Entry):
    """One recorded agent step (the reference's session agent-trace fields)."""

    source: Literal["trace"] = "trace"
    trace_id: str
    time: str
    origin_function: str
    status: str = "success"
    memory_query: str = ""
    memory_context: str = ""
    method_params: dict[str, Any] = Field(default_factory=dict)
    method_return_value: Any = None
    error_message: str = ""
    session_feedback: str = ""


class ResponseSessionContextEntry(_Entry):
    source: Literal["session_context"] = "session_context"
    content: str
    context_profile: str


class ResponseToolEntry(_Entry):
    source: Literal["tools"] = "tools"
    tool_name: str
    question: str
    text: str
    success: bool
    error: str | None = None
    structured: dict[str, Any] | None = None


class ResponseSkillEntry(_Entry):
    source: Literal["skills"] = "skills"
    text: str
    skill: dict[str, Any] = Field(default_factory=dict)
    score: float | None = None


class ResponseMarkerEntry(_Entry):
    source: Literal["system"] = "system"
    status: Literal["memory_warming_up", "build_failed"]
    text: str
    datapoint_count: int = 0
    threshold: int = 1
    error_class: str | None = None
    error_message: str | None = None


RecallResponse = Annotated[
    ResponseGraphEntry
    | ResponseCodeEntry
    | ResponseQAEntry
    | ResponseAgentTraceEntry
    | ResponseSessionContextEntry
    | ResponseToolEntry
    | ResponseSkillEntry
    | ResponseMarkerEntry,
    Field(discriminator="source"),
]
