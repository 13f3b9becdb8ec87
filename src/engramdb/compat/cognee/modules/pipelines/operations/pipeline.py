"""``cognee.modules.pipelines.operations.pipeline``: the pipeline orchestrator."""

from engramdb.pipelines import run_pipeline

__all__ = ["run_pipeline"]
