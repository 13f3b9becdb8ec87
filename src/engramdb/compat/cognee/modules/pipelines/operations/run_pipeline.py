"""``cognee.modules.pipelines.operations.run_pipeline``: the lightweight ``run_pipeline`` over
``task()`` steps (a list of results; no run record)."""

from engramdb.pipelines import run_steps as run_pipeline

__all__ = ["run_pipeline"]
