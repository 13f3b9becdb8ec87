"""``cognee.modules.pipelines.operations``."""

from .run_tasks import run_tasks

__all__ = ["run_tasks"]
