"""Skills as the skill verbs return them."""

from __future__ import annotations

from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Skill", "SkillImprovementProposal", "SkillMarkdown", "SkillRecord", "SkillRun"]


class SkillRecord(BaseModel):
    """What ``remember_skill`` stored (metadata only)."""

    id: UUID
    data_id: UUID
    dataset_id: UUID
    dataset_name: str
    name: str
    description: str
    tags: list[str] = Field(default_factory=list)
    #: "skipped": the same name, description and procedure were already stored.
    status: Literal["ingested", "skipped"] = "ingested"


class Skill(BaseModel):
    """A skill with its procedure body, as :func:`load_skill` returns it."""

    id: UUID
    data_id: UUID
    dataset_id: UUID
    name: str
    description: str
    tags: list[str] = Field(default_factory=list)
    procedure: str


class SkillMarkdown(BaseModel):
    """One SKILL.md-style text as it crosses HTTP; ``default_name`` names it when the text has
    no name (the client sends its directory's name, as ``remember_skills`` does for a
    ``SKILL.md`` file)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    default_name: str | None = Field(default=None, max_length=256)


class SkillRun(BaseModel):
    """One recorded execution of a skill (``remember(SkillRunEntry(...))``), as stored.

    ``success_score`` is 0.0-1.0 (0.5 when the entry gave none: unscored); ``feedback`` is
    -1.0-1.0 (0: none). A run is a *failure* for :func:`~engramdb.api.skill_runs.improve_skill`
    when it has an error or scores below the threshold asked for."""

    run_id: str
    data_id: UUID
    dataset_id: UUID
    skill_id: UUID
    skill_name: str
    session_id: str | None = None
    task_text: str = ""
    result_summary: str = ""
    success_score: float = 0.5
    feedback: float = 0.0
    error_type: str = ""
    error_message: str = ""
    started_at_ms: int = 0
    latency_ms: int = 0
    candidate_skill_ids: list[str] = Field(default_factory=list)
    task_pattern_id: str = ""
    router_version: str = ""
    tool_trace: list[dict[str, Any]] = Field(default_factory=list)


class SkillImprovementProposal(BaseModel):
    """A reviewable rewrite of a skill's procedure, drafted by the LLM from failed runs.

    ``status`` is "proposed" until the proposal is applied (the skill's procedure is then
    ``proposed_procedure``), then "applied"."""

    proposal_id: str
    data_id: UUID
    dataset_id: UUID
    skill_id: UUID
    skill_name: str
    old_procedure: str
    proposed_procedure: str
    rationale: str = ""
    confidence: float = 0.0
    runs_used: list[str] = Field(default_factory=list)
    model_name: str = ""
    status: Literal["proposed", "applied"] = "proposed"
