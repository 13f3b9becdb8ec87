"""list_improve_runs(): the improve runs recorded for a dataset, with their stages."""

from __future__ import annotations

from engramdb.access.permissions import datasets_for_read
from engramdb.engine import Engine
from engramdb.improvement.runner import IMPROVE_PIPELINE
from engramdb.models.improve import ImproveRun, run_status
from engramdb.models.improve import RunStatus as RunStatusName
from engramdb.models.records import Dataset, PipelineRun, RunStatus
from engramdb.models.requests import ListImproveRunsRequest

__all__ = ["list_improve_runs"]


async def list_improve_runs(engine: Engine, request: ListImproveRunsRequest) -> list[ImproveRun]:
    """The improve runs of one dataset, or of every dataset you can read, newest first (at
    most ``limit``), each with the stage results it recorded.

    A name means one of your own datasets (DatasetNotFoundError otherwise); a UUID may name a
    dataset shared with you and needs read permission (PermissionDeniedError otherwise, the
    same for an unknown UUID). A run still going is ``running`` with no stages yet.
    """
    if not await engine.database_exists():
        return []
    owner = await engine.resolve_user(request.user)
    datasets = await datasets_for_read(engine.store, owner, request.dataset)
    by_id = {d.id: d for d in datasets}
    runs = await engine.store.list_runs(list(by_id))
    improves = [r for r in runs if r.pipeline == IMPROVE_PIPELINE][: request.limit]
    return [_run(r, by_id[r.dataset_id]) for r in improves]


def _run(run: PipelineRun, dataset: Dataset) -> ImproveRun:
    status: RunStatusName
    if run.status is RunStatus.STARTED:
        status = "running"
    elif run.stages:
        status = run_status(run.stages)
    else:  # cancelled, or its process died: recorded without stages
        status = "errored"
    error = None
    if run.error_message or run.error_class:
        error = ": ".join(p for p in (run.error_class, run.error_message) if p)
    return ImproveRun(
        run_id=run.id,
        dataset_id=run.dataset_id,
        dataset_name=dataset.name,
        status=status,
        started_at=run.started_at,
        finished_at=run.finished_at,
        error=error,
        stages=run.stages,
    )
