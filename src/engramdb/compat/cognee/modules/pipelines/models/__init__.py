"""``cognee.modules.pipelines.models``: the run events and ``PipelineContext``."""

from engramdb.pipelines.run_info import (
    PipelineContext,
    PipelineRunAlreadyCompleted,
    PipelineRunCompleted,
    PipelineRunErrored,
    PipelineRunInfo,
    PipelineRunStarted,
    PipelineRunYield,
)

__all__ = [
    "PipelineContext",
    "PipelineRunAlreadyCompleted",
    "PipelineRunCompleted",
    "PipelineRunErrored",
    "PipelineRunInfo",
    "PipelineRunStarted",
    "PipelineRunYield",
]
