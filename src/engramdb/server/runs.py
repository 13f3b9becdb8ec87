"""Background runs of one server: ``run_in_background`` remember / improve calls.

The registry maps a run id to the task the verb started and to the user who started it; only
that user can read the run's status (another user gets the same 404 as for an unknown id).
Runs live in the server process: a restart forgets them (the data they wrote stays, and each
ingestion is recorded as a pipeline run in the store). Finished runs are kept for
``keep_finished`` runs, oldest dropped first.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel

from engramdb.errors import EngramError, NotFoundError

__all__ = ["Run", "RunRegistry", "RunStatusOut"]

RunKind = Literal["remember", "improve", "cognify"]


class RunStatusOut(BaseModel):
    """What ``GET /api/v1/runs/{run_id}`` answers."""

    run_id: UUID
    kind: RunKind
    status: Literal["running", "completed", "errored", "skipped"]
    started_at: datetime
    finished_at: datetime | None = None
    #: The verb's result (a RememberResult or ImproveResult document) once known.
    result: dict[str, Any] | None = None
    #: The problem document of a run that raised.
    error: dict[str, Any] | None = None


@dataclass(slots=True)
class Run:
    run_id: UUID
    kind: RunKind
    user_id: UUID
    task: asyncio.Task[Any]
    pending: BaseModel
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    finished_at: datetime | None = None
    cleanup: Callable[[], None] | None = None


class RunRegistry:
    """The background runs of one app (kept on ``app.state``, not in a module global)."""

    def __init__(self, keep_finished: int = 1000) -> None:
        self._runs: OrderedDict[UUID, Run] = OrderedDict()
        self._keep = keep_finished

    def add(
        self,
        kind: RunKind,
        user_id: UUID,
        task: asyncio.Task[Any],
        pending: BaseModel,
        *,
        cleanup: Callable[[], None] | None = None,
        run_id: uuid.UUID | None = None,
    ) -> Run:
        """Track ``task``; its id is ``run_id`` (the run's own, when it announced one) or new."""
        run = Run(run_id or uuid.uuid4(), kind, user_id, task, pending, cleanup=cleanup)
        self._runs[run.run_id] = run
        task.add_done_callback(lambda _t: self._finished(run))
        self._prune()
        return run

    def _finished(self, run: Run) -> None:
        run.finished_at = datetime.now(UTC)
        if run.cleanup is not None:
            run.cleanup()
            run.cleanup = None
        if not run.task.cancelled():
            run.task.exception()  # mark retrieved: the status endpoint reports it

    def _prune(self) -> None:
        finished = [rid for rid, r in self._runs.items() if r.task.done()]
        for rid in finished[: max(0, len(finished) - self._keep)]:
            del self._runs[rid]

    def get(self, run_id: UUID, user_id: UUID) -> Run:
        """The run, if ``user_id`` started it; NotFoundError otherwise (unknown or not theirs)."""
        run = self._runs.get(run_id)
        if run is None or run.user_id != user_id:
            raise NotFoundError(f"no background run {run_id} of yours")
        return run

    def status(self, run: Run) -> RunStatusOut:
        """The run's status document."""
        out = RunStatusOut(
            run_id=run.run_id,
            kind=run.kind,
            status="running",
            started_at=run.started_at,
            finished_at=run.finished_at,
            result=run.pending.model_dump(mode="json"),
        )
        if not run.task.done():
            return out
        if run.task.cancelled():
            error = {"title": "Cancelled", "status": 500, "detail": "the run was cancelled"}
            return out.model_copy(update={"status": "errored", "error": error})
        exc = run.task.exception()
        if exc is not None:
            if isinstance(exc, EngramError):
                problem = exc.to_problem()
            else:
                problem = {"title": "InternalServerError", "status": 500, "detail": "see log"}
            return out.model_copy(update={"status": "errored", "error": problem})
        final = run.task.result()
        dumped = final.model_dump(mode="json") if isinstance(final, BaseModel) else None
        status = dumped.get("status", "completed") if dumped else "completed"
        if status not in ("completed", "errored", "skipped"):
            status = "completed"
        return out.model_copy(update={"status": status, "result": dumped})

    async def shutdown(self) -> None:
        """Cancel the runs still going (server shutdown)."""
        for run in self._runs.values():
            if not run.task.done():
                run.task.cancel()
        pending = [r.task for r in self._runs.values() if not r.task.done()]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
