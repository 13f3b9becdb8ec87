"""``cognee.modules.pipelines.operations``."""

from engramdb.pipelines import run_tasks

__all__ = ["run_tasks"]
