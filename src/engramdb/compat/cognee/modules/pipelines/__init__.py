"""``cognee.modules.pipelines``: ``Task``, ``run_tasks`` and the pipeline orchestrator
``run_pipeline`` (see :mod:`engramdb.pipelines`)."""

from engramdb.pipelines import Task, run_pipeline, run_tasks

__all__ = ["Task", "run_pipeline", "run_tasks"]
