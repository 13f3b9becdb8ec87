"""Records the store keeps: users, datasets, ingested data, pipeline runs, graph nodes and edges."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any
from uuid import UUID, uuid5

from pydantic import BaseModel, ConfigDict, Field

from engramdb.models.improve import StageResult

__all__ = [
    "DEFAULT_IMPORTANCE_WEIGHT",
    "NAMESPACE",
    "DataRecord",
    "Dataset",
    "Edge",
    "Node",
    "NodeType",
    "PipelineRun",
    "RunStatus",
    "User",
    "chunk_id",
    "edge_id",
    "stable_id",
    "utcnow",
]

#: Weight of data ingested without one, and of any element whose stored weight is missing.
DEFAULT_IMPORTANCE_WEIGHT = 0.5

#: Namespace of engramdb's deterministic ids (uuid5 of identity fields).
NAMESPACE = UUID("6f1d7c1e-6a43-5d0b-9a57-0d1f3e2b8c11")


def stable_id(*parts: object) -> UUID:
    """A deterministic UUID from identity fields: re-extraction upserts, never duplicates."""
    return uuid5(NAMESPACE, "\x1f".join(str(p) for p in parts))


def chunk_id(data_id: UUID, index: int) -> UUID:
    """The id of chunk ``index`` (0 first) of the ingested item ``data_id``."""
    return stable_id("chunk", data_id, index)


def edge_id(source: UUID, relation: str, target: UUID) -> UUID:
    """The id of the ingested edge ``source -relation-> target``: one edge per triple."""
    return stable_id("edge", source, relation, target)


def utcnow() -> datetime:
    return datetime.now(UTC)


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class User(_Record):
    id: UUID
    email: str
    is_default: bool = False
    created_at: datetime
    #: Administrators may create users and manage other users' API keys. Being an administrator
    #: grants no access to other users' datasets (see ``docs/permissions.md``).
    is_admin: bool = False
    #: The tenant the user works in (``select_tenant``); None: their personal space.
    tenant_id: UUID | None = None


class Dataset(_Record):
    id: UUID
    owner_id: UUID
    name: str
    created_at: datetime
    #: Embedding model and dimension the dataset's vectors were made with (None until the first
    #: vector is written).
    embedding_model: str | None = None
    embedding_dim: int | None = None
    #: The tenant the dataset belongs to: the one its owner had selected when creating it (None:
    #: the owner's personal space). Only users working in that tenant can reach it.
    tenant_id: UUID | None = None


class DataRecord(_Record):
    """One ingested item (a text or a file) of a dataset."""

    id: UUID
    dataset_id: UUID
    name: str
    content_hash: str
    mime_type: str
    importance_weight: float = DEFAULT_IMPORTANCE_WEIGHT
    external_metadata: dict[str, Any] = Field(default_factory=dict)
    node_set: list[str] = Field(default_factory=list)
    size_bytes: int = 0
    chunk_count: int = 0
    created_at: datetime


class RunStatus(StrEnum):
    STARTED = "started"
    COMPLETED = "completed"
    ERRORED = "errored"


class PipelineRun(_Record):
    id: UUID
    dataset_id: UUID
    pipeline: str
    status: RunStatus
    #: True for runs that write the graph (remember); readiness only looks at those.
    graph_writing: bool = True
    error_class: str | None = None
    error_message: str | None = None
    pid: int | None = None
    hostname: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    started_at: datetime
    finished_at: datetime | None = None
    #: An improve run's stage results (empty for other runs and while it runs).
    stages: list[StageResult] = Field(default_factory=list)


class NodeType(StrEnum):
    DOCUMENT = "Document"
    CHUNK = "Chunk"
    SUMMARY = "Summary"
    ENTITY = "Entity"
    ENTITY_TYPE = "EntityType"


class Node(_Record):
    """A graph node. ``type`` is a :class:`NodeType` value or a later issue's own type name."""

    id: UUID
    dataset_id: UUID
    type: str
    name: str = ""
    text: str = ""
    properties: dict[str, Any] = Field(default_factory=dict)
    importance_weight: float = DEFAULT_IMPORTANCE_WEIGHT
    feedback_weight: float = DEFAULT_IMPORTANCE_WEIGHT
    #: Ids of the data items this node was derived from (its provenance).
    data_ids: list[UUID] = Field(default_factory=list)


class Edge(_Record):
    id: UUID
    dataset_id: UUID
    source_id: UUID
    target_id: UUID
    relation: str
    properties: dict[str, Any] = Field(default_factory=dict)
    importance_weight: float = DEFAULT_IMPORTANCE_WEIGHT
    feedback_weight: float = DEFAULT_IMPORTANCE_WEIGHT
    data_ids: list[UUID] = Field(default_factory=list)
