"""The ``custom_tasks`` stage: improve()'s deprecated ``extraction_tasks``/``enrichment_tasks``.

When a call passes either list (None and an empty list count as not given), one more stage,
``custom_tasks``, is appended after the nine registry stages and runs those tasks once, as
memify() runs them (:func:`engramdb.pipelines.runner.memify_runs`: one ``memify_pipeline``
run, the first task gets ``data`` or the dataset's graph scoped by ``node_name``/``node_type``).
Its raw return — ``{dataset_id: PipelineRunCompleted | PipelineRunErrored}`` — becomes
``ImproveResult.memify_run``.

The stage runs inside the improve run, which holds the dataset's lock; a task that writes
through ``add_data_points`` (or any verb taking that lock) would wait on it forever, so the
stage lends the lock to its tasks (:mod:`engramdb.storage.lending`): their writes run under
the improve's own lock, and other writers still queue behind the whole run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engramdb.improvement.context import ImproveContext, StageOutcome
from engramdb.pipelines.run_info import PipelineRunErrored
from engramdb.pipelines.task import Task
from engramdb.storage.lending import dataset_lock, lend_locks

__all__ = ["CUSTOM_TASKS_STAGE", "CustomTasks", "custom_tasks_of", "run_custom_tasks"]

#: The stage's name in ``ImproveResult.stages`` (after the nine registry stages).
CUSTOM_TASKS_STAGE = "custom_tasks"


@dataclass(frozen=True, slots=True)
class CustomTasks:
    """The custom tasks of one improve call and what scopes their input."""

    tasks: tuple[Task, ...]
    data: Any = None
    node_name: tuple[str, ...] | None = None
    node_type: Any = None


def custom_tasks_of(
    extraction_tasks: Sequence[Task | str] | None,
    enrichment_tasks: Sequence[Task | str] | None,
    *,
    data: Any = None,
    node_name: Sequence[str] | None = None,
    node_type: Any = None,
    vector_db_config: object = None,
    graph_db_config: object = None,
) -> CustomTasks | None:
    """The call's custom tasks (extraction first), checked before any stage runs; None when
    neither list holds a task (the scoping options are then ignored)."""
    from engramdb.pipelines.runner import refuse_store_configs, resolve_memify_tasks

    tasks = (*resolve_memify_tasks(extraction_tasks), *resolve_memify_tasks(enrichment_tasks))
    if not tasks:
        return None
    refuse_store_configs(vector_db_config, graph_db_config)
    names = None if not node_name else tuple(node_name)
    return CustomTasks(tasks=tasks, data=data, node_name=names, node_type=node_type)


async def run_custom_tasks(ctx: ImproveContext) -> StageOutcome:
    """Run the call's custom tasks once over the dataset, under the improve's lock."""
    from engramdb.pipelines.runner import memify_runs

    custom = ctx.options.custom
    assert custom is not None  # the runner appends this stage only with custom tasks
    with lend_locks(ctx.store, dataset_lock(ctx.dataset.id)):
        runs = await memify_runs(
            ctx.engine,
            ctx.user,
            ctx.dataset,
            list(custom.tasks),
            data=custom.data,
            node_name=custom.node_name,
            node_type=custom.node_type,
        )
        events = [event async for event in runs]
    last = events[-1]
    if ctx.memify_run is None:  # the first pass's raw return
        ctx.memify_run = {last.dataset_id: last}
    items = len(last.data_ingestion_info or [])
    counts = {"tasks": len(custom.tasks), "data_items": items}
    if isinstance(last, PipelineRunErrored):
        return StageOutcome(
            status="errored", reason=f"{last.error_class}: {last.error_message}", counts=counts
        )
    return StageOutcome(counts=counts)
