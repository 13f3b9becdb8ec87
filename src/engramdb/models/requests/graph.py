"""Request models of the graph, conflict and skill verbs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, ClassVar, Literal
from uuid import UUID

from pydantic import Field, SkipValidation

from engramdb.models.requests.common import (
    LOCAL,
    MAX_ITEMS,
    DatasetIds,
    DatasetName,
    DatasetNames,
    DatasetRef,
    UserOption,
    VerbRequest,
)

__all__ = [
    "GetGraphRequest",
    "GetNodeRequest",
    "ListConflictsRequest",
    "LoadSkillRequest",
    "RememberSkillRequest",
    "RememberSkillsRequest",
    "ResolveConflictRequest",
    "VisualizeGraphRequest",
]

Tags = Annotated[list[str] | None, Field(max_length=100)]


class GetGraphRequest(VerbRequest):
    """``get_graph()``: nodes and edges of datasets, every stored field of each."""

    positional: ClassVar[tuple[str, ...]] = ("datasets",)

    datasets: DatasetNames = None
    dataset_ids: DatasetIds = None
    user: UserOption = None
    limit: Annotated[int, Field(strict=True, ge=1, le=100_000)] = 10_000


class GetNodeRequest(VerbRequest):
    """``get_node()``: one node with all its stored fields, or None."""

    positional: ClassVar[tuple[str, ...]] = ("node_id",)

    node_id: UUID
    user: UserOption = None


class VisualizeGraphRequest(VerbRequest):
    """``visualize_graph()``: write the graph as one self-contained HTML file."""

    positional: ClassVar[tuple[str, ...]] = ("path",)

    #: Where the page is written (on the machine making the call).
    path: SkipValidation[str | os.PathLike[str] | None] = Field(
        default=None, json_schema_extra=LOCAL
    )
    datasets: DatasetNames = None
    dataset_ids: DatasetIds = None
    user: UserOption = None
    max_nodes: Annotated[int, Field(strict=True, ge=1, le=100_000)] = 2000
    max_edges: Annotated[int, Field(strict=True, ge=1, le=500_000)] = 5000
    #: Also draw engramdb's internal nodes (the global index's "context of X" buckets).
    include_internal: Annotated[bool, Field(strict=True)] = False
    # -- cognee's options (visualize_graph(destination_file_path, ..., dataset=..., ...)) ------
    #: cognee's name of ``path``.
    destination_file_path: SkipValidation[str | os.PathLike[str] | None] = Field(
        default=None, json_schema_extra=LOCAL
    )
    #: One dataset by name or UUID (cognee's ``dataset``), instead of ``datasets``.
    dataset: DatasetRef | None = None
    #: cognee draws a session timeline; engramdb's page has none (accepted, nothing drawn).
    include_session_events: Annotated[bool, Field(strict=True)] = True
    session_ids: Annotated[list[str] | None, Field(max_length=MAX_ITEMS)] = None
    #: True: the whole graph (up to ``max_nodes``); so is False without seeds.
    full: Annotated[bool, Field(strict=True)] = False
    #: Seeds of a bounded view: the query's nearest chunks, these node ids, or the nodes a
    #: recall()/search() result came from; drawn with their ``neighborhood_depth``-hop
    #: neighbourhood (in-process only).
    query: Annotated[str | None, Field(max_length=20_000)] = None
    seed_node_ids: Annotated[list[UUID] | None, Field(max_length=MAX_ITEMS)] = None
    recall_result: SkipValidation[object] = Field(default=None, json_schema_extra=LOCAL)
    neighborhood_depth: Annotated[int, Field(strict=True, ge=0, le=5)] = 2
    neighborhood_seed_top_k: Annotated[int, Field(strict=True, ge=1, le=1000)] = 10


class ListConflictsRequest(VerbRequest):
    """``list_conflicts()``: stored fact conflicts of one dataset, or of all you can read."""

    positional: ClassVar[tuple[str, ...]] = ("dataset",)

    dataset: DatasetRef | None = None
    status: Literal["open", "resolved"] | None = None
    user: UserOption = None


class ResolveConflictRequest(VerbRequest):
    """``resolve_conflict()``: record which fact of a conflict is right."""

    positional: ClassVar[tuple[str, ...]] = ("conflict_id", "fact_id")

    conflict_id: UUID
    fact_id: UUID
    user: UserOption = None


class RememberSkillRequest(VerbRequest):
    """``remember_skill()``: store one skill."""

    positional: ClassVar[tuple[str, ...]] = ("name", "description", "procedure")

    name: Annotated[str, Field(strict=True, min_length=1)]
    description: Annotated[str, Field(strict=True)]
    procedure: Annotated[str, Field(strict=True, min_length=1)]
    dataset_name: DatasetName = "main_dataset"
    tags: Tags = None
    user: UserOption = None


class RememberSkillsRequest(VerbRequest):
    """``remember_skills()``: skills written as SKILL.md-style markdown (a file, a directory of
    ``SKILL.md`` files, or the text itself; files are read where the call is made)."""

    positional: ClassVar[tuple[str, ...]] = ("path_or_text",)

    path_or_text: SkipValidation[str | Path] = Field(json_schema_extra=LOCAL)
    dataset_name: DatasetName = "main_dataset"
    tags: Tags = None
    user: UserOption = None


class LoadSkillRequest(VerbRequest):
    """``load_skill()``: a skill with its procedure body."""

    positional: ClassVar[tuple[str, ...]] = ("skill_id",)

    skill_id: UUID
    user: UserOption = None
