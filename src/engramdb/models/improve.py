"""What improve() returns: one :class:`StageResult` per stage inside an :class:`ImproveResult`."""

from __future__ import annotations

import asyncio
import warnings
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

__all__ = ["ImproveResult", "ImproveRun", "RunStatus", "StageResult", "StageStatus", "run_status"]

StageStatus = Literal["completed", "already_completed", "skipped", "errored"]
RunStatus = Literal["running", "completed", "skipped", "errored"]


class StageResult(BaseModel):
    """What one stage did.

    ``status``: ``completed`` (did its work), ``already_completed`` (nothing new since the last
    run; ``reason`` says why, e.g. ``no_new_entries``), ``skipped`` (declined before doing any
    work; ``reason`` says why, e.g. ``no_session_ids``, ``turned_off``, ``budget_exhausted``) or
    ``errored`` (``error`` holds the message). ``counts`` are the stage's own tallies.
    """

    model_config = ConfigDict(frozen=True)

    stage: str
    status: StageStatus
    reason: str | None = None
    error: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    duration_ms: float = 0.0


#: The deprecated ``memify_run`` key of a serialised ImproveResult (REST responses carry it).
_MEMIFY_RUN = "memify_run"


def _memify_run_schema(schema: dict[str, Any]) -> None:
    schema.setdefault("properties", {})[_MEMIFY_RUN] = {
        "type": "object",
        "title": "Memify Run",
        "deprecated": True,
        "description": "Deprecated: the raw return of the custom_tasks stage's first pass "
        "({dataset_id: pipeline run event}), or {} when no custom tasks ran; read stages.",
    }


class ImproveResult(BaseModel):
    """The outcome of one improve() call: the nine stages in their fixed order (then
    ``custom_tasks`` when the call passed the deprecated custom tasks).

    ``status`` is ``running`` for a background run that has not finished, ``errored`` if any
    stage errored, ``skipped`` if every stage was skipped, and ``completed`` otherwise. A
    serialised result (REST responses) also carries the deprecated ``memify_run``.
    """

    model_config = ConfigDict(json_schema_extra=_memify_run_schema)

    dataset_id: UUID
    dataset_name: str
    status: RunStatus = "running"
    stages: list[StageResult] = Field(default_factory=list)
    _task: asyncio.Task[ImproveResult] | None = PrivateAttr(default=None)
    _memify_run: dict[Any, Any] = PrivateAttr(default_factory=dict)

    # No return annotation on purpose: pydantic then keeps the model's own schema (an
    # annotation would replace it by the annotated type's).
    @model_serializer(mode="wrap")
    def _with_memify_run(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo):  # type: ignore[no-untyped-def]
        out = handler(self)
        if isinstance(out, dict):
            raw = self._memify_run
            out[_MEMIFY_RUN] = (
                {str(k): _jsonable(v) for k, v in raw.items()} if info.mode_is_json() else dict(raw)
            )
        return out

    @model_validator(mode="wrap")
    @classmethod
    def _keep_memify_run(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        result = handler(data)
        if isinstance(data, dict) and isinstance(data.get(_MEMIFY_RUN), dict):
            result._memify_run = dict(data[_MEMIFY_RUN])  # a remote result: the server's JSON
        return result

    def stage(self, name: str) -> StageResult | None:
        """The result of the stage called ``name`` (None for an unknown name or a running run)."""
        return next((s for s in self.stages if s.stage == name), None)

    def stage_summary(self) -> str:
        """A compact ``name=status`` string, e.g. ``feedback_weights=skipped, ...``."""
        return ", ".join(f"{s.stage}={s.status}" for s in self.stages)

    async def wait(self) -> ImproveResult:
        """Wait for a background run and return this result, now finished. A foreground result
        is returned as it is. Raises what the run raised (e.g. a persist_session_qa failure)."""
        if self._task is not None:
            await asyncio.shield(self._task)
        return self

    def finish(
        self, stages: list[StageResult], *, memify_run: dict[Any, Any] | None = None
    ) -> None:
        """Fill in the stages and derive ``status`` (used by the runner); ``memify_run`` is the
        raw return of the ``custom_tasks`` stage's first pass."""
        self.stages = list(stages)
        self._memify_run = dict(memify_run or {})
        self.status = run_status(stages)

    @property
    def memify_run(self) -> dict[str, Any]:
        """Deprecated: the raw return of the ``custom_tasks`` stage's first pass
        (``{dataset_id: PipelineRunCompleted | PipelineRunErrored}``, as memify() returns), or
        ``{}`` when no custom tasks ran."""
        warnings.warn(
            "ImproveResult.memify_run is deprecated; read result.stages instead",
            FutureWarning,
            stacklevel=2,
        )
        return dict(self._memify_run)


def run_status(stages: list[StageResult]) -> RunStatus:
    """A finished run's status from its stages: ``errored`` if any stage errored, ``skipped``
    if every stage was skipped, ``completed`` otherwise."""
    if any(s.status == "errored" for s in stages):
        return "errored"
    if stages and all(s.status == "skipped" for s in stages):
        return "skipped"
    return "completed"


class ImproveRun(BaseModel):
    """One past improve() run of a dataset, as recorded (``list_improve_runs()``).

    ``status`` is ``running`` while it runs, then :func:`run_status` of its stages; a run that
    was cancelled or whose process died is ``errored`` with ``error`` saying why and no stages.
    """

    model_config = ConfigDict(frozen=True)

    run_id: UUID
    dataset_id: UUID
    dataset_name: str
    status: RunStatus
    started_at: datetime
    finished_at: datetime | None = None
    error: str | None = None
    stages: list[StageResult] = Field(default_factory=list)


def _jsonable(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value
