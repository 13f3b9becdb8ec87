"""What the entity consolidations return (cognee's ``consolidate_entities`` and
``consolidate_entity_descriptions`` memify pipelines, run by :mod:`engramdb.api.consolidate`)."""

from __future__ import annotations

from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DescriptionsResult", "EntityRef", "MergeCluster", "MergeResult"]


class EntityRef(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: UUID
    name: str


class MergeCluster(BaseModel):
    """One cluster of duplicates: the entity that stays and those folded into it."""

    model_config = ConfigDict(frozen=True)

    survivor: EntityRef
    merged_from: list[EntityRef]


class MergeResult(BaseModel):
    """The merge plan and, unless ``dry_run``, what the merge did (one transaction)."""

    model_config = ConfigDict(frozen=True)

    dataset_id: UUID
    dry_run: bool
    entities_considered: int
    clusters: list[MergeCluster] = Field(default_factory=list)
    entities_merged: int = 0
    edges_moved: int = 0
    edges_dropped: int = 0


class DescriptionsResult(BaseModel):
    """How many entity descriptions were rewritten, and by what (``llm`` or ``offline``)."""

    model_config = ConfigDict(frozen=True)

    dataset_id: UUID
    entities: int
    rewritten: int
    method: str
