"""``cognee.modules.pipelines.tasks.task``: ``Task`` and the ``task()`` step decorator."""

from engramdb.pipelines.task import BoundTask, Task, TaskSpec, task, task_summary

__all__ = ["BoundTask", "Task", "TaskSpec", "task", "task_summary"]
