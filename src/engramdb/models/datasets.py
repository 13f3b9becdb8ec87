"""What cognee's data-management verbs return: a dataset's data items (``datasets.list_data``),
pipeline statuses (``datasets.get_status``) and ``update()``'s result, in cognee's shapes."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Data", "PipelineRunStatus", "UpdateFallback", "UpdateResult"]


class PipelineRunStatus(StrEnum):
    """cognee's pipeline run statuses (a str enum: it compares equal to cognee's values)."""

    DATASET_PROCESSING_INITIATED = "DATASET_PROCESSING_INITIATED"
    DATASET_PROCESSING_STARTED = "DATASET_PROCESSING_STARTED"
    DATASET_PROCESSING_COMPLETED = "DATASET_PROCESSING_COMPLETED"
    DATASET_PROCESSING_ERRORED = "DATASET_PROCESSING_ERRORED"


class Data(BaseModel):
    """One data item of a dataset, with cognee's ``Data`` attributes (``id``, ``name``,
    ``extension``, ``mime_type``, ``raw_data_location``, ``dataset_id``, ``created_at``...) and
    engramdb's (``status``: ``"completed"`` once built, ``"pending"`` when only added;
    ``title``: the name a person reads, the same as the graph view's: a pasted text stored as
    ``text_<hash>`` is titled by its first words, see :func:`engramdb.viz.select.human_labels`)."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    name: str
    extension: str
    mime_type: str
    #: The file the input was read from while it exists, else None (a text, an upload).
    raw_data_location: str | None = None
    dataset_id: UUID
    created_at: datetime | None = None
    updated_at: datetime | None = None
    label: str | None = None
    external_metadata: dict[str, Any] | None = None
    data_size: int | None = None
    content_hash: str
    node_set: list[str] = Field(default_factory=list)
    importance_weight: float = 0.5
    chunk_count: int = 0
    status: Literal["completed", "pending"] = "completed"
    title: str | None = None


class UpdateFallback(BaseModel):
    """Why the whole document was rebuilt (cognee's ``Fallback``)."""

    reason: str
    detail: str


class UpdateResult(BaseModel):
    """``update()``'s outcome (cognee's ``UpdateResult``; update returns its dict).

    ``status`` is ``"unchanged"`` (the content is the stored one), ``"full_rebuild"`` (the item's
    memory was replaced by the new content's, under the same ``data_id``) or ``"failed"`` (the
    rebuild errored; ``error`` says why, the new content stays added and the next ``cognify()``
    builds it). engramdb has no chunk-level diff: the chunk counters are always None.
    """

    status: Literal["incremental", "unchanged", "full_rebuild", "failed"]
    regions: int | None = None
    deleted_chunks: int | None = None
    added_chunks: int | None = None
    reused_chunks: int | None = None
    redated_chunks: int | None = None
    kept_chunks: int | None = None
    reindexed_chunks: int | None = None
    total_chunks: int | None = None
    data_id: UUID
    dataset_id: UUID
    duration_seconds: float
    pipeline_run_id: UUID | None = None
    fallback: UpdateFallback | None = None
    error: dict[str, str | None] | None = None
