"""``cognee.pipelines``: ``Drop``, ``Task``, ``task``, ``run_tasks`` and the lightweight
``run_pipeline`` over ``task()`` steps."""

from engramdb.pipelines import Drop, Task, run_tasks, task
from engramdb.pipelines import run_steps as run_pipeline

__all__ = ["Drop", "Task", "run_pipeline", "run_tasks", "task"]
