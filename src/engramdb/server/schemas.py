"""Request and response bodies of the REST API (strict: unknown fields are refused with 422)."""

from __future__ import annotations

from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from engramdb.models.search_type import SearchType

__all__ = [
    "ChunkerName",
    "DatasetCreate",
    "FeedbackRequest",
    "ForgetRequest",
    "GrantRequest",
    "GuidanceRequest",
    "HealthOut",
    "ImproveRequest",
    "Problem",
    "QARequest",
    "RecallRequest",
    "RememberRequest",
    "ResolveConflictRequest",
    "Scope",
    "SkillMarkdown",
    "SkillRequest",
    "SkillsMarkdownRequest",
    "TraceRequest",
]

ChunkerName = Literal["TextChunker", "TextChunkerWithOverlap", "CsvChunker"]
#: The scopes the server runs ("tools" and "code" are not built yet, so they are not offered).
Scope = Literal["graph", "session", "trace", "session_context", "session_first", "all", "auto"]
Name = Field(min_length=1, max_length=128)
MAX_ITEMS = 1000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Problem(BaseModel):
    """An RFC 9457 problem document: every error answer has this shape."""

    type: str
    title: str
    status: int
    detail: str
    code: str


class HealthOut(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class RememberRequest(_Body):
    """``POST /api/v1/remember`` as JSON: texts only (upload files as multipart/form-data)."""

    data: str | list[str] = Field(
        description="A text or a list of texts; never a path on the server."
    )
    dataset_name: str = Field(default="main_dataset", min_length=1, max_length=128)
    importance_weight: float = Field(default=0.5, ge=0.0, le=1.0, strict=True)
    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    self_improvement: bool = True
    run_in_background: bool = False
    node_set: list[str] | None = Field(default=None, max_length=100)
    chunker: ChunkerName | None = None
    external_metadata: dict[str, Any] | None = None


class RecallRequest(_Body):
    """``POST /api/v1/recall``: the options of ``recall()``; ``response_schema`` replaces
    ``response_model`` (see docs/server.md for the supported schema subset)."""

    query_text: str = Field(min_length=1)
    query_type: SearchType | None = None
    datasets: list[str] | None = Field(default=None, max_length=MAX_ITEMS)
    dataset_ids: list[UUID] | None = Field(default=None, max_length=MAX_ITEMS)
    top_k: int = Field(default=15, ge=1, le=10_000)
    auto_route: bool = True
    scope: Scope | list[Scope] | None = None
    system_prompt: str | None = None
    node_name: list[str] | None = Field(default=None, max_length=MAX_ITEMS)
    node_name_filter_operator: Literal["OR", "AND"] = "OR"
    only_context: bool = False
    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    context_profile: Literal["qa", "agent"] = "qa"
    wide_search_top_k: int | None = Field(default=None, ge=1, le=10_000)
    triplet_distance_penalty: float | None = Field(default=None, ge=0.0)
    feedback_influence: float = Field(default=0.0, ge=0.0, le=1.0)
    verbose: bool = False
    retriever_specific_config: dict[str, Any] | None = None
    response_schema: dict[str, Any] | None = None
    include_references: bool = False


class ImproveRequest(_Body):
    """``POST /api/v1/improve``: a dataset by name (``dataset``) or id (``dataset_id``)."""

    dataset: str = Field(default="main_dataset", min_length=1, max_length=128)
    dataset_id: UUID | None = None
    run_in_background: bool = False
    session_ids: list[str] | None = Field(default=None, max_length=MAX_ITEMS)
    build_global_context_index: bool | None = None
    build_truth_subspace: bool = False
    review_conflicts: bool | None = None
    feedback_alpha: float | None = Field(default=None, gt=0.0, le=1.0)


class ForgetRequest(_Body):
    """``POST /api/v1/forget``: exactly one of everything / dataset / dataset_id / data_id."""

    everything: bool = False
    dataset: str | None = Field(default=None, min_length=1, max_length=128)
    dataset_id: UUID | None = None
    data_id: UUID | None = None


class DatasetCreate(_Body):
    name: str = Field(min_length=1, max_length=128)


class GrantRequest(_Body):
    grantee_id: UUID
    permission: Literal["read", "write", "delete", "share"]


class FeedbackRequest(_Body):
    qa_id: str = Field(min_length=1, max_length=256)
    feedback_score: int | None = Field(default=None, ge=1, le=5)
    feedback_text: str | None = Field(default=None, max_length=10_000)


class ResolveConflictRequest(_Body):
    fact_id: UUID


class QARequest(_Body):
    """``session.add_qa()``: a Q&A turn the application produced itself."""

    question: str
    answer: str
    context: str = ""
    feedback_score: int | None = Field(default=None, ge=1, le=5)
    feedback_text: str | None = Field(default=None, max_length=10_000)
    used_graph_element_ids: dict[str, list[str]] | None = None


class TraceRequest(_Body):
    """``session.add_trace()``: one agent step (parameters and return value as JSON)."""

    origin_function: str = Field(min_length=1)
    status: Literal["success", "error"] = "success"
    method_params: dict[str, Any] | None = None
    method_return_value: Any = None
    error_message: str = ""
    memory_query: str = ""
    memory_context: str = ""
    session_feedback: str = ""


class GuidanceRequest(_Body):
    """``session.add_guidance()``: one guidance entry of a context profile's section."""

    content: str = Field(min_length=1)
    section: str = Field(min_length=1, max_length=128)
    context_profile: str = Field(default="qa", min_length=1, max_length=64)


class SkillRequest(_Body):
    """``remember_skill()``: one skill."""

    name: str = Field(min_length=1)
    description: str
    procedure: str = Field(min_length=1)
    dataset_name: str = Field(default="main_dataset", min_length=1, max_length=128)
    tags: list[str] | None = Field(default=None, max_length=100)


class SkillMarkdown(_Body):
    """One SKILL.md-style text; ``default_name`` names it when the text has no name (the
    client sends its directory's name, as ``remember_skills`` does for a ``SKILL.md`` file)."""

    text: str = Field(min_length=1)
    default_name: str | None = Field(default=None, max_length=256)


class SkillsMarkdownRequest(_Body):
    """``remember_skills()``: the markdown texts (files are read on the client, never here)."""

    documents: list[SkillMarkdown] = Field(min_length=1, max_length=MAX_ITEMS)
    dataset_name: str = Field(default="main_dataset", min_length=1, max_length=128)
    tags: list[str] | None = Field(default=None, max_length=100)


class UserCreate(_Body):
    email: str = Field(min_length=3, max_length=320)
    is_admin: bool = False


class ApiKeyCreate(_Body):
    name: str = Field(default="", max_length=200)
