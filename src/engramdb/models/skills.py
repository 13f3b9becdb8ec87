"""Skills as the skill verbs return them."""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Skill", "SkillMarkdown", "SkillRecord"]


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
