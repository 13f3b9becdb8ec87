"""Fact conflicts as the API returns them: facts about one attribute of one entity that disagree.

improve()'s ``review_conflicts`` stage finds them (:mod:`engramdb.improvement.conflicts`), the
store keeps them as derived nodes (:mod:`engramdb.artifacts.conflicts` reads them back), and
``list_conflicts`` / ``resolve_conflict`` hand them to users.
"""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import BaseModel, Field

__all__ = ["ConflictFact", "FactConflict", "FactLabel"]

FactLabel = Literal["current", "superseded", "conflicting"]


class ConflictFact(BaseModel):
    """One fact of a conflict: an edge ``entity —attribute→ value`` and where it came from."""

    edge_id: UUID
    text: str
    value: str
    #: The node the fact points at (its value).
    value_id: UUID
    label: FactLabel
    effective_date: str | None = None
    data_ids: list[UUID] = Field(default_factory=list)
    documents: list[str] = Field(default_factory=list)


class FactConflict(BaseModel):
    """Facts about one attribute of one entity that disagree.

    Each fact is labelled ``current`` / ``superseded`` (the review named a current fact, or a
    user chose one with ``resolve_conflict``) or ``conflicting`` (nobody could tell).
    """

    id: UUID
    dataset_id: UUID
    entity_id: UUID
    entity_name: str
    attribute: str
    facts: list[ConflictFact]
    explanation: str = ""
    #: The fact a user accepted with ``resolve_conflict`` (None: not resolved).
    resolved_fact_id: UUID | None = None

    @property
    def status(self) -> Literal["open", "resolved"]:
        return "resolved" if self.resolved_fact_id is not None else "open"

    @property
    def current(self) -> ConflictFact | None:
        return next((f for f in self.facts if f.label == "current"), None)
