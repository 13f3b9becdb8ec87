"""``cognee.modules.pipelines.operations.run_tasks``."""

from engramdb.pipelines import run_tasks

__all__ = ["run_tasks"]
