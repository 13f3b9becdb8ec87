"""Custom pipelines: :class:`Task` steps chained by :func:`run_tasks` / :func:`run_pipeline` /
:func:`run_custom_pipeline` (cognee's pipeline API), ``task()`` steps run by :func:`run_steps`,
and :func:`add_data_points` as a step. See :mod:`engramdb.pipelines.runner`."""

from engramdb.pipelines.run_info import (
    PipelineContext,
    PipelineRunAlreadyCompleted,
    PipelineRunCompleted,
    PipelineRunErrored,
    PipelineRunInfo,
    PipelineRunStarted,
    PipelineRunYield,
)
from engramdb.pipelines.runner import (
    current_context,
    memify,
    run_custom_pipeline,
    run_pipeline,
    run_steps,
    run_tasks,
)
from engramdb.pipelines.storage import add_data_points, index_graph_edges
from engramdb.pipelines.task import BoundTask, Drop, Task, TaskSpec, task, task_summary

__all__ = [
    "BoundTask",
    "Drop",
    "PipelineContext",
    "PipelineRunAlreadyCompleted",
    "PipelineRunCompleted",
    "PipelineRunErrored",
    "PipelineRunInfo",
    "PipelineRunStarted",
    "PipelineRunYield",
    "Task",
    "TaskSpec",
    "add_data_points",
    "current_context",
    "index_graph_edges",
    "memify",
    "run_custom_pipeline",
    "run_pipeline",
    "run_steps",
    "run_tasks",
    "task",
    "task_summary",
]
