"""What a pipeline run reports (cognee's ``PipelineRunInfo`` events) and the context its tasks
receive (``PipelineContext``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict

__all__ = [
    "PipelineContext",
    "PipelineRunAlreadyCompleted",
    "PipelineRunCompleted",
    "PipelineRunErrored",
    "PipelineRunInfo",
    "PipelineRunStarted",
    "PipelineRunYield",
]


class PipelineRunInfo(BaseModel):
    """One event of a run over one dataset. ``pipeline_run_id`` is the run's record
    (``engramdb`` keeps one per run, like every remember)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, from_attributes=True)

    status: str
    pipeline_run_id: UUID
    dataset_id: UUID
    dataset_name: str
    payload: Any = None
    data_ingestion_info: list[Any] | None = None


class PipelineRunStarted(PipelineRunInfo):
    status: str = "PipelineRunStarted"


class PipelineRunYield(PipelineRunInfo):
    status: str = "PipelineRunYield"


class PipelineRunCompleted(PipelineRunInfo):
    status: str = "PipelineRunCompleted"


class PipelineRunAlreadyCompleted(PipelineRunInfo):
    status: str = "PipelineRunAlreadyCompleted"


class PipelineRunErrored(PipelineRunInfo):
    status: str = "PipelineRunErrored"
    error_class: str | None = None
    error_message: str | None = None


@dataclass
class PipelineContext:
    """Passed to every task whose function has a parameter named ``ctx``: the run's ``user``
    (an engramdb User), ``dataset`` (the Dataset record, or the name given to ``run_steps``),
    the ``data_item`` being processed, ``pipeline_run_id``, ``pipeline_name`` and a free
    ``extras`` dict."""

    user: Any = None
    data_item: Any = None
    dataset: Any = None
    pipeline_run_id: Any = None
    pipeline_name: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    task_sequence: list[str] = field(default_factory=list)
